// Host and guest of one match in this process, over 127.0.0.1: Connect Four
// for what `parlor bench turns` times and the durability tests play, or any
// registered game for a developer's own tests. Session
// knows neither bots nor the store: the host's participant and the recording
// of both sides are passed in.

import Games
import Secure
import Match
import Synchronization

/// A match of any registered game (Connect Four unless told) between a host
/// playing seeded random moves and a guest whose moves the caller plays, over
/// real loopback TCP sockets.
public final class LoopbackMatch: Sendable {
    /// The host, serving its loopback listener.
    public let host: MatchHost
    /// The host's side of the match.
    public let hosted: HostedMatch
    /// The guest's side of the match.
    public let joined: JoinedMatch
    /// The host's controller (its participant from `hostPlayer`, the guest link).
    public let hostController: MatchController
    /// The guest's controller.
    public let guestController: MatchController
    /// The guest's seat, played by the caller.
    public let local: LocalParticipant
    /// The guest controller's events, subscribed before it started.
    public let events: AsyncStream<MatchEvent>
    /// The port the host listens on (127.0.0.1).
    public let port: UInt16
    private let random: RandomMoves
    private let listener: TCPListener
    private let acceptor: Task<Void, Never>
    private let recordings: [Task<Void, Never>]

    /// The sides of a match as it starts, for the caller to record before either controller starts.
    public struct Sides: Sendable {
        /// The host's side, as `MatchHost` admitted the guest.
        public let hosted: HostedMatch
        /// The guest's side, as `Guest.join` got it.
        public let joined: JoinedMatch
        /// The host's controller (not started yet).
        public let hostController: MatchController
        /// The guest's controller (not started yet).
        public let guestController: MatchController
        /// The host's port on 127.0.0.1.
        public let port: UInt16
    }

    private init(sides: Sides, host: MatchHost, local: LocalParticipant, events: AsyncStream<MatchEvent>, random: RandomMoves,
                 listener: TCPListener, acceptor: Task<Void, Never>, recordings: [Task<Void, Never>]) {
        self.host = host
        self.hosted = sides.hosted
        self.joined = sides.joined
        self.hostController = sides.hostController
        self.guestController = sides.guestController
        self.port = sides.port
        self.local = local
        self.events = events
        self.random = random
        self.listener = listener
        self.acceptor = acceptor
        self.recordings = recordings
    }

    /// Listens on 127.0.0.1, joins a guest, and starts both controllers.
    ///
    /// - Parameters:
    ///   - gameID: the registered game, played by two seats (`connect4` by default: what the benches' figures are of).
    ///   - seed: seeds the moves of both the host and `randomMove(in:)`.
    ///   - spectators: places for spectators (at least the host's default).
    ///   - hostPlayer: the host's participant for its player id, choosing with the `RandomMoves` given.
    ///   - beforeGuest: runs once the host listens, before the guest joins (spectators watching from the start).
    ///   - record: has both sides recorded before they start; `finish()` waits for the tasks it returns.
    ///   - sealed: both sides speak protocol 3's encrypted channel, each with a fresh identity key (false: clear frames).
    /// - Throws: what listening, connecting, joining, `beforeGuest` or starting threw;
    ///   `HostError.unknownGame` for a game id nobody registered.
    public static func start(gameID: String = Connect4.id, seed: UInt64, spectators: Int = 0, appVersion: String,
                             hostPlayer: @Sendable (PlayerID, RandomMoves) -> any Participant,
                             beforeGuest: @Sendable (MatchHost, UInt16) async throws -> Void = { _, _ in },
                             record: @Sendable (Sides) async -> [Task<Void, Never>] = { _ in [] },
                             sealed: Bool = false) async throws -> LoopbackMatch {
        let hostSecurity: ChannelSecurity = sealed ? .encrypted(SecureChannelOptions(identity: try IdentityKeyPair.generate())) : .clear
        let guestSecurity: ChannelSecurity = sealed ? .encrypted(SecureChannelOptions(identity: try IdentityKeyPair.generate())) : .clear
        let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        var configuration = HostConfiguration(gameID: gameID, hostName: "Host", hostPlayerID: .random(), seatPreference: .first,
                                              appVersion: appVersion)
        configuration.spectators = max(configuration.spectators, spectators)
        let host: MatchHost
        do { host = try MatchHost(configuration: configuration) } catch {
            listener.close()
            throw error
        }
        let acceptor = Task { await host.serve(listener, security: hostSecurity) }
        do {
            try await beforeGuest(host, listener.port)
            let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
            async let joining = Guest.join(over: guestSecurity.connecting(connection.byteStream()),
                                           hello: Hello(appVersion: appVersion, playerID: .random(), playerName: "Guest"))
            let hosted = try await host.waitForGuest()
            let joined = try await joining
            let random = RandomMoves(seed: seed)
            let hostController = hosted.makeController(with: hostPlayer(hosted.hostPlayerID, random))
            let (guestController, local) = joined.makeController { LocalParticipant(playerID: $0) }
            let sides = Sides(hosted: hosted, joined: joined, hostController: hostController, guestController: guestController,
                              port: listener.port)
            let recordings = await record(sides)
            let events = await guestController.events()
            try await hostController.start()
            try await guestController.start()
            return LoopbackMatch(sides: sides, host: host, local: local, events: events, random: random, listener: listener,
                                 acceptor: acceptor, recordings: recordings)
        } catch {
            await host.shutdown()
            acceptor.cancel()
            listener.close()
            throw error
        }
    }

    /// A random legal move for the guest in `state`, and the bytes of the TURN frame that carries it.
    public func randomMove(in state: MatchState) -> (Move, frameBytes: Int)? {
        guard let move = random.pick(from: state.game.legalMoves),
              let next = try? state.applying(.move(move, by: joined.seat), now: wallClockMilliseconds()) else { return nil }
        return (move, FrameFormat.headerSize + 4 + MatchBlob.encode(next).count)
    }

    /// Plays the guest's seat with `randomMove(in:)` until the match ends by
    /// its rules (or a move is not committed), then `finish()`es; returns how
    /// many moves the guest played. For a test that wants a whole match of a
    /// game and then looks at both sides' `finished()` states.
    @discardableResult
    public func playRandomlyToTheEnd() async -> Int {
        var played = 0
        for await event in events {
            if case .ended = event { break }
            guard case .turnBegan(let seat, let state) = event, seat == joined.seat else { continue }
            guard let (move, _) = randomMove(in: state), case .committed = await local.play(move) else { break }
            played += 1
        }
        await finish()
        return played
    }

    /// Quits if still playing, and waits for both sides and their recordings to finish.
    public func finish() async {
        // A quit that crosses the host's next move is refused as stale; it is tried again once the
        // host's push has moved the guest's match on (or the match has stopped: the events end).
        var moves = await guestController.events().makeAsyncIterator()
        for _ in 0..<500 {
            if await guestController.isStopped { break }
            let from = await guestController.state.sequence
            if case .committed = await local.quit() { break }
            while let event = await moves.next() {
                if case .committed(_, let state) = event, state.sequence > from { break }
                if case .adopted(let state) = event, state.sequence > from { break }
            }
        }
        _ = await hostController.finished()
        await host.shutdown()
        acceptor.cancel()
        listener.close()
        for recording in recordings { await recording.value }
    }
}

/// Seeded random moves, shared by a loopback match's host and its guest's player.
public final class RandomMoves: Sendable {
    private let generator: Mutex<SplitMix64>
    /// Moves drawn from `seed`: the same seed, the same choices.
    public init(seed: UInt64) { generator = Mutex(SplitMix64(seed: seed)) }
    /// One of `moves`, or nil when there is none.
    public func pick(from moves: [Move]) -> Move? { generator.withLock { moves.randomElement(using: &$0) } }
}
