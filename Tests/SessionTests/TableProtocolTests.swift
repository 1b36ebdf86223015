import Bots
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// A table of three or more seats over in-memory links (protocol 2): the
/// host's star, seat assignment while the table fills, pushes of every other
/// seat's change in the one commit order, departures that leave the match
/// going, and what a protocol-1 guest is told.
@Suite("Tables of 3 and 4 seats: the host's star of links")
struct TableProtocolTests {
    static func host(seats: Int, bots: [String] = [], game: String = "dots-and-boxes",
                     timeouts: SessionTimeouts = quickTimeouts) throws -> MatchHost {
        var configuration = HostConfiguration(gameID: game, hostName: "Hostess", hostPlayerID: .random(),
                                              timeouts: timeouts, appVersion: "test")
        configuration.seats = seats
        configuration.botNames = bots
        return try MatchHost(configuration: configuration)
    }

    static func hello(_ name: String, versions: [UInt8] = FrameFormat.supportedVersions, game: String = "dots-and-boxes") -> Hello {
        Hello(protocolVersions: versions, appVersion: "test", playerID: .random(), playerName: name,
              games: [GameVersion.local(game)].compactMap { $0 })
    }

    /// Seats `names.count` guests (each on its own in-memory link) and returns the host's match and theirs.
    static func fill(_ host: MatchHost, guests names: [String], tables: TableLog? = nil) async throws -> (HostedMatch, [JoinedMatch]) {
        var joins: [Task<JoinedMatch, any Error>] = []
        for name in names {
            let (guestEnd, hostEnd) = InMemoryByteStream.pair()
            await host.accept(hostEnd)
            var options = GuestOptions()
            if let tables { options.onTable = { table in Task { await tables.append(name, table) } } }
            let hello = hello(name)
            joins.append(Task { try await Guest.join(over: guestEnd, hello: hello, options: options) })
            // One at a time, so the seats go out in this order.
            try await Task.sleep(for: .milliseconds(50))
        }
        let hosted = try await host.waitForGuest()
        var joined: [JoinedMatch] = []
        for join in joins { joined.append(try await join.value) }
        return (hosted, joined)
    }

    actor TableLog {
        var seen: [String: [TableSeating]] = [:]
        func append(_ name: String, _ table: TableSeating) { seen[name, default: []].append(table) }
    }

    /// Every committed change a controller reported, in order.
    static func commits(_ events: [MatchEvent]) -> [MatchChange] {
        events.compactMap { if case .committed(let change, _) = $0 { change } else { nil } }
    }

    @Test("three seats: each guest gets its own seat and token, TABLE while it fills, and every side ends with the same state")
    func threeSeatsPlayToTheEnd() async throws {
        let host = try Self.host(seats: 3)
        let tables = TableLog()
        let (hosted, joined) = try await Self.fill(host, guests: ["Bo", "Cy"], tables: tables)
        #expect(joined.map(\.seat) == [1, 2])
        #expect(Set(hosted.seatTokens).count == 2)
        #expect(joined.map(\.seatToken) == hosted.seatTokens)
        #expect(hosted.initialState.seats.map(\.name) == ["Hostess", "Bo", "Cy"])
        // Bo sat alone first ("2 of 3"), then saw the full table; Cy saw only the full one.
        let seen = await tables.seen
        #expect(seen["Bo"]?.first?.taken == 2)
        #expect(seen["Bo"]?.last?.taken == 3)
        #expect(seen["Bo"]?.first?.summary == "2 of 3 seated: Hostess (host), Bo (you), free")
        #expect(seen["Cy"]?.last?.summary == "3 of 3 seated: Hostess (host), Bo, Cy (you)")

        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(1)) }
        let guestControllers = joined.map { match in
            match.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(UInt64(match.seat) + 7)) }.0
        }
        let recorders = (0..<3).map { _ in EventRecorder() }
        await recorders[0].record(hostController)
        for (index, controller) in guestControllers.enumerated() { await recorders[index + 1].record(controller) }
        try await hostController.start()
        for controller in guestControllers { try await controller.start() }

        let hostFinal = try #require(await finished(hostController, within: .seconds(20)))
        var finals: [MatchState] = []
        for controller in guestControllers { finals.append(try #require(await finished(controller, within: .seconds(20)))) }
        #expect(hostFinal.isEnded)
        #expect(hostFinal.moves.count == 40, "dots and boxes ends when all 40 lines are drawn")
        for final in finals { #expect(final.stateHash == hostFinal.stateHash) }
        // Every side committed the same changes in the same order: Bo saw Cy's moves as pushes, and the other way round.
        // A controller reports ended before its event stream has reached the recorder: wait for every commit to arrive.
        for recorder in recorders {
            _ = await recorder.waitUntil { Self.commits($0).count >= hostFinal.moves.count }
        }
        let hostCommits = Self.commits(await recorders[0].events)
        for recorder in recorders.dropFirst() { #expect(Self.commits(await recorder.events) == hostCommits) }
        #expect(hostCommits.contains { $0.seat == 1 } && hostCommits.contains { $0.seat == 2 })
        #expect(hostFinal.placements?.count == 3)
    }

    @Test("four seats with one host bot: two guests fill it, and the bot's moves reach both of them")
    func fourSeatsWithABot() async throws {
        let host = try Self.host(seats: 4, bots: ["Easy bot"])
        let (hosted, joined) = try await Self.fill(host, guests: ["Bo", "Cy"])
        #expect(hosted.botSeats == [3])
        #expect(joined.map(\.seat) == [1, 2])
        #expect(hosted.initialState.seats.map(\.name) == ["Hostess", "Bo", "Cy", "Easy bot"])
        let hostController = hosted.makeController(with: BotParticipant(playerID: hosted.hostPlayerID, strategy: TestStrategies.firstLegal),
                                                        bots: [BotParticipant(playerID: hosted.initialState.seats[3].playerID,
                                                                              strategy: TestStrategies.seeded(3))])
        let guestControllers = joined.map { $0.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(5)) }.0 }
        try await hostController.start()
        for controller in guestControllers { try await controller.start() }
        let hostFinal = try #require(await finished(hostController, within: .seconds(20)))
        for controller in guestControllers {
            let final = try #require(await finished(controller, within: .seconds(20)))
            #expect(final.stateHash == hostFinal.stateHash)
        }
        #expect(hostFinal.moves.contains { $0.seat == 3 }, "the host's bot played")
    }

    @Test("a guest that quits out of turn at a table of three leaves the match going for the other two")
    func quitOutOfTurnLeavesTheMatchGoing() async throws {
        let host = try Self.host(seats: 3)
        let (hosted, joined) = try await Self.fill(host, guests: ["Bo", "Cy"])
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, minimumThinkTime: .milliseconds(20),
                                                                         strategy: TestStrategies.firstLegal) }
        let bo = joined[0].makeController { LocalParticipant(playerID: $0) }
        let cy = joined[1].makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(9)) }.0
        try await hostController.start()
        try await bo.0.start()
        try await cy.start()
        // Seat 0 (the host) moves first: Bo's quit comes out of turn.
        var result = await bo.1.quit()
        for _ in 0..<50 where !(result.isCommitted) {
            try await Task.sleep(for: .milliseconds(20))
            result = await bo.1.quit()
        }
        #expect(result.isCommitted, "Bo's quit was committed: \(result)")
        let hostFinal = try #require(await finished(hostController, within: .seconds(20)))
        let boFinal = try #require(await finished(bo.0, within: .seconds(20)))
        let cyFinal = try #require(await finished(cy, within: .seconds(20)))
        #expect(hostFinal.seats[1].outcome == .quit)
        #expect(hostFinal.moves.count == 40, "the other two played every line after Bo left")
        #expect(boFinal.stateHash == hostFinal.stateHash)
        #expect(cyFinal.stateHash == hostFinal.stateHash)
    }

    @Test("a protocol-1 guest at a table of four is refused versionUnsupported, naming both versions and what to do")
    func protocolOneGuestAtATable() async throws {
        let host = try Self.host(seats: 4)
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let peer = RawPeer(stream: guestEnd)
        await peer.send(.hello(Self.hello("Old", versions: [1])))
        guard case .reject(let reason, let sentence)? = await peer.nextMessage() else {
            Issue.record("expected REJECT"); return
        }
        #expect(reason == .versionUnsupported)
        #expect(sentence == "This table of 4 needs parlor protocol 2; yours speaks 1: update parlor.")
        #expect(await peer.waitForClose())
        // A REJECT is final: GuestHandshake says so and does not retry.
        var machine = GuestHandshake(hello: Self.hello("Old", versions: [1]))
        _ = machine.start()
        guard case .fail(.rejected(.versionUnsupported, _)) = machine.event(.message(.reject(reason, sentence: sentence))) else {
            Issue.record("the guest must give up"); return
        }
        guard case .stop = ReconnectPolicy.verdict(for: JoinError.rejected(reason, sentence)) else {
            Issue.record("a versionUnsupported REJECT is never retried"); return
        }
    }

    @Test("a seated guest waits past the handshake timeout: heartbeats keep it, and leaving frees the seat for the next")
    func seatedGuestOutlivesTheHandshakeTimeout() async throws {
        let timeouts = SessionTimeouts(handshake: .milliseconds(300), heartbeatInterval: .milliseconds(50),
                                       heartbeatTimeout: .seconds(2), confirmation: .seconds(2), grace: .seconds(2))
        let host = try Self.host(seats: 3, timeouts: timeouts)
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let peer = RawPeer(stream: guestEnd)
        await peer.send(.hello(Self.hello("Bo")))
        guard case .table(let table)? = await peer.nextMessage() else { Issue.record("expected TABLE"); return }
        #expect(table.yourSeat == 1)
        #expect(table.seats.map(\.kind) == [.host, .guest, .free])
        // Three handshake timeouts later, heartbeating, it is still seated.
        for _ in 0..<18 {
            await peer.send(.heartbeat(senderTime: 1))
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(await host.seatsTaken == 2)
        var sawHeartbeat = false
        for _ in 0..<10 {
            guard let event = await peer.next(timeout: .milliseconds(100)) else { break }
            if case .message(.heartbeat) = event { sawHeartbeat = true }
            if event == .closed { Issue.record("the host cut a seated guest off") }
        }
        #expect(sawHeartbeat, "the host heartbeats a seated guest")
        await peer.close()
        try await Task.sleep(for: .milliseconds(200))
        #expect(await host.seatsTaken == 1, "its seat is free again")
    }

    @Test("a hostile guest at a table is still refused: another seat's move, a move out of turn")
    func hostileGuestAtATable() async throws {
        let host = try Self.host(seats: 3)
        // Bo is a real guest; Cy is driven by hand.
        let (boEnd, boHostEnd) = InMemoryByteStream.pair()
        await host.accept(boHostEnd)
        let bo = Task { try await Guest.join(over: boEnd, hello: Self.hello("Bo")) }
        try await Task.sleep(for: .milliseconds(50))
        let (cyEnd, cyHostEnd) = InMemoryByteStream.pair()
        await host.accept(cyHostEnd)
        let cy = RawPeer(stream: cyEnd)
        await cy.send(.hello(Self.hello("Cy")))
        var welcome: Welcome?
        while let message = await cy.nextMessage() {
            if case .welcome(let received) = message { welcome = received; break }
        }
        let admitted = try #require(welcome)
        let start = try MatchBlob.decode(admitted.matchBlob)
        #expect(admitted.seat != 0, "seat index 0 is the host's")
        let other = 3 - admitted.seat  // Bo's seat
        let hosted = try await host.waitForGuest()
        let (hostController, _) = hosted.makeController { LocalParticipant(playerID: $0) }
        let boController = try await bo.value.makeController { LocalParticipant(playerID: $0) }.0
        try await hostController.start()
        try await boController.start()
        // It is the host's turn (seat index 0): Cy's move comes out of turn, and a QUIT in Bo's name is not Cy's to send.
        let forHost = try start.applying(.move(Move(0), by: 0), now: 0)
        await cy.send(.turn(sequence: 1, blob: MatchBlob.encode(forHost)))
        guard case .turnRejected(_, let reason, _)? = await cy.nextMessage() else { Issue.record("expected TURN_REJECTED"); return }
        #expect(reason == .notYourTurn)
        let boQuits = try start.applying(.quit(other), now: 0)
        await cy.send(.quit(sequence: 1, blob: MatchBlob.encode(boQuits)))
        guard case .turnRejected(_, let second, _)? = await cy.nextMessage() else { Issue.record("expected TURN_REJECTED"); return }
        #expect(second == .notYourSeat)
        #expect(await hostController.state.sequence == 0, "nothing changed")
    }

    @Test("a protocol-1 guest at a two-seat host still plays: WELCOME at version 1, laid out as release 1 sent it")
    func protocolOneGuestAtTwoSeats() async throws {
        let recorded = try WireFixture.load("protocol1-connect4.frames")
        let helloFrame = try #require(try FrameDecoder.decode(recorded[0].bytes[...]))
        guard case .hello(let oldHello) = try Message.decode(helloFrame.0) else { Issue.record("the fixture opens with HELLO"); return }
        #expect(oldHello.protocolVersions == [1])
        let welcomeFrame = try #require(try FrameDecoder.decode(recorded[1].bytes[...]))
        guard case .welcome(let oldWelcome) = try Message.decode(welcomeFrame.0) else { Issue.record("then WELCOME"); return }

        let host = try MatchHost(configuration: HostConfiguration(gameID: "connect4", hostName: "Host", hostPlayerID: .random(),
                                                                  timeouts: quickTimeouts, appVersion: "0.1.0"))
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let peer = RawPeer(stream: guestEnd)
        await peer.send(bytes: recorded[0].bytes)  // the very bytes release 1 sent
        guard case .welcome(let welcome)? = await peer.nextMessage() else { Issue.record("expected WELCOME"); return }
        #expect(welcome.protocolVersion == 1)
        let state = try MatchBlob.decode(welcome.matchBlob)
        #expect(state.seats.count == 2)
        #expect(state.seats[welcome.seat].playerID == oldHello.playerID)
        // Same layout: the bytes differ only where ids, tokens, names and the clock do.
        let received = await peer.received
        let ours = Array(received.prefix(recorded[1].bytes.count))
        #expect(ours.prefix(4) == recorded[1].bytes.prefix(4), "magic, version 1, type WELCOME")
        #expect(Array(ours[8..<10]) == [1, UInt8(welcome.seat)], "protocol version 1 and the guest's seat")
        #expect(MatchBlob.encode(state)[4..<6] == [0, 1], "a two-seat blob stays format 1")
        #expect(oldWelcome.protocolVersion == 1)
        // No TABLE before WELCOME at two seats.
        #expect(received[3] == MessageType.welcome.rawValue)
    }
    @Test("a guest whose link drops at a table comes back to its own seat with its own token, and the table plays on")
    func perSeatReconnect() async throws {
        let host = try Self.host(seats: 3)
        let (hosted, joined, links) = try await Self.fillOverSwitchboards(host, guests: ["Bo", "Cy"], grace: .seconds(5))
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, minimumThinkTime: .milliseconds(5),
                                                                         strategy: TestStrategies.seeded(2)) }
        let guests = joined.map { $0.makeController { BotParticipant(playerID: $0, minimumThinkTime: .milliseconds(5),
                                                                     strategy: TestStrategies.seeded(11)) }.0 }
        let hostEvents = EventRecorder()
        await hostEvents.record(hostController)
        try await hostController.start()
        for controller in guests { try await controller.start() }
        // Cy's cable is pulled a moment into the match: it redials and takes seat index 2 back.
        try await Task.sleep(for: .milliseconds(30))
        try #require(links[1].newest).guest.fail("cable pulled")
        let hostFinal = try #require(await finished(hostController, within: .seconds(20)))
        for controller in guests {
            let final = try #require(await finished(controller, within: .seconds(20)))
            #expect(final.stateHash == hostFinal.stateHash)
        }
        #expect(await hostController.stopFailure == nil)
        #expect(hostFinal.moves.count == 40)
        #expect(links[1].dials >= 2, "Cy dialled again")
        #expect(links[0].dials == 1, "Bo never left")
        #expect(await hostEvents.notices.contains("Cy is back"))
    }

    /// Every presence event a controller reported, in order.
    static func presences(_ events: [MatchEvent]) -> [(seat: SeatIndex, away: Bool)] {
        events.compactMap { if case .presence(let seat, let away, _) = $0 { (seat, away) } else { nil } }
    }

    /// Seats host + `names` guests, each over its own switchboard (so a link can be pulled and kept down).
    static func fillOverSwitchboards(_ host: MatchHost, guests names: [String], grace: Duration = .seconds(10))
        async throws -> (HostedMatch, [JoinedMatch], [Switchboard]) {
        var links: [Switchboard] = []
        var joins: [Task<JoinedMatch, any Error>] = []
        for name in names {
            let board = Switchboard()
            board.connect(to: host)
            let stream = try await board.dialer(.seconds(1))
            let options = GuestOptions(grace: grace, redial: board.dialer, reconnect: quickRetry)
            let hello = Self.hello(name)
            joins.append(Task { try await Guest.join(over: stream, hello: hello, options: options) })
            links.append(board)
            try await Task.sleep(for: .milliseconds(50))
        }
        let hosted = try await host.waitForGuest()
        var joined: [JoinedMatch] = []
        for join in joins { joined.append(try await join.value) }
        return (hosted, joined, links)
    }

    @Test("a guest whose link drops at a table of four is away on the host and at every other guest, then back, and the match waits for it")
    func awaySeatIsSeenByEveryone() async throws {
        let timeouts = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(100),
                                       heartbeatTimeout: .seconds(1), confirmation: .seconds(2), grace: .seconds(10))
        let host = try Self.host(seats: 4, timeouts: timeouts)
        let (hosted, joined, links) = try await Self.fillOverSwitchboards(host, guests: ["Bo", "Cy", "Di"])
        #expect(joined.map(\.seat) == [1, 2, 3])
        let think = Duration.milliseconds(15)
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, minimumThinkTime: think, strategy: TestStrategies.seeded(2)) }
        let guests = joined.map { $0.makeController { BotParticipant(playerID: $0, minimumThinkTime: think, strategy: TestStrategies.seeded(11)) }.0 }
        let recorders = (0..<4).map { _ in EventRecorder() }
        await recorders[0].record(hostController)
        for (index, controller) in guests.enumerated() { await recorders[index + 1].record(controller) }
        try await hostController.start()
        for controller in guests { try await controller.start() }

        // Cy's cable is pulled and stays out: Cy is away everywhere else.
        try await Task.sleep(for: .milliseconds(60))
        links[1].setLink(up: false)
        try #require(links[1].newest).guest.fail("cable pulled")
        for index in [0, 1, 3] {
            let seen = await recorders[index].waitUntil(timeout: .seconds(5)) { events in
                Self.presences(events).contains { $0.seat == 2 && $0.away }
            }
            #expect(seen, "side \(index) was told that seat 2 (Cy) is away")
        }
        // The match waits on Cy's turn: once it is Cy's to move, nothing is committed while Cy is away.
        var waited = false
        for _ in 0..<100 {
            let state = await hostController.state
            if state.activeSeat == 2 {
                try await Task.sleep(for: .milliseconds(400))
                #expect(await hostController.state.sequence == state.sequence, "nobody moved for the away seat")
                waited = true
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(waited, "the match reached Cy's turn and waited there")
        #expect(!Self.presences(await recorders[2].events).contains { $0.seat == 2 }, "Cy is not told about its own seat")

        // Cy comes back with its token: back everywhere, and the table plays to one end.
        links[1].setLink(up: true)
        for index in [0, 1, 3] {
            let seen = await recorders[index].waitUntil(timeout: .seconds(5)) { events in
                Self.presences(events).contains { $0.seat == 2 && !$0.away }
            }
            #expect(seen, "side \(index) was told that seat 2 (Cy) is back")
        }
        let hostFinal = try #require(await finished(hostController, within: .seconds(30)))
        for controller in guests {
            let final = try #require(await finished(controller, within: .seconds(30)))
            #expect(final.stateHash == hostFinal.stateHash)
        }
        #expect(hostFinal.moves.count == 40)
        #expect(await hostController.stopFailure == nil)
    }

    @Test("when an away guest's grace runs out at a table where three or more still play, its seat counts as quit and the others play on")
    func graceRunOutLeavesTheTableGoing() async throws {
        let timeouts = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(100),
                                       heartbeatTimeout: .seconds(1), confirmation: .seconds(2), grace: .seconds(1))
        let host = try Self.host(seats: 4, timeouts: timeouts)
        // The host keeps an away seat 1 s; the guests are patient, so only Cy's seat runs out.
        let (hosted, joined, links) = try await Self.fillOverSwitchboards(host, guests: ["Bo", "Cy", "Di"], grace: .seconds(10))
        let think = Duration.milliseconds(10)
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, minimumThinkTime: think, strategy: TestStrategies.seeded(4)) }
        let guests = joined.map { $0.makeController { BotParticipant(playerID: $0, minimumThinkTime: think, strategy: TestStrategies.seeded(6)) }.0 }
        let boEvents = EventRecorder()
        await boEvents.record(guests[0])
        try await hostController.start()
        for controller in guests { try await controller.start() }
        try await Task.sleep(for: .milliseconds(40))
        links[1].setLink(up: false)
        try #require(links[1].newest).guest.fail("cable pulled for good")

        let hostFinal = try #require(await finished(hostController, within: .seconds(30)))
        #expect(await hostController.stopFailure == nil, "the table was not interrupted")
        #expect(hostFinal.isEnded)
        #expect(hostFinal.seats[2].outcome == .quit, "Cy's seat counts as quit")
        #expect(hostFinal.moves.count == 40, "the other three drew every line")
        for index in [0, 2] {
            let final = try #require(await finished(guests[index], within: .seconds(30)))
            let failure = await guests[index].stopFailure
            #expect(final.stateHash == hostFinal.stateHash, "guest \(index): \(String(describing: failure)) at \(final.moves.count)")
        }
        #expect(Self.presences(await boEvents.events).contains { $0.seat == 2 && $0.away }, "Bo saw Cy away first")
        // Cy's cable comes back within Cy's own patience: it takes the host's state, its seat quit, and ends the same.
        links[1].setLink(up: true)
        let cyFinal = try #require(await finished(guests[1], within: .seconds(15)))
        let cyFailure = await guests[1].stopFailure
        #expect(cyFinal.stateHash == hostFinal.stateHash, "Cy: \(String(describing: cyFailure))")
    }

    @Test("the host leaving a table for now tells every guest, not only the first: each hears GOODBYE(leaving) and is not told the match ended", .timeLimit(.minutes(1)))
    func leavingATableForNowTellsEveryGuest() async throws {
        let host = try Self.host(seats: 3)
        let (hosted, joined) = try await Self.fill(host, guests: ["Bo", "Cy"])
        // The host's seat moves first and never does: the match stays in play until the host leaves.
        let hostController = hosted.makeController(with: LocalParticipant(playerID: hosted.hostPlayerID), bots: [])
        let guests = joined.map { $0.makeController { LocalParticipant(playerID: $0) }.0 }
        let recorders = guests.map { _ in EventRecorder() }
        for (recorder, controller) in zip(recorders, guests) { await recorder.record(controller) }
        try await hostController.start()
        for controller in guests { try await controller.start() }
        await TableLink(guests: hosted.guests).leaveForNow("leaving, may resume")
        for (index, controller) in guests.enumerated() {
            let final = try #require(await finished(controller, within: .seconds(5)), "guest \(index) was not told")
            #expect(!final.isEnded, "guest \(index): the match is left for now, not over")
            let failure = await controller.stopFailure
            #expect(failure?.isResumable == true, "guest \(index): \(String(describing: failure))")
            #expect("\(String(describing: failure))".contains("leaving, may resume"), "guest \(index): \(String(describing: failure))")
        }
    }

    @Test("SEAT round-trips, and a malformed one (a back with grace left, an unknown presence, a seat past 8, cut short) is refused")
    func seatMessageChecks() throws {
        for presence in [SeatPresence(seat: 3, away: true, graceLeftMilliseconds: 42_000), SeatPresence(seat: 1, away: false, graceLeftMilliseconds: 9),
                         SeatPresence(seat: 2, away: true, graceLeftMilliseconds: 0, botStandsIn: true)] {
            let frame = Message.seat(presence).frame
            #expect(try Message.decode(frame) == .seat(presence))
        }
        #expect(SeatPresence(seat: 1, away: false, graceLeftMilliseconds: 9).graceLeftMilliseconds == 0)
        // A bot standing in is presence 2 with no grace left (the seat is not quit meanwhile).
        #expect(Array(Message.seat(SeatPresence(seat: 2, away: true, graceLeftMilliseconds: 7, botStandsIn: true)).frame.payload) == [2, 2, 0, 0, 0, 0])
        // A "back" or a stand-in with grace left, an unknown presence, a seat past 8: invalid.
        for payload: [UInt8] in [[1, 0, 0, 0, 0, 5], [1, 2, 0, 0, 0, 5], [1, 3, 0, 0, 0, 0], [8, 1, 0, 0, 0, 1], [1, 1, 0, 0]] {
            #expect(throws: MessageError.self) { try Message.decode(Frame(type: .seat, payload: payload)) }
        }
    }
}

extension SubmitResult {
    var isCommitted: Bool { if case .committed = self { true } else { false } }
}
