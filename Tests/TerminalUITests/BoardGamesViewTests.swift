import Games
import Match
import Testing
@testable import TerminalUI

@Suite("Reversi, dots and boxes and Chinese checkers on screen")
struct BoardGamesViewTests {
    /// A match of `game` with one seat per name, then `moves` (in the game's notation) in turn.
    func state(_ game: any Game, _ moves: [String] = [], names: [String] = ["Ana", "Bot"]) -> MatchState {
        let seats = names.indices.map { Seat(playerID: PlayerID(hex: String(repeating: "0", count: 31) + String($0 + 1))!, name: names[$0]) }
        var state = MatchState(matchID: Fixtures.matchID, game: game, seats: seats)
        for text in moves {
            guard let seat = state.activeSeat, let move = state.game.move(fromNotation: text),
                  let next = try? state.applying(.move(move, by: seat), now: 0) else {
                Issue.record("\(text) is not playable")
                return state
            }
            state = next
        }
        return state
    }

    func text(_ state: MatchState, cursor: BoardCursor? = nil, options: DisplayOptions = Fixtures.asciiMono) -> [String] {
        BoardRenderer.lines(for: state, cursor: cursor, options: options).map(\.text)
    }

    @Test("every screen fits 80x24, with two seats and with three")
    func fitsStandardTerminal() {
        let three = ["Ana", "Bot", "Cy"]
        let states = [state(Reversi()), state(DotsAndBoxes()), state(ChineseCheckers()),
                      state(DotsAndBoxes(seats: 3), names: three), state(ChineseCheckers(seats: 3), names: three)]
        for match in states {
            let start = BoardGamesCursor.start(for: match.game) ?? BoardCursor(column: 0)
            let view = ScreenView(state: match, cursor: start, localSeats: [0], showsCursor: true)
            for options in [Fixtures.unicodeColor, Fixtures.asciiMono] {
                let needed = Renderer.requiredSize(for: view, options: options)
                #expect(needed.columns <= 80 && needed.rows <= 24, "\(match.gameID) with \(match.seats.count) needs \(needed)")
            }
        }
    }

    @Test("reversi: discs as X and O, + where the mover may play, the last move in brackets, the disc count")
    func reversiBoard() {
        let lines = text(state(Reversi(), ["d3"]))
        #expect(lines[0] == "   a  b  c  d  e  f  g  h ")
        #expect(lines[3] == "3  .  .  + (X) +  .  .  . ", "\(lines[3])")
        #expect(lines[4] == "4  .  .  .  X  X  .  .  . ")
        #expect(lines[5] == "5  .  .  +  X  O  .  .  . ")
        #expect(lines.contains("Discs: Ana (X) 4, Bot (O) 1"))
        #expect(lines.contains("+ marks where Bot (O) may play."))
    }

    @Test("dots and boxes: lines, a won box with its owner's letter, and the extra move said aloud")
    func dotsBoard() {
        let match = state(DotsAndBoxes(), ["a1-b1", "a1-a2", "b1-b2", "a2-b2"])
        let lines = text(match)
        #expect(lines[1].hasPrefix("1  +-----+     + "), "\(lines[1])")
        #expect(lines[2].hasPrefix("   |  O  |       "), "\(lines[2])")
        #expect(lines[3].hasPrefix("2  +-===-+     + "), "the last line drawn is marked: \(lines[3])")
        #expect(lines.contains("Boxes: Ana (X) 0, Bot (O) 1"))
        #expect(lines.contains("Bot completed a box and moves again."))
        let unicode = text(match, options: Fixtures.unicodeColor)
        #expect(unicode[1].hasPrefix("1  •─────•     • "))
    }

    @Test("Chinese checkers with six seats: six distinct letters in ASCII, numbered empty holes, scores beside")
    func checkersSixSeats() {
        let names = ["Ana", "Bot", "Cy", "Di", "Ed", "Flo"]
        let match = state(ChineseCheckers(seats: 6), names: names)
        let lines = text(match)
        #expect(lines.count == 17)
        let glyphs = (0..<6).map { Pieces.glyph(seat: $0, gameID: match.gameID, options: Fixtures.asciiMono) }
        #expect(glyphs == ["X", "O", "A", "B", "C", "D"])
        // The narrow rows (a-d, n-q) carry notes on their right; the wide ones do not.
        let board = lines.indices.map { (4...12).contains($0) ? lines[$0] : String(lines[$0].prefix(BoardGamesRenderer.checkersNoteColumn)) }.joined()
        for glyph in glyphs {
            #expect(board.filter { String($0) == glyph }.count == 10, "\(glyph)")
        }
        #expect(lines[8] == "i          1   2   3   4   5   6   7   8   9 ", "\(lines[8])")
        #expect(lines[1].hasSuffix("X Ana 0/10"))
        #expect(lines[15].hasSuffix("D Flo 0/10"))
        let unicode = (0..<6).map { Pieces.glyph(seat: $0, gameID: match.gameID, options: Fixtures.unicodeColor) }
        #expect(Set(unicode).count == 6)
    }

    @Test("Chinese checkers: the cursor's hole is named, a picked-up peg is starred and + marks where it can go")
    func checkersCursor() {
        let game = ChineseCheckers()
        let match = state(game)
        let n1 = ChineseCheckers.hole(named: "n1")!
        let lines = text(match, cursor: BoardCursor(column: 4, row: 12, selected: n1))
        #expect(lines[13].contains("*X*"), "\(lines[13])")
        // m5 is a step from n1: the cursor's hole shows it can go there.
        #expect(lines[12].contains("[+]"), "\(lines[12])")
        #expect(lines[16].hasSuffix("Cursor: from n1 to m5 (+ can go)"))
        let marks = lines.map { $0.filter { $0 == "+" }.count }.reduce(0, +) - 1  // the note's own +
        #expect(marks == game.destinations(from: n1).count, "\(lines.joined(separator: "\n"))")
        // Nothing picked up: no + on the board.
        let plain = text(match, cursor: BoardCursor(column: 4, row: 12))
        #expect(!plain.joined().contains("+"), "\(plain.joined(separator: "\n"))")
    }

    func model(_ match: MatchState) -> FullScreenModel {
        FullScreenModel(state: match, localSeats: [0], options: Fixtures.asciiMono)
    }

    func played(_ actions: [ScreenAction]) -> Move? {
        for case .play(let move, _) in actions { return move }
        return nil
    }

    @Test("reversi keys: a letter picks the column, a digit the row, Enter plays")
    func reversiKeys() {
        var screen = model(state(Reversi()))
        _ = screen.handle(.character("f"))
        _ = screen.handle(.character("5"))
        #expect(played(screen.handle(.enter)) == Reversi().move(fromNotation: "f5"))
    }

    @Test("dots and boxes keys: Enter on a dot asks for a line, on a line draws it")
    func dotsKeys() {
        var screen = model(state(DotsAndBoxes()))
        _ = screen.handle(.left)  // onto the dot a1
        #expect(played(screen.handle(.enter)) == nil)
        #expect(screen.view.message == "Point at a line between two dots.")
        _ = screen.handle(.down)  // the line a1-a2
        #expect(played(screen.handle(.enter)) == DotsAndBoxes().move(fromNotation: "a1-a2"))
    }

    @Test("Chinese checkers keys: Enter picks up a peg, Esc puts it back, Enter again plays it")
    func checkersKeys() {
        var screen = model(state(ChineseCheckers()))
        // The cursor starts on one of seat 0's pegs; walk to o1, pick it up, put it back,
        // pick it up again, go up to m5 and play the jump over n1.
        while BoardGamesRenderer.checkersHole(at: screen.view.cursor) != ChineseCheckers.hole(named: "o1") {
            let before = screen.view.cursor
            _ = screen.handle(before.row > 14 ? .up : .left)
            if screen.view.cursor == before { Issue.record("stuck at \(before)"); return }
        }
        _ = screen.handle(.enter)
        #expect(screen.view.cursor.selected == ChineseCheckers.hole(named: "o1"))
        _ = screen.handle(.escape)
        #expect(screen.view.cursor.selected == nil)
        _ = screen.handle(.enter)
        _ = screen.handle(.up)
        _ = screen.handle(.up)
        #expect(BoardGamesRenderer.checkersHole(at: screen.view.cursor) == ChineseCheckers.hole(named: "m5"))
        #expect(played(screen.handle(.enter)) == ChineseCheckers().move(fromNotation: "o1-m5"))
        #expect(screen.view.cursor.selected == nil)
    }

    @Test("Chinese checkers keys: another seat's peg cannot be picked up")
    func checkersOthersPeg() {
        var screen = model(state(ChineseCheckers()))
        while screen.view.cursor.row > 3 { _ = screen.handle(.up) }
        #expect(played(screen.handle(.enter)) == nil)
        #expect(screen.view.message == "Pick one of your own pegs first.")
        #expect(screen.view.cursor.selected == nil)
    }
}
