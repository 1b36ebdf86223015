import Foundation
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
}
