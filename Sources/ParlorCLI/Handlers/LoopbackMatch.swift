import Bots
import Games
import Match
import Session
import Store
import Synchronization

/// A connect4 match between a random-move bot host and a guest whose moves
/// the caller plays, over 127.0.0.1 in this process: what `parlor bench
/// turns` times. With a store, both sides record the match there as
/// `parlor host` and `parlor join` do (`SessionRunner.record`).
final class LoopbackMatch: Sendable {
    let host: MatchHost
    let hosted: HostedMatch
    let joined: JoinedMatch
    let hostController: MatchController
    let guestController: MatchController
    /// The guest's seat, played by the caller.
    let local: LocalParticipant
    /// The guest controller's events, subscribed before it started.
    let events: AsyncStream<MatchEvent>
    private let random: RandomMoves
    private let listener: TCPListener
    private let acceptor: Task<Void, Never>
    private let recordings: [Task<Void, Never>]

    private init(host: MatchHost, hosted: HostedMatch, joined: JoinedMatch, hostController: MatchController,
                 guestController: MatchController, local: LocalParticipant, events: AsyncStream<MatchEvent>,
                 random: RandomMoves, listener: TCPListener, acceptor: Task<Void, Never>,
                 recordings: [Task<Void, Never>]) {
        self.host = host
        self.hosted = hosted
        self.joined = joined
        self.hostController = hostController
        self.guestController = guestController
        self.local = local
        self.events = events
        self.random = random
        self.listener = listener
        self.acceptor = acceptor
        self.recordings = recordings
    }

    /// Connects, joins and starts both controllers.
    /// With `spectators`, its process watches over loopback connections of its own from the start.
    static func start(seed: UInt64, store: MatchStore?, spectators: SpectatorLoad? = nil) async throws -> LoopbackMatch {
        let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        var configuration = HostConfiguration(gameID: Connect4.id, hostName: "Host", hostPlayerID: .random(), seatPreference: .first,
                                              appVersion: ParlorVersion.current)
        configuration.spectators = max(configuration.spectators, spectators?.count ?? 0)
        let host = try MatchHost(configuration: configuration)
        let acceptor = Task { await host.serve(listener) }
        if let spectators {
            // They watch from their own process before the guest joins, and so see the match begin.
            spectators.watch(port: listener.port)
            let deadline = ContinuousClock.now + .seconds(10)
            while host.spectators.count < spectators.count {
                guard ContinuousClock.now < deadline else { throw SpectatorLoad.Failure.notWatching(host.spectators.count, of: spectators.count) }
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        async let joining = Guest.join(over: connection.byteStream(),
                                       hello: Hello(appVersion: ParlorVersion.current, playerID: .random(), playerName: "Guest"))
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        let random = RandomMoves(seed: seed)
        let (hostController, _) = hosted.makeController { id in
            BotParticipant(playerID: id) { game, _ in random.pick(from: game.legalMoves) }
        }
        let (guestController, local) = joined.makeController { LocalParticipant(playerID: $0) }
        var recordings: [Task<Void, Never>] = []
        if let store {
            let hostRecorder = MatchRecorder(store: store, record: StoredMatch(
                state: hosted.initialState, role: .host, localSeat: hosted.hostSeat,
                lastActivity: wallClockMilliseconds(), seatToken: hosted.seatToken.bytes, listenPort: listener.port))
            SessionRunner.record(hosted, with: hostRecorder)
            let guestRecorder = MatchRecorder(store: store, record: StoredMatch(
                state: joined.initialState, role: .guest, localSeat: joined.seat,
                lastActivity: wallClockMilliseconds(), peerAddress: "127.0.0.1:\(listener.port)", seatToken: joined.seatToken.bytes))
            SessionRunner.record(joined, with: guestRecorder)
            recordings.append(await hostRecorder.follow(hostController))
            recordings.append(await guestRecorder.follow(guestController))
        }
        let events = await guestController.events()
        try await hostController.start()
        try await guestController.start()
        return LoopbackMatch(host: host, hosted: hosted, joined: joined, hostController: hostController,
                             guestController: guestController, local: local, events: events, random: random,
                             listener: listener, acceptor: acceptor, recordings: recordings)
    }

    /// A random legal move for the guest in `state`, and the bytes of the TURN frame that carries it.
    func randomMove(in state: MatchState) -> (Move, frameBytes: Int)? {
        guard let move = random.pick(from: state.game.legalMoves),
              let next = try? state.applying(.move(move, by: joined.seat), now: wallClockMilliseconds()) else { return nil }
        return (move, FrameFormat.headerSize + 4 + MatchBlob.encode(next).count)
    }

    /// Quits if still playing, and waits for both sides and their saves to finish.
    func finish() async {
        // A quit that crosses the host's next move is refused as stale; the push arrives, and it is tried again.
        for _ in 0..<500 {
            if await guestController.isStopped { break }
            if case .committed = await local.quit() { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        _ = await hostController.finished()
        await host.shutdown()
        acceptor.cancel()
        listener.close()
        for recording in recordings { await recording.value }
    }
}

/// Seeded random moves, shared by the host's bot and the guest's player.
final class RandomMoves: Sendable {
    private let generator: Mutex<SplitMix64>
    init(seed: UInt64) { generator = Mutex(SplitMix64(seed: seed)) }
    /// One of `moves`, or nil when there is none.
    func pick(from moves: [Move]) -> Move? { generator.withLock { moves.randomElement(using: &$0) } }
}
