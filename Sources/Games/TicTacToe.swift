/// Tic-tac-toe on a 3x3 grid; three in a row wins, a full grid is a draw.
///
/// A move's raw value is the cell, 0 to 8, row by row from the top left.
public struct TicTacToe: Game, Hashable {
    public static let id = "tictactoe"
    public static let rulesVersion = 1
    public static let displayName = "Tic-tac-toe"
    public static let summary = "Take turns marking a 3x3 grid; three in a row wins."
    public static let moveHelp = "a cell, 1-9, row by row from the top left"
    public static let seatRange = 2...2
    public static let alternatesStrictly = true

    /// The 8 lines of three cells.
    public static let lines: [[Int]] = [
        [0, 1, 2], [3, 4, 5], [6, 7, 8],
        [0, 3, 6], [1, 4, 7], [2, 5, 8],
        [0, 4, 8], [2, 4, 6],
    ]

    /// Each cell's owner, or nil.
    public private(set) var cells: [SeatIndex?] = Array(repeating: nil, count: 9)
    public private(set) var moveCount = 0
    public private(set) var result: GameResult = .inProgress
    /// The winning line's cells, once there is one.
    public private(set) var winningLine: [Int] = []

    public init(seats: Int = 2) {}
    public var seatCount: Int { 2 }
    public var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }

    public var legalMoves: [Move] {
        guard result == .inProgress else { return [] }
        return (0..<9).filter { cells[$0] == nil }.map(Move.init)
    }

    public func isLegal(_ move: Move) -> Bool {
        result == .inProgress && (0..<9).contains(move.rawValue) && cells[move.rawValue] == nil
    }

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

    public func notation(for move: Move) -> String { String(move.rawValue + 1) }

    public func move(fromNotation text: String) -> Move? {
        guard let number = Int(text.trimmingWhitespace()), (1...9).contains(number) else { return nil }
        return Move(number - 1)
    }
}
