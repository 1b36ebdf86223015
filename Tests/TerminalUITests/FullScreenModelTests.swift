import Glibc
import Games
import Match
import Testing
@testable import TerminalUI

@Suite("Full-screen keys and events")
struct FullScreenModelTests {
    func model(_ game: any Game, moves: [Int] = [], locals: Set<SeatIndex> = [0]) -> FullScreenModel {
        FullScreenModel(state: Fixtures.state(game, moves: moves), localSeats: locals, options: Fixtures.asciiMono)
    }

    func played(_ actions: [ScreenAction]) -> (Move, SeatIndex)? {
        for case .play(let move, let seat) in actions { return (move, seat) }
        return nil
    }

    func quitSeat(_ actions: [ScreenAction]) -> SeatIndex? {
        for case .quit(let seat) in actions { return seat }
        return nil
    }

    func finished(_ actions: [ScreenAction]) -> Bool {
        actions.contains { if case .finish = $0 { true } else { false } }
    }

    @Test("a spectator's final board stays, gives way to the players' rematch, and stays left once a key left it")
    func spectatorBoardGivesWayToTheRematch() {
        let ended = Fixtures.state(TicTacToe(), moves: [0, 3, 1, 4, 2])
        #expect(ended.isEnded)
        let board = EndQuestion("")
        board.tell("The match is over; waiting to see whether they play again.", settled: true)
        var screen = FullScreenModel(state: ended, localSeats: [], options: Fixtures.asciiMono, endQuestion: board)
        #expect(!finished(screen.matchStreamEnded()), "the final board stays on screen")
        #expect(!finished(screen.endQuestionChanged()))
        #expect(screen.view.endQuestion == nil, "a spectator is asked nothing")
        #expect(screen.view.message?.contains("play again") == true)
        #expect(board.moveOn())
        #expect(finished(screen.endQuestionChanged()), "the rematch replaces the final board")
        // A key first: the board is left, and a rematch that begins after does not bring it back.
        let other = EndQuestion("")
        var left = FullScreenModel(state: ended, localSeats: [], options: Fixtures.asciiMono, endQuestion: other)
        _ = left.matchStreamEnded()
        #expect(finished(left.handle(.character("x"))))
        #expect(!other.moveOn() && !other.movedOn)
    }

    @Test("arrows and digits move the connect4 cursor; Enter drops in that column")
    func connect4Keys() {
        var screen = model(Connect4())
        #expect(screen.view.cursor.column == 3)
        _ = screen.handle(.left)
        _ = screen.handle(.left)
        #expect(screen.view.cursor.column == 1)
        _ = screen.handle(.character("7"))
        _ = screen.handle(.right)  // stays at the edge
        #expect(screen.view.cursor.column == 6)
        let move = played(screen.handle(.enter))
        #expect(move?.0 == Move(6) && move?.1 == 0)
    }

    @Test("cube4 takes a letter and a digit, and up goes toward row 4")
    func cube4Keys() {
        var screen = model(Cube4())
        _ = screen.handle(.character("d"))
        _ = screen.handle(.character("2"))
        #expect(screen.view.cursor == BoardCursor(column: 3, row: 1))
        _ = screen.handle(.up)
        #expect(screen.view.cursor == BoardCursor(column: 3, row: 2))
        #expect(played(screen.handle(.enter))?.0 == Cube4().move(fromNotation: "d3"))
    }

    @Test("tictactoe digits pick cells like a phone keypad")
    func tictactoeKeys() {
        var screen = model(TicTacToe())
        _ = screen.handle(.character("3"))
        #expect(screen.view.cursor == BoardCursor(column: 2, row: 0))
        _ = screen.handle(.down)
        #expect(played(screen.handle(.enter))?.0 == Move(5))
    }

    @Test("a full column is refused with a message, nothing is sent")
    func fullColumn() {
        var screen = model(Connect4(), moves: [3, 3, 3, 3, 3, 3])
        let actions = screen.handle(.enter)
        #expect(played(actions) == nil)
        #expect(screen.view.message == "Column 4 is full.")
    }

    @Test("Enter out of turn says who is thinking; while awaiting confirmation it says so")
    func outOfTurn() {
        var screen = model(Connect4(), moves: [3])
        #expect(played(screen.handle(.enter)) == nil)
        #expect(screen.view.message?.contains("Bot is thinking") == true)

        var waiting = model(Connect4())
        let state = Fixtures.state(Connect4())
        let tentative = Fixtures.state(Connect4(), moves: [3])
        _ = waiting.handle(.awaitingConfirmation(.move(Move(3), by: 0), tentative: tentative))
        #expect(waiting.view.awaitingConfirmation)
        _ = waiting.handle(.enter)
        #expect(waiting.view.message?.contains("waiting for confirmation") == true)
        _ = waiting.handle(.rolledBack(.move(Move(3), by: 0), reason: .confirmationTimeout, state))
        #expect(waiting.view.message?.contains("no confirmation arrived in time") == true)
        #expect(waiting.view.showsCursor)
    }

    @Test("q asks first; n keeps playing, y quits; Ctrl-C leaves for now and quits nothing")
    func quitting() {
        var screen = model(Connect4(), moves: [3])  // out of turn: quitting still works
        _ = screen.handle(.character("q"))
        #expect(screen.view.confirmingQuit)
        #expect(quitSeat(screen.handle(.character("n"))) == nil)
        #expect(!screen.view.confirmingQuit)
        _ = screen.handle(.character("q"))
        #expect(quitSeat(screen.handle(.character("y"))) == 0)
        let ended = Fixtures.state(Connect4(), moves: [3]).applyingQuit(0)
        #expect(finished(screen.handle(.ended(ended))))

        var interrupted = model(TicTacToe())
        let actions = interrupted.handle(.interrupt)
        #expect(quitSeat(actions) == nil)
        guard case .finish(.interrupted(let signal, let state))? = actions.first else {
            Issue.record("Ctrl-C should leave for now, got \(actions)"); return
        }
        #expect(signal == SIGINT)
        #expect(state.seats.allSatisfy { $0.outcome == .none })
    }

    @Test("a refused move shows the refusal's description")
    func refused() {
        var screen = model(Connect4())
        _ = screen.handle(.enter)
        _ = screen.submitted(.rejected(.rule(.notYourTurn(active: 1, attempted: 0))), quitting: false)
        #expect(screen.view.message == "Refused: it is not your turn.")
    }

    @Test("after the end, the final board stays until a key, though the match's events have stopped")
    func afterEnd() {
        var screen = model(TicTacToe())
        let final = Fixtures.state(TicTacToe(), moves: [0, 3, 1, 4, 2])
        _ = screen.handle(.ended(final))
        #expect(!screen.view.showsCursor)
        // The controller closes its event stream right after the end event.
        #expect(!finished(screen.matchStreamEnded()))
        let actions = screen.handle(.character("x"))
        guard case .finish(.ended(let state))? = actions.first else { Issue.record("expected finish"); return }
        #expect(state.seats[0].outcome == .won)
    }

    @Test("a lost terminal leaves a match in progress as terminalLost, and a finished one as its end")
    func terminalLost() {
        var screen = model(TicTacToe(), moves: [0, 3])
        guard case .terminalLost? = Optional(screen.exitWhenTheTerminalIsLost) else {
            Issue.record("expected terminalLost mid-match"); return
        }
        _ = screen.handle(.ended(Fixtures.state(TicTacToe(), moves: [0, 3, 1, 4, 2])))
        guard case .ended(let state) = screen.exitWhenTheTerminalIsLost else { Issue.record("expected the end"); return }
        #expect(state.seats[0].outcome == .won)
    }

    @Test("events that stop before the match is over leave at once")
    func streamEndsMidMatch() {
        var screen = model(Connect4(), moves: [3])
        #expect(finished(screen.matchStreamEnded()))
    }

    @Test("a spectator of a bot match leaves with q")
    func spectator() {
        var screen = model(Connect4(), locals: [])
        guard case .finish(.left)? = screen.handle(.character("q")).first else { Issue.record("expected .left"); return }
    }
}

extension MatchState {
    /// This state after `seat` quits (for tests).
    func applyingQuit(_ seat: SeatIndex) -> MatchState {
        (try? applying(.quit(seat), now: 0)) ?? self
    }
}

/// The settings file's `bell = yes`: the bell rings when it becomes a local
/// seat's turn after another seat moved, once per turn, and never without it.
@Suite("The turn bell")
struct TurnBellTests {
    static func rings(_ actions: [ScreenAction]) -> Bool { actions.contains { if case .bell = $0 { true } else { false } } }

    @Test("bell = yes rings once when the bot has moved; no bell by default, nor at the first turn")
    func rings() {
        var options = Fixtures.asciiMono
        options.bell = true
        let start = Fixtures.state(Connect4())
        var model = FullScreenModel(state: start, localSeats: [0], options: options)
        #expect(!Self.rings(model.handle(.turnBegan(seat: 0, start))), "rang before anyone moved")
        let after = Fixtures.state(Connect4(), moves: [3, 4])
        #expect(Self.rings(model.handle(.turnBegan(seat: 0, after))))
        #expect(!Self.rings(model.handle(.turnBegan(seat: 0, after))), "rang twice for one turn")
        var quiet = FullScreenModel(state: start, localSeats: [0], options: Fixtures.asciiMono)
        #expect(!Self.rings(quiet.handle(.turnBegan(seat: 0, after))))
    }
}
