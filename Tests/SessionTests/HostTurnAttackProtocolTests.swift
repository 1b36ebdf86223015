import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// How the malicious peer reaches the host: an in-memory pair (fast,
/// deterministic), or a real TCP connection over loopback, accepted by a real
/// listener (the real thing: every attack runs both ways).
enum AttackTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, tcp
    var testDescription: String { rawValue }
}

/// A listener whose accepted connections go to one host, kept alive for a session.
final class HostDoor: Sendable {
    let transport: AttackTransport
    let host: MatchHost
    private let listener: TCPListener?
    private let acceptor: Task<Void, Never>?

    init(_ transport: AttackTransport, host: MatchHost) throws {
        self.transport = transport
        self.host = host
        if transport == .tcp {
            let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
            self.listener = listener
            acceptor = Task { await host.serve(listener, security: .clear) }
        } else {
            listener = nil
            acceptor = nil
        }
    }

    /// A new raw peer connected to the host.
    func connect() async throws -> RawPeer {
        guard let listener else {
            let (client, server) = InMemoryByteStream.pair()
            await host.accept(server)
            return RawPeer(stream: client)
        }
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        return RawPeer(stream: connection.byteStream())
    }

    deinit {
        acceptor?.cancel()
        listener?.close()
    }
}

/// A hand-driven guest that completed the handshake, against a real host
/// whose own seat is a scripted LocalParticipant (so nothing moves unless
/// the test says so). The guest is seat 1 and moves first.
struct RawGuestSession {
    let door: HostDoor
    var host: MatchHost { door.host }
    let peer: RawPeer
    let hostController: MatchController
    let hostLocal: LocalParticipant
    /// The guest's copy of the committed state.
    var state: MatchState
    let seat: SeatIndex
    /// What we said and what the host answered, for coming back with the seat token.
    let hello: Hello
    let welcome: Welcome
    /// The host's side of the match (its `RemoteGuest` is `hosted.remote`).
    let hosted: HostedMatch

    static func start(over transport: AttackTransport = .memory, turnTimeout: UInt32 = 0,
                      timeouts: SessionTimeouts = quickTimeouts,
                      hello: Hello = Hello(appVersion: "test", playerID: .random(), playerName: "Mallory"),
                      save: RemoteGuest.Persist? = nil) async throws -> RawGuestSession {
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: "connect4", hostName: "Hostess", hostPlayerID: .random(), seatPreference: .second,
            turnTimeoutSeconds: turnTimeout, timeouts: timeouts, appVersion: "test"))
        let door = try HostDoor(transport, host: host)
        let peer = try await door.connect()
        let (welcome, state) = try #require(await peer.handshake(hello))
        let hosted = try await host.waitForGuest()
        if let save { hosted.saveBeforeRevealing(save) }
        let (controller, local) = hosted.makeController { LocalParticipant(playerID: $0) }
        try await controller.start()
        return RawGuestSession(door: door, peer: peer, hostController: controller, hostLocal: local, state: state,
                               seat: welcome.seat, hello: hello, welcome: welcome, hosted: hosted)
    }

    var hostSeat: SeatIndex { 1 - seat }

    /// The blob of our state after `change`, and its sequence.
    func proposal(_ change: MatchChange) throws -> (UInt32, [UInt8]) {
        let next = try state.applying(change, now: wallClockMilliseconds())
        return (next.sequence, MatchBlob.encode(next))
    }

    /// Sends a TURN and returns the host's answer.
    func send(_ message: Message) async -> Message? {
        await peer.send(message)
        return await peer.nextMessage()
    }

    /// Plays a legal move for our seat and expects CONFIRM.
    mutating func play(_ column: Int) async throws {
        let change = MatchChange.move(Move(column), by: seat)
        let (sequence, blob) = try proposal(change)
        let answer = await send(.turn(sequence: sequence, blob: blob))
        guard case .confirm(sequence, let hash, _)? = answer else {
            Issue.record("expected CONFIRM \(sequence), got \(String(describing: answer))")
            return
        }
        state = try MatchBlob.decode(blob)
        #expect(hash == state.stateHash)
    }

    /// Lets the host play `column` and takes its push.
    mutating func hostPlays(_ column: Int) async throws {
        _ = await hostLocal.play(Move(column))
        guard case .turn(let sequence, let blob)? = await peer.nextMessage() else {
            Issue.record("expected the host's TURN push")
            return
        }
        let next = try MatchBlob.decode(blob)
        #expect(sequence == state.sequence + 1)
        _ = try state.change(to: next)
        state = next
    }

    /// The host's committed state is still ours (nothing changed on a reject).
    func expectHostUnchanged() async {
        let hostState = await hostController.state
        #expect(hostState.sequence == state.sequence)
        #expect(hostState.stateHash == state.stateHash)
    }
}

@Suite struct HostTurnAttackProtocolTests {
    static func expectRejected(_ answer: Message?, _ reason: ReasonCode, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .turnRejected(_, let got, let sentence)? = answer else {
            Issue.record("expected TURN_REJECTED \(reason), got \(String(describing: answer))", sourceLocation: sourceLocation)
            return
        }
        #expect(got == reason, "\(sentence)", sourceLocation: sourceLocation)
        #expect(!sentence.isEmpty, sourceLocation: sourceLocation)
    }

    @Test(arguments: AttackTransport.allCases)
    func aTurnOutOfSequenceIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let (_, blob) = try session.proposal(.move(Move(3), by: session.seat))
        Self.expectRejected(await session.send(.turn(sequence: 5, blob: blob)), .outOfSequence)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aFrameSequenceThatDisagreesWithItsBlobIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        try await session.play(3)
        try await session.hostPlays(0)
        // TURN 3 carrying a valid state that is change 4 (two moves ahead).
        let ahead = try session.state.applying(.move(Move(2), by: session.seat), now: 0)
            .applying(.move(Move(2), by: session.hostSeat), now: 0)
        Self.expectRejected(await session.send(.turn(sequence: 3, blob: MatchBlob.encode(ahead))), .outOfSequence)
        await session.expectHostUnchanged()
        try await session.play(2)
    }

    @Test(arguments: AttackTransport.allCases)
    func aReplayedTurnIsRecognised(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        try await session.play(3)
        try await session.hostPlays(0)
        Self.expectRejected(await session.send(.turn(sequence: sequence, blob: blob)), .replayed)
        await session.expectHostUnchanged()
        try await session.play(4)
    }

    @Test(arguments: AttackTransport.allCases)
    func aMoveForTheOtherSeatIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        let forged = BlobForge.forge(blob) { $0[BlobForge.lastMoveOffset(in: $0)] = UInt8(session.hostSeat) }
        Self.expectRejected(await session.send(.turn(sequence: sequence, blob: forged)), .notYourSeat)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aTurnOutOfTurnIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        try await session.play(3)
        // Now it is the host's turn: even a move the rules allow for the host is refused.
        let (sequence, blob) = try session.proposal(.move(Move(2), by: session.hostSeat))
        Self.expectRejected(await session.send(.turn(sequence: sequence, blob: blob)), .notYourTurn)
        await session.expectHostUnchanged()
        try await session.hostPlays(0)
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func anIllegalMoveIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        let forged = BlobForge.forge(blob) { $0[BlobForge.lastMoveOffset(in: $0) + 2] = 9 }  // column 10 of 7
        Self.expectRejected(await session.send(.turn(sequence: sequence, blob: forged)), .illegalMove)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aBlobOfAnotherMatchIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let other = MatchState(matchID: .random(), game: Connect4(), seats: session.state.seats)
        let next = try other.applying(.move(Move(3), by: session.seat), now: 0)
        Self.expectRejected(await session.send(.turn(sequence: 1, blob: MatchBlob.encode(next))), .otherMatch)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aBlobOfAnotherGameIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let other = MatchState(matchID: session.state.matchID, game: TicTacToe(), seats: session.state.seats)
        let next = try other.applying(.move(Move(4), by: session.seat), now: 0)
        Self.expectRejected(await session.send(.turn(sequence: 1, blob: MatchBlob.encode(next))), .otherGame)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aForgedStateHashIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        var forged = blob
        forged[forged.count - 1] ^= 0x01
        Self.expectRejected(await session.send(.turn(sequence: sequence, blob: forged)), .hashMismatch)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aBlobThatRewritesEarlierMovesIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        try await session.play(3)
        try await session.hostPlays(0)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        // Move 1 (ours, column 4) becomes column 5: still a legal history, but not the committed one.
        let firstMove = BlobForge.lastMoveOffset(in: blob) - 2 * 3
        let forged = BlobForge.forge(blob) { $0[firstMove + 2] = 5 }
        Self.expectRejected(await session.send(.turn(sequence: sequence, blob: forged)), .historyRewritten)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aGuestClaimingToHaveWonIsRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        let forged = BlobForge.forge(blob) { bytes in
            // Each seat: player id 16, name, status, outcome. Set ours to done/won and the host's to done/lost.
            var offset = 4 + 2 + 16
            offset += 1 + Int(bytes[offset]) + 2 + 1
            for index in 0..<2 {
                offset += 16
                offset += 1 + Int(bytes[offset])
                bytes[offset] = 2
                bytes[offset + 1] = index == session.seat ? 1 : 2
                offset += 2
            }
        }
        Self.expectRejected(await session.send(.turn(sequence: sequence, blob: forged)), .outcomesDisagree)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aQuitCarryingAMoveAndAClaimedTimeoutAreRejected(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        Self.expectRejected(await session.send(.quit(sequence: sequence, blob: blob)), .notOneChange)
        await session.expectHostUnchanged()
        // The match has no turn timeout: a guest cannot declare its own time expired either.
        var expired = session.state
        expired.deadline = 1
        let claimed = try expired.applying(.timeExpired(session.seat), now: 2)
        Self.expectRejected(await session.send(.turn(sequence: claimed.sequence, blob: MatchBlob.encode(claimed))), .notYourSeat)
        await session.expectHostUnchanged()
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func garbageMidMatchClosesTheConnectionAndTheMatchIsInterruptedAfterGrace(over transport: AttackTransport) async throws {
        let session = try await RawGuestSession.start(over: transport)
        let events = EventRecorder()
        await events.record(session.hostController)
        await session.peer.send(bytes: [0x50, 0x4C, 0x01, 0x04, 0xFF, 0xFF, 0xFF, 0xFF])
        guard case .goodbye(let reason, _, _)? = await session.peer.nextMessage() else {
            Issue.record("expected GOODBYE")
            return
        }
        #expect(reason == .goodbyeProtocolError)
        let final = try #require(await finished(session.hostController, within: .seconds(6)))
        // Nobody quit: the match stops as interrupted (resumable), not over.
        #expect(!final.isEnded)
        guard case .connectionLost? = await session.hostController.stopFailure else {
            Issue.record("expected the match to be interrupted")
            return
        }
        #expect(await events.notices.contains { $0.contains("Mallory disconnected — waiting for Mallory to come back") })
    }

    @Test(arguments: AttackTransport.allCases)
    func aSecondGuestGetsMatchFullWhileTheMatchGoesOn(over transport: AttackTransport) async throws {
        var session = try await RawGuestSession.start(over: transport)
        try await session.play(3)
        let intruder = try await session.door.connect()
        await intruder.send(.hello(Hello(appVersion: "test", playerID: .random(), playerName: "Eve")))
        #expect(await intruder.nextMessage()?.rejectReason == .matchFull)
        #expect(await intruder.waitForClose())
        await session.expectHostUnchanged()
        try await session.hostPlays(0)
        try await session.play(3)
    }

    @Test(arguments: AttackTransport.allCases)
    func aResumeWithAWrongSeatTokenIsRejected(over transport: AttackTransport) async throws {
        let session = try await RawGuestSession.start(over: transport)
        let intruder = try await session.door.connect()
        await intruder.send(.hello(Hello(appVersion: "test", playerID: .random(), playerName: "Eve",
                                         matchID: session.state.matchID, seatToken: .random())))
        #expect(await intruder.nextMessage()?.rejectReason == .badSeatToken)
        let stranger = try await session.door.connect()
        await stranger.send(.hello(Hello(appVersion: "test", playerID: .random(), playerName: "Eve", matchID: .random())))
        #expect(await stranger.nextMessage()?.rejectReason == .matchNotFound)
        await session.expectHostUnchanged()
    }
}
