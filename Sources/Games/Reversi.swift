/// Reversi (Othello) on an 8x8 board: place a disc so that it brackets a line
/// of the other player's discs, which turn to your colour; most discs wins.
///
/// A move's raw value is the cell, 0 to 63, row by row from the top left
/// (`row * 8 + column`; a1 is 0, h1 is 7, a8 is 56). Seat 0 plays the dark
/// discs and moves first; the start is the usual d4/e5 light, e4/d5 dark.
///
/// Passing is automatic: after a move, when the other seat has no legal
/// move but the mover has, `activeSeat` stays with the mover (the other seat
/// passes; no pass move is played or recorded). The game ends when neither
/// seat can move; most discs wins, equal counts are a draw. So seats do not
/// alternate strictly (`alternatesStrictly` is false).
///
/// Internally two bitboards (bit `row * 8 + column`).
public struct Reversi: Game, Hashable {
    /// "reversi": the game's name on the wire, in the match blob and in the
    /// store; a person may also type "othello".
    public static let id = "reversi"
    /// 1, the rules as first released: a host refuses a guest with another
    /// version, and a match saved under another does not open
    /// (`rulesVersionMismatch`).
    public static let rulesVersion = 1
    /// "Reversi": the name `parlor games` and the match screens show.
    public static let displayName = "Reversi"
    /// The one line of rules `parlor games` prints under the name.
    public static let summary = "Place discs on an 8x8 board to turn over the lines you bracket; a seat with no move passes automatically; most discs wins."
    /// What plain mode shows as the move to type: a cell by its column letter
    /// and row number.
    public static let moveHelp = "a cell, a1-h8 (column letter a-h, row 1-8 from the top)"
    /// Two players, no more and no fewer.
    public static let seatRange = 2...2
    /// False: a seat with no legal move passes automatically, so the same seat
    /// may place two discs running.
    public static let alternatesStrictly = false

    /// Cells along each side: an 8x8 board, 64 cells.
    public static let size = 8

    /// Each seat's discs as a bitboard (bit `row * 8 + column`, row 0 at the top).
    public private(set) var discs: (UInt64, UInt64) = (0x0000_0008_1000_0000, 0x0000_0010_0800_0000)
    /// Discs placed so far, not counting the four of the start; a pass is not a move.
    public private(set) var moveCount = 0
    /// In progress until neither seat can move; then the seat with more discs
    /// wins, and equal counts are a draw.
    public private(set) var result: GameResult = .inProgress
    private var toMove: SeatIndex = 0

    /// The usual start (d4 and e5 light, e4 and d5 dark), dark (seat 0) to
    /// move; `seats` is ignored (always two).
    public init(seats: Int = 2) {}
    /// Always 2.
    public var seatCount: Int { 2 }
    /// The seat to place a disc: the other seat after each move, the mover
    /// again when the other must pass; nil once neither can move.
    public var activeSeat: SeatIndex? { result == .inProgress ? toMove : nil }

    /// Discs per seat.
    public var scores: [Int]? { [discs.0.nonzeroBitCount, discs.1.nonzeroBitCount] }

    /// The seat whose disc is on `cell` (0-63), or nil.
    public func disc(at cell: Int) -> SeatIndex? {
        guard (0..<64).contains(cell) else { return nil }
        let bit = UInt64(1) << UInt64(cell)
        if discs.0 & bit != 0 { return 0 }
        if discs.1 & bit != 0 { return 1 }
        return nil
    }

    private func own(_ seat: SeatIndex) -> (mine: UInt64, theirs: UInt64) {
        seat == 0 ? (discs.0, discs.1) : (discs.1, discs.0)
    }

    /// The cells `seat` may play, as a bitboard.
    public func legalBits(for seat: SeatIndex) -> UInt64 {
        let (mine, theirs) = own(seat)
        let empty = ~(mine | theirs)
        var moves: UInt64 = 0
        for direction in Self.directions {
            var run = Self.shift(mine, direction) & theirs
            for _ in 0..<5 { run |= Self.shift(run, direction) & theirs }
            moves |= Self.shift(run, direction) & empty
        }
        return moves
    }

    /// The cells where the active seat's disc would turn over at least one
    /// line, in raw-value order (a1, b1, …, h1, a2, …, h8); none once the game
    /// is over.
    public var legalMoves: [Move] {
        guard let seat = activeSeat else { return [] }
        var bits = legalBits(for: seat)
        var moves: [Move] = []
        while bits != 0 {
            moves.append(Move(bits.trailingZeroBitCount))
            bits &= bits - 1
        }
        return moves
    }

    /// Whether `move` is an empty cell 0-63 that turns over at least one of
    /// the other seat's discs, in a game still going.
    public func isLegal(_ move: Move) -> Bool {
        guard let seat = activeSeat, (0..<64).contains(move.rawValue) else { return false }
        return legalBits(for: seat) & (UInt64(1) << UInt64(move.rawValue)) != 0
    }

    /// The discs that `seat` playing `cell` would turn over, as a bitboard (0 for an illegal cell).
    public func flips(playing cell: Int, for seat: SeatIndex) -> UInt64 {
        guard (0..<64).contains(cell) else { return 0 }
        let (mine, theirs) = own(seat)
        let bit = UInt64(1) << UInt64(cell)
        guard (mine | theirs) & bit == 0 else { return 0 }
        var flipped: UInt64 = 0
        for direction in Self.directions {
            var run: UInt64 = 0
            var probe = Self.shift(bit, direction)
            while probe & theirs != 0 {
                run |= probe
                probe = Self.shift(probe, direction)
            }
            if probe & mine != 0 { flipped |= run }
        }
        return flipped
    }

    /// Places the active seat's disc on cell `move.rawValue` and turns over
    /// every line it brackets; then the turn goes to the other seat, or stays
    /// with the mover when the other has no move, or the game ends by the disc
    /// count when neither has.
    ///
    /// Throws `.gameOver` once the game is over, and `.illegalMove` for a cell
    /// off the board, a taken one, or one that turns nothing over; the game is
    /// then unchanged.
    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard let seat = activeSeat else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        let bit = UInt64(1) << UInt64(move.rawValue)
        let flipped = flips(playing: move.rawValue, for: seat)
        if seat == 0 {
            discs.0 |= bit | flipped; discs.1 &= ~flipped
        } else {
            discs.1 |= bit | flipped; discs.0 &= ~flipped
        }
        moveCount += 1
        settle(preferring: 1 - seat)
    }

    /// Gives the turn to `next` if it can move, else to the other seat (`next`
    /// passes), else ends the game by the disc count.
    private mutating func settle(preferring next: SeatIndex) {
        if legalBits(for: next) != 0 {
            toMove = next
        } else if legalBits(for: 1 - next) != 0 {
            toMove = 1 - next
        } else {
            let (dark, light) = (discs.0.nonzeroBitCount, discs.1.nonzeroBitCount)
            result = dark == light ? .draw : .won(by: dark > light ? 0 : 1)
        }
    }

    /// A position for tests: these discs, `toMove` to move (or the other seat, or the end, as the rules say).
    init(dark: UInt64, light: UInt64, toMove: SeatIndex) {
        discs = (dark & ~light, light)
        settle(preferring: toMove)
    }

    /// The eight directions as bit shifts: east, west, south, north, then the diagonals.
    static let directions: [Int] = [1, -1, 8, -8, 9, 7, -7, -9]
    private static let notColumnA: UInt64 = 0xFEFE_FEFE_FEFE_FEFE
    private static let notColumnH: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// `bits` moved one cell in `direction`, dropping discs that would wrap around an edge.
    static func shift(_ bits: UInt64, _ direction: Int) -> UInt64 {
        switch direction {
        case 1: (bits << 1) & notColumnA
        case -1: (bits >> 1) & notColumnH
        case 8: bits << 8
        case -8: bits >> 8
        case 9: (bits << 9) & notColumnA
        case 7: (bits << 7) & notColumnH
        case -7: (bits >> 7) & notColumnA
        case -9: (bits >> 9) & notColumnH
        default: 0
        }
    }

    /// `d3` for cell 19: column letter, then row number from the top.
    public func notation(for move: Move) -> String {
        guard (0..<64).contains(move.rawValue) else { return "?" }
        let column = Character(Unicode.Scalar(UInt8(97 + move.rawValue % 8)))
        return "\(column)\(move.rawValue / 8 + 1)"
    }

    /// A column letter a-h (either case) then a row number 1-8, spaces around
    /// allowed: "d3" is cell 19; nil for anything else. A cell that is not
    /// legal now still parses: `isLegal` is what refuses it.
    public func move(fromNotation text: String) -> Move? {
        let chars = Array(text.trimmingWhitespace().lowercased())
        guard chars.count == 2, let letter = chars[0].asciiValue, (97...104).contains(letter),
              let row = chars[1].wholeNumberValue, (1...8).contains(row) else { return nil }
        return Move((row - 1) * 8 + Int(letter) - 97)
    }

    /// The same discs, the same seat to move, after the same number of moves,
    /// with the same result.
    public static func == (lhs: Reversi, rhs: Reversi) -> Bool {
        lhs.discs == rhs.discs && lhs.toMove == rhs.toMove && lhs.moveCount == rhs.moveCount && lhs.result == rhs.result
    }

    /// Hashes the discs and the seat to move.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(discs.0); hasher.combine(discs.1); hasher.combine(toMove)
    }
}
