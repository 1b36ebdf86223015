import Match
import Secure
import Session
import Store
import Synchronization

/// Durable play on either side of a LAN match, decided once for the front
/// door and the `parlor` command: a match is on disk before anything of it is
/// shown or sent, and every committed state is saved before the frames that
/// reveal it leave (docs/STORE.md, "Nothing shown before it is saved").
extension MatchRecorder {
    /// Keeps the host's side of `hosted`: each committed state is saved on this
    /// recorder's writer before the frames that reveal it (Session's `saveBeforeRevealing`).
    public func keep(_ hosted: HostedMatch) {
        hosted.saveBeforeRevealing { state, then in self.saveBeforeRevealing(state) { then($0) } }
    }

    /// Keeps the guest's side of `joined`: states queued on this recorder's
    /// writer, each acknowledged to the host once on disk (Session's `saveBeforeAcknowledging`).
    public func keep(_ joined: JoinedMatch) {
        joined.saveBeforeAcknowledging { state, done in self.saveBeforeRevealing(state) { _ in done() } }
    }
}

/// Recorders made by a match's first save, before anything of it is shown
/// or sent, by match id; the match's play goes on with its own (`take`).
/// The guest saves here before it says it joined (or a rematch), the host
/// before its WELCOME (`SavedBeforeWelcome`).
public final class FirstSaves: Sendable {
    private let made = Mutex<[MatchID: MatchRecorder]>([:])
    private let store: MatchStore

    /// First saves into `store`.
    public init(store: MatchStore) {
        self.store = store
    }

    /// Saves `record` as its match starts, with a recorder writing on `writer`
    /// (nil: a writer of its own); nil once it is on disk, else why not.
    public func save(_ record: StoredMatch, writer: DurableWriter? = nil) async -> SaveFailure? {
        let recorder = MatchRecorder(store: store, record: record, writer: writer)
        let failure = await withCheckedContinuation { (done: CheckedContinuation<SaveFailure?, Never>) in
            recorder.saveBeforeRevealing(record.state) { done.resume(returning: $0) }
        }
        if failure == nil { made.withLock { $0[record.state.matchID] = recorder } }
        return failure
    }

    /// Saves the guest's side of `joined` as it starts (the host reached at
    /// `peerAddress`), before anything of it is shown: a guest killed after
    /// saying it joined keeps a record that resuming finishes. When it cannot
    /// be saved, the match is left for now (the host keeps it) and this
    /// throws. Returns the record; `take` gives its recorder.
    public func saveJoined(_ joined: JoinedMatch, peerAddress: String) async throws(TurnBasedLANError) -> StoredMatch {
        let record = StoredMatch(state: joined.initialState, role: .guest, localSeat: joined.seat,
                                 lastActivity: wallClockMilliseconds(), peerAddress: peerAddress,
                                 seatToken: joined.seatToken.bytes, peerKey: joined.remote.peerKey?.bytes)
        if let failure = await save(record) {
            await joined.remote.leaveForNow("cannot save the match")
            throw .notSaved("\(failure)")
        }
        return record
    }

    /// The recorder that first saved match `id`; nil when none did (a resumed match).
    public func take(_ id: MatchID) -> MatchRecorder? {
        made.withLock { $0.removeValue(forKey: id) }
    }

    /// Removes the record that `save` wrote, for a match that never started
    /// (nobody was welcomed into it).
    /// - Throws: what the store threw; the record is then still there.
    public func forget(_ record: StoredMatch) throws {
        _ = take(record.state.matchID)
        try store.remove(record)
    }
}

/// The host's first save of each new match (a rematch too), made before any
/// guest is welcomed into it (Session's `HostConfiguration.saveBeforeWelcome`),
/// so a host killed at any moment after a WELCOME keeps the record that
/// resuming finishes; the match's play goes on with its recorder (`taken(_:)`).
public final class SavedBeforeWelcome: Sendable {
    private let saves: FirstSaves
    /// What the store keeps of a match as it starts.
    public let record: @Sendable (HostedMatch) -> StoredMatch
    private let writer: @Sendable (HostedMatch) -> DurableWriter?

    /// Saves into `store`; `record` is what it keeps of a match as it starts;
    /// `writer`, where its recorder writes (nil: a writer of its own).
    public init(store: MatchStore, record: @escaping @Sendable (HostedMatch) -> StoredMatch,
                writer: @escaping @Sendable (HostedMatch) -> DurableWriter? = { _ in nil }) {
        self.saves = FirstSaves(store: store)
        self.record = record
        self.writer = writer
    }

    /// Has `configuration`'s host save each match before its WELCOME and
    /// remove the record of one nobody was welcomed into; `forgetFailed`
    /// hears a record that could not be removed.
    public func install(in configuration: inout HostConfiguration,
                        forgetFailed: @escaping @Sendable (MatchID, any Error) -> Void) {
        configuration.saveBeforeWelcome = { await self.save($0) }
        configuration.forgetUnwelcomed = { hosted in
            do { try self.forget(hosted) } catch { forgetFailed(hosted.initialState.matchID, error) }
        }
    }

    /// Saves `hosted` as it starts; nil once it is on disk, else why not.
    public func save(_ hosted: HostedMatch) async -> String? {
        await saves.save(record(hosted), writer: writer(hosted))?.description
    }

    /// Removes the record `save` wrote for `hosted`, which nobody was welcomed
    /// into (the host stopped during that save).
    public func forget(_ hosted: HostedMatch) throws {
        try saves.forget(record(hosted))
    }

    /// The recorder that saved `hosted` before its WELCOME; nil when none did (a resumed match).
    public func taken(_ hosted: HostedMatch) -> MatchRecorder? {
        saves.take(hosted.initialState.matchID)
    }
}

extension SavedHostMatch {
    /// The two-seat match a host saved in `record`, to host again: its state,
    /// the host's seat, the guest's `token`, and the guest's key when the
    /// record kept one (the seat is then taken back only for that key).
    public init(twoSeat record: StoredMatch, token: SeatToken) {
        self.init(state: record.state, hostSeat: record.localSeat, seatToken: token)
        if record.hasPeerKey, let key = try? PlayerPublicKey(bytes: record.peerKey) { guestKeys[1 - record.localSeat] = key }
    }
}
