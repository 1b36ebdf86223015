@preconcurrency import Glibc
import Match
import Synchronization

/// Keeps a match on disk while it is played: saves after every committed
/// change, adoption and ending, so a crash at any instant leaves the last
/// committed state (see `MatchStore` and docs/STORE.md).
///
/// Every write runs on the recorder's `DurableWriter`, in the order asked
/// for, never on the caller's thread: the first save writes the match file
/// and starts its journal; each later change is one framed record appended
/// to the journal and one `fdatasync`; the end (and a journal grown past
/// `MatchJournal.compactionThreshold`) is folded back into the match file.
///
/// Ways in, all safe to mix: `follow` queues a save for each event of the
/// controller's stream; `saveBeforeRevealing(_:then:)` queues one and calls
/// back once it is on disk — the host sends a CONFIRM or push from that
/// callback (write-ahead), so its file is never behind what the guest has
/// seen; `saveSoon` queues one and returns; `saveNow` waits for it. A state
/// never replaces a newer one (committed sequences only grow), so a late
/// event from the stream cannot undo a write-ahead save, and saving the same
/// state twice writes once.
///
/// Failures to save are collected in `problems` and passed to the callback,
/// so the host never sends a frame for a state it failed to save (it pauses
/// the match instead, docs/PROTOCOL.md "Endings").
///
/// A final class with a mutex rather than an actor: saves are asked for from
/// synchronous participant callbacks, which must not wait for an actor. The
/// mutex is never held across a write.
public final class MatchRecorder: Sendable {
    private struct Books {
        var record: StoredMatch
        var saved: (sequence: UInt32, hash: UInt64, phase: StoredMatch.Phase)?
        var problems: [String] = []
        /// The store already holds this match as ended (checked before the first write): never overwritten.
        var endedOnDisk: (checked: Bool, hash: UInt64?) = (false, nil)
    }

    private let store: MatchStore
    private let books: Mutex<Books>
    /// The open journal; touched only by jobs on `writer`, one at a time.
    private let journal = WriterOwned<JournalFile?>(nil)
    /// Where every write runs.
    private let writer: DurableWriter
    /// The writer is this recorder's own (its thread ends with the recorder).
    private let ownsWriter: Bool
    /// This process's hold on the match while the recorder lives (see `MatchClaim`).
    private let claim: MatchClaim?

    /// A recorder for the match in `record`; nothing is written until the first
    /// save. It claims the match's lock for its lifetime, so the store shows the match in play.
    /// Its writes run on `writer` (by default one of its own, with its own thread).
    public init(store: MatchStore, record: StoredMatch, writer: DurableWriter? = nil) {
        self.store = store
        self.writer = writer ?? DurableWriter()
        self.ownsWriter = writer == nil
        var record = record
        record.writerPID = getpid()
        self.books = Mutex(Books(record: record))
        self.claim = try? store.claim(record)
    }

    deinit {
        // Every job holds the recorder, so none is left when it goes.
        if ownsWriter { writer.finish() }
    }

    /// Save errors met so far, newest last.
    public var problems: [String] { books.withLock { $0.problems } }

    /// The last record written (or being written).
    public var current: StoredMatch { books.withLock { $0.record } }

    /// Saves on every event of `controller` until its stream ends (each save
    /// queued on the writer; the task never waits for the disk). Subscribe before the controller starts.
    ///
    /// With `shown`, every event is also handed on to it, in the controller's
    /// order, once what it shows is on disk: an event that carries a state to
    /// save (the start, a commit, an adoption, the end) after that save's
    /// sync, every other event after the saves asked for before it. This is
    /// the one place that decides when a side may show something: a screen or
    /// `--json` reading `shown` never shows a move that a crash could take
    /// back. A save that fails is not hidden: once its write has failed, the
    /// event is shown with a notice naming what could not be saved (once per
    /// run of failures). `shown` is finished once the controller's stream has
    /// ended and its last saves have called back.
    public func follow(_ controller: MatchController,
                       showing shown: MatchEventFeed? = nil) async -> Task<Void, Never> {
        let gate = WriterOwned(ShownGate())
        // Each event is handed to the writer inline, on the thread that
        // performs the controller's step: no task wakes per event.
        let (ended, end) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await controller.observe({ event in self.handle(event, shown: shown, gate: gate) }, ended: { end.finish() })
        return Task {
            for await _ in ended {}
            // The match is over: its last saves are on disk when the task ends.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                self.writer.submit {
                    self.writer.atRoundEnd {
                        shown?.finish()
                        done.resume()
                    }
                }
            }
        }
    }

    /// What a saved event's save is: the state and why it is saved; nil for an event that saves nothing.
    private static func save(for event: MatchEvent) -> (MatchState, StoredMatch.Phase.Cause)? {
        switch event {
        case .started(let state), .committed(_, let state), .adopted(let state), .rolledBack(_, _, let state), .ended(let state):
            (state, .changed)
        case .failed(let failure, let state):
            (state, .stopped(resumable: failure.isResumable))
        case .turnBegan, .awaitingConfirmation, .notice, .presence, .talk, .talkRefused, .standIn:  // talk is never saved
            nil
        }
    }

    private func handle(_ event: MatchEvent, shown: MatchEventFeed?, gate: WriterOwned<ShownGate>) {
        let save = Self.save(for: event)
        guard let shown else {
            if let (state, cause) = save { enqueue(state, after: cause) }
            return
        }
        writer.submit {
            guard let (state, cause) = save else { return self.writer.atRoundEnd { shown.yield(event) } }
            self.write(state, after: cause) { failure in
                for event in gate.value.saved(event, failure: failure) { shown.yield(event) }
            }
        }
    }

    /// Saves `state` and waits until it is on disk; true when it is. Blocks the
    /// calling thread for the write: not for the host's turn path (`saveBeforeRevealing(_:then:)`).
    @discardableResult
    public func saveNow(_ state: MatchState) -> Bool {
        waitForWrite(state, after: .changed) == nil
    }

    /// Writes `state` on the writer and waits until its round has ended; the failure's text, or nil.
    private func waitForWrite(_ state: MatchState, after cause: StoredMatch.Phase.Cause, force: Bool = false) -> String? {
        let result = Mutex<String?>(nil)
        writer.performAndWaitForRound {
            self.write(state, after: cause, force: force) { failure in result.withLock { $0 = failure } }
        }
        return result.withLock { $0 }
    }

    /// Queues `state` to be saved after everything asked for before, and returns at once.
    public func saveSoon(_ state: MatchState) {
        enqueue(state, after: .changed)
    }

    /// Saves `state` before any frame that reveals it leaves (write-ahead):
    /// `then` is called on the writer once it is on disk (nil), or with why
    /// it is not, so the frame is held back. Returns at once.
    public func saveBeforeRevealing(_ state: MatchState, then: @escaping @Sendable (SaveFailure?) -> Void) {
        writer.submit {
            self.write(state, after: .changed) { then($0.map { SaveFailure(description: $0) }) }
        }
    }

    /// `saveBeforeRevealing(_:then:)`, waiting for the write; throws when it is not on disk.
    public func saveBeforeRevealing(_ state: MatchState) throws(SaveFailure) {
        if let failure = waitForWrite(state, after: .changed) {
            throw SaveFailure(description: failure)
        }
    }

    /// Saves that this side left for now (e.g. the terminal went away): the
    /// match is interrupted unless it is over. Waits for the write (the process
    /// is about to go), blocking the calling thread: for synchronous callers;
    /// async ones use the async overload.
    public func markInterrupted() {
        guard let state = interruptedState() else { return }
        _ = waitForWrite(state, after: .leftForNow, force: true)
    }

    /// Marks the match as interrupted and saves it, returning once it is on
    /// disk (or failed) without holding a thread of the cooperative pool
    /// meanwhile: the write runs on the writer, and the caller is resumed from there.
    public func markInterrupted() async {
        guard let state = interruptedState() else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            writer.submit {
                self.write(state, after: .leftForNow, force: true) { _ in done.resume() }
            }
        }
    }

    /// The state to save as interrupted; nil once the match has ended.
    private func interruptedState() -> MatchState? {
        let state = books.withLock { $0.record.state }
        return state.isEnded ? nil : state
    }

    /// Updates where the peer is (a guest that reached its host at a new address) for the next save.
    public func setPeerAddress(_ address: String) {
        books.withLock { $0.record.peerAddress = address }
    }

    private func enqueue(_ state: MatchState, after cause: StoredMatch.Phase.Cause) {
        writer.submit { self.write(state, after: cause) { _ in } }
    }

    /// On the writer: writes `state` with the phase `cause` gives (`Phase.toSave`), unless a newer
    /// or equal one is on disk; `then` gets the failure's text, or nil, once the write's round has
    /// ended (its sync done: with group commit, one sync for the round), in the order asked for.
    private func write(_ state: MatchState, after cause: StoredMatch.Phase.Cause, force: Bool = false,
                       then: @escaping (String?) -> Void) {
        if !books.withLock({ $0.endedOnDisk.checked }) {
            let existing = try? store.load(path: store.path(for: books.withLock { $0.record }))
            let ended = existing?.phase == .ended && existing?.state.matchID == state.matchID
            books.withLock { $0.endedOnDisk = (true, ended ? existing?.state.stateHash : nil) }
        }
        let decision = books.withLock { books -> Result<StoredMatch?, SaveFailure> in
            let phase = StoredMatch.Phase.toSave(state, after: cause, lastSaved: books.saved.map { ($0.phase, $0.sequence) })
            if let saved = books.saved, !force {
                // Committed sequences only grow; an older state is a late event.
                if state.sequence < saved.sequence { return .success(nil) }
                if state.sequence == saved.sequence, state.stateHash == saved.hash, phase == saved.phase { return .success(nil) }
            }
            if let final = books.endedOnDisk.hash {
                // A finished match's record is final: a host that reuses its id cannot rewrite it.
                let same = state.stateHash == final && phase == .ended
                let note = "match \(state.matchID.short) is over and its record is kept as it is"
                if same { return .success(nil) }
                if !books.problems.contains(note) { books.problems.append(note) }
                return .failure(SaveFailure(description: note))
            }
            books.record.state = state
            books.record.phase = phase
            books.record.lastActivity = wallClockMilliseconds()
            return .success(books.record)
        }
        let record: StoredMatch
        switch decision {
        case .failure(let failure): return writer.atRoundEnd { then(failure.description) }
        case .success(nil): return writer.atRoundEnd { then(nil) }
        case .success(let chosen?): record = chosen
        }
        durablyWrite(record) { error in
            if let error {
                self.books.withLock { $0.problems.append("\(error)") }
                then("\(error)")
            } else {
                // Counted as saved only once its sync returned: a failed one is written again next time.
                self.books.withLock { $0.saved = (state.sequence, state.stateHash, record.phase) }
                then(nil)
            }
        }
    }

    /// On the writer: one append to the journal, or the match file written
    /// whole (first save, a journal grown large or broken). The end is one
    /// append too, and is then folded into the match file by a job of its
    /// own, after whoever waits for the end has been called back.
    private func durablyWrite(_ record: StoredMatch, then: @escaping (StoreError?) -> Void) {
        let frame = MatchJournal.frame(record)
        if let open = journal.value, !open.broken, open.length + frame.count <= MatchJournal.compactionThreshold {
            do { try open.writeFrame(frame) } catch {
                return writer.atRoundEnd { then(error) }
            }
            writer.syncAtRoundEnd(open) { error in
                then(error)
                // The end is on disk and its waiter called back: fold it into the match file.
                if error == nil, record.phase == .ended { self.compact(record) }
            }
            return
        }
        // The journal is about to be replaced: what this round wrote to it is synced first.
        if let open = journal.value, open.hasPending { writer.syncEarly(open) }
        do {
            try writeWhole(record)
            writer.atRoundEnd { then(nil) }
        } catch {
            writer.atRoundEnd { then(error) }
        }
    }

    /// On the writer: the end, already in the journal, becomes the match file.
    private func compact(_ record: StoredMatch) {
        // On failure the journal still holds the end, synced: nothing is lost,
        // and every load reads the end there; there is nothing to report.
        try? writeWhole(record)
    }

    /// On the writer: the match file written whole, then a fresh journal (or none, at the end).
    private func writeWhole(_ record: StoredMatch) throws(StoreError) {
        let matchPath = store.path(for: record)
        let journalPath = MatchStore.journalPath(forMatchFile: matchPath)
        journal.value = nil
        let bytes = try store.writeMatchFile(record)
        if record.phase == .ended {
            // Final: the match file holds it all; a journal left by a crash here names the old file and is ignored.
            unlink(journalPath)
            return
        }
        journal.value = try JournalFile.start(path: journalPath, directory: store.directory,
                                              base: MatchJournal.base(ofMatchFile: bytes))
    }
}

/// A value touched only by jobs on one `DurableWriter`, which run one at a
/// time: the writer's order is its lock.
final class WriterOwned<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// What a screen is told as saves call back, decided on the recorder's
/// writer (`MatchRecorder.follow(_:showing:)`).
struct ShownGate {
    /// The last save failed, and the screen was told.
    private var failing = false

    /// `event`, whose save called back with `failure` (nil: on disk), and
    /// what to tell with it: the first failure of a run of them is said once,
    /// naming what was not saved; the event is shown all the same, since the
    /// match goes on in memory (offline), or pauses until a save succeeds (a
    /// host), and a frozen screen would hide both.
    mutating func saved(_ event: MatchEvent, failure: String?) -> [MatchEvent] {
        guard let failure else {
            failing = false
            return [event]
        }
        defer { failing = true }
        if failing { return [event] }
        let what = switch event {
        case .committed(let change, let state): Self.describe(change, in: state)
        default: "the match"
        }
        return [event, .notice("could not save \(what): \(failure)")]
    }

    /// "move 13", "seat 2's quit", "seat 1's time running out": what was not saved.
    private static func describe(_ change: MatchChange, in state: MatchState) -> String {
        switch change {
        case .move: "move \(state.moves.count)"
        case .quit(let seat): "seat \(seat + 1)'s quit"
        case .timeExpired(let seat): "seat \(seat + 1)'s time running out"
        }
    }
}

/// A state that could not be written (full disk, read-only store, no descriptors).
public struct SaveFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// What failed, naming the file and the system's reason.
    public var description: String
}


/// This installation's stable player id, kept in the store's parent directory.
public enum PlayerIdentity {
    /// Loads the id from `directory/identity`, creating it on first use; a
    /// damaged or unwritable file gives a fresh id for this run instead of failing.
    public static func load(directory: String) -> PlayerID {
        let path = directory + "/identity"
        if let text = readSmallFile(path), let id = PlayerID(hex: text.trimmingCharacters()) { return id }
        let id = PlayerID.random()
        _ = mkdir(directory, 0o700)
        let fd = open(path + ".\(getpid()).tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd >= 0 {
            let text = Array((id.hex + "\n").utf8)
            let written = text.withUnsafeBytes { write(fd, $0.baseAddress, text.count) }
            _ = fsync(fd)
            close(fd)
            if written == text.count { rename(path + ".\(getpid()).tmp", path) } else { unlink(path + ".\(getpid()).tmp") }
        }
        return id
    }

    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 128) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        String(unicodeScalars.filter { !$0.properties.isWhitespace })
    }
}
