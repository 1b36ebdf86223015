import Foundation
import Games
import Match
import ParlorTestSupport
import Testing
@testable import ParlorCLI

/// Issue 39, item 3: `parlor replay` reads a game's own outcomes as the match
/// settled them, in plain text and JSON.
@Suite("A game's own outcomes in a replay")
struct GameOutcomesReplayTests {
    @Test("the plain replay's result line and its JSON end give both winners won and the seat that took the last lost")
    func replayEnd() throws {
        let state = try MisereNim.endedWithTwoWinners()
        #expect(replayResultLine(state) == "Result: Ana lost, Bo won, Cy won.")
        let line = ReplayJSON.end(state).encoded
        let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let outcomes = try #require(event["outcomes"] as? [[String: Any]])
        #expect(outcomes.map { $0["outcome"] as? String } == ["lost", "won", "won"], "\(line)")
    }

    @Test("a match not over (interrupted, or still in play) reads as not over, with who is to move and who left, never 'Result: … still playing'")
    func notOver() throws {
        let start = MatchFixtures.newMatch("connect4")
        let two = try MatchFixtures.after([3, 3], in: start)
        #expect(replayResultLine(two) == "Not over: 2 moves so far, Ana to move.")
        let one = try MatchFixtures.after([3], in: start)
        #expect(replayResultLine(one) == "Not over: 1 move so far, Ben to move.")
        let seats = ["Ana", "Bo", "Cy"].map { Seat(playerID: .random(), name: $0) }
        let table = MatchState(matchID: .random(), game: DotsAndBoxes(seats: 3), seats: seats, turnTimeout: 0, now: 0)
        let quit = try table.applying(.quit(2), now: 1)
        #expect(replayResultLine(quit) == "Not over: 0 moves so far, Ana to move (Cy quit).", "\(replayResultLine(quit))")
    }
}
