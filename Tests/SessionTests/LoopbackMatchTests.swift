import Bots
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Host and guest in one process, over real loopback TCP sockets.
@Suite("A match over loopback sockets", .serialized)
struct LoopbackMatchTests {
    /// Opens a host on 127.0.0.1, port chosen by the system, serving every accepted connection.
    func openHost(_ gameID: String = "connect4") throws -> (TCPListener, MatchHost, Task<Void, Never>) {
        let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: gameID, hostName: "Ana", hostPlayerID: .random(), seatPreference: .first, appVersion: "test"))
        let acceptor = Task { await host.serve(listener, security: .clear) }
        return (listener, host, acceptor)
    }

    @Test("bot against bot to the end, both sides with the same final state",
          arguments: ["connect4", "cube4", "tictactoe", "reversi", "dots-and-boxes", "chinese-checkers"])
    func botsPlayToTheEnd(gameID: String) async throws {
        let (listener, host, acceptor) = try openHost(gameID)
        defer { acceptor.cancel(); listener.close() }
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        async let joining = Guest.join(over: connection.byteStream(),
                                       hello: Hello(appVersion: "test", playerID: .random(), playerName: "Ben"))
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(1)) }
        let (guestController, _) = joined.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(2)) }
        try await guestController.start()
        try await hostController.start()
        let hostFinal = await hostController.finished()
        let guestFinal = await guestController.finished()
        #expect(hostFinal.isEnded && guestFinal.isEnded)
        #expect(hostFinal.stateHash == guestFinal.stateHash)
        #expect(hostFinal.moves == guestFinal.moves)
        #expect(hostFinal.seats.map(\.outcome) == guestFinal.seats.map(\.outcome))
        let failures = (await hostController.stopFailure, await guestController.stopFailure)
        #expect(failures.0 == nil && failures.1 == nil)
        await host.shutdown()
    }

    /// Connects a raw socket, sends `bytes`, and returns what came back until the host closed.
    func rawExchange(port: UInt16, _ bytes: [UInt8], wait: Duration = .seconds(5)) async throws -> (reply: [UInt8], closed: Bool) {
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: port)
        connection.send(bytes)
        let deadline = ContinuousClock.now + wait
        let reader = Task { () -> [UInt8] in
            var reply: [UInt8] = []
            for await event in connection.events {
                switch event {
                case .data(let chunk): reply += chunk
                case .closed: return reply
                }
            }
            return reply
        }
        let timer = Task { try? await Task.sleep(until: deadline); connection.abort() }
        let reply = await reader.value
        timer.cancel()
        return (reply, ContinuousClock.now < deadline)
    }

    @Test("random bytes, an HTTP request and a frame from 4 GiB are refused, and the next real player gets in")
    func badInputOverRealSockets() async throws {
        let (listener, host, acceptor) = try openHost()
        defer { acceptor.cancel(); listener.close() }
        var generator = SplitMix64(seed: 77)
        let noise = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let random = try await rawExchange(port: listener.port, noise)
        #expect(random.closed, "the host kept a connection of random bytes open")

        let http = try await rawExchange(port: listener.port, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(http.closed)
        #expect(String(decoding: http.reply, as: UTF8.self).hasPrefix("HTTP/1.0 400"))

        // Magic, version 1, type HELLO (1), length 0xFFFFFFFF: refused from the header alone.
        let huge = try await rawExchange(port: listener.port, [0x50, 0x4C, 0x01, 0x01, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(huge.closed)

        // The real player is admitted after all that.
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        async let joining = Guest.join(over: connection.byteStream(),
                                       hello: Hello(appVersion: "test", playerID: .random(), playerName: "Ben"))
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        #expect(hosted.guestName == "Ben" && joined.hostName == "Ana")
        await host.shutdown()
    }
}
