/// Dots and boxes for 2 to 4 players on a grid of 5x5 dots (4x4 boxes):
/// draw one line between two neighbouring dots; completing a box scores it
/// and earns another move; when every line is drawn, most boxes wins.
///
/// Dots are named by column a-e (left to right) and row 1-5 (top to
/// bottom). A move's raw value is a line: horizontal lines first, row by row
/// (`row * 4 + column`, 0-19, the line from dot (column, row) to its right
/// neighbour), then vertical lines (`20 + row * 5 + column`, 20-39, the line
/// from dot (column, row) down to its neighbour below).
///
/// Turn order: seats move in rotation 0, 1, …, except that a move completing
/// one or two boxes keeps the turn with the mover, so seats do not alternate
/// strictly. At the end `scores` holds each seat's boxes and `placements`
/// ranks them; the result is a win for a single top scorer and a draw when
/// two or more seats share the top score (with three or four seats a shared
/// top is a draw for everyone by `GameResult`; the placements still tell
/// the lower places apart).
///
/// A seat that leaves (quits or runs out of time) while two or more play on
/// keeps its boxes on the board, is skipped in the rotation from then on,
/// and cannot win: the result and the placements rank the seats still
/// playing first.
///
/// Only the 5x5-dot board is offered: `init(seats:)` carries no size, and a
/// size would have to travel in the match blob; `dots` and `boxes` are
/// constants so that a sized variant is a new game id later.
public struct DotsAndBoxes: Game, Hashable {
    /// "dots-and-boxes": the game's name on the wire, in the match blob and in
    /// the store; a person may also type "dots", "boxes" or "dots and boxes".
    public static let id = "dots-and-boxes"
    /// 1, the rules as first released: a host refuses a guest with another
    /// version, and a match saved under another does not open
    /// (`rulesVersionMismatch`).
    public static let rulesVersion = 1
    /// "Dots and Boxes": the name `parlor games` and the match screens show.
    public static let displayName = "Dots and Boxes"
    /// The one line of rules `parlor games` prints under the name.
    public static let summary = "2-4 players draw lines between 5x5 dots; completing a box scores it and earns another move; most boxes wins."
    /// What plain mode shows as the move to type: a line by the two dots it joins.
    public static let moveHelp = "a line between two neighbouring dots, e.g. a1-b1 or c2-c3 (column a-e, row 1-5 from the top)"
    /// Two, three or four players.
    public static let seatRange = 2...4
    /// False: a line that completes a box earns its seat another move.
    public static let alternatesStrictly = false

    /// Dots per side.
    public static let dots = 5
    /// Boxes per side.
    public static let boxes = dots - 1
    /// Horizontal lines (the first raw values), then as many vertical ones.
    public static let horizontalLines = dots * boxes
    /// Lines on the board, 40: raw values 0-19 horizontal, 20-39 vertical.
    /// The game ends when all are drawn.
    public static let lineCount = 2 * dots * boxes

    /// Drawn lines, bit per raw value.
    public private(set) var drawn: UInt64 = 0
    /// Each box's owner, row by row from the top left (`row * 4 + column`), or nil.
    public private(set) var owners: [SeatIndex?] = Array(repeating: nil, count: boxes * boxes)
    /// Lines drawn so far; the game ends when it reaches `lineCount`.
    public private(set) var moveCount = 0
    /// In progress until every line is drawn; then won by the one top scorer
    /// among the seats still playing, a draw when two or more share the top.
    public private(set) var result: GameResult = .inProgress
    /// Players at the start, 2-4; a seat that left still counts.
    public let seatCount: Int
    /// Who is still in the rotation, and whose turn it is.
    public private(set) var rotation: SeatRotation

    /// A fresh board for `seats` players (clamped to 2-4).
    public init(seats: Int = 2) {
        seatCount = min(max(seats, 2), 4)
        rotation = SeatRotation(seatCount: seatCount)
    }

    /// The seat whose turn it is in the rotation (the mover again after a line
    /// that completed a box; never a seat that left); nil once every line is drawn.
    public var activeSeat: SeatIndex? { result == .inProgress ? rotation.current : nil }

    /// Boxes per seat.
    public var scores: [Int]? {
        (0..<seatCount).map { seat in owners.filter { $0 == seat }.count }
    }

    /// The horizontal line from dot (column, row) to (column + 1, row).
    public static func horizontal(column: Int, row: Int) -> Int { row * boxes + column }
    /// The vertical line from dot (column, row) to (column, row + 1).
    public static func vertical(column: Int, row: Int) -> Int { horizontalLines + row * dots + column }

    /// The four lines around box (column, row): top, bottom, left, right.
    public static func sides(ofBox column: Int, _ row: Int) -> [Int] {
        [horizontal(column: column, row: row), horizontal(column: column, row: row + 1),
         vertical(column: column, row: row), vertical(column: column + 1, row: row)]
    }

    /// The boxes (as `row * 4 + column`) that `line` is a side of: one or two.
    public static func boxes(beside line: Int) -> [Int] {
        var result: [Int] = []
        if line < horizontalLines {
            let row = line / boxes, column = line % boxes
            if row > 0 { result.append((row - 1) * boxes + column) }
            if row < boxes { result.append(row * boxes + column) }
        } else {
            let row = (line - horizontalLines) / dots, column = (line - horizontalLines) % dots
            if column > 0 { result.append(row * boxes + column - 1) }
            if column < boxes { result.append(row * boxes + column) }
        }
        return result
    }

    /// Whether `line` is drawn.
    public func isDrawn(_ line: Int) -> Bool {
        (0..<Self.lineCount).contains(line) && drawn & (UInt64(1) << UInt64(line)) != 0
    }

    /// How many of box `box`'s four sides are drawn.
    public func sidesDrawn(ofBox box: Int) -> Int {
        Self.sides(ofBox: box % Self.boxes, box / Self.boxes).filter(isDrawn).count
    }

    /// The lines not drawn yet, in raw-value order (the horizontal ones row by
    /// row, then the vertical ones); none once the game is over.
    public var legalMoves: [Move] {
        guard result == .inProgress else { return [] }
        return (0..<Self.lineCount).filter { !isDrawn($0) }.map(Move.init)
    }

    /// Whether `move` is a line 0-39 not drawn yet, in a game still going.
    public func isLegal(_ move: Move) -> Bool {
        result == .inProgress && (0..<Self.lineCount).contains(move.rawValue) && !isDrawn(move.rawValue)
    }

    /// Draws line `move.rawValue` for the active seat. A box it completes (one
    /// or two) becomes the seat's and the seat moves again; otherwise the turn
    /// passes to the next seat still playing. The last line sets `result`.
    ///
    /// Throws `.gameOver` once the game is over, and `.illegalMove` for a line
    /// off the board or one already drawn; the game is then unchanged.
    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard let seat = activeSeat else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        drawn |= UInt64(1) << UInt64(move.rawValue)
        moveCount += 1
        var completed = 0
        for box in Self.boxes(beside: move.rawValue) where sidesDrawn(ofBox: box) == 4 {
            owners[box] = seat
            completed += 1
        }
        if completed == 0 { rotation.passTurn() }
        if moveCount == Self.lineCount {
            let scores = scores ?? []
            let present = scores.indices.filter { !hasLeft($0) }
            let top = present.map { scores[$0] }.max() ?? 0
            let leaders = present.filter { scores[$0] == top }
            result = leaders.count == 1 ? .won(by: leaders[0]) : .draw
        }
    }

    /// Whether `seat` has left the match.
    public func hasLeft(_ seat: SeatIndex) -> Bool { rotation.hasLeft(seat) }

    /// The seat's boxes stay drawn and counted, but it never moves again and cannot win.
    public mutating func seatLeft(_ seat: SeatIndex) {
        _ = rotation.remove(seat)
    }

    /// Placements among the seats still playing; a seat that left ranks below all of them.
    public var placements: [Int]? {
        let scores = scores ?? []
        let keys = scores.indices.map { (hasLeft($0) ? 1 : 0, -scores[$0]) }
        return keys.map { key in 1 + keys.filter { $0 < key }.count }
    }

    /// The two dots a line joins, as (column, row) pairs, the upper or left one first.
    public static func dots(of line: Int) -> ((Int, Int), (Int, Int))? {
        guard (0..<lineCount).contains(line) else { return nil }
        if line < horizontalLines {
            let row = line / boxes, column = line % boxes
            return ((column, row), (column + 1, row))
        }
        let row = (line - horizontalLines) / dots, column = (line - horizontalLines) % dots
        return ((column, row), (column, row + 1))
    }

    private static func dotName(_ dot: (Int, Int)) -> String {
        "\(Character(Unicode.Scalar(UInt8(97 + dot.0))))\(dot.1 + 1)"
    }

    /// `a1-b1`: the two dots, the upper or left one first.
    public func notation(for move: Move) -> String {
        guard let (first, second) = Self.dots(of: move.rawValue) else { return "?" }
        return Self.dotName(first) + "-" + Self.dotName(second)
    }

    /// Two neighbouring dots in either order, with or without `-` or a space between.
    public func move(fromNotation text: String) -> Move? {
        let chars = Array(text.trimmingWhitespace().lowercased()).filter { $0 != "-" && $0 != " " }
        guard chars.count == 4, let a = Self.dot(chars[0], chars[1]), let b = Self.dot(chars[2], chars[3]) else { return nil }
        let (first, second) = (a.1, a.0) <= (b.1, b.0) ? (a, b) : (b, a)
        if first.1 == second.1, second.0 == first.0 + 1 {
            return Move(Self.horizontal(column: first.0, row: first.1))
        }
        if first.0 == second.0, second.1 == first.1 + 1 {
            return Move(Self.vertical(column: first.0, row: first.1))
        }
        return nil
    }

    private static func dot(_ letter: Character, _ digit: Character) -> (Int, Int)? {
        guard let ascii = letter.asciiValue, (97..<97 + UInt8(dots)).contains(ascii),
              let row = digit.wholeNumberValue, (1...dots).contains(row) else { return nil }
        return (Int(ascii) - 97, row - 1)
    }
}
