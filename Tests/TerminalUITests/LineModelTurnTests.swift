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
        _ = model.handle(.started(Self.state))
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
        // The start already asks for Ana's move; the turn event does not ask again.
        #expect(prompts(model.handle(.started(Self.state))) + prompts(model.handle(.turnBegan(seat: 0, Self.state))) == 1)
        _ = model.handle(line: "3")
        _ = model.submitted(.rolledBack(.superseded), quitting: false)
        _ = model.handle(.rolledBack(.move(Move(2), by: 0), reason: .superseded, Self.state))
        #expect(prompts(model.handle(.turnBegan(seat: 0, Self.state))) == 1)
        _ = model.handle(.adopted(Self.state))
        #expect(prompts(model.handle(.turnBegan(seat: 0, Self.state))) == 0)
    }
}

/// A submission's result comes back on its own task and can overtake the
/// controller's events. Acting on it at once played the next piped line on the
/// state before our move; the controller refused it and the line was lost, so
/// a piped game quit instead of winning (a CI failure of "a tictactoe game
/// piped into plain mode reports the winner").
@Suite("Line frontends keep piped moves when a result overtakes the events")
struct LineModelOrderingTests {
    static func plays(_ actions: [LineAction]) -> [Move] {
        actions.compactMap { if case .play(let move, _, _) = $0 { return move } else { return nil } }
    }

    static func quits(_ actions: [LineAction]) -> Int {
        actions.filter { if case .quit = $0 { return true } else { return false } }.count
    }

    @Test("a commit result that arrives before the commit event plays nothing until the next turn, then the queued line")
    func commitResultFirst() throws {
        let start = Fixtures.state(TicTacToe(), moves: [4, 0])  // Ana 5, bot 1: Ana to move at sequence 2
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: start, localSeats: [0])
        _ = model.handle(.started(start))
        _ = model.handle(.turnBegan(seat: 0, start))
        #expect(Self.plays(model.handle(line: "3")) == [Move(2)])
        _ = model.handle(line: "7")
        _ = model.handleEndOfInput()
        let afterAna = try start.applying(.move(Move(2), by: 0), now: 0)
        // The result first: the model has not seen the commit, so "7" must wait.
        let early = model.submitted(.committed(afterAna), quitting: false)
        #expect(Self.plays(early).isEmpty)
        #expect(Self.quits(early) == 0, "end of input must not quit while our move's events are on their way")
        _ = model.handle(.committed(.move(Move(2), by: 0), afterAna))
        _ = model.handle(.turnBegan(seat: 1, afterAna))
        let afterBot = try afterAna.applying(.move(Move(1), by: 1), now: 0)
        _ = model.handle(.committed(.move(Move(1), by: 1), afterBot))
        #expect(Self.plays(model.handle(.turnBegan(seat: 0, afterBot))) == [Move(6)])
    }

    @Test("hot seat: a turn event from before our last move's commit does not end the input early (the move's end is still coming)")
    func staleTurnAfterOurCommit() throws {
        // Both seats at this terminal; seat 0 to move at sequence 2.
        let start = Fixtures.state(TicTacToe(), moves: [4, 0])
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: start, localSeats: [0, 1])
        _ = model.handle(.started(start))
        _ = model.handle(.turnBegan(seat: 0, start))
        #expect(Self.plays(model.handle(line: "3")) == [Move(2)])
        _ = model.handle(line: "7")
        _ = model.handleEndOfInput()
        // The commit event, then the result: seat 1 plays "7" at once.
        let afterAna = try start.applying(.move(Move(2), by: 0), now: 0)
        _ = model.handle(.committed(.move(Move(2), by: 0), afterAna))
        #expect(Self.plays(model.submitted(.committed(afterAna), quitting: false)) == [Move(6)])
        // Seat 1's result overtakes every event: its commit, and seat 1's turn begun before it.
        let afterBo = try afterAna.applying(.move(Move(6), by: 1), now: 0)
        #expect(model.submitted(.committed(afterBo), quitting: false).isEmpty)
        let stale = model.handle(.turnBegan(seat: 1, afterAna))
        #expect(!stale.contains { if case .finish = $0 { return true } else { return false } },
                "the end of input must not leave on a turn our committed move is past: \(stale)")
        #expect(Self.plays(stale).isEmpty)
    }

    @Test("a line refused because our view was behind is played at the next turn, not dropped")
    func refusedWhileBehindIsKept() throws {
        let start = Fixtures.state(TicTacToe(), moves: [4, 0])
        var model = LineModel(format: .json, state: start, localSeats: [0])
        _ = model.handle(.started(start))
        _ = model.handle(.turnBegan(seat: 0, start))
        #expect(Self.plays(model.handle(line: "3")) == [Move(2)])
        _ = model.handleEndOfInput()
        let refused = model.submitted(.rejected(.awaitingConfirmation), quitting: false)
        #expect(Self.quits(refused) == 0)
        #expect(!refused.contains { if case .output(let text, _) = $0 { return text.contains("rejected") } else { return false } },
                "a line that will still be played is not reported as rejected")
        // The controller resolves what it was waiting for and begins Ana's turn (again).
        #expect(Self.plays(model.handle(.turnBegan(seat: 0, start))) == [Move(2)])
    }

    @Test("a line refused for a real reason is still reported and not retried")
    func realRefusal() {
        let start = Fixtures.state(TicTacToe(), moves: [4, 0])
        var model = LineModel(format: .json, state: start, localSeats: [0])
        _ = model.handle(.started(start))
        _ = model.handle(.turnBegan(seat: 0, start))
        _ = model.handle(line: "3")
        let refused = model.submitted(.rejected(.matchOver), quitting: false)
        #expect(refused.contains { if case .output(let text, _) = $0 { return text.contains("\"event\":\"rejected\"") } else { return false } })
        #expect(Self.plays(refused).isEmpty)
    }
}

/// A piped script's first line can reach the model before the match's start:
/// nothing may be printed or played before the header (it was: the board and
/// the prompt came first in 1 run of 6).
@Suite("Plain mode waits for the start before it prints or plays")
struct LineModelStartOrderTests {
    static func texts(_ actions: [LineAction]) -> [String] {
        actions.compactMap { if case .output(let text, _) = $0 { return text } else { return nil } }
    }

    @Test("a line and the end of input read before the start print nothing; the start prints the header, the board once and the prompt, then plays the line")
    func lineBeforeStart() {
        let start = Fixtures.state(Connect4())
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: start, localSeats: [0])
        #expect(model.handle(line: "4").isEmpty)
        #expect(model.handle(.turnBegan(seat: 0, start)).isEmpty)
        let actions = model.handle(.started(start))
        let texts = Self.texts(actions)
        #expect(texts.first?.hasPrefix("Connect Four: ") == true, "\(texts)")
        #expect(texts.filter { $0.hasPrefix("+---+") }.count == 1, "\(texts)")
        #expect(texts.last?.hasPrefix("Your move") == true, "\(texts)")
        #expect(actions.contains { if case .play(Move(3), seat: 0, message: nil) = $0 { return true } else { return false } })
        #expect(Self.texts(model.handle(.turnBegan(seat: 0, start))).isEmpty, "the board or prompt was printed again")
    }
}
