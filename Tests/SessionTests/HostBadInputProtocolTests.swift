import Bots
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Issue 3, section 7: bad input from the network, each against a running
/// host. Each gets its documented answer, never changes the match, and the
/// host goes on to admit (or keep serving) the real player.
@Suite struct HostBadInputProtocolTests {
    static let shortHandshake = SessionTimeouts(handshake: .milliseconds(400), heartbeatInterval: .milliseconds(100),
                                                heartbeatTimeout: .seconds(2), confirmation: .seconds(2), grace: .seconds(2))

    static func makeHost(seat: HostConfiguration.SeatPreference = .first, pending: Int = 32) throws -> MatchHost {
        try MatchHost(configuration: HostConfiguration(gameID: "connect4", hostName: "Hostess", hostPlayerID: .random(),
                                                       seatPreference: seat, timeouts: shortHandshake, appVersion: "test",
                                                       maximumPendingHandshakes: pending))
    }

    static func hello(name: String = "Mallory", games: [GameVersion] = [GameVersion(id: "connect4", rulesVersion: 1)],
                      versions: [UInt8] = [1]) -> Hello {
        Hello(protocolVersions: versions, appVersion: "test", playerID: .random(), playerName: name, games: games)
    }

    /// Connects a raw peer to `host`.
    static func connect(_ host: MatchHost) async -> RawPeer {
        let (client, server) = InMemoryByteStream.pair()
        await host.accept(server)
        return RawPeer(stream: client)
    }

    /// The next report the host makes.
    static func nextReport(_ host: MatchHost) async -> ConnectionReport? {
        var iterator = host.reports.makeAsyncIterator()
        return await iterator.next()
    }

    /// After the attack, a real guest joins and plays a whole match.
    static func realGuestStillPlays(_ host: MatchHost) async throws {
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let joined = try await Guest.join(over: guestEnd, hello: Hello(appVersion: "test", playerID: .random(), playerName: "Real"))
        let hosted = try await host.waitForGuest()
        #expect(hosted.guestName == "Real")
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.firstLegal) }
        let (guestController, _) = joined.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(5)) }
        try await hostController.start()
        try await guestController.start()
        let hostFinal = try #require(await finished(hostController))
        let guestFinal = try #require(await finished(guestController))
        #expect(hostFinal.isEnded && hostFinal.stateHash == guestFinal.stateHash)
    }

    // MARK: Before the handshake

    @Test func randomBytesAreDroppedAndTheNextPlayerIsAdmitted() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        var generator = SplitMix64(seed: 7)
        await peer.send(bytes: (0..<64).map { _ in UInt8(truncatingIfNeeded: generator.next() | 1) & 0x3F })
        #expect(await peer.waitForClose())
        let report = await Self.nextReport(host)
        guard case .dropped(let why)? = report?.outcome else { Issue.record("got \(String(describing: report))"); return }
        #expect(why.contains("not a parlor peer"))
        try await Self.realGuestStillPlays(host)
    }

    @Test func anHTTPRequestGetsAPlainTextAnswer() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        await peer.send(bytes: Array("GET / HTTP/1.1\r\nHost: parlor\r\n\r\n".utf8))
        #expect(await peer.waitForClose())
        let answer = String(decoding: await peer.received, as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.0 400 Bad Request\r\n"))
        #expect(answer.contains("parlor join HOST:PORT"))
        try await Self.realGuestStillPlays(host)
    }

    @Test func aFrameCutShortThenClosedIsDropped() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        await peer.send(bytes: Array(Message.hello(Self.hello()).encoded.prefix(13)))
        await peer.close()
        let report = await Self.nextReport(host)
        guard case .dropped(let why)? = report?.outcome else { Issue.record("got \(String(describing: report))"); return }
        #expect(why.contains("in the middle of a frame"))
        try await Self.realGuestStillPlays(host)
    }

    @Test func aFrameCutShortThatStaysOpenTimesOut() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        await peer.send(bytes: Array(Message.hello(Self.hello()).encoded.prefix(13)))
        #expect(await peer.nextMessage()?.rejectReason == .handshakeTimeout)
        #expect(await peer.waitForClose())
        try await Self.realGuestStillPlays(host)
    }

    @Test func aLengthBeyondTheMaximumIsRejectedFromTheHeader() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        await peer.send(bytes: [0x50, 0x4C, 0x01, 0x01, 0xFF, 0xFF, 0xFF, 0xFF])
        let answer = await peer.nextMessage()
        #expect(answer?.rejectReason == .protocolError)
        #expect(await peer.waitForClose())
        try await Self.realGuestStillPlays(host)
    }

    @Test func wrongMagicIsDropped() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        var bytes = Message.hello(Self.hello()).encoded
        bytes[1] = 0x4D
        await peer.send(bytes: bytes)
        #expect(await peer.waitForClose())
        #expect(await peer.received.isEmpty)  // nothing is said to a stranger
        try await Self.realGuestStillPlays(host)
    }

    @Test func aProtocolVersionFromTheFutureIsRejected() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        var bytes = Message.hello(Self.hello()).encoded
        bytes[2] = 2
        await peer.send(bytes: bytes)
        #expect(await peer.nextMessage()?.rejectReason == .versionUnsupported)
        #expect(await peer.waitForClose())
        // A v1 frame offering only future versions is refused the same way.
        let second = await Self.connect(host)
        await second.send(.hello(Self.hello(versions: [5, 6])))  // 4 is a move's message, since issue 39
        #expect(await second.nextMessage()?.rejectReason == .versionUnsupported)
        try await Self.realGuestStillPlays(host)
    }

    @Test func aConnectionSendingOneByteAtATimeIsCutOffAtTheHandshakeTimeout() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        let started = ContinuousClock.now
        let bytes = Message.hello(Self.hello()).encoded
        let trickle = Task {
            for byte in bytes {
                await peer.send(bytes: [byte])
                try? await Task.sleep(for: .milliseconds(60))
            }
        }
        #expect(await peer.nextMessage()?.rejectReason == .handshakeTimeout)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(2))  // bytes arriving do not extend the 400 ms deadline
        trickle.cancel()
        try await Self.realGuestStillPlays(host)
    }

    @Test func aMessageOtherThanHelloFirstIsAProtocolError() async throws {
        let host = try Self.makeHost()
        let peer = await Self.connect(host)
        await peer.send(.stateRequest(knownSequence: 0))
        #expect(await peer.nextMessage()?.rejectReason == .protocolError)
        try await Self.realGuestStillPlays(host)
    }

    @Test func helloProblemsGetTheirReasons() async throws {
        let host = try Self.makeHost()
        let cases: [(Hello, ReasonCode)] = [
            (Self.hello(games: [GameVersion(id: "cube4", rulesVersion: 1)]), .gameUnknown),
            (Self.hello(games: [GameVersion(id: "connect4", rulesVersion: 9)]), .rulesVersionMismatch),
            (Self.hello(name: ""), .nameInvalid),
            (Self.hello(name: String(repeating: "x", count: 65)), .nameInvalid),
            (Self.hello(name: "bell\u{7}"), .nameInvalid),
        ]
        for (hello, reason) in cases {
            let peer = await Self.connect(host)
            await peer.send(.hello(hello))
            #expect(await peer.nextMessage()?.rejectReason == reason)
            #expect(await peer.waitForClose())
        }
        try await Self.realGuestStillPlays(host)
    }

    @Test func tooManyPendingHandshakesGetBusy() async throws {
        let host = try Self.makeHost(pending: 2)
        let idle1 = await Self.connect(host), idle2 = await Self.connect(host)
        let third = await Self.connect(host)
        #expect(await third.nextMessage()?.rejectReason == .busy)
        _ = (idle1, idle2)
    }

    @Test func aRejectedGuestGetsAJoinErrorAndNoRetry() async throws {
        let host = try Self.makeHost()
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let hello = Self.hello(games: [GameVersion(id: "tictactoe", rulesVersion: 1)])
        await #expect(throws: JoinError.self) { try await Guest.join(over: guestEnd, hello: hello) }
        #expect(await host.pendingHandshakeCount == 0)
        #expect(await !host.hasGuest)
    }
}

extension Message {
    /// The reason of a REJECT, nil for any other message.
    var rejectReason: ReasonCode? {
        if case .reject(let reason, _) = self { return reason }
        return nil
    }
}
