import Games
import ParlorTestSupport
import Testing
@testable import Match

struct MatchStateTests {
    @Test func onlyTheActiveSeatMoves() throws {
        let state = MatchFixtures.newMatch()
        #expect(throws: MatchRuleError.notYourTurn(active: 0, attempted: 1)) {
            try state.applying(.move(Move(3), by: 1), now: 1)
        }
        let next = try state.applying(.move(Move(3), by: 0), now: 1)
        #expect(next.activeSeat == 1)
        #expect(next.sequence == 1)
    }

    @Test func quitOutOfTurnEndsTheMatch() throws {
        let state = try MatchFixtures.after([3], in: MatchFixtures.newMatch())
        let next = try state.applying(.quit(0), now: 1)  // seat 1 is to move; seat 0 quits
        #expect(next.isEnded)
        #expect(next.seats.map(\.outcome) == [.quit, .won])
        #expect(throws: MatchRuleError.matchEnded) { try next.applying(.move(Move(1), by: 1), now: 2) }
    }

    @Test func timeExpiresOnlyAtTheDeadline() throws {
        let state = MatchFixtures.newMatch(turnTimeout: 10, now: 1_000)
        #expect(state.deadline == 11_000)
        #expect(throws: MatchRuleError.deadlineNotReached) { try state.applying(.timeExpired(0), now: 10_999) }
        let next = try state.applying(.timeExpired(0), now: 11_000)
        #expect(next.seats.map(\.outcome) == [.timeExpired, .won])
        #expect(next.deadline == 0)
    }

    @Test func successorIsExactlyOneChange() throws {
        let base = try MatchFixtures.after([3, 3], in: MatchFixtures.newMatch())
        let next = try base.applying(.move(Move(2), by: 0), now: 9)
        #expect(try base.change(to: next) == .move(Move(2), by: 0))
        let twoAhead = try next.applying(.move(Move(2), by: 1), now: 9)
        #expect(throws: SuccessorError.wrongSequence(expected: 3, got: 4)) { try base.change(to: twoAhead) }
        let quit = try base.applying(.quit(1), now: 9)
        #expect(try base.change(to: quit) == .quit(1))
        let other = try MatchFixtures.after([3, 3, 2], in: MatchFixtures.newMatch(seed: 99))
        #expect(throws: SuccessorError.otherMatch) { try base.change(to: other) }
    }

    @Test func rewrittenHistoryIsRefused() throws {
        let base = try MatchFixtures.after([3, 3], in: MatchFixtures.newMatch())
        let rewritten = try MatchFixtures.after([4, 3, 2], in: MatchFixtures.newMatch())
        #expect(throws: SuccessorError.historyRewritten) { try base.change(to: rewritten) }
    }

    @Test("a move whose encoding does not fit the blob's 16 bits is refused with its own reason, never cut to fit")
    func aMoveTooLargeForTheBlobIsRefused() throws {
        let state = MatchFixtures.newMatch()
        for raw in [65_536, 65_539, -1] {
            #expect(throws: MatchRuleError.moveNotEncodable(Move(raw))) { try state.applying(.move(Move(raw), by: 0), now: 0) }
        }
        #expect(SubmitRejection.rule(.moveNotEncodable(Move(65_539))).description.contains("outside 0...65535"))
        // Connect Four's column 3 is 3: in range, legal.
        #expect(try state.applying(.move(Move(3), by: 0), now: 0).moves.count == 1)
    }
}
