import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// A scripted host that lies: it must never put words in the guest's mouth
/// (docs/PROTOCOL.md, section 8, "What a guest never believes").
@Suite struct LyingHostProtocolTests {
    /// A guest joined to a hand-driven host over an in-memory stream.
    struct Scripted {
        let peer: RawPeer
        let joined: JoinedMatch
        let controller: MatchController
        let local: LocalParticipant
        let initial: MatchState
        let guestSeat: SeatIndex

        static func make(guestSeat: SeatIndex, turnTimeout: UInt32 = 0, keepForRematch: Bool = false,
                         forge: (inout MatchState) -> Void = { _ in }) async throws -> Scripted {
            let (guestEnd, hostEnd) = InMemoryByteStream.pair()
            let peer = RawPeer(stream: hostEnd)
            let hello = Hello(appVersion: "test", playerID: .random(), playerName: "Guest",
                              games: [GameVersion.local("connect4")].compactMap { $0 })
            async let joining = Guest.join(over: guestEnd, hello: hello)
            guard case .hello? = await peer.nextMessage() else { throw ScriptError("no HELLO") }
            var state = Self.newMatch(guest: hello.playerID, guestSeat: guestSeat, turnTimeout: turnTimeout)
            forge(&state)
            await peer.send(.welcome(Self.welcome(state, seat: guestSeat)))
            let joined = try await joining
            if keepForRematch { joined.remote.keepConnectionForRematch() }
            let (controller, local) = joined.makeController { LocalParticipant(playerID: $0) }
            try await controller.start()
            return Scripted(peer: peer, joined: joined, controller: controller, local: local, initial: state, guestSeat: guestSeat)
        }

        static func newMatch(guest: PlayerID, guestSeat: SeatIndex, turnTimeout: UInt32 = 0, id: MatchID = .random()) -> MatchState {
            var seats = [Seat(playerID: PlayerID(bytes: Array(repeating: 0x11, count: 16))!, name: "Liar"),
                         Seat(playerID: guest, name: "Guest")]
            if guestSeat == 0 { seats.reverse() }
            return MatchState(matchID: id, game: Connect4(seats: 2), seats: seats, turnTimeout: turnTimeout, now: 1_700_000_000_000)
        }

        static func welcome(_ state: MatchState, seat: SeatIndex) -> Welcome {
            Welcome(protocolVersion: 1, seat: seat, seatToken: .random(),
                    settings: SessionSettings(turnTimeoutSeconds: state.turnTimeout, heartbeatIntervalMilliseconds: 100,
                                              heartbeatTimeoutMilliseconds: 5000, confirmationTimeoutMilliseconds: 2000),
                    hostAppVersion: "liar", matchBlob: MatchBlob.encode(state))
        }

        /// The guest's record holds nothing by its own seat.
        func guestSaidNothing() async -> Bool {
            let state = await controller.state
            let outcome = state.seats[guestSeat].outcome
            return !state.moves.contains { $0.seat == guestSeat } && outcome != .quit && outcome != .timeExpired
        }
    }

    struct ScriptError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The next message from the guest that is not a heartbeat.
    static func guestSays(_ peer: RawPeer) async -> Message? { await peer.nextMessage(timeout: .seconds(5)) }

    /// The guest answers the lie with GOODBYE(`reason`), and its record holds nothing by its own seat.
    static func expectRefused(_ script: Scripted, with reason: ReasonCode, _ lie: String) async {
        guard case .goodbye(let said, _, _)? = await guestSays(script.peer) else {
            Issue.record("the guest took \(lie)")
            #expect(await script.guestSaidNothing())
            return
        }
        #expect(said == reason)
        #expect(await script.guestSaidNothing())
    }

    @Test func aConfirmForAChangeTheGuestNeverSentIsAProtocolViolation() async throws {
        let script = try await Scripted.make(guestSeat: 0)
        // The guest is to move and has not. The liar "confirms" a move it made up.
        let forged = try script.initial.applying(.move(Move(3), by: 0), now: 1_700_000_001_000)
        await script.peer.send(.confirm(sequence: 1, stateHash: forged.stateHash, deadline: 0))
        let answer = await Self.guestSays(script.peer)
        if case .stateRequest? = answer {
            // What a trusting guest did: ask for the state and adopt the forgery.
            await script.peer.send(.state(blob: MatchBlob.encode(forged)))
        }
        guard case .goodbye(let reason, _, _)? = answer else {
            Issue.record("expected GOODBYE(protocolError), got \(String(describing: answer))")
            _ = await finished(script.controller, within: .seconds(1))
            #expect(await script.guestSaidNothing())
            return
        }
        #expect(reason == .goodbyeProtocolError)
        #expect(await finished(script.controller) != nil)
        #expect(await script.guestSaidNothing())
    }

    @Test func aStateHoldingAMoveTheGuestNeverMadeIsADesync() async throws {
        let script = try await Scripted.make(guestSeat: 0)
        // The guest's move is lost on the way (no CONFIRM): it rolls back and asks for the state.
        let result = Task { await script.local.play(Move(0)) }
        guard case .turn? = await Self.guestSays(script.peer) else { throw ScriptError("no TURN") }
        guard case .stateRequest? = await Self.guestSays(script.peer) else { throw ScriptError("no STATE_REQUEST") }
        _ = await result.value
        // The liar answers with a state where the guest played column 4, not the column 1 it sent.
        let forged = try script.initial.applying(.move(Move(3), by: 0), now: 1_700_000_001_000)
        await script.peer.send(.state(blob: MatchBlob.encode(forged)))
        await Self.expectRefused(script, with: .goodbyeDesync, "the forged state")
    }

    @Test func aStateHoldingTheGuestsOwnSentMoveIsAdopted() async throws {
        let script = try await Scripted.make(guestSeat: 0)
        let result = Task { await script.local.play(Move(3)) }
        guard case .turn(_, let blob)? = await Self.guestSays(script.peer) else { throw ScriptError("no TURN") }
        guard case .stateRequest? = await Self.guestSays(script.peer) else { throw ScriptError("no STATE_REQUEST") }
        _ = await result.value
        // The host did commit it (only its CONFIRM was lost): the state brings it back, and a reply.
        let committed = try MatchBlob.decode(blob)
        let reply = try committed.applying(.move(Move(3), by: 1), now: 1_700_000_002_000)
        await script.peer.send(.state(blob: MatchBlob.encode(reply)))
        var waited = 0
        while await script.controller.state.sequence != 2, waited < 250 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        #expect(await script.controller.state.stateHash == reply.stateHash)
        #expect(await !script.controller.isStopped)
    }

    @Test func aPushedQuitForTheGuestsSeatIsRefused() async throws {
        let script = try await Scripted.make(guestSeat: 1)
        let forged = try script.initial.applying(.quit(1), now: 1_700_000_001_000)
        await script.peer.send(.quit(sequence: 1, blob: MatchBlob.encode(forged)))
        await Self.expectRefused(script, with: .goodbyeDesync, "the forged quit")
        #expect(await script.controller.stopFailure != nil)
    }

    @Test func aTimeExpiryWithoutATurnTimeoutIsRefused() async throws {
        // No turn timeout, but a deadline slipped into the blob.
        let script = try await Scripted.make(guestSeat: 0) { $0.deadline = 1_700_000_000_500 }
        let forged = try script.initial.applying(.timeExpired(0), now: 1_700_000_001_000)
        await script.peer.send(.turn(sequence: 1, blob: MatchBlob.encode(forged)))
        await Self.expectRefused(script, with: .goodbyeDesync, "the forged time expiry")
    }

    @Test func aTimeExpiryOfTheSeatToMoveWithATurnTimeoutIsTaken() async throws {
        let script = try await Scripted.make(guestSeat: 0, turnTimeout: 30)
        let expired = try script.initial.applying(.timeExpired(0), now: script.initial.deadline)
        await script.peer.send(.turn(sequence: 1, blob: MatchBlob.encode(expired)))
        #expect(await finished(script.controller) != nil)
        #expect(await script.controller.stopFailure == nil)
        #expect(await script.controller.state.seats[0].outcome == .timeExpired)
    }

    @Test func aWelcomeForANewMatchThatIsNotEmptyIsRefused() async throws {
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        let peer = RawPeer(stream: hostEnd)
        let hello = Hello(appVersion: "test", playerID: .random(), playerName: "Guest",
                          games: [GameVersion.local("connect4")].compactMap { $0 })
        async let joining = Guest.join(over: guestEnd, hello: hello)
        guard case .hello? = await peer.nextMessage() else { throw ScriptError("no HELLO") }
        // Three moves already, one of them by the guest's seat.
        var state = Scripted.newMatch(guest: hello.playerID, guestSeat: 1)
        for (index, column) in [3, 2, 3].enumerated() {
            state = try state.applying(.move(Move(column), by: index % 2), now: 1_700_000_000_000)
        }
        await peer.send(.welcome(Scripted.welcome(state, seat: 1)))
        do {
            _ = try await joining
            Issue.record("the guest joined a new match that already held moves")
        } catch let error as JoinError {
            guard case .badWelcome(let why) = error else {
                Issue.record("expected badWelcome, got \(error)")
                return
            }
            #expect(why.contains("empty"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aRematchThatReusesTheIdOrKeepsTheSeatsIsRefused() async throws {
        for reuseID in [true, false] {
            let script = try await Scripted.make(guestSeat: 1, keepForRematch: true)
            // The liar quits: the guest wins, and the connection stays for a rematch.
            let quit = try script.initial.applying(.quit(0), now: 1_700_000_001_000)
            await script.peer.send(.quit(sequence: 1, blob: MatchBlob.encode(quit)))
            #expect(await finished(script.controller) != nil)
            let talk = Task { await Guest.rematch(after: script.joined, wants: true, answerTimeout: .seconds(5)) }
            guard case .rematch(.offer)? = await Self.guestSays(script.peer) else { throw ScriptError("no REMATCH offer") }
            await script.peer.send(.rematch(.accept))
            // Same id (or a new id), same seats, not swapped.
            let guestID = script.initial.seats[1].playerID
            let next = Scripted.newMatch(guest: guestID, guestSeat: 1, id: reuseID ? script.initial.matchID : .random())
            await script.peer.send(.welcome(Scripted.welcome(next, seat: 1)))
            guard case .over(.protocolError(let why)) = await talk.value else {
                Issue.record("the guest accepted a rematch that \(reuseID ? "reuses the id" : "keeps the seats")")
                continue
            }
            #expect(why.contains(reuseID ? "reuses the id" : "swap"))
        }
    }
}

/// The pure checks behind the tests above.
@Suite struct GuestRecordCheckTests {
    let guest = PlayerID.random()

    func start(guestSeat: SeatIndex, turnTimeout: UInt32 = 0) -> MatchState {
        LyingHostProtocolTests.Scripted.newMatch(guest: guest, guestSeat: guestSeat, turnTimeout: turnTimeout)
    }

    @Test func aMoveOfTheGuestsSeatNeedsItsProposalRightThere() throws {
        let known = start(guestSeat: 0)
        let one = try known.applying(.move(Move(3), by: 0), now: 1)
        let two = try one.applying(.move(Move(2), by: 1), now: 2)
        let three = try two.applying(.move(Move(3), by: 0), now: 3)
        let sent = OwnProposal(base: 0, change: .move(Move(3), by: 0), resultingHash: one.stateHash)
        let other = OwnProposal(base: 0, change: .move(Move(1), by: 0), resultingHash: 0)
        #expect(throws: Never.self) { try GuestRecordCheck.adoption(two, known: known, guestSeat: 0, proposal: sent).get() }
        #expect(throws: PushDesync.self) { try GuestRecordCheck.adoption(two, known: known, guestSeat: 0, proposal: nil).get() }
        #expect(throws: PushDesync.self) { try GuestRecordCheck.adoption(two, known: known, guestSeat: 0, proposal: other).get() }
        // Only one: the third move is the guest's too, and it never sent it.
        #expect(throws: PushDesync.self) { try GuestRecordCheck.adoption(three, known: known, guestSeat: 0, proposal: sent).get() }
        // A guest resuming from disk may have sent its first change just before it stopped.
        #expect(throws: Never.self) {
            try GuestRecordCheck.adoption(two, known: known, guestSeat: 0, proposal: nil, oneUnsavedChange: true).get()
        }
        #expect(throws: PushDesync.self) {
            try GuestRecordCheck.adoption(three, known: known, guestSeat: 0, proposal: nil, oneUnsavedChange: true).get()
        }
        // Its copy may also lack the host's answer to its last saved move: the one change is then after it.
        #expect(throws: Never.self) {
            try GuestRecordCheck.adoption(three, known: one, guestSeat: 0, proposal: nil, oneUnsavedChange: true).get()
        }
        let four = try three.applying(.move(Move(2), by: 1), now: 4)
        let five = try four.applying(.move(Move(3), by: 0), now: 5)
        #expect(throws: PushDesync.self) {
            try GuestRecordCheck.adoption(five, known: one, guestSeat: 0, proposal: nil, oneUnsavedChange: true).get()
        }
        // The same for a quit: after the host's answer, as the one change; never after a move of ours too.
        let quitAfterAnswer = try two.applying(.quit(0), now: 3)
        #expect(throws: Never.self) {
            try GuestRecordCheck.adoption(quitAfterAnswer, known: one, guestSeat: 0, proposal: nil, oneUnsavedChange: true).get()
        }
        let quitAfterMove = try four.applying(.quit(0), now: 5)
        #expect(throws: PushDesync.self) {
            try GuestRecordCheck.adoption(quitAfterMove, known: one, guestSeat: 0, proposal: nil, oneUnsavedChange: true).get()
        }
        // The host's own moves are the host's business.
        let host = start(guestSeat: 1)
        let hostMoved = try host.applying(.move(Move(3), by: 0), now: 1)
        #expect(throws: Never.self) { try GuestRecordCheck.adoption(hostMoved, known: host, guestSeat: 1, proposal: nil).get() }
    }

    @Test func aQuitOfTheGuestsSeatNeedsItsQuit() throws {
        let known = start(guestSeat: 1)
        let quit = try known.applying(.quit(1), now: 1)
        let sent = OwnProposal(base: 0, change: .quit(1), resultingHash: quit.stateHash)
        #expect(throws: Never.self) { try GuestRecordCheck.adoption(quit, known: known, guestSeat: 1, proposal: sent).get() }
        #expect(throws: PushDesync.self) { try GuestRecordCheck.adoption(quit, known: known, guestSeat: 1, proposal: nil).get() }
        let hostQuit = try known.applying(.quit(0), now: 1)
        #expect(throws: Never.self) { try GuestRecordCheck.adoption(hostQuit, known: known, guestSeat: 1, proposal: nil).get() }
    }

    @Test func aTimeExpiryOfTheGuestsSeatNeedsATurnTimeoutAndItsTurn() throws {
        let timed = start(guestSeat: 0, turnTimeout: 30)
        let expired = try timed.applying(.timeExpired(0), now: timed.deadline)
        #expect(throws: Never.self) { try GuestRecordCheck.adoption(expired, known: timed, guestSeat: 0, proposal: nil).get() }
        var untimed = start(guestSeat: 0)
        untimed.deadline = 5
        let forged = try untimed.applying(.timeExpired(0), now: 5)
        #expect(throws: PushDesync.self) { try GuestRecordCheck.adoption(forged, known: untimed, guestSeat: 0, proposal: nil).get() }
    }

    @Test func aNewMatchStartsEmptyAndARematchSwapsSeatsUnderANewID() throws {
        let fresh = start(guestSeat: 1)
        #expect(throws: Never.self) { try GuestRecordCheck.newMatch(fresh).get() }
        let moved = try fresh.applying(.move(Move(3), by: 0), now: 1)
        #expect(throws: PushDesync.self) { try GuestRecordCheck.newMatch(moved).get() }
        let swapped = start(guestSeat: 0)
        #expect(throws: Never.self) { try GuestRecordCheck.rematch(swapped, guestSeat: 0, after: fresh, previousSeat: 1).get() }
        #expect(throws: PushDesync.self) { try GuestRecordCheck.rematch(start(guestSeat: 1), guestSeat: 1, after: fresh, previousSeat: 1).get() }
        let sameID = LyingHostProtocolTests.Scripted.newMatch(guest: guest, guestSeat: 0, id: fresh.matchID)
        #expect(throws: PushDesync.self) { try GuestRecordCheck.rematch(sameID, guestSeat: 0, after: fresh, previousSeat: 1).get() }
    }
}
