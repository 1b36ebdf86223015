import Games
import Match

/// Board layouts for reversi, dots and boxes and Chinese checkers.
///
/// The same text markers as the other boards (`( )` last move, `[ ]` cursor,
/// `* *` a hole picked to move from), so they read the same without colour;
/// every seat is a distinct letter in ASCII. Each board ends with a score
/// line naming every seat.
enum BoardGamesRenderer {
    /// The lines for `state` when its game is one of these three, else nil.
    static func lines(for state: MatchState, cursor: BoardCursor?, options: DisplayOptions) -> [StyledLine]? {
        let last = state.moves.last
        switch state.game {
        case let game as Reversi: return reversi(game, state: state, cursor: cursor, last: last, options: options)
        case let game as DotsAndBoxes: return dots(game, state: state, cursor: cursor, last: last, options: options)
        case let game as ChineseCheckers: return checkers(game, state: state, cursor: cursor, last: last, options: options)
        default: return nil
        }
    }

    private static func glyph(_ seat: SeatIndex, _ state: MatchState, _ options: DisplayOptions) -> String {
        Pieces.glyph(seat: seat, gameID: state.gameID, options: options)
    }

    /// `Discs: Ana (X) 2, Bot (O) 2`
    static func scoreLine(_ state: MatchState, title: String, options: DisplayOptions) -> StyledLine {
        guard let scores = state.game.scores else { return StyledLine() }
        let parts = scores.indices.map { "\(MatchText.label(state, seat: $0, options: options)) \(scores[$0])" }
        return StyledLine("\(title): " + parts.joined(separator: ", "))
    }

    private static func cell(_ line: inout StyledLine, glyph: String, glyphStyle: TextStyle, mark: CellMark) {
        let (open, close) = mark.brackets
        line.append(open, mark.style)
        line.append(glyph, glyphStyle)
        line.append(close, mark.style)
    }

    private static func letter(_ index: Int) -> String { String(Character(Unicode.Scalar(UInt8(97 + index)))) }

    // MARK: reversi

    static func reversi(_ game: Reversi, state: MatchState, cursor: BoardCursor?, last: PlayedMove?,
                        options: DisplayOptions) -> [StyledLine] {
        let legal = state.activeSeat.map { game.legalBits(for: $0) } ?? 0
        var header = StyledLine("  ")
        for column in 0..<Reversi.size {
            header.append(" ")
            header.append(letter(column), cursor?.column == column ? TextStyle(bold: true, reverse: true) : TextStyle(dim: true))
            header.append(" ")
        }
        var lines = [header]
        for row in 0..<Reversi.size {
            var line = StyledLine()
            line.append("\(row + 1) ", cursor?.row == row ? TextStyle(bold: true, reverse: true) : TextStyle(dim: true))
            for column in 0..<Reversi.size {
                let index = row * Reversi.size + column
                let onCursor = cursor.map({ $0.column == column && $0.row == row }) == true
                let mark: CellMark = onCursor ? (last?.move.rawValue == index ? .cursorOnLastMove : .cursor)
                    : (last?.move.rawValue == index ? .lastMove : .none)
                if let seat = game.disc(at: index) {
                    cell(&line, glyph: glyph(seat, state, options), glyphStyle: Pieces.style(seat: seat), mark: mark)
                } else if legal & (UInt64(1) << UInt64(index)) != 0 {
                    cell(&line, glyph: "+", glyphStyle: TextStyle(dim: true), mark: mark)
                } else {
                    cell(&line, glyph: options.unicode ? "·" : ".", glyphStyle: TextStyle(dim: true), mark: mark)
                }
            }
            lines.append(line)
        }
        lines.append(scoreLine(state, title: "Discs", options: options))
        // The rules passed for the other seat: say so, since nothing else shows it.
        if let last, let active = state.activeSeat, active == last.seat {
            lines.append(StyledLine("\(MatchText.name(state, seat: 1 - active)) has no move and passes.", TextStyle(bold: true)))
        } else if let active = state.activeSeat {
            lines.append(StyledLine("+ marks where \(MatchText.label(state, seat: active, options: options)) may play.", TextStyle(dim: true)))
        }
        return lines
    }

    // MARK: dots and boxes

    /// Columns and rows of the dots-and-boxes cursor grid: dots and boxes at
    /// even/odd positions, lines where exactly one coordinate is odd.
    static let dotsGrid = 2 * DotsAndBoxes.dots - 1

    /// The line at grid position (x, y), or nil for a dot or a box.
    static func dotsLine(x: Int, y: Int) -> Int? {
        guard (0..<dotsGrid).contains(x), (0..<dotsGrid).contains(y), (x + y) % 2 == 1 else { return nil }
        if y % 2 == 0 { return DotsAndBoxes.horizontal(column: x / 2, row: y / 2) }
        return DotsAndBoxes.vertical(column: x / 2, row: y / 2)
    }

    static func dots(_ game: DotsAndBoxes, state: MatchState, cursor: BoardCursor?, last: PlayedMove?,
                     options: DisplayOptions) -> [StyledLine] {
        let u = options.unicode
        var header = StyledLine("  ")
        for x in 0..<dotsGrid {
            header.append(x % 2 == 0 ? " \(letter(x / 2)) " : "   ", TextStyle(dim: true))
        }
        var lines = [header]
        for y in 0..<dotsGrid {
            var line = StyledLine(y % 2 == 0 ? "\(y / 2 + 1) " : "  ", TextStyle(dim: true))
            for x in 0..<dotsGrid {
                let onCursor = cursor.map { $0.column == x && $0.row == y } ?? false
                if let lineIndex = dotsLine(x: x, y: y) {
                    let drawn = game.isDrawn(lineIndex)
                    let isLast = last?.move.rawValue == lineIndex
                    let style = isLast ? TextStyle(bold: true) : .plain
                    let horizontal = y % 2 == 0
                    let stroke = horizontal ? (u ? "─" : "-") : (u ? "│" : "|")
                    let body: String
                    if horizontal {
                        body = drawn ? String(repeating: stroke, count: 3) : "   "
                    } else {
                        body = drawn ? " \(stroke) " : "   "
                    }
                    if onCursor {
                        let middle = drawn ? stroke : " "
                        line.append("[", CellMark.cursor.style)
                        line.append(middle, style)
                        line.append("]", CellMark.cursor.style)
                    } else if isLast && !horizontal {
                        line.append("(\(stroke))", style)
                    } else if isLast {
                        line.append(String(repeating: u ? "═" : "=", count: 3), style)
                    } else {
                        line.append(body, style)
                    }
                } else if x % 2 == 0 {
                    // A dot, joined to the lines drawn on either side.
                    let left = x > 0 && game.isDrawn(DotsAndBoxes.horizontal(column: x / 2 - 1, row: y / 2))
                    let right = x / 2 < DotsAndBoxes.boxes && game.isDrawn(DotsAndBoxes.horizontal(column: x / 2, row: y / 2))
                    let dash = u ? "─" : "-"
                    if onCursor {
                        cell(&line, glyph: u ? "•" : "+", glyphStyle: .plain, mark: .cursor)
                    } else {
                        line.append((left ? dash : " ") + (u ? "•" : "+") + (right ? dash : " "))
                    }
                } else {
                    let box = (y / 2) * DotsAndBoxes.boxes + x / 2
                    let owner = game.owners[box]
                    let text = owner.map { glyph($0, state, options) } ?? " "
                    cell(&line, glyph: text, glyphStyle: owner.map { Pieces.style(seat: $0) } ?? .plain,
                         mark: onCursor ? .cursor : .none)
                }
            }
            lines.append(line)
        }
        lines.append(scoreLine(state, title: "Boxes", options: options))
        if let last, let active = state.activeSeat, active == last.seat {
            lines.append(StyledLine("\(MatchText.name(state, seat: active)) completed a box and moves again.", TextStyle(bold: true)))
        }
        return lines
    }

    // MARK: Chinese checkers

    static func checkers(_ game: ChineseCheckers, state: MatchState, cursor: BoardCursor?, last: PlayedMove?,
                         options: DisplayOptions) -> [StyledLine] {
        let board = ChineseCheckers.board
        let lastFrom = last.map { $0.move.rawValue / ChineseCheckers.holeCount }
        let lastTo = last.map { $0.move.rawValue % ChineseCheckers.holeCount }
        let cursorHole = cursor.flatMap { checkersHole(at: $0) }
        // Once a peg is picked up, `+` marks every hole it can go to (as reversi's `+` marks its moves).
        let reachable = cursor?.selected.flatMap { from in
            game.peg(at: from) == game.activeSeat ? game.destinations(from: from) : nil
        } ?? []
        var lines: [StyledLine] = []
        for (rowIndex, row) in board.rows.enumerated() {
            var line = StyledLine(letter(rowIndex) + " ", TextStyle(dim: true))
            var used = 0
            for hole in row {
                let start = (board.screenColumn[hole] + 12) * 2
                if start > used { line.append(String(repeating: " ", count: start - used)) }
                let mark: CellMark = hole == cursorHole ? (hole == lastTo ? .cursorOnLastMove : .cursor)
                    : hole == cursor?.selected ? .winning
                    : (hole == lastTo || hole == lastFrom ? .lastMove : .none)
                if let seat = game.peg(at: hole) {
                    cell(&line, glyph: glyph(seat, state, options), glyphStyle: Pieces.style(seat: seat), mark: mark)
                    used = start + 3
                } else if reachable.contains(hole) {
                    cell(&line, glyph: "+", glyphStyle: TextStyle(foreground: .green, bold: true), mark: mark)
                    used = start + 3
                } else {
                    // Empty holes show their place in the row, so a move can be read off the board.
                    let place = String(board.rowAndPlace[hole].1 + 1)
                    let (open, close) = mark.brackets
                    // A two-digit place takes the opening blank; a marker then uses the gap to the next hole.
                    let opening = place.count == 1 || mark != .none ? open : ""
                    line.append(opening, mark.style)
                    line.append(place, TextStyle(dim: true))
                    line.append(close, mark.style)
                    used = start + opening.count + place.count + close.count
                }
            }
            lines.append(line)
        }
        // The narrow rows at the top and bottom carry the scores and the
        // cursor's hole on their right, so the board stays 17 lines high.
        var notes: [Int: String] = [0: "Pegs in the opposite point:"]
        if let scores = game.scores {
            let noteRows = [1, 2, 3, 13, 14, 15]
            for seat in scores.indices where seat < noteRows.count {
                let name = String(MatchText.name(state, seat: seat).prefix(16))
                notes[noteRows[seat]] = "\(glyph(seat, state, options)) \(name) \(scores[seat])/\(ChineseCheckers.pegsPerSeat)"
            }
        }
        if let hole = cursorHole {
            let picked = cursor?.selected.map { "from \(ChineseCheckers.holeName($0)) to " } ?? ""
            notes[16] = "Cursor: \(picked)\(ChineseCheckers.holeName(hole))" + (reachable.isEmpty ? "" : " (+ can go)")
        }
        for (row, note) in notes {
            lines[row].append(String(repeating: " ", count: max(1, checkersNoteColumn - lines[row].width)))
            lines[row].append(note, TextStyle(dim: row == 16 || row == 0))
        }
        // The first row keeps room for the widest cursor note, so that the board is as wide with it as without.
        lines[0].append(String(repeating: " ", count: max(0, checkersNoteColumn + checkersNoteWidth - lines[0].width)))
        return lines
    }

    /// Where the notes beside the narrow rows start.
    static let checkersNoteColumn = 38
    /// The widest note: the cursor's, "Cursor: from m10 to l11 (+ can go)".
    static let checkersNoteWidth = 34

    /// The hole under a Chinese-checkers cursor (row index, place in the row), or nil.
    static func checkersHole(at cursor: BoardCursor) -> Int? {
        let rows = ChineseCheckers.board.rows
        guard rows.indices.contains(cursor.row), rows[cursor.row].indices.contains(cursor.column) else { return nil }
        return rows[cursor.row][cursor.column]
    }
}
