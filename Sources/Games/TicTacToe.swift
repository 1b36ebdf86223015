/// Tic-tac-toe on a 3x3 grid; three in a row wins, a full grid is a draw.
///
/// A move's raw value is the cell, 0 to 8, row by row from the top left.
public struct TicTacToe: Game, Hashable {
    /// "tictactoe": the game's name on the wire, in the match blob and in the
    /// store; a person may also type "tic tac toe", "noughts and crosses" or "ttt".
    public static let id = "tictactoe"
    /// 1, the rules as first released: a host refuses a guest with another
    /// version, and a match saved under another does not open
    /// (`rulesVersionMismatch`).
    public static let rulesVersion = 1
    /// "Tic-tac-toe": the name `parlor games` and the match screens show.
    public static let displayName = "Tic-tac-toe"
    /// The one line of rules `parlor games` prints under the name.
    public static let summary = "Take turns marking a 3x3 grid; three in a row wins."
    /// "a cell, 1-9, row by row from the top left": what plain mode shows as
    /// the move to type.
    public static let moveHelp = "a cell, 1-9, row by row from the top left"
    /// Two players, no more and no fewer.
    public static let seatRange = 2...2
    /// True: seat 0 marks on even move counts, seat 1 on odd ones; nobody ever passes.
    public static let alternatesStrictly = true

    /// The 8 lines of three cells.
    public static let lines: [[Int]] = [
        [0, 1, 2], [3, 4, 5], [6, 7, 8],
        [0, 3, 6], [1, 4, 7], [2, 5, 8],
        [0, 4, 8], [2, 4, 6],
    ]

    /// Each cell's owner, or nil.
    public private(set) var cells: [SeatIndex?] = Array(repeating: nil, count: 9)
    /// Cells marked so far; the 9th fills the grid.
    public private(set) var moveCount = 0
    /// In progress until a mark completes three in a row (won by the seat that
    /// made it) or fills the grid without one (a draw).
    public private(set) var result: GameResult = .inProgress
    /// The winning line's cells, once there is one.
    public private(set) var winningLine: [Int] = []

    /// The empty grid, seat 0 to mark first; `seats` is ignored (always two).
    public init(seats: Int = 2) {}
    /// Always 2.
    public var seatCount: Int { 2 }
    /// Seat 0 on even move counts, seat 1 on odd ones; nil once the game is over.
    public var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }

    /// The empty cells in reading order (raw values 0-8, top left first); none
    /// once the game is over.
    public var legalMoves: [Move] {
        guard result == .inProgress else { return [] }
        return (0..<9).filter { cells[$0] == nil }.map(Move.init)
    }

    /// Whether `move` is an empty cell 0-8, in a game still going.
    public func isLegal(_ move: Move) -> Bool {
        result == .inProgress && (0..<9).contains(move.rawValue) && cells[move.rawValue] == nil
    }

    /// Marks cell `move.rawValue` for the active seat, then sets `result` (and
    /// `winningLine`) when that made three in a row or filled the grid.
    ///
    /// Throws `.gameOver` once the game is over, and `.illegalMove` for a cell
    /// off the grid or a taken one; the game is then unchanged.
    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        let seat = moveCount % 2
        cells[move.rawValue] = seat
        moveCount += 1
        if let line = Self.lines.first(where: { $0.allSatisfy { cells[$0] == seat } }) {
            result = .won(by: seat)
            winningLine = line
        } else if moveCount == 9 {
            result = .draw
        }
    }

    /// The cell 1-based, as a person counts: raw value 0 (top left) is "1", 8
    /// (bottom right) is "9".
    public func notation(for move: Move) -> String { String(move.rawValue + 1) }

    /// A cell number 1-9, spaces around it allowed; nil for anything else. A
    /// taken cell still parses: `isLegal` is what refuses it.
    public func move(fromNotation text: String) -> Move? {
        guard let number = Int(text.trimmingWhitespace()), (1...9).contains(number) else { return nil }
        return Move(number - 1)
    }
}
