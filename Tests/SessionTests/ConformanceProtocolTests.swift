import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// What an independent client written from docs/PROTOCOL.md found the host
/// doing against the document (issue 36, item 11), frame by frame.
@Suite struct ConformanceProtocolTests {
    /// The frames the peer receives until `stop` says so (or nothing more comes).
    static func messages(from peer: RawPeer, until stop: (Message) -> Bool) async -> [Message] {
        var seen: [Message] = []
        while let message = await peer.nextMessage(timeout: .seconds(5)) {
            seen.append(message)
            if stop(message) { break }
        }
        return seen
    }

    @Test("a rematch WELCOME keeps protocol 1 for a guest that offered only 1 (section 11)")
    func aRematchKeepsTheGuestsVersion() async throws {
        var hello = Hello(appVersion: "1", playerID: .random(), playerName: "Old")
        hello.protocolVersions = [1]
        let session = try await RawGuestSession.start(hello: hello)
        #expect(session.welcome.protocolVersion == 1)
        session.hosted.remote.keepConnectionForRematch()
        _ = await session.hostLocal.quit()
        guard case .quit? = await session.peer.nextMessage() else { Issue.record("expected the QUIT push"); return }
        let host = session.host, hosted = session.hosted
        let decided = Task { await host.rematch(after: hosted, wants: true, answerTimeout: .seconds(5)) }
        await session.peer.send(.rematch(.offer))
        let seen = await Self.messages(from: session.peer) { if case .welcome = $0 { true } else { false } }
        guard case .welcome(let welcome)? = seen.last else {
            Issue.record("no rematch WELCOME: \(seen)")
            return
        }
        #expect(welcome.protocolVersion == 1, "a release-1 guest refuses a WELCOME of version \(welcome.protocolVersion)")
        #expect(try MatchBlob.decode(welcome.matchBlob).matchID != session.state.matchID)
        _ = await decided.value
    }
}

/// Section 8, step 4: an illegal move at the new index is `notYourSeat` when its seat byte is not the guest's.
@Suite struct TableTurnValidationTests {
    @Test("at a table, a TURN whose new move is attributed to another guest's seat is refused notYourSeat (203), not illegalMove")
    func aMoveForAnotherGuestsSeatIsNotYourSeat() throws {
        let game = try #require(GameCatalog.game(id: "dots-and-boxes"))
        let seats = ["Ana", "Bo", "Cy"].map { Seat(playerID: .random(), name: $0) }
        var committed = MatchState(matchID: .random(), game: game.init(seats: 3), seats: seats)
        committed = try committed.applying(.move(try #require(committed.game.legalMoves.first), by: 0), now: 1)
        #expect(committed.activeSeat == 1)
        // Bo (seat 1) sends a legal move of its own, with the move's seat byte changed to Cy's.
        let own = try committed.applying(.move(try #require(committed.game.legalMoves.first), by: 1), now: 2)
        let forged = BlobForge.forge(MatchBlob.encode(own)) { $0[BlobForge.lastMoveOffset(in: $0)] = 2 }
        let result = HostTurnValidator.validate(.turn, sequence: own.sequence, blob: forged, committed: committed,
                                                guestSeat: 1, committedHashes: [:])
        guard case .failure(let rejection) = result else {
            Issue.record("a move for seat 3 from seat 2 was accepted")
            return
        }
        #expect(rejection.reason == .notYourSeat, "\(rejection)")
    }
}

/// Sections 16 and 17: a spectator at a table sees what a seated guest sees.
@Suite struct TableSpectatorConformanceTests {
    /// Reads messages until one that `wanted` matches; nil when none comes.
    static func next(_ peer: RawPeer, _ wanted: (Message) -> Bool) async -> Message? {
        while let message = await peer.nextMessage(timeout: .seconds(5)) {
            if wanted(message) { return message }
        }
        return nil
    }

    @Test("a spectator at a table nobody sat at yet gets TABLE at once, its talk before the match is refused talkNotYet, and a guest who goes away reaches it as SEAT")
    func aSpectatorAtATableSeesWhatAGuestSees() async throws {
        var configuration = HostConfiguration(gameID: "dots-and-boxes", hostName: "Hana", hostPlayerID: .random(), seatPreference: .first,
                                              timeouts: quickTimeouts, appVersion: "test")
        configuration.seats = 3
        configuration.botNames = ["Easy bot"]
        let host = try MatchHost(configuration: configuration)
        let door = try HostDoor(.memory, host: host)

        let spectator = try await door.connect()
        var watch = Hello(appVersion: "test", playerID: .random(), playerName: "Wes")
        watch.watching = true
        await spectator.send(.watch(watch))
        guard case .watching? = await spectator.nextMessage() else { Issue.record("expected WATCHING"); return }
        guard case .table(let seating)? = await spectator.nextMessage() else { Issue.record("expected TABLE before any guest"); return }
        #expect(seating.yourSeat == TableSeating.noSeat)
        #expect(seating.seats.map(\.kind) == [.host, .free, .bot] && seating.seats[0].name == "Hana")

        await spectator.send(.talk(.say(Array("hello".utf8))))
        let refused = await Self.next(spectator) { if case .talk(.refused) = $0 { true } else { false } }
        guard case .talk(.refused(let reason, let sentence))? = refused else { Issue.record("no refusal"); return }
        #expect(reason == .talkNotYet && !sentence.contains("turned table talk off"), "\(sentence)")

        // One guest fills the table; the host's controller runs with nobody moving.
        let guest = try await door.connect()
        await guest.send(.hello(Hello(appVersion: "test", playerID: .random(), playerName: "Bo")))
        guard case .welcome? = await Self.next(guest, { if case .welcome = $0 { true } else { false } }) else {
            Issue.record("the guest was not welcomed")
            return
        }
        let hosted = try await host.waitForGuest()
        let botSeat = try #require(hosted.botSeats.first)
        let controller = hosted.makeController(with: LocalParticipant(playerID: hosted.hostPlayerID),
                                               bots: [LocalParticipant(playerID: hosted.initialState.seats[botSeat].playerID)])
        try await controller.start()
        guard case .state? = await Self.next(spectator, { if case .state = $0 { true } else { false } }) else {
            Issue.record("the spectator never saw the match begin")
            return
        }
        // Bo's link drops: the spectator is told, as another guest would be.
        await guest.close()
        let seat = await Self.next(spectator) { if case .seat = $0 { true } else { false } }
        guard case .seat(let presence)? = seat else { Issue.record("no SEAT reached the spectator"); return }
        #expect(presence.seat == 1 && presence.away && presence.graceLeftMilliseconds > 0, "\(presence)")
        await controller.fail(.connectionLost("the test is over"))
    }
}

/// Section 19: a many-table host answers as a table's own handshake would.
@Suite struct HallConformanceTests {
    @Test("a many-table host answers a connection that never sends its first frame with REJECT handshakeTimeout, not a silent close")
    func aSilentConnectionIsRefusedHandshakeTimeout() async throws {
        var timeouts = quickTimeouts
        timeouts.handshake = .milliseconds(400)
        let hall = try TableHall(configuration: HostConfiguration(gameID: "connect4", hostName: "Teach", hostPlayerID: .random(),
                                                                  timeouts: timeouts, appVersion: "test"), limit: 2)
        let (client, server) = InMemoryByteStream.pair()
        await hall.accept(server)
        let peer = RawPeer(stream: client)
        guard case .reject(let reason, let sentence)? = await peer.nextMessage(timeout: .seconds(5)) else {
            Issue.record("the hall closed without a word")
            return
        }
        #expect(reason == .handshakeTimeout, "\(sentence)")
        #expect(await peer.waitForClose())
        await hall.shutdown()
    }
}
