import Foundation
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
    /// Spectators watching from this process (`bench turns --spectators`), each draining what it gets.
    private let spectators: [SpectatorDrain]

    private init(host: MatchHost, hosted: HostedMatch, joined: JoinedMatch, hostController: MatchController,
                 guestController: MatchController, local: LocalParticipant, events: AsyncStream<MatchEvent>,
                 random: RandomMoves, listener: TCPListener, acceptor: Task<Void, Never>,
                 recordings: [Task<Void, Never>], spectators: [SpectatorDrain]) {
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
        self.spectators = spectators
    }

    /// Connects, joins and starts both controllers.
    /// With `spectators`, that many watch over their own loopback connections from the start.
    static func start(seed: UInt64, store: MatchStore?, spectators: Int = 0) async throws -> LoopbackMatch {
        let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        var configuration = HostConfiguration(gameID: Connect4.id, hostName: "Host", hostPlayerID: .random(), seatPreference: .first,
                                              appVersion: ParlorVersion.current)
        configuration.spectators = max(configuration.spectators, spectators)
        let host = try MatchHost(configuration: configuration)
        let acceptor = Task { await host.serve(listener) }
        // Each spectator is a thread with a blocking socket that says WATCH, then reads
        // and drops every byte (a HEARTBEAT every 2 s): what a spectator on another
        // machine costs this host, without its reading crowding the players' tasks.
        var watching: [SpectatorDrain] = []
        for index in 0..<spectators {
            var hello = Hello(appVersion: ParlorVersion.current, playerID: .random(), playerName: "Spectator \(index + 1)")
            hello.watching = true
            watching.append(try SpectatorDrain(port: listener.port, watch: Message.watch(hello).encoded))
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
                             listener: listener, acceptor: acceptor, recordings: recordings, spectators: watching)
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
        for spectator in spectators { spectator.stop() }
    }
}

/// Seeded random moves, shared by the host's bot and the guest's player.
final class RandomMoves: Sendable {
    private let generator: Mutex<SplitMix64>
    init(seed: UInt64) { generator = Mutex(SplitMix64(seed: seed)) }
    /// One of `moves`, or nil when there is none.
    func pick(from moves: [Move]) -> Move? { generator.withLock { moves.randomElement(using: &$0) } }
}

/// A bench spectator on its own thread: a blocking loopback socket that sends
/// WATCH, then drains every byte, with a HEARTBEAT every 2 s, until `stop()`.
final class SpectatorDrain: Sendable {
    private let fd: Int32

    init(port: UInt16, watch: [UInt8]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CommandFailure("socket: \(String(cString: strerror(errno)))", exitCode: .failure) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected, watch.withUnsafeBytes({ send(fd, $0.baseAddress, watch.count, Int32(MSG_NOSIGNAL)) }) == watch.count else {
            close(fd)
            throw CommandFailure("a bench spectator could not connect to 127.0.0.1:\(port)", exitCode: .failure)
        }
        self.fd = fd
        Thread {
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            var beat = ContinuousClock.now
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // The thread owns the descriptor: closed only here, once the host or `stop()` ended the stream.
            defer { close(fd) }
            while true {
                if poll(&poller, 1, 500) > 0 {
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { return }
                }
                if ContinuousClock.now - beat > .seconds(2) {
                    beat = .now
                    let heartbeat = Message.heartbeat(senderTime: 0).encoded
                    _ = heartbeat.withUnsafeBytes { send(fd, $0.baseAddress, heartbeat.count, Int32(MSG_NOSIGNAL)) }
                }
            }
        }.start()
    }

    /// Ends the connection; the thread sees the end, closes the descriptor and returns.
    func stop() { shutdown(fd, Int32(SHUT_RDWR)) }
}
