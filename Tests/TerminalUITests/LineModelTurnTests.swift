import Foundation
import Games
import Match
import Testing
@testable import TerminalUI

/// After a guest's move is rolled back, the controller begins the same turn
/// twice: once on the rollback and once when it adopts the host's state. A
/// script answers every `turn` event, and typed lines are queued for later
/// turns, so a repeated `turn` made such a script play a move at the wrong
/// turn (found by scripts/fault-matrix with a half-open link).
@Suite("Line frontends announce each turn once")
struct LineModelTurnTests {
    /// Ana (seat 0) is local; after one move by each side it is Ana's turn at sequence 2.
    static let state = Fixtures.state(Connect4(), moves: [0, 1])

    static func turnEvents(_ actions: [LineAction]) -> [String] {
        actions.compactMap { action in
            guard case .output(let text, _) = action, text.contains("\"event\":\"turn\"") else { return nil }
            return text
        }
    }

    @Test("a turn begun again after a rollback and again after adopting the same state is announced twice in all, not three times")
    func rollbackThenAdopt() {
        var model = LineModel(format: .json, state: Self.state, localSeats: [0])
        _ = model.handle(.started(Self.state))
        var announced = Self.turnEvents(model.handle(.turnBegan(seat: 0, Self.state)))
        #expect(announced.count == 1)
        // Ana typed column 3; it is sent, then undone because the host's state arrived first.
        let typed = model.handle(line: "3")
        #expect(typed.contains { if case .play = $0 { return true } else { return false } })
        _ = model.submitted(.rolledBack(.superseded), quitting: false)
        let change = MatchChange.move(Move(2), by: 0)
        _ = model.handle(.rolledBack(change, reason: .superseded, Self.state))
        announced += Self.turnEvents(model.handle(.turnBegan(seat: 0, Self.state)))
        _ = model.handle(.adopted(Self.state))
        announced += Self.turnEvents(model.handle(.turnBegan(seat: 0, Self.state)))
        #expect(announced.count == 2, "\(announced)")
        #expect(announced.allSatisfy { $0.contains("\"sequence\":2") })
    }

    @Test("the next turn is announced as usual")
    func nextTurn() throws {
        var model = LineModel(format: .json, state: Self.state, localSeats: [0])
        let first = Self.turnEvents(model.handle(.turnBegan(seat: 0, Self.state)))
        let next = try Self.state.applying(.move(Move(2), by: 0), now: 0)
        let second = Self.turnEvents(model.handle(.turnBegan(seat: 1, next)))
        #expect(first.count == 1 && second.count == 1)
        #expect(second.first?.contains("\"seat\":1,\"sequence\":3") == true)
    }

    @Test("plain text asks for the move again after it was undone")
    func plainPromptAgain() {
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: Self.state, localSeats: [0])
        let prompts = { (actions: [LineAction]) in
            actions.filter { if case .output(let text, _) = $0 { return text.hasPrefix("Your move") } else { return false } }.count
        }
        #expect(prompts(model.handle(.turnBegan(seat: 0, Self.state))) == 1)
        _ = model.handle(line: "3")
        _ = model.submitted(.rolledBack(.superseded), quitting: false)
        _ = model.handle(.rolledBack(.move(Move(2), by: 0), reason: .superseded, Self.state))
        #expect(prompts(model.handle(.turnBegan(seat: 0, Self.state))) == 1)
        _ = model.handle(.adopted(Self.state))
        #expect(prompts(model.handle(.turnBegan(seat: 0, Self.state))) == 0)
    }
}
