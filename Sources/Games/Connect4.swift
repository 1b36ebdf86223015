/// Connect Four: 7 columns by 6 rows, pieces fall to the lowest free cell;
/// four in a row horizontally, vertically or diagonally wins.
///
/// A move's raw value is the column, 0 to 6. Internally the board is two
/// bitboards in the classic 7x(6+1) layout (bit `column * 7 + row`), which
/// makes line checks a handful of shifts and lets bots copy positions cheaply.
public struct Connect4: Game, Hashable {
    /// "connect4": the game's name on the wire, in the match blob and in the
    /// store; a person may also type "Connect Four", "four in a row" or "c4".
    public static let id = "connect4"
    /// 1, the rules as first released: a host refuses a guest with another
    /// version, and a match saved under another does not open
    /// (`rulesVersionMismatch`).
    public static let rulesVersion = 1
    /// "Connect Four": the name `parlor games` and the match screens show.
    public static let displayName = "Connect Four"
    /// The one line of rules `parlor games` prints under the name.
    public static let summary = "Drop pieces into 7 columns of 6 rows; four in a row in any direction wins."
    /// "a column, 1-7": what plain mode shows as the move to type.
    public static let moveHelp = "a column, 1-7"
    /// Two players, no more and no fewer.
    public static let seatRange = 2...2
    /// True: seat 0 drops on even move counts, seat 1 on odd ones; nobody ever passes.
    public static let alternatesStrictly = true

    /// Columns on the board: raw values 0-6, typed as 1-7.
    public static let columns = 7
    /// Cells in each column: a column holding this many pieces is full.
    public static let rows = 6

    /// Bitboards of each seat's pieces (bit `column * 7 + row`, row 0 at the bottom).
    public private(set) var pieces: (UInt64, UInt64) = (0, 0)
    /// How many pieces each column holds.
    public private(set) var heights: [Int] = Array(repeating: 0, count: 7)
    /// Pieces dropped so far; the 42nd fills the board.
    public private(set) var moveCount = 0
    /// In progress until a drop makes four in a row (won by the seat that
    /// dropped it) or fills the board without one (a draw).
    public private(set) var result: GameResult = .inProgress
    /// The cells of the winning line, once there is one (column, row).
    public private(set) var winningLine: [(column: Int, row: Int)] = []

    /// The empty board, seat 0 to drop first; `seats` is ignored (always two).
    public init(seats: Int = 2) {}
    /// Always 2.
    public var seatCount: Int { 2 }

    /// Seat 0 on even move counts, seat 1 on odd ones; nil once the game is over.
    public var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }

    /// The columns that are not full, left to right (raw values 0-6); none
    /// once the game is over.
    public var legalMoves: [Move] {
        guard result == .inProgress else { return [] }
        return (0..<Self.columns).filter { heights[$0] < Self.rows }.map(Move.init)
    }

    /// Whether `move` is a column 0-6 with room in it, in a game still going.
    public func isLegal(_ move: Move) -> Bool {
        result == .inProgress && (0..<Self.columns).contains(move.rawValue)
            && heights[move.rawValue] < Self.rows
    }

    /// Drops the active seat's piece to the lowest free cell of column
    /// `move.rawValue`, then sets `result` (and `winningLine`) when that made
    /// four in a row or filled the board.
    ///
    /// Throws `.gameOver` once the game is over, and `.illegalMove` for a
    /// column off the board or a full one; the game is then unchanged.
    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        let column = move.rawValue
        let seat = moveCount % 2
        let bit = UInt64(1) << UInt64(column * 7 + heights[column])
        if seat == 0 { pieces.0 |= bit } else { pieces.1 |= bit }
        heights[column] += 1
        moveCount += 1
        let mine = seat == 0 ? pieces.0 : pieces.1
        if let line = Self.winningLine(in: mine, through: column, heights[column] - 1) {
            result = .won(by: seat)
            winningLine = line
        } else if moveCount == Self.columns * Self.rows {
            result = .draw
        }
    }

    /// The seat whose piece is at (column, row), row 0 at the bottom, or nil.
    public func piece(column: Int, row: Int) -> SeatIndex? {
        guard (0..<Self.columns).contains(column), (0..<Self.rows).contains(row) else { return nil }
        let bit = UInt64(1) << UInt64(column * 7 + row)
        if pieces.0 & bit != 0 { return 0 }
        if pieces.1 & bit != 0 { return 1 }
        return nil
    }

    /// Whether a bitboard holds four in a row anywhere.
    public static func hasFour(_ board: UInt64) -> Bool {
        for shift in [1, 7, 6, 8] as [UInt64] {
            let pairs = board & (board >> shift)
            if pairs & (pairs >> (2 * shift)) != 0 { return true }
        }
        return false
    }

    private static func winningLine(in board: UInt64, through column: Int, _ row: Int) -> [(column: Int, row: Int)]? {
        guard hasFour(board) else { return nil }
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            var cells = [(column, row)]
            for sign in [1, -1] {
                var c = column + sign * dc, r = row + sign * dr
                while (0..<columns).contains(c), (0..<rows).contains(r),
                      board & (UInt64(1) << UInt64(c * 7 + r)) != 0 {
                    cells.append((c, r))
                    c += sign * dc; r += sign * dr
                }
            }
            if cells.count >= 4 { return cells.map { (column: $0.0, row: $0.1) } }
        }
        return nil
    }

    /// The column 1-based, as a person counts: raw value 0 is "1", 6 is "7".
    public func notation(for move: Move) -> String { String(move.rawValue + 1) }

    /// A column number 1-7, spaces around it allowed; nil for anything else.
    /// A full column still parses: `isLegal` is what refuses it.
    public func move(fromNotation text: String) -> Move? {
        let trimmed = text.trimmingWhitespace()
        guard let number = Int(trimmed), (1...Self.columns).contains(number) else { return nil }
        return Move(number - 1)
    }

    /// The same pieces on the same cells after the same number of moves (the
    /// heights, the result and the winning line follow from those).
    public static func == (lhs: Connect4, rhs: Connect4) -> Bool {
        lhs.pieces == rhs.pieces && lhs.moveCount == rhs.moveCount
    }

    /// Hashes the two bitboards: equal positions have equal pieces.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pieces.0); hasher.combine(pieces.1)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines (no Foundation).
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }),
              let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
