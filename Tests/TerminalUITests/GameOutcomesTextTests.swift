import Foundation
import Games
import Match
import ParlorTestSupport
import Testing
@testable import TerminalUI

/// Issue 39, item 3: where a match's end is shown (plain lines, the full
/// screen's last line, JSON, `parlor matches`), a game's own outcomes read as
/// settled: at a table where two seats won, both are shown as winners.
@Suite("A game's own outcomes on screen")
struct GameOutcomesTextTests {
    static func texts(_ actions: [LineAction]) -> [String] {
        actions.compactMap { if case .output(let text, _) = $0 { return text } else { return nil } }
    }

    @Test("plain lines: every seat's outcome, and both winners named in the last line")
    func plainEnd() throws {
        let state = try MisereNim.endedWithTwoWinners()
        let label = { MatchText.label(state, seat: $0, options: .plainASCII) }
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: state, localSeats: [1])
        let lines = Self.texts(model.handle(.ended(state)))
        #expect(lines.contains("Result: \(label(0)) lost, \(label(1)) won, \(label(2)) won."), "\(lines)")
        #expect(lines.contains("\(label(1)) and \(label(2)) win."), "\(lines)")
        #expect(MatchText.winnerLine(state, options: .plainASCII) == "\(label(1)) and \(label(2)) win.")
    }

    @Test("JSON end: each seat's outcome as settled, and no single winner")
    func jsonEnd() throws {
        let state = try MisereNim.endedWithTwoWinners()
        let line = JSONEvents.end(state).encoded
        let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let outcomes = try #require(event["outcomes"] as? [[String: Any]])
        #expect(outcomes.map { $0["outcome"] as? String } == ["lost", "won", "won"])
        #expect(event["winner"] is NSNull, "\(line)")
        #expect(outcomes.allSatisfy { $0["place"] == nil }, "the game does not rank: \(line)")
    }

    @Test("parlor matches: the row of a seat that won at a table where two won says won, the loser's lost")
    func savedMatchRow() throws {
        let state = try MisereNim.endedWithTwoWinners()
        #expect(SavedMatchText.outcomeText(state, localSeat: 1) == "won")
        #expect(SavedMatchText.outcomeText(state, localSeat: 2) == "won")
        #expect(SavedMatchText.outcomeText(state, localSeat: 0) == "lost")
        #expect(SavedMatchText.whoseTurn(state, localSeat: 1) == "-")
    }

    @Test("a many-table host's line for the finished table names both winners against the seat that took the last counter")
    func hallLine() throws {
        let state = try MisereNim.endedWithTwoWinners()
        #expect(HallBoard.result(table: 2, state: state) == "table 2: Bo and Cy won against Ana, 4 moves")
    }

    @Test("a cooperative game lost by everyone reads 'Nobody wins.'; won by everyone, every name wins")
    func cooperative() throws {
        Together.register()
        func ended(_ moves: [Move]) throws -> MatchState {
            var state = MatchState(matchID: .random(), gameType: Together.self,
                                   seats: ["Ana", "Bo", "Cy"].map { Seat(playerID: .random(), name: $0) })
            for move in moves { state = try state.applying(.move(move, by: try #require(state.activeSeat)), now: 1) }
            return state
        }
        let lost = try ended([Together.keep, Together.drop])
        #expect(MatchText.winnerLine(lost, options: .plainASCII) == "Nobody wins.")
        let won = try ended([Together.keep, Together.keep, Together.keep])
        let label = { MatchText.label(won, seat: $0, options: .plainASCII) }
        #expect(MatchText.winnerLine(won, options: .plainASCII) == "\(label(0)), \(label(1)) and \(label(2)) win.")
    }
}
