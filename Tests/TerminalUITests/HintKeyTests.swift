import Games
import Match
import Testing
@testable import TerminalUI

/// Issue 16: the hint key asks for the best move when the match allows hints.
@Suite("The hint key")
struct HintKeyTests {
    func model(_ game: any Game, moves: [Int] = [], hints: Bool) -> FullScreenModel {
        FullScreenModel(state: Fixtures.state(game, moves: moves), localSeats: [0], options: Fixtures.asciiMono, hintsAllowed: hints)
    }

    func askedSequence(_ actions: [ScreenAction]) -> UInt32? {
        for case .findHint(_, let sequence) in actions { return sequence }
        return nil
    }

    @Test("h asks once for the position on screen; the answer moves the cursor there and names it")
    func asksAndShows() {
        var screen = model(Connect4(), hints: true)
        #expect(Renderer.helpText(screen.view, options: Fixtures.asciiMono).contains("h: hint"))
        let asked = askedSequence(screen.handle(.character("h")))
        #expect(asked == 0)
        #expect(screen.view.message == "Looking for the best move...")
        // A second press while it thinks does not start another search.
        #expect(askedSequence(screen.handle(.character("H"))) == nil)
        _ = screen.hinted(Move(3), sequence: 0)
        #expect(screen.view.cursor.column == 3)
        #expect(screen.view.message == "Hint: 4 (Enter plays it).")
    }

    @Test("in every game the hint puts the cursor on the hinted move, so that Enter plays that move",
          arguments: [Connect4() as any Game, TicTacToe(), Cube4(), Reversi(), DotsAndBoxes(), ChineseCheckers()].map { [$0] })
    func enterPlaysTheHint(_ games: [any Game]) {
        let game = games[0]
        var screen = model(game, hints: true)
        // The last legal move: never where the cursor starts.
        let hint = game.legalMoves[game.legalMoves.count - 1]
        #expect(askedSequence(screen.handle(.character(FullScreenModel.hintKeyName(game).first!))) == 0)
        _ = screen.hinted(hint, sequence: 0)
        #expect(screen.view.message == "Hint: \(game.notation(for: hint)) (Enter plays it).", "\(game)")
        #expect(screen.handle(.enter).contains { if case .play(let move, seat: 0) = $0 { move == hint } else { false } },
                "Enter did not play the hint \(game.notation(for: hint)) in \(type(of: game).id)")
    }

    @Test("without hints the key says so and asks nothing; the keys line does not offer it")
    func offWithoutPermission() {
        var screen = model(Connect4(), hints: false)
        #expect(askedSequence(screen.handle(.character("h"))) == nil)
        #expect(screen.view.message?.contains("No hints in this match") == true)
        #expect(!Renderer.helpText(screen.view, options: Fixtures.asciiMono).contains("hint"))
    }

    @Test("an answer for a position already played past is dropped")
    func staleAnswerDropped() {
        var screen = model(Cube4(), hints: true)
        _ = screen.handle(.character("h"))
        let later = Fixtures.state(Cube4(), moves: [0, 1])
        _ = screen.handle(.committed(.move(Move(1), by: 1), later))
        let before = screen.view.cursor
        #expect(screen.hinted(Move(5), sequence: 0).isEmpty)
        #expect(screen.view.cursor == before)
    }

    @Test("not on the other seat's turn")
    func notOnTheirTurn() {
        var screen = model(TicTacToe(), moves: [4], hints: true)
        #expect(askedSequence(screen.handle(.character("h"))) == nil)
        #expect(screen.view.message?.contains("not your turn") == true)
    }

    @Test("in reversi h is column h and H is the hint")
    func reversiUsesCapitalH() {
        var screen = model(Reversi(), hints: true)
        #expect(askedSequence(screen.handle(.character("h"))) == nil)
        #expect(screen.view.cursor.column == 7)
        #expect(askedSequence(screen.handle(.character("H"))) == 0)
        #expect(Renderer.helpText(screen.view, options: Fixtures.asciiMono).contains("H: hint"))
    }
}
