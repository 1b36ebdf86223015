@preconcurrency import Glibc
import Match
import Synchronization

/// Keeps a match on disk while it is played: saves after every committed
/// change, adoption and ending, so a crash at any instant leaves the last
/// committed state (see `MatchStore.save`).
///
/// Two ways in, both safe to mix: `follow` saves from the controller's event
/// stream, and `saveNow` saves synchronously from a participant's callback —
/// the host calls it before a CONFIRM or push leaves (write-ahead), so its
/// file is never behind what the guest has seen. A state never replaces a
/// newer one (committed sequences only grow), so a late event from the
/// stream cannot undo a write-ahead save, and saving the same state twice
/// writes once.
///
/// Failures to save are collected in `problems`. `saveBeforeRevealing`
/// also throws them, so the host never sends a frame for a state it failed
/// to save (it pauses the match instead, docs/PROTOCOL.md "Endings").
///
/// A final class with a mutex rather than an actor: `saveNow` is called from
/// synchronous participant callbacks, which must not wait for an actor.
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
    /// This process's hold on the match while the recorder lives (see `MatchClaim`).
    private let claim: MatchClaim?

    /// A recorder for the match in `record`; nothing is written until the first
    /// save. It claims the match's lock for its lifetime, so the store shows the match in play.
    public init(store: MatchStore, record: StoredMatch) {
        self.store = store
        var record = record
        record.writerPID = getpid()
        self.books = Mutex(Books(record: record))
        self.claim = try? store.claim(record)
    }

    /// Save errors met so far, newest last.
    public var problems: [String] { books.withLock { $0.problems } }

    /// The last record written (or to be written).
    public var current: StoredMatch { books.withLock { $0.record } }

    /// Saves on every event of `controller` until its stream ends. Subscribe before the controller starts.
    public func follow(_ controller: MatchController) async -> Task<Void, Never> {
        let events = await controller.events()
        return Task {
            for await event in events { self.handle(event) }
        }
    }

    private func handle(_ event: MatchEvent) {
        switch event {
        case .started(let state), .committed(_, let state), .adopted(let state), .rolledBack(_, _, let state):
            save(state, phase: .toSave(state))
        case .ended(let state):
            save(state, phase: .ended)
        case .failed(let failure, let state):
            save(state, phase: .toSave(state, resumableFailure: failure.isResumable))
        case .turnBegan, .awaitingConfirmation, .notice:
            break
        }
    }

    /// Saves `state` now, on the caller's thread; true when it is on disk.
    @discardableResult
    public func saveNow(_ state: MatchState) -> Bool {
        save(state, phase: .toSave(state)) == nil
    }

    /// Saves `state` now, before any frame that reveals it leaves (write-ahead);
    /// throws when it is not on disk, so the frame is held back.
    public func saveBeforeRevealing(_ state: MatchState) throws(SaveFailure) {
        if let failure = save(state, phase: .toSave(state)) { throw SaveFailure(description: failure) }
    }

    /// Marks the match as interrupted (e.g. the terminal went away) and saves it.
    public func markInterrupted() {
        let state = books.withLock { $0.record.state }
        guard !state.isEnded else { return }
        save(state, phase: .interrupted, force: true)
    }

    /// Updates where the peer is (a guest that reached its host at a new address) for the next save.
    public func setPeerAddress(_ address: String) {
        books.withLock { $0.record.peerAddress = address }
    }

    /// Writes `state` unless a newer or equal one is on disk; the failure's text, or nil.
    @discardableResult
    private func save(_ state: MatchState, phase: StoredMatch.Phase, force: Bool = false) -> String? {
        books.withLock { books -> String? in
            if let saved = books.saved, !force {
                // Committed sequences only grow; an older state is a late event.
                if state.sequence < saved.sequence { return nil }
                if state.sequence == saved.sequence, state.stateHash == saved.hash, phase == saved.phase { return nil }
                // Once interrupted, only a newer state (the match went on) makes it "playing" again.
                if saved.phase == .interrupted, phase == .playing, state.sequence == saved.sequence { return nil }
            }
            if !books.endedOnDisk.checked {
                let existing = try? store.load(path: store.path(for: books.record))
                let ended = existing?.phase == .ended && existing?.state.matchID == state.matchID
                books.endedOnDisk = (true, ended ? existing?.state.stateHash : nil)
            }
            if let final = books.endedOnDisk.hash {
                // A finished match's record is final: a host that reuses its id cannot rewrite it.
                let same = state.stateHash == final && phase == .ended
                let note = "match \(state.matchID.short) is over and its record is kept as it is"
                if same { return nil }
                if !books.problems.contains(note) { books.problems.append(note) }
                return note
            }
            books.record.state = state
            books.record.phase = phase
            books.record.lastActivity = wallClockMilliseconds()
            do {
                try store.save(books.record)
                books.saved = (state.sequence, state.stateHash, phase)
                return nil
            } catch {
                books.problems.append("\(error)")
                return "\(error)"
            }
        }
    }
}

/// A state that could not be written (full disk, read-only store, no descriptors).
public struct SaveFailure: Error, Hashable, Sendable, CustomStringConvertible {
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
