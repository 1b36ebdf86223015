import Games
import Match
import Testing
@testable import Session

/// Issue 10 item 4 over a real session (host and guest controllers joined by
/// the protocol): a change is judged once per hop and a state encoded once
/// per commit. Before, one guest move late in a match cost a whole-history
/// replay on the host plus two more applications there, and seven encodings
/// on the two sides; the counts below are what is left.
@Suite struct JudgedOnceProtocolTests {
    /// Waits until `controller` has committed `sequence`.
    func reach(_ sequence: UInt32, _ controller: MatchController) async throws {
        let limit = ContinuousClock.now + .seconds(5)
        while await controller.state.sequence < sequence {
            try #require(ContinuousClock.now < limit, "change \(sequence) never arrived")
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test("one move of either side costs one decode, one encoding and one application per hop", arguments: [UInt32(0), 60])
    func oneMoveIsJudgedOncePerHop(turnTimeout: UInt32) async throws {
        let pair = try await JoinedPair.make(seat: .first, turnTimeout: turnTimeout)  // the host moves first
        let (hostController, host) = pair.hosted.makeController { LocalParticipant(playerID: $0) }
        let (guestController, guest) = pair.joined.makeController { LocalParticipant(playerID: $0) }
        try await hostController.start()
        try await guestController.start()
        // Some history first, so that replaying it would show in the counts.
        for (index, column) in [0, 1, 0, 1, 2, 2].enumerated() {
            let player = index.isMultiple(of: 2) ? host : guest
            guard case .committed = await player.play(Move(column)) else {
                Issue.record("move \(index + 1) was not committed")
                return
            }
            try await reach(UInt32(index + 1), index.isMultiple(of: 2) ? guestController : hostController)
        }
        let match = await hostController.state.matchID
        MatchWork.watch(match)
        defer { MatchWork.stopWatching(match) }

        // The host's move: applied by its controller, encoded once for the push
        // (and its hash); the guest reads it once against its state and commits that.
        guard case .committed = await host.play(Move(3)) else { Issue.record("the host's move was refused"); return }
        try await reach(7, guestController)
        #expect(MatchWork.stopWatching(match) == MatchWork.Counts(decodes: 1, encodes: 1, applies: 2))

        // The guest's move: applied by its controller, encoded once for the TURN;
        // the host reads it once against its state, commits what it judged, and
        // its CONFIRM (and every later hash or save of the state) reuses the bytes it got.
        MatchWork.watch(match)
        guard case .committed = await guest.play(Move(4)) else { Issue.record("the guest's move was refused"); return }
        try await reach(8, hostController)
        #expect(MatchWork.stopWatching(match) == MatchWork.Counts(decodes: 1, encodes: 1, applies: 2))

        let (hostState, guestState) = (await hostController.state, await guestController.state)
        #expect(hostState.stateHash == guestState.stateHash)
        #expect(MatchBlob.encode(hostState).count == MatchBlob.encode(guestState).count)
        if turnTimeout > 0 {
            // The host's commit keeps its own clock for the guest's next turn (not the guest's deadline).
            #expect(hostState.deadline > 0)
        }
    }

    @Test("a guest's forged deadline is not committed: the host's CONFIRM, state and STATE carry its own clock",
          arguments: [UInt32(0), 60])
    func aForgedDeadlineIsReplacedByTheHosts(turnTimeout: UInt32) async throws {
        var session = try await RawGuestSession.start(turnTimeout: turnTimeout)
        // The deadline is outside the hash, so a blob with a forged one is otherwise valid.
        var next = try session.state.applying(.move(Move(3), by: session.seat), now: wallClockMilliseconds())
        _ = MatchBlob.encode(next)
        next.deadline = 32_503_680_000_000  // the year 3000
        let before = wallClockMilliseconds()
        let answer = await session.send(.turn(sequence: next.sequence, blob: MatchBlob.encode(next)))
        guard case .confirm(next.sequence, let hash, let deadline)? = answer else {
            Issue.record("expected CONFIRM, got \(String(describing: answer))")
            return
        }
        #expect(hash == next.stateHash)
        let hostState = await session.hostController.state
        if turnTimeout == 0 {
            #expect(deadline == 0)
        } else {
            #expect(deadline >= before + 60_000 && deadline <= wallClockMilliseconds() + 60_000)
        }
        #expect(hostState.deadline == deadline)
        guard case .state(let blob)? = await session.send(.stateRequest(knownSequence: next.sequence)) else {
            Issue.record("expected STATE")
            return
        }
        let sent = try MatchBlob.decode(blob)
        #expect(sent.deadline == deadline)
        #expect(sent.stateHash == hash)
    }
}
