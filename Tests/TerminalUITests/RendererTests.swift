import Games
import Match
import Testing
@testable import TerminalUI

@Suite("Renderers")
struct RendererTests {
    /// The 3 characters of connect4 cell (column, row) in a board line: "|" then 4 columns per cell.
    func connect4Cell(_ lines: [String], column: Int, row: Int) -> String {
        let line = Array(lines[2 + (Connect4.rows - 1 - row)])
        return String(line[(1 + 4 * column)..<(4 + 4 * column)])
    }

    @Test("connect4 pieces appear in the columns they were dropped in, under the column numbers")
    func connect4Pieces() {
        let state = Fixtures.state(Connect4(), moves: [3, 3, 0])
        let lines = BoardRenderer.lines(for: state, cursor: nil, options: Fixtures.asciiMono).map(\.text)
        #expect(lines[1] == "  1   2   3   4   5   6   7 ")
        #expect(connect4Cell(lines, column: 3, row: 0) == " X ")
        #expect(connect4Cell(lines, column: 3, row: 1) == " O ")
        #expect(connect4Cell(lines, column: 0, row: 0) == "(X)")  // the last move is marked
        #expect(connect4Cell(lines, column: 6, row: 0) == " . ")
        // Each number sits over the middle of its column.
        for column in 0..<7 {
            #expect(Array(lines[1])[2 + 4 * column] == Character(String(column + 1)))
        }
        #expect(lines.last == "+---+---+---+---+---+---+---+")
    }

    @Test("connect4 with Unicode uses ● and ○ and box lines")
    func connect4Unicode() {
        let state = Fixtures.state(Connect4(), moves: [3, 4])
        let lines = BoardRenderer.lines(for: state, cursor: BoardCursor(column: 5), options: Fixtures.unicodeColor).map(\.text)
        #expect(connect4Cell(lines, column: 3, row: 0) == " ● ")
        #expect(connect4Cell(lines, column: 4, row: 0) == "(○)")
        #expect(lines.last?.hasPrefix("└───┴") == true)
        // The cursor shows the piece about to drop (seat 0's ●) over column 6.
        #expect(Array(lines[0])[2 + 4 * 5] == "●")
    }

    @Test("a connect4 win marks the four winning cells")
    func connect4Win() {
        let state = Fixtures.state(Connect4(), moves: [0, 6, 1, 6, 2, 6, 3])
        let lines = BoardRenderer.lines(for: state, cursor: nil, options: Fixtures.asciiMono).map(\.text)
        for column in 0..<4 { #expect(connect4Cell(lines, column: column, row: 0) == "*X*") }
        #expect(connect4Cell(lines, column: 6, row: 0) == " O ")
    }

    @Test("tictactoe shows numbers on empty cells and pieces on taken ones")
    func tictactoe() {
        let state = Fixtures.state(TicTacToe(), moves: [4, 0])
        let lines = BoardRenderer.lines(for: state, cursor: nil, options: Fixtures.asciiMono).map(\.text)
        #expect(lines == [
            "(O)| 2 | 3 ",
            "---+---+---",
            " 4 | X | 6 ",
            "---+---+---",
            " 7 | 8 | 9 ",
        ])
        let withCursor = BoardRenderer.lines(for: state, cursor: BoardCursor(column: 2, row: 2), options: Fixtures.asciiMono)
        #expect(withCursor[4].text == " 7 | 8 |[9]")
    }

    @Test("cube4 shows its four levels side by side with letters, row numbers and the cursor peg on each")
    func cube4Layers() {
        // Seat 0 drops on a1 (level 1), seat 1 on a1 (level 2), seat 0 on d4 (level 1).
        let state = Fixtures.state(Cube4(), moves: [0, 0, 15])
        let lines = BoardRenderer.lines(for: state, cursor: BoardCursor(column: 1, row: 2), options: Fixtures.asciiMono).map(\.text)
        #expect(lines[0].contains("Level 1") && lines[0].contains("Level 4"))
        let headers = ["Level 1", "Level 2", "Level 3", "Level 4"].compactMap { lines[0].range(of: $0)?.lowerBound }
        #expect(headers.count == 4)
        #expect(lines[1] == Array(repeating: "   a  b  c  d ", count: 4).joined(separator: "   "))
        // Rows top to bottom are 4, 3, 2, 1 on every level.
        let stride = BoardRenderer.cubeLevelWidth + BoardRenderer.cubeLevelGap
        func cell(level: Int, column: Int, row: Int) -> String {
            let line = Array(lines[2 + (3 - row)])
            let start = level * stride + 2 + 3 * column
            return String(line[start..<start + 3])
        }
        #expect(cell(level: 0, column: 0, row: 0) == " X ")
        #expect(cell(level: 1, column: 0, row: 0) == " O ")
        #expect(cell(level: 0, column: 3, row: 3) == "(X)")
        #expect(cell(level: 2, column: 0, row: 0) == " . ")
        for level in 0..<4 { #expect(cell(level: level, column: 1, row: 2) == "[.]") }
        #expect(lines[2].hasPrefix("4 ") && lines[5].hasPrefix("1 "))
        #expect(lines.last == "Peg b3 -> lands on level 1")
    }

    @Test("the full screen fits 80x24 for every game")
    func fitsStandardTerminal() {
        for game in [Connect4(), Cube4(), TicTacToe()] as [any Game] {
            let view = ScreenView(state: Fixtures.state(game), localSeats: [0], showsCursor: true)
            for options in [Fixtures.unicodeColor, Fixtures.asciiMono] {
                let needed = Renderer.requiredSize(for: view, options: options)
                #expect(needed.columns <= 80 && needed.rows <= 24, "\(game.gameID) needs \(needed)")
                let frame = Renderer.screen(for: view, options: options, size: .standard)
                #expect(!frame.textLines.joined().contains("Window too small"))
            }
        }
    }

    @Test("a window too small says what it needs instead of drawing the board")
    func tooSmall() {
        let view = ScreenView(state: Fixtures.state(Cube4()), localSeats: [0], showsCursor: true)
        let needed = Renderer.requiredSize(for: view, options: Fixtures.unicodeColor)
        let frame = Renderer.screen(for: view, options: Fixtures.unicodeColor, size: TerminalSize(columns: 40, rows: 10))
        #expect(frame.textLines.joined(separator: " ").hasPrefix("Window too small: need \(needed.columns)x\(needed.rows)"), "\(frame.textLines)")
        #expect(frame.textLines.allSatisfy { $0.count < 40 })
        #expect(!frame.textLines.joined().contains("Level"))
        // Enlarged again, the board is back.
        let big = Renderer.screen(for: view, options: Fixtures.unicodeColor, size: .standard)
        #expect(big.textLines.joined().contains("Level 4"))
    }

    @Test("the status line says whose turn it is, waits for confirmation, and gives the result")
    func status() {
        var view = ScreenView(state: Fixtures.state(Connect4()), localSeats: [0], showsCursor: true)
        #expect(Renderer.statusLine(view, options: Fixtures.asciiMono).text.contains("Your turn."))
        view.state = Fixtures.state(Connect4(), moves: [3])
        #expect(Renderer.statusLine(view, options: Fixtures.unicodeColor).text.contains("Bot is thinking…"))
        #expect(Renderer.statusLine(view, options: Fixtures.asciiMono).text.contains("Bot is thinking..."))
        view.awaitingConfirmation = true
        #expect(Renderer.statusLine(view, options: Fixtures.asciiMono).text.contains("waiting for confirmation"))
        view.awaitingConfirmation = false
        view.confirmingQuit = true
        #expect(Renderer.statusLine(view, options: Fixtures.asciiMono).text.contains("Quit this match? (y/n)"))
        view.confirmingQuit = false
        view.state = Fixtures.state(Connect4(), moves: [0, 6, 1, 6, 2, 6, 3])
        #expect(Renderer.statusLine(view, options: Fixtures.asciiMono).text.contains("Ana (X) wins."))
        let screen = Renderer.screen(for: view, options: Fixtures.asciiMono, size: .standard).textLines.joined(separator: "\n")
        #expect(screen.contains("Ana (you) - won"))
        #expect(screen.contains("Bot - lost"))
    }

    @Test("hot-seat names the player to move")
    func hotSeat() {
        let view = ScreenView(state: Fixtures.state(TicTacToe(), moves: [4]), localSeats: [0, 1], showsCursor: true)
        #expect(Renderer.statusLine(view, options: Fixtures.asciiMono).text.contains("Bot (O), your turn."))
        // Every seat is "you" at a hot seat: the seat list does not say so on each line.
        let screen = Renderer.screen(for: view, options: Fixtures.asciiMono, size: .standard).textLines.joined(separator: "\n")
        #expect(!screen.contains("(you)"), "\(screen)")
    }

    @Test("names cannot smuggle escape codes onto the screen")
    func sanitizedNames() {
        let state = Fixtures.state(Connect4(), names: ("Ana", "Bot"))
        var view = ScreenView(state: state, localSeats: [0])
        view.notice = "peer says \u{1B}[2Jhi"
        var encoder = FrameEncoder(options: Fixtures.asciiMono)
        let bytes = encoder.encode(Renderer.screen(for: view, options: Fixtures.asciiMono, size: .standard), size: .standard)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("peer says ?[2Jhi"))
    }

    @Test("one connect4 turn redraw is a single small write; a full redraw stays under 4 KB")
    func frameBytes() {
        let options = Fixtures.unicodeColor
        let before = ScreenView(state: Fixtures.state(Connect4(), moves: [3, 3, 4]), localSeats: [0], showsCursor: false)
        let after = ScreenView(state: Fixtures.state(Connect4(), moves: [3, 3, 4, 2]), localSeats: [0], showsCursor: true)
        let full = Renderer.frameBytes(for: after, options: options)
        let turn = Renderer.frameBytes(for: after, previous: before, options: options)
        #expect(full < 4096, "full redraw \(full) bytes")
        #expect(turn < full / 2, "turn redraw \(turn) bytes")
        #expect(Renderer.frameBytes(for: after, previous: after, options: options) == 0)
    }

    @Test("the frame encoder clears, positions each line and resets styles")
    func encoder() {
        var encoder = FrameEncoder(options: Fixtures.unicodeColor)
        let frame = Frame(lines: [StyledLine("ab", TextStyle(foreground: .red)), StyledLine("cd")])
        let first = String(decoding: encoder.encode(frame, size: .standard), as: UTF8.self)
        #expect(first == "\u{1B}[H\u{1B}[2J\u{1B}[1;1H\u{1B}[0;38;5;196mab\u{1B}[0m\u{1B}[2;1Hcd")
        let changed = Frame(lines: [StyledLine("ab", TextStyle(foreground: .red)), StyledLine("ce")])
        let second = String(decoding: encoder.encode(changed, size: .standard), as: UTF8.self)
        #expect(second == "\u{1B}[2;1Hce\u{1B}[K")
        // A resize redraws everything.
        let third = encoder.encode(changed, size: TerminalSize(columns: 1, rows: 1))
        #expect(String(decoding: third, as: UTF8.self) == "\u{1B}[H\u{1B}[2J\u{1B}[1;1H\u{1B}[0;38;5;196ma\u{1B}[0m")
    }

    @Test("the benchmark's redraw figures: every redraw under 4 KB, a move's update smaller than a full screen")
    func redrawFigures() {
        let figures = Renderer.redrawFigures()
        #expect(figures.count == 4)
        for figure in figures { #expect(figure.bytes > 0 && figure.bytes < 4096, "\(figure.label): \(figure.bytes)") }
        #expect(figures[1].bytes < figures[0].bytes && figures[3].bytes < figures[2].bytes)
    }
}

/// In a match: the keys overlay, the move list, the last move under the
/// cursor, the board centred in a big window, the smallest window.
@Suite("The full screen in a match")
struct MatchScreenTests {
    static func text(_ frame: Frame) -> [String] { frame.textLines }

    @Test("? shows every key of the game, Space included; any key closes it and does nothing else")
    func keysOverlay() {
        var model = FullScreenModel(state: Fixtures.state(Connect4()), localSeats: [0], options: Fixtures.asciiMono)
        _ = model.handle(.character("?"))
        let shown = Self.text(Renderer.screen(for: model.view, options: Fixtures.asciiMono, size: .standard)).joined(separator: "\n")
        #expect(shown.contains("Enter, Space") && shown.contains("drop a piece"), "\(shown)")
        #expect(shown.contains("Ctrl-C") && shown.contains("q ") && shown.contains("Press any key to go back"), "\(shown)")
        let cursor = model.view.cursor
        _ = model.handle(.right)
        #expect(!model.view.showingKeys && model.view.cursor == cursor, "the closing key also moved the cursor")
        for game in [Connect4(), TicTacToe(), Cube4(), Reversi(), DotsAndBoxes(), ChineseCheckers()] as [any Game] {
            var view = ScreenView(state: Fixtures.state(game), localSeats: [0], showsCursor: true)
            view.showingKeys = true
            let lines = Self.text(Renderer.screen(for: view, options: Fixtures.asciiMono, size: .standard))
            #expect(lines.joined().contains("these keys"), "\(game.gameID)")
            #expect(lines.count <= 24 && lines.allSatisfy { $0.count < 80 }, "\(game.gameID)")
        }
        let help = Renderer.helpText(ScreenView(state: Fixtures.state(Connect4()), localSeats: [0]), options: Fixtures.asciiMono)
        #expect(help.hasSuffix("?: keys"))
    }

    @Test("a wide window shows the move list beside the board, the last move last; a narrow one does not")
    func moveList() {
        let view = ScreenView(state: Fixtures.state(Connect4(), moves: [3, 4, 2]), localSeats: [0], showsCursor: true)
        let wide = Self.text(Renderer.screen(for: view, options: Fixtures.asciiMono, size: TerminalSize(columns: 120, rows: 30)))
        #expect(wide.contains { $0.hasSuffix("Moves") }, "\(wide)")
        #expect(wide.contains { $0.hasSuffix("1. X 4") } && wide.contains { $0.hasSuffix("3. X 3") }, "\(wide)")
        // The title and the board take 39 columns, the move list 4 + 16 more: 50 columns have no room for it.
        let narrow = Self.text(Renderer.screen(for: view, options: Fixtures.asciiMono, size: TerminalSize(columns: 50, rows: 30)))
        #expect(!narrow.contains { $0.contains("Moves") })
    }

    @Test("the board is centred in a big window")
    func centred() {
        let view = ScreenView(state: Fixtures.state(Connect4()), localSeats: [0], showsCursor: true)
        let size = TerminalSize(columns: 200, rows: 60)
        let lines = Self.text(Renderer.screen(for: view, options: Fixtures.asciiMono, size: size))
        let bottom = try? #require(lines.firstIndex { $0.contains("+---+") })
        #expect((bottom ?? 0) > 15, "the board is still at the top: \(lines)")
        let left = lines[bottom ?? 0].prefix { $0 == " " }.count
        #expect(left > 50, "the board is still at the left edge: \(lines)")
    }

    @Test("the last move stays visible under the cursor in tictactoe and cube4", arguments: [
        (TicTacToe() as any Game, [4], BoardCursor(column: 1, row: 1)),
        (Cube4() as any Game, [5], BoardCursor(column: 1, row: 1)),
    ])
    func lastMoveUnderCursor(game: any Game, moves: [Int], cursor: BoardCursor) {
        let state = Fixtures.state(game, moves: moves)
        let lines = BoardRenderer.lines(for: state, cursor: cursor, options: Fixtures.asciiMono).map(\.text).joined(separator: "\n")
        #expect(lines.contains("{X}"), "\(lines)")
    }

    @Test("the smallest window is the board and its status line; the too-small notice fits any window, never cut mid-word", arguments: [
        (20, 5), (12, 3), (6, 1), (40, 8),
    ])
    func smallest(columns: Int, rows: Int) {
        let view = ScreenView(state: Fixtures.state(Connect4()), localSeats: [0], showsCursor: true)
        let needed = Renderer.requiredSize(for: view, options: Fixtures.unicodeColor)
        #expect(needed.rows == BoardRenderer.lines(for: view.state, cursor: nil, options: Fixtures.unicodeColor).count + 1)
        let fits = Self.text(Renderer.screen(for: view, options: Fixtures.unicodeColor, size: TerminalSize(columns: 40, rows: 15)))
        #expect(!fits.joined().contains("small"), "\(fits)")
        let small = Self.text(Renderer.screen(for: view, options: Fixtures.unicodeColor, size: TerminalSize(columns: columns, rows: rows)))
        #expect(small.count <= rows && small.allSatisfy { $0.count < columns }, "\(small)")
        let words = ["Window", "too", "small:", "need", "Too", "Need", "\(needed.columns)x\(needed.rows)", "\(needed.columns)x\(needed.rows).",
                     "(now", "\(columns)x\(rows)).", "Enlarge", "it,", "or", "q", "to", "quit.", "quits."]
        for word in small.joined(separator: " ").split(separator: " ") {
            #expect(words.contains(String(word)), "cut mid-word: \(small)")
        }
    }

    /// The column of the board's first line (its column letters) on `frame`.
    static func boardColumn(_ frame: Frame, header: String) -> Int? {
        frame.textLines.first { $0.contains(header) }.map { $0.prefix { $0 == " " }.count }
    }

    @Test("the board stays in its column and row whatever the keys line, the message or the status say (reversi at 120x40)")
    func boardStaysPut() {
        let state = Fixtures.state(Reversi())
        let size = TerminalSize(columns: 120, rows: 40)
        var plain = ScreenView(state: state, localSeats: [0], showsCursor: true)
        plain.cursor = BoardCursor(column: 2, row: 3)
        var variants = [plain]
        var hints = plain
        hints.hintsAllowed = true
        hints.talkAvailable = true
        variants.append(hints)
        var quitting = plain
        quitting.confirmingQuit = true
        variants.append(quitting)
        var message = hints
        message.message = String(repeating: "A long message about what just happened at the table. ", count: 3)
        variants.append(message)
        let header = "a  b  c  d  e  f  g  h"
        let frames = variants.map { Renderer.screen(for: $0, options: Fixtures.asciiMono, size: size) }
        let columns = frames.map { Self.boardColumn($0, header: header) }
        #expect(columns.allSatisfy { $0 != nil && $0 == columns[0] }, "the board moved sideways: \(columns)")
        let rows = frames.map { $0.textLines.firstIndex { $0.contains(header) } }
        #expect(rows.allSatisfy { $0 == rows[0] }, "the board moved up or down: \(rows)")
    }

    @Test("at 80 columns the move list shows beside the board during play, and a long keys line wraps whole keys onto two lines")
    func eightyColumns() {
        var view = ScreenView(state: Fixtures.state(Connect4(), moves: [3, 4, 2]), localSeats: [0], showsCursor: true)
        view.hintsAllowed = true
        view.talkAvailable = true
        let lines = Self.text(Renderer.screen(for: view, options: Fixtures.unicodeColor, size: .standard))
        #expect(lines.contains { $0.hasSuffix("Moves") }, "\(lines.joined(separator: "\n"))")
        let items = Renderer.helpItems(view, options: Fixtures.unicodeColor)
        let keyLines = lines.filter { line in items.contains { line.contains($0) } }
        #expect(keyLines.count == 2, "\(lines.joined(separator: "\n"))")
        // Every key whole on one row, the gaps between them kept.
        for item in items { #expect(keyLines.contains { $0.contains(item) }, "\(item) was split: \(keyLines)") }
        #expect(keyLines.allSatisfy { $0.count < 80 } && keyLines.joined().contains("Enter: drop   h: hint"), "\(keyLines)")
    }
}
