import Games
import Match

/// A position on the board the player is pointing at: a column (connect4),
/// a cell (tictactoe: column and row from the top left), or a peg (cube4:
/// column a-d, row 1-4). 0-based.
public struct BoardCursor: Hashable, Sendable {
    /// 0-based column (connect4 column, tictactoe column, cube4 letter a-d).
    public var column: Int
    /// 0-based row (tictactoe from the top, cube4 row number minus one; unused for connect4).
    public var row: Int
    /// A hole picked to move from (Chinese checkers: the first Enter picks a peg, the second plays).
    public var selected: Int?
    /// A cursor at (column, row).
    public init(column: Int, row: Int = 0, selected: Int? = nil) {
        self.column = column
        self.row = row
        self.selected = selected
    }
}

/// How seats' pieces look, shared by every renderer so a name and its piece always agree.
public enum Pieces {
    /// The glyph for `seat` in `gameID`: ●/○ (X/O in ASCII) for the drop games, X/O for tictactoe.
    public static func glyph(seat: SeatIndex, gameID: String, options: DisplayOptions) -> String {
        let ascii = ["X", "O", "A", "B", "C", "D"]
        let unicode = ["●", "○", "▲", "■", "◆", "★"]
        guard seat >= 0 else { return "?" }
        if gameID == TicTacToe.id || !options.unicode { return seat < ascii.count ? ascii[seat] : String(seat + 1) }
        return seat < unicode.count ? unicode[seat] : String(seat + 1)
    }

    /// The colour of `seat`'s pieces.
    public static func color(seat: SeatIndex) -> TextColor {
        [TextColor.red, .yellow, .green, .cyan, .magenta, .blue][max(0, seat) % 6]
    }

    /// Style of a piece; winning pieces are bold.
    static func style(seat: SeatIndex, winning: Bool = false) -> TextStyle {
        TextStyle(foreground: color(seat: seat), bold: winning)
    }
}

/// What marks a cell besides its piece.
enum CellMark {
    case none, lastMove, winning, cursor
    /// The cursor on the cell of the last move: `{X}`, so the last move stays visible under it.
    case cursorOnLastMove

    /// The bracket pair around a 3-column cell; text markers make the board readable without colour.
    var brackets: (String, String) {
        switch self {
        case .none: (" ", " ")
        case .lastMove: ("(", ")")
        case .winning: ("*", "*")
        case .cursor: ("[", "]")
        case .cursorOnLastMove: ("{", "}")
        }
    }

    var style: TextStyle {
        switch self {
        case .none: .plain
        case .lastMove: TextStyle(bold: true)
        case .winning: TextStyle(foreground: .green, bold: true)
        case .cursor: TextStyle(reverse: true)
        case .cursorOnLastMove: TextStyle(bold: true, reverse: true)
        }
    }
}

/// Draws boards as styled lines without a terminal; every game's layout lives here.
///
/// The markers are text as well as style: `( )` around the last move,
/// `* *` around a winning line, `[ ]` at the cursor, so the board reads the
/// same with NO_COLOR, in plain mode and in a test.
public enum BoardRenderer {
    /// The board lines for `state`, or a generic list of legal moves for a game without a layout.
    ///
    /// `cursor` nil draws no cursor (plain mode, other player's turn).
    public static func lines(for state: MatchState, cursor: BoardCursor?, options: DisplayOptions) -> [StyledLine] {
        let last = state.moves.last
        switch state.game {
        case let game as Connect4:
            return connect4(game, cursor: cursor, last: last, options: options, activeSeat: state.activeSeat)
        case let game as Cube4:
            return cube4(game, cursor: cursor, last: last, options: options)
        case let game as TicTacToe:
            return tictactoe(game, cursor: cursor, last: last, options: options)
        default:
            if let lines = BoardGamesRenderer.lines(for: state, cursor: cursor, options: options) { return lines }
            let moves = state.game.legalMoves.map { state.game.notation(for: $0) }.joined(separator: " ")
            return [StyledLine("Moves: \(moves)")]
        }
    }

    /// One 3-column cell: a bracket pair around a glyph.
    private static func cell(_ line: inout StyledLine, glyph: String, glyphStyle: TextStyle, mark: CellMark) {
        let (open, close) = mark.brackets
        line.append(open, mark.style)
        line.append(glyph, glyphStyle)
        line.append(close, mark.style)
    }

    // MARK: connect4

    static func connect4(_ game: Connect4, cursor: BoardCursor?, last: PlayedMove?, options: DisplayOptions,
                         activeSeat: SeatIndex?) -> [StyledLine] {
        let u = options.unicode
        let winning = Set(game.winningLine.map { $0.column * 8 + $0.row })
        var lines: [StyledLine] = []
        // Above the board: the piece about to drop (or an arrow) over the cursor's column.
        var pointer = StyledLine()
        for column in 0..<Connect4.columns {
            if let cursor, cursor.column == column {
                if let seat = activeSeat {
                    pointer.append("  ")
                    pointer.append(Pieces.glyph(seat: seat, gameID: Connect4.id, options: options), Pieces.style(seat: seat, winning: true))
                    pointer.append(" ")
                } else {
                    pointer.append(u ? "  ▼ " : "  v ")
                }
            } else {
                pointer.append("    ")
            }
        }
        lines.append(pointer)
        var numbers = StyledLine()
        for column in 0..<Connect4.columns {
            numbers.append("  ")
            numbers.append(String(column + 1), cursor?.column == column ? TextStyle(bold: true, reverse: true) : TextStyle(dim: true))
            numbers.append(" ")
        }
        lines.append(numbers)
        let lastColumn = last?.move.rawValue
        let lastRow = lastColumn.map { game.heights[$0] - 1 }
        for row in stride(from: Connect4.rows - 1, through: 0, by: -1) {
            var line = StyledLine(u ? "│" : "|")
            for column in 0..<Connect4.columns {
                let mark: CellMark = winning.contains(column * 8 + row) ? .winning
                    : (column == lastColumn && row == lastRow ? .lastMove : .none)
                if let seat = game.piece(column: column, row: row) {
                    cell(&line, glyph: Pieces.glyph(seat: seat, gameID: Connect4.id, options: options),
                         glyphStyle: Pieces.style(seat: seat, winning: mark == .winning), mark: mark)
                } else {
                    cell(&line, glyph: u ? "·" : ".", glyphStyle: TextStyle(dim: true), mark: .none)
                }
                line.append(u ? "│" : "|")
            }
            lines.append(line)
        }
        let bottom = u ? "└" + Array(repeating: "───", count: Connect4.columns).joined(separator: "┴") + "┘"
            : "+" + Array(repeating: "---", count: Connect4.columns).joined(separator: "+") + "+"
        lines.append(StyledLine(bottom))
        return lines
    }

    // MARK: tictactoe

    static func tictactoe(_ game: TicTacToe, cursor: BoardCursor?, last: PlayedMove?, options: DisplayOptions) -> [StyledLine] {
        let u = options.unicode
        let winning = Set(game.winningLine)
        var lines: [StyledLine] = []
        for row in 0..<3 {
            var line = StyledLine()
            for column in 0..<3 {
                let index = row * 3 + column
                let onCursor = cursor.map({ $0.column == column && $0.row == row }) == true
                let mark: CellMark = onCursor ? (last?.move.rawValue == index ? .cursorOnLastMove : .cursor)
                    : winning.contains(index) ? .winning
                    : (last?.move.rawValue == index ? .lastMove : .none)
                if let seat = game.cells[index] {
                    cell(&line, glyph: Pieces.glyph(seat: seat, gameID: TicTacToe.id, options: options),
                         glyphStyle: Pieces.style(seat: seat, winning: winning.contains(index)), mark: mark)
                } else {
                    cell(&line, glyph: String(index + 1), glyphStyle: TextStyle(dim: true), mark: mark)
                }
                if column < 2 { line.append(u ? "│" : "|") }
            }
            lines.append(line)
            if row < 2 { lines.append(StyledLine(u ? "───┼───┼───" : "---+---+---")) }
        }
        return lines
    }

    // MARK: cube4

    /// Columns one cube4 level takes ("4 " and four 3-column cells), and the gap between levels.
    static let cubeLevelWidth = 14
    static let cubeLevelGap = 3

    static func cube4(_ game: Cube4, cursor: BoardCursor?, last: PlayedMove?, options: DisplayOptions) -> [StyledLine] {
        let size = Cube4.size
        let winning = Set(game.winningLine)
        let gap = String(repeating: " ", count: cubeLevelGap)
        let lastCell = last.map { move in (game.heights[move.move.rawValue] - 1) * 16 + move.move.rawValue }
        var header = StyledLine()
        var letters = StyledLine()
        for level in 0..<size {
            if level > 0 { header.append(gap); letters.append(gap) }
            header.append(padded("  Level \(level + 1)", to: cubeLevelWidth), TextStyle(bold: true))
            letters.append("  ")
            for column in 0..<size {
                let letter = String(Character(Unicode.Scalar(UInt8(97 + column))))
                letters.append(" ")
                letters.append(letter, cursor?.column == column ? TextStyle(bold: true, reverse: true) : TextStyle(dim: true))
                letters.append(" ")
            }
        }
        var lines = [header, letters]
        for row in stride(from: size - 1, through: 0, by: -1) {
            var line = StyledLine()
            for level in 0..<size {
                if level > 0 { line.append(gap) }
                line.append(String(row + 1), cursor?.row == row ? TextStyle(bold: true, reverse: true) : TextStyle(dim: true))
                line.append(" ")
                for column in 0..<size {
                    let index = level * 16 + row * 4 + column
                    let onCursor = cursor.map { $0.column == column && $0.row == row } ?? false
                    let mark: CellMark = onCursor ? (index == lastCell ? .cursorOnLastMove : .cursor)
                        : winning.contains(index) ? .winning
                        : (index == lastCell ? .lastMove : .none)
                    if let seat = game.piece(column: column, row: row, level: level) {
                        cell(&line, glyph: Pieces.glyph(seat: seat, gameID: Cube4.id, options: options),
                             glyphStyle: Pieces.style(seat: seat, winning: winning.contains(index)), mark: mark)
                    } else {
                        cell(&line, glyph: options.unicode ? "·" : ".", glyphStyle: TextStyle(dim: true), mark: mark)
                    }
                }
            }
            lines.append(line)
        }
        if let cursor {
            let peg = cursor.row * 4 + cursor.column
            let name = game.notation(for: Move(peg))
            let height = (0..<16).contains(peg) ? game.heights[peg] : size
            let arrow = options.unicode ? "→" : "->"
            lines.append(StyledLine(height < size ? "Peg \(name) \(arrow) lands on level \(height + 1)"
                                                  : "Peg \(name) is full"))
        }
        return lines
    }
}
