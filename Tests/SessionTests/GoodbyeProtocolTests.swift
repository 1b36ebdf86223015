import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// GOODBYE is a peer's last word (docs/PROTOCOL.md, sections 4 and 6):
/// nothing after it is looked at, and no GOODBYE changes a result.
@Suite struct GoodbyeProtocolTests {
    static func leaving() -> [UInt8] { Message.goodbye(.goodbyeLeaving, sentence: "leaving, may resume", finalBlob: []).encoded }

    /// What a connection hands on, frame by frame, for chunks of bytes sent one after the other.
    static func handedOn(_ chunks: [UInt8]...) async -> [String] {
        let (near, far) = InMemoryByteStream.pair()
        let connection = WireConnection(stream: far)
        let seen = Collected()
        connection.start { inbound in { await seen.add(inbound) } }
        for chunk in chunks {
            near.send(chunk)
            try? await Task.sleep(for: .milliseconds(50))
        }
        near.close()
        _ = await seen.waitForClose()
        return await seen.items.map { item -> String in
            switch item {
            case .message(let message): "\(message.type)"
            case .frameError: "frameError"
            case .messageError: "messageError"
            case .closed(_, let midFrame): midFrame ? "closed mid-frame" : "closed"
            }
        }
    }

    actor Collected {
        var items: [Inbound] = []
        func add(_ inbound: Inbound) { items.append(inbound) }
        func waitForClose() async -> Bool {
            for _ in 0..<500 {
                if items.contains(where: { if case .closed = $0 { true } else { false } }) { return true }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return false
        }
    }

    /// The guest comes back on a new connection with its seat token: that peer and the state of its WELCOME.
    static func comeBack(_ session: RawGuestSession) async throws -> (RawPeer, MatchState) {
        let back = try await session.door.connect()
        var hello = session.hello
        hello.matchID = session.state.matchID
        hello.seatToken = session.welcome.seatToken
        return (back, try #require(await back.handshake(hello)).1)
    }

    // MARK: Item 8: frames after a GOODBYE

    @Test func framesAfterAGoodbyeInTheSameChunkAreNotHandedOn() async {
        let heartbeat = Message.heartbeat(senderTime: 1).encoded
        let kinds = await Self.handedOn(heartbeat + Self.leaving() + heartbeat + [0x47, 0x45, 0x54, 0x20, 0x00])
        // The heartbeat and the garbage after GOODBYE are ignored, not read as frames or errors.
        #expect(kinds == ["HEARTBEAT", "GOODBYE", "closed"])
    }

    @Test func framesAfterAGoodbyeInALaterChunkAreNotHandedOnEither() async {
        let heartbeat = Message.heartbeat(senderTime: 1).encoded
        let kinds = await Self.handedOn(heartbeat, Self.leaving(), heartbeat, Array(heartbeat.prefix(5)))
        #expect(kinds == ["HEARTBEAT", "GOODBYE", "closed"])
    }

    /// A guest says GOODBYE(leaving) and a TURN in one write: the host takes the departure only.
    @Test(arguments: AttackTransport.allCases)
    func theHostIgnoresATurnThatFollowsGoodbyeInOneWrite(over transport: AttackTransport) async throws {
        let session = try await RawGuestSession.start(over: transport)
        let events = EventRecorder()
        await events.record(session.hostController)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        await session.peer.send(bytes: Self.leaving() + Message.turn(sequence: sequence, blob: blob).encoded)
        #expect(await events.waitUntil { events in
            events.contains { if case .notice(let text) = $0 { text.contains("Mallory disconnected") } else { false } }
        })
        var answers: [Message] = []
        while let event = await session.peer.next(timeout: .seconds(3)), event != .closed {
            if case .message(let message) = event, message.type != .heartbeat { answers.append(message) }
        }
        #expect(answers.isEmpty, "the host answered a frame after GOODBYE: \(answers.map(\.type))")
        try? await Task.sleep(for: .milliseconds(200))
        #expect(await session.hostController.state.sequence == 0, "the host committed the TURN after GOODBYE")
        #expect(!(await events.events.contains { if case .committed = $0 { true } else { false } }))

        // Coming back, the guest finds the host's state without that move.
        let (_, state) = try await Self.comeBack(session)
        #expect(state.sequence == 0 && state.moves.isEmpty)
    }

    /// The host says GOODBYE(leaving) and pushes a TURN in one write: the guest takes the departure only.
    @Test func theGuestIgnoresAPushThatFollowsGoodbyeInOneWrite() async throws {
        let script = try await LyingHostProtocolTests.Scripted.make(guestSeat: 1)
        let pushed = try script.initial.applying(.move(Move(3), by: 0), now: 1_700_000_001_000)
        await script.peer.send(bytes: Self.leaving() + Message.turn(sequence: 1, blob: MatchBlob.encode(pushed)).encoded)
        let final = try #require(await finished(script.controller, within: .seconds(5)))
        #expect(final.sequence == 0 && final.moves.isEmpty, "the guest took a push that followed GOODBYE")
    }

    // MARK: Item 9: a GOODBYE never changes a result

    /// The guest's seat 0 is about to lose: the host (seat 1) has three in column 4 and the guest is to move.
    static func guestAboutToLose(over transport: AttackTransport, turnTimeout: UInt32 = 0) async throws -> RawGuestSession {
        // A grace period well past the turn timeout: the guest's time runs out while its seat is kept.
        let timeouts = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(100),
                                       heartbeatTimeout: .seconds(2), confirmation: .seconds(2), grace: .seconds(30))
        var session = try await RawGuestSession.start(over: transport, turnTimeout: turnTimeout, timeouts: timeouts)
        for column in [0, 0, 6] {
            try await session.play(column)
            try await session.hostPlays(3)
        }
        return session
    }

    @Test(arguments: [ReasonCode.goodbyeDesync, .goodbyeMatchOver])
    func aForgedGoodbyeFromALosingGuestDoesNotEraseTheHostsWin(reason: ReasonCode) async throws {
        let session = try await Self.guestAboutToLose(over: .memory, turnTimeout: 2)
        let events = EventRecorder()
        await events.record(session.hostController)
        // Instead of moving, the guest claims a desync, or that the match is over with a final state it made up.
        var forged = session.state
        forged.seats[session.seat].outcome = .won
        await session.peer.send(.goodbye(reason, sentence: "hash differs", finalBlob: reason == .goodbyeMatchOver ? MatchBlob.encode(forged) : []))
        let final = try #require(await finished(session.hostController, within: .seconds(10)))
        #expect(await events.waitUntil { $0.contains { if case .ended = $0 { true } else { false } } }, "the host ended with an error")
        #expect(final.isEnded)
        #expect(final.seats[session.seat].outcome == .timeExpired)
        #expect(final.seats[session.hostSeat].outcome == .won)
        // The guest that comes back learns that it lost.
        let (_, seen) = try await Self.comeBack(session)
        #expect(seen.stateHash == final.stateHash)
    }

    @Test(arguments: AttackTransport.allCases)
    func aGuestThatSaidDesyncComesBackToTheHostsStateAndPlaysOn(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let events = EventRecorder()
        await events.record(session.hostController)
        try await session.play(2)
        try await session.hostPlays(3)
        await session.peer.send(.goodbye(.goodbyeDesync, sentence: "hash differs", finalBlob: []))
        #expect(await events.waitUntil { events in
            events.contains { if case .notice(let text) = $0 { text.contains("Mallory disconnected (its copy of the match disagrees") } else { false } }
        })
        #expect(!(await session.hostController.isStopped), "the host stopped the match on the guest's desync")
        // The host's state wins: the guest takes it and the match goes on.
        let (back, state) = try await Self.comeBack(session)
        #expect(state.stateHash == session.state.stateHash)
        let next = try state.applying(.move(Move(2), by: session.seat), now: wallClockMilliseconds())
        await back.send(.turn(sequence: next.sequence, blob: MatchBlob.encode(next)))
        guard case .confirm(next.sequence, next.stateHash, _)? = await back.nextMessage() else {
            Issue.record("expected CONFIRM after coming back")
            return
        }
    }
}
