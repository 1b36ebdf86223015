@testable import Bench
import Match
import ParlorTestSupport
import Testing

/// `parlor bench soak`'s verdict on one match, and its tally.
@Suite("Bench: the soak's verdict")
struct SoakVerdictTests {
    @Test("the verdict: equal ended states agree; different states, or a desync either side saw, are desyncs")
    func verdict() throws {
        let start = MatchFixtures.newMatch("tictactoe")
        let won = try MatchFixtures.after([0, 3, 1, 4, 2], in: start)       // seat 0 completes the top row
        let otherWin = try MatchFixtures.after([0, 3, 1, 4, 8, 5], in: start)  // seat 1 completes the middle row
        guard case .agreed(let turns) = soakVerdict(index: 0, host: won, hostFailure: nil, guest: won, guestFailure: nil) else {
            Issue.record("equal final states were not an agreement"); return
        }
        #expect(turns == 5)
        guard case .desync = soakVerdict(index: 0, host: won, hostFailure: nil, guest: otherWin, guestFailure: nil) else {
            Issue.record("different final states were not a desync"); return
        }
        guard case .desync = soakVerdict(index: 0, host: won, hostFailure: nil, guest: won, guestFailure: .desync("seen")) else {
            Issue.record("a desync the guest detected was not counted"); return
        }
        guard case .failed = soakVerdict(index: 0, host: start, hostFailure: .connectionLost("cut"), guest: start, guestFailure: nil) else {
            Issue.record("a lost connection was not a failed match"); return
        }
        guard case .failed = soakVerdict(index: 0, host: start, hostFailure: nil, guest: start, guestFailure: nil) else {
            Issue.record("a match that never ended was not a failed match"); return
        }
    }

    @Test("the tally counts turns of agreed matches, and lists every desync and failure in order; a soak with one fails")
    func tally() {
        var tally = SoakTally()
        tally.record(.agreed(turns: 9))
        tally.record(.desync(index: 3, reason: "hashes differ"))
        tally.record(.agreed(turns: 5))
        tally.record(.failed(index: 7, reason: "lost"))
        #expect(tally.played == 4)
        #expect(tally.turns == 14)
        #expect(tally.desyncs == 1 && tally.failed == 1)
        #expect(tally.problems.map(\.index) == [3, 7])
        #expect(tally.problems.map(\.reason) == ["DESYNC: hashes differ", "lost"])
        let figures = SoakBench.Figures(tally: tally, seconds: 1, survivors: 0, watched: 0)
        #expect(!figures.passed)
        #expect(SoakBench.Figures(tally: SoakTally(), seconds: 1, survivors: 0, watched: 0).passed)
    }
}
