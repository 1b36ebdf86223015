import Discovery
import Games
import Match
import Session
import Store
import Synchronization

/// A fixed set of durable writer threads that many tables' saves share
/// (`TurnBasedLAN.hostTables`, `parlor host --tables`): a thread per table
/// would cost a thread's memory each, and one for all would make every table
/// wait for every other table's sync. Each match always saves on the same
/// writer, so its saves stay in order.
public final class TableWriters: Sendable {
    /// How many writers a hall has unless told otherwise.
    public static let defaultCount = 16

    private let writers: [DurableWriter]

    /// `count` writer threads (at least one), started now.
    public init(count: Int = TableWriters.defaultCount) {
        writers = (0..<max(1, count)).map { _ in DurableWriter() }
    }

    /// The writer match `id`'s saves run on: the same one whether its
    /// recorder is made for a new table or for a resumed one.
    public func writer(for id: MatchID) -> DurableWriter {
        writers[Int(UInt(bitPattern: id.hashValue) % UInt(writers.count))]
    }

    /// Lets every writer thread end once what it was given is written.
    public func finish() {
        for writer in writers { writer.finish() }
    }
}

/// One table of a `TurnBasedHall`: its number and its match.
public struct TurnBasedTable<G: Game>: Sendable {
    /// The table's number, 1 to the hall's limit; a freed number is given out again.
    public let number: Int
    /// Whether this is a saved match whose guest came back (`hostTables(…, resuming:)`).
    public let resumed: Bool
    /// The match at the table, already started, with the hall's player at the
    /// host's seat. Follow its `events` (one reader) to see it, or leave them:
    /// a bot or a strategy plays on without you.
    public let match: TurnBasedMatch<G>
}

/// Many two-seat tables of the game `G` behind one port and one listing
/// (`TurnBasedLAN.hostTables`): each guest who comes sits at a table of its
/// own against the hall's player, as `parlor host GAME --bot LEVEL --tables N`
/// does for the built-in games. Every table has its own match id, saves,
/// timeouts and resume; a table is freed for the next guest once its match
/// has ended and its guest has the end (30 s at most), or has stopped.
public final class TurnBasedHall<G: Game>: Sendable {
    /// The TCP port every guest connects to.
    public let port: UInt16
    /// How many tables may play at once.
    public let limit: Int
    /// Every table whose guest sat down, in the order they did.
    public let tables: AsyncStream<TurnBasedTable<G>>
    /// The name the hall is listed under on the LAN; nil when it is not
    /// advertised, or not listed yet (`listingProblem` says why).
    public var listedName: String? { listing?.name }
    /// Why the hall is not on the LAN's lists (no DNS-SD daemon, a refusal); nil when it is.
    public var listingProblem: String? { listing?.problem.map { "\($0)" } }
    /// How many tables have a match in play now.
    public var inPlay: Int { state.withLock { $0.playing.count } }

    private struct State {
        var playing: [Int: TurnBasedMatch<G>] = [:]
        var closing = false
        var seating: Task<Void, Never>?
        var giveUp: Task<Void, Never>?
    }

    private let hall: TableHall
    private let listener: TCPListener
    private let acceptor: Task<Void, Never>
    private let listing: HallListing?
    private let writers: TableWriters
    private let state = Mutex(State())

    init(hall: TableHall, limit: Int, listener: TCPListener, acceptor: Task<Void, Never>, listing: HallListing?, writers: TableWriters,
         series: TurnBasedSeries<G>, store: MatchStore?, saved: [MatchID: StoredMatch], savedGrace: Duration) {
        self.hall = hall
        self.listener = listener
        self.acceptor = acceptor
        self.listing = listing
        self.writers = writers
        self.port = listener.port
        self.limit = limit
        let (tables, sink) = AsyncStream<TurnBasedTable<G>>.makeStream()
        self.tables = tables
        let seating = Task { [self] in
            for await table in hall.admissions {
                await seat(table, series: series, store: store, saved: saved[table.match.initialState.matchID], sink: sink)
            }
            sink.finish()
        }
        // Saved tables wait for their guests as long as one match would; then their places go to new guests.
        let giveUp: Task<Void, Never>? = saved.isEmpty ? nil : Task {
            try? await Task.sleep(for: savedGrace)
            guard !Task.isCancelled else { return }
            _ = await hall.releaseSavedTablesStillWaiting()
        }
        state.withLock {
            $0.seating = seating
            $0.giveUp = giveUp
        }
    }

    /// Starts `table`'s match with the hall's player and hands it on; frees the table when it is over.
    private func seat(_ table: HallTable, series: TurnBasedSeries<G>, store: MatchStore?, saved: StoredMatch?,
                      sink: AsyncStream<TurnBasedTable<G>>.Continuation) async {
        let hosted = table.match
        let id = hosted.initialState.matchID
        // A new table's recorder is the one that saved it before its guest was welcomed; a resumed one's is made here.
        let recorder: MatchRecorder? = if let store, let saved {
            MatchRecorder(store: store, record: saved, writer: writers.writer(for: id))
        } else {
            nil
        }
        let match: TurnBasedMatch<G>
        do { match = try await series.hostMatch(hosted, recorder: recorder) } catch {
            await hall.release(table.number)
            return
        }
        let closing = state.withLock { state in
            if !state.closing { state.playing[table.number] = match }
            return state.closing
        }
        if closing {
            await match.leaveForNow()
            return
        }
        await listing?.update(inPlay: inPlay)
        sink.yield(TurnBasedTable(number: table.number, resumed: table.resumed, match: match))
        Task { await free(table.number, after: match, of: hosted) }
    }

    /// Frees table `number` once its match is over and its guest has the end
    /// (a guest whose link dropped keeps the table until it comes back for
    /// the end, 30 s at most: docs/PROTOCOL.md section 19). A match left for
    /// now by `close()` keeps its table: the hall is stopping.
    private func free(_ number: Int, after match: TurnBasedMatch<G>, of hosted: HostedMatch) async {
        _ = await match.finished()
        if await match.state.isEnded {
            for guest in hosted.guests { _ = await guest.waitForFinalDelivery(within: TableHall.endHeld) }
        }
        let closing = state.withLock { state in
            if !state.closing { state.playing[number] = nil }
            return state.closing
        }
        guard !closing else { return }
        await hall.release(number)
        await listing?.update(inPlay: inPlay)
    }

    /// Stops the hall: no guest is seated any more, every match in play is
    /// left for now (each guest hears that the host may resume; with a store,
    /// each record stays interrupted, for `hostTables(…, resuming:)`), the
    /// listing is withdrawn and the port closed. Later calls do nothing.
    public func close() async {
        let (first, seating, giveUp) = state.withLock { state in
            defer { state.closing = true }
            return (!state.closing, state.seating, state.giveUp)
        }
        guard first else { return }
        giveUp?.cancel()
        // Every match in play first (a table's host ends once its match has); one seated meanwhile leaves as it starts.
        let playing = state.withLock { Array($0.playing.values) }
        for match in playing { await match.leaveForNow() }
        acceptor.cancel()
        listener.close()
        await hall.shutdown()
        await seating?.value
        await listing?.withdraw()
        writers.finish()
    }
}

extension TurnBasedLAN {
    /// Hosts up to `tables` two-seat matches of `G` at once behind one port
    /// and, with `advertise`, one listing ("NAME's GAME", its TXT saying how
    /// many tables are in play): each guest who joins it (`join(_:host:port:as:)`
    /// or `join(_:named:as:)`, as any host) sits at a table of its own against
    /// `player`, parlor's bot or your strategy (`.caller` works too: then your
    /// code plays every table through each match's `endTurn(with:)`).
    /// Follow `TurnBasedHall.tables` to see each match; `close()` stops.
    /// - Parameters:
    ///   - store: where every table's match is saved (nil: nowhere); each is
    ///     on disk before its guest is welcomed, and each change before anyone sees it.
    ///   - resuming: matches this hall saved in `store` and left for now
    ///     (interrupted): each takes a table first and waits for its guest to
    ///     come back (`resume(_:joined:…)` on the guest's side) for
    ///     `savedGrace`, after which its table goes to a new guest and the
    ///     record stays interrupted.
    /// - Throws: `HostError` (an unregistered game, a game without two-seat
    ///   matches, more saved matches than tables), `TurnBasedLANError.notResumable`
    ///   (a record that is not a two-seat match of `G` hosted here, or
    ///   `resuming` without a store), `StoreError`, `NetError` (the port).
    public static func hostTables<G: Game>(_ game: G.Type, as playerName: String, tables: Int, playedBy player: TurnBasedPlayer<G>,
                                           resuming saved: [StoredMatch] = [], savedGrace: Duration = .seconds(60),
                                           port: UInt16 = 0, security: ChannelSecurity = .clear, advertise: Bool = true,
                                           directory: any ServiceDirectory = DNSSDDirectory(), store: MatchStore? = nil,
                                           appVersion: String = defaultAppVersion) async throws -> TurnBasedHall<G> {
        guard store != nil || saved.isEmpty else {
            throw TurnBasedLANError.notResumable("resuming a hall's tables needs the store they were saved in")
        }
        var savedMatches: [SavedHostMatch] = []
        for record in saved {
            guard record.role == .host, record.state.gameID == G.id, record.state.seats.count == 2,
                  let token = SeatToken(bytes: record.seatToken) else {
                throw TurnBasedLANError.notResumable("match \(record.state.matchID.short) is not a two-seat match of \(G.id) this side hosted")
            }
            savedMatches.append(SavedHostMatch(twoSeat: record, token: token))
        }
        // Before listening: nobody is welcomed into a match that cannot be saved.
        try store?.checkWritable()
        let listener = try TCPListener.listen(port: port)
        let listenPort = listener.port
        var configuration = HostConfiguration(gameID: G.id, hostName: playerName, hostPlayerID: .random(), appVersion: appVersion)
        let writers = TableWriters()
        let saves = store.map { store in
            SavedBeforeWelcome(store: store, record: { hosted in
                StoredMatch(state: hosted.initialState, role: .host, localSeat: hosted.hostSeat, lastActivity: wallClockMilliseconds(),
                            seatToken: hosted.seatToken.bytes, listenPort: listenPort,
                            peerKey: hosted.remote.peerKey?.bytes)
            }, writer: { hosted in writers.writer(for: hosted.initialState.matchID) })
        }
        saves?.install(in: &configuration, forgetFailed: { _, _ in })
        let hall: TableHall
        do { hall = try TableHall(configuration: configuration, limit: tables, resuming: savedMatches) } catch {
            listener.close()
            writers.finish()
            throw error
        }
        let acceptor = Task { await hall.serve(listener, security: security) }
        var listing: HallListing?
        if advertise {
            let encrypted = if case .encrypted = security { true } else { false }
            let hosted = Listing.hostedGame(G.self, host: playerName, encrypted: encrypted, appVersion: appVersion)
            listing = await HallListing.start(hosted, limit: tables, port: listenPort, in: directory)
        }
        let series = TurnBasedSeries<G>(player: player, saves: saves)
        return TurnBasedHall(hall: hall, limit: tables, listener: listener, acceptor: acceptor, listing: listing, writers: writers, series: series,
                             store: store, saved: Dictionary(saved.map { ($0.state.matchID, $0) }) { first, _ in first },
                             savedGrace: savedGrace)
    }
}
