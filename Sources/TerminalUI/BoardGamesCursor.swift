import Games

/// The full-screen cursor for reversi, dots and boxes and Chinese checkers
/// (and, for the hint key, where any game's move is on its board). Pure.
///
/// - reversi: a cell; arrows, or a letter a-h for the column and a digit 1-8 for the row;
/// - dots and boxes: a point of the 9x9 grid of dots, lines and boxes
///   (`BoardGamesRenderer.dotsGrid`); arrows move one step, Enter draws the line under it;
/// - Chinese checkers: a hole (`row` is the row a-q, `column` the place in
///   it); left/right along the row, up/down to the nearest hole of the next
///   row; the first Enter picks up one of your pegs, the second plays it to
///   the hole under the cursor (a step or a chain of jumps), Esc or Enter on
///   the same hole puts it back.
enum BoardGamesCursor {
    /// What Enter does at the cursor.
    enum Pick: Equatable {
        /// Play this move (the model checks legality).
        case play(Move)
        /// Keep the turn, with this cursor and message (a peg picked up or put back).
        case choose(BoardCursor, message: String?)
    }

    /// Whether the cursor of `game` is handled here.
    static func handles(_ game: any Game) -> Bool { game is Reversi || game is DotsAndBoxes || game is ChineseCheckers }

    /// Where the cursor starts, or nil for another game.
    static func start(for game: any Game) -> BoardCursor? {
        switch game {
        case is Reversi: BoardCursor(column: 3, row: 2)
        case is DotsAndBoxes: BoardCursor(column: 1, row: 0)
        case let checkers as ChineseCheckers:
            checkersCursor(for: checkers.activeSeat.flatMap { seat in
                ChineseCheckers.board.points[checkers.homePoint(of: seat)].last
            } ?? 60)
        default: nil
        }
    }

    private static func checkersCursor(for hole: Int) -> BoardCursor {
        let (row, place) = ChineseCheckers.board.rowAndPlace[hole]
        return BoardCursor(column: place, row: row)
    }

    /// What Enter at `cursor` does, or nil for another game.
    static func pick(at cursor: BoardCursor, in game: any Game) -> Pick? {
        switch game {
        case is Reversi:
            return .play(Move(cursor.row * Reversi.size + cursor.column))
        case is DotsAndBoxes:
            guard let line = BoardGamesRenderer.dotsLine(x: cursor.column, y: cursor.row) else {
                return .choose(cursor, message: "Point at a line between two dots.")
            }
            return .play(Move(line))
        case let checkers as ChineseCheckers:
            guard let hole = BoardGamesRenderer.checkersHole(at: cursor) else { return .choose(cursor, message: nil) }
            var next = cursor
            guard let from = cursor.selected else {
                guard checkers.peg(at: hole) == checkers.activeSeat else {
                    return .choose(cursor, message: "Pick one of your own pegs first.")
                }
                next.selected = hole
                return .choose(next, message: nil)
            }
            if from == hole {
                next.selected = nil
                return .choose(next, message: nil)
            }
            return .play(ChineseCheckers.move(from: from, to: hole))
        default:
            return nil
        }
    }

    /// The cursor from which Enter plays `move` (the hint key puts it there),
    /// in every game: the column, cell or peg; the line between two dots; in
    /// Chinese checkers the peg picked up and the cursor on its destination.
    /// Nil for a move that is no place on the board.
    static func cursor(playing move: Move, in game: any Game) -> BoardCursor? {
        let raw = move.rawValue
        switch game {
        case is Connect4: return BoardCursor(column: raw)
        case is TicTacToe: return BoardCursor(column: raw % 3, row: raw / 3)
        case is Cube4: return BoardCursor(column: raw % Cube4.size, row: raw / Cube4.size)
        case is Reversi where (0..<Reversi.size * Reversi.size).contains(raw):
            return BoardCursor(column: raw % Reversi.size, row: raw / Reversi.size)
        case is DotsAndBoxes:
            guard let ((column, row), (nextColumn, _)) = DotsAndBoxes.dots(of: raw) else { return nil }
            // A horizontal line sits between two dots of a row, a vertical one between two rows.
            return nextColumn > column ? BoardCursor(column: 2 * column + 1, row: 2 * row)
                : BoardCursor(column: 2 * column, row: 2 * row + 1)
        case is ChineseCheckers where (0..<ChineseCheckers.holeCount * ChineseCheckers.holeCount).contains(raw):
            var cursor = checkersCursor(for: raw % ChineseCheckers.holeCount)
            cursor.selected = raw / ChineseCheckers.holeCount
            return cursor
        default: return nil
        }
    }

    /// The cursor after `key`, nil when the key means nothing here or the game is another one.
    static func moved(_ cursor: BoardCursor, by key: Key, in game: any Game) -> BoardCursor? {
        var next = cursor
        switch game {
        case is Reversi:
            if let stepped = step(cursor, by: key, within: Reversi.size) { return stepped }
            switch key {
            case .character(let character):
                let lower = Character(character.lowercased())
                if let digit = lower.wholeNumberValue, (1...Reversi.size).contains(digit) {
                    next.row = digit - 1
                } else if let ascii = lower.asciiValue, (97..<97 + UInt8(Reversi.size)).contains(ascii) {
                    next.column = Int(ascii) - 97
                } else {
                    return nil
                }
            default: return nil
            }
        case is DotsAndBoxes:
            return step(cursor, by: key, within: BoardGamesRenderer.dotsGrid)
        case is ChineseCheckers:
            let rows = ChineseCheckers.board.rows
            switch key {
            case .left: next.column = max(0, cursor.column - 1)
            case .right: next.column = min(rows[cursor.row].count - 1, cursor.column + 1)
            case .up, .down:
                let row = key == .up ? cursor.row - 1 : cursor.row + 1
                guard rows.indices.contains(row), let here = BoardGamesRenderer.checkersHole(at: cursor) else { return nil }
                let column = ChineseCheckers.board.screenColumn[here]
                // The hole of the next row nearest on screen, the left one on a tie.
                let nearest = rows[row].indices.min {
                    abs(ChineseCheckers.board.screenColumn[rows[row][$0]] - column)
                        < abs(ChineseCheckers.board.screenColumn[rows[row][$1]] - column)
                } ?? 0
                next.row = row
                next.column = nearest
            case .escape:
                guard cursor.selected != nil else { return nil }
                next.selected = nil
            default: return nil
            }
        default:
            return nil
        }
        return next == cursor ? nil : next
    }

    /// An arrow's step on a square grid of `size`, top row 0; nil for another
    /// key or at the edge.
    private static func step(_ cursor: BoardCursor, by key: Key, within size: Int) -> BoardCursor? {
        var next = cursor
        switch key {
        case .left: next.column = max(0, cursor.column - 1)
        case .right: next.column = min(size - 1, cursor.column + 1)
        case .up: next.row = max(0, cursor.row - 1)
        case .down: next.row = min(size - 1, cursor.row + 1)
        default: return nil
        }
        return next == cursor ? nil : next
    }
}
