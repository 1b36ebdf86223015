/// Connect Four in three dimensions: a 4x4x4 cube of 16 vertical pegs.
/// A piece dropped on a peg falls to the lowest free level; four in a row
/// along any of the cube's 76 lines wins; a full cube is a draw.
///
/// A move's raw value is the peg, `row * 4 + column` (0 to 15); a person types
/// a column letter and a row number, e.g. `b3` is column 1, row 2.
/// Cell index: `level * 16 + row * 4 + column`, level 0 at the bottom.
public struct Cube4: Game, Hashable {
    /// "cube4": the game's name on the wire, in the match blob and in the
    /// store; a person may also type "Cube Four", "cube" or "3d connect four".
    public static let id = "cube4"
    /// 1, the rules as first released: a host refuses a guest with another
    /// version, and a match saved under another does not open
    /// (`rulesVersionMismatch`).
    public static let rulesVersion = 1
    /// "Cube Four (3D Connect Four)": the name `parlor games` and the match
    /// screens show.
    public static let displayName = "Cube Four (3D Connect Four)"
    /// The one line of rules `parlor games` prints under the name.
    public static let summary = "Drop pieces onto 16 pegs of a 4x4x4 cube; four in a line along any of the 76 lines wins."
    /// What plain mode shows as the move to type: a peg by its column letter
    /// and row number.
    public static let moveHelp = "a peg as column letter and row number, a1-d4 (e.g. b3)"
    /// Two players, no more and no fewer.
    public static let seatRange = 2...2
    /// True: seat 0 drops on even move counts, seat 1 on odd ones; nobody ever passes.
    public static let alternatesStrictly = true

    /// Pegs along each side and levels on each peg: a 4x4x4 cube, 16 pegs, 64 cells.
    public static let size = 4

    /// All 76 winning lines as cell masks, computed once.
    public static let lineMasks: [UInt64] = lines.map { $0.reduce(UInt64(0)) { $0 | (UInt64(1) << UInt64($1)) } }

    /// All 76 winning lines as lists of four cell indices.
    public static let lines: [[Int]] = {
        var result: [[Int]] = []
        var seen = Set<[Int]>()
        let n = size
        for dx in -1...1 { for dy in -1...1 { for dz in -1...1 where (dx, dy, dz) != (0, 0, 0) {
            for x in 0..<n { for y in 0..<n { for z in 0..<n {
                let end = (x + 3 * dx, y + 3 * dy, z + 3 * dz)
                guard (0..<n).contains(end.0), (0..<n).contains(end.1), (0..<n).contains(end.2) else { continue }
                let cells = (0..<4).map { i in (z + i * dz) * 16 + (y + i * dy) * 4 + (x + i * dx) }.sorted()
                if seen.insert(cells).inserted { result.append(cells) }
            }}}
        }}}
        return result
    }()

    /// Bitboards of each seat's pieces, bit = cell index.
    public private(set) var pieces: (UInt64, UInt64) = (0, 0)
    /// How many pieces each peg holds.
    public private(set) var heights: [Int] = Array(repeating: 0, count: 16)
    /// Pieces dropped so far; the 64th fills the cube.
    public private(set) var moveCount = 0
    /// In progress until a drop completes one of the 76 lines (won by the seat
    /// that dropped it) or fills the cube without one (a draw).
    public private(set) var result: GameResult = .inProgress
    /// The winning line's cell indices, once there is one.
    public private(set) var winningLine: [Int] = []

    /// The empty cube, seat 0 to drop first; `seats` is ignored (always two).
    public init(seats: Int = 2) {}
    /// Always 2.
    public var seatCount: Int { 2 }
    /// Seat 0 on even move counts, seat 1 on odd ones; nil once the game is over.
    public var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }

    /// The pegs holding fewer than 4 pieces, in raw-value order (a1, b1, c1,
    /// d1, a2, …, d4); none once the game is over.
    public var legalMoves: [Move] {
        guard result == .inProgress else { return [] }
        return (0..<16).filter { heights[$0] < Self.size }.map(Move.init)
    }

    /// Whether `move` is a peg 0-15 with room on it, in a game still going.
    public func isLegal(_ move: Move) -> Bool {
        result == .inProgress && (0..<16).contains(move.rawValue) && heights[move.rawValue] < Self.size
    }

    /// Drops the active seat's piece to the lowest free level of peg
    /// `move.rawValue`, then sets `result` (and `winningLine`) when that
    /// completed a line or filled the cube.
    ///
    /// Throws `.gameOver` once the game is over, and `.illegalMove` for a peg
    /// off the board or a full one; the game is then unchanged.
    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        let peg = move.rawValue
        let seat = moveCount % 2
        let cell = heights[peg] * 16 + peg
        let bit = UInt64(1) << UInt64(cell)
        if seat == 0 { pieces.0 |= bit } else { pieces.1 |= bit }
        heights[peg] += 1
        moveCount += 1
        let mine = seat == 0 ? pieces.0 : pieces.1
        if let index = Self.lineMasks.firstIndex(where: { $0 & bit != 0 && $0 & mine == $0 }) {
            result = .won(by: seat)
            winningLine = Self.lines[index]
        } else if moveCount == 64 {
            result = .draw
        }
    }

    /// The seat whose piece is at (column, row, level), or nil.
    public func piece(column: Int, row: Int, level: Int) -> SeatIndex? {
        let range = 0..<Self.size
        guard range.contains(column), range.contains(row), range.contains(level) else { return nil }
        let bit = UInt64(1) << UInt64(level * 16 + row * 4 + column)
        if pieces.0 & bit != 0 { return 0 }
        if pieces.1 & bit != 0 { return 1 }
        return nil
    }

    /// The peg's column letter a-d and row number 1-4: raw value 0 is "a1", 6
    /// is "c2", 15 is "d4".
    public func notation(for move: Move) -> String {
        let column = move.rawValue % 4, row = move.rawValue / 4
        return String(Character(Unicode.Scalar(UInt8(97 + column)))) + String(row + 1)
    }

    /// A column letter a-d (either case) then a row number 1-4, spaces around
    /// allowed; nil for anything else. A full peg still parses: `isLegal` is
    /// what refuses it.
    public func move(fromNotation text: String) -> Move? {
        let chars = Array(text.trimmingWhitespace().lowercased())
        guard chars.count == 2, let letter = chars[0].asciiValue, (97...100).contains(letter),
              let number = chars[1].wholeNumberValue, (1...4).contains(number) else { return nil }
        return Move((number - 1) * 4 + Int(letter - 97))
    }

    /// The same pieces on the same cells after the same number of moves (the
    /// heights, the result and the winning line follow from those).
    public static func == (lhs: Cube4, rhs: Cube4) -> Bool {
        lhs.pieces == rhs.pieces && lhs.moveCount == rhs.moveCount
    }

    /// Hashes the two bitboards: equal positions have equal pieces.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pieces.0); hasher.combine(pieces.1)
    }
}
