/// Chinese checkers (Sternhalma) for 2, 3, 4 or 6 players on the 121-hole
/// star: move one of your ten pegs from your point to the opposite one, by a
/// single step to a neighbouring hole or by a chain of jumps, each over one
/// neighbouring peg (anyone's) into the empty hole behind it.
///
/// Holes are numbered 0-120 row by row from the top tip, left to right; a
/// person names a hole by its row letter a-q (top to bottom) and its place
/// in that row, 1 on the left (the rows hold 1, 2, 3, 4, 13, 12, 11, 10, 9,
/// 10, 11, 12, 13, 4, 3, 2, 1 holes). A move's raw value is
/// `from * 121 + to`; a chain of jumps is one move, legal when `to` is
/// reachable from `from` by jumps alone (the path does not change the
/// position, so it is not recorded).
///
/// The points, clockwise from the top: 0 top, 1 upper right, 2 lower right,
/// 3 bottom, 4 lower left, 5 upper left. Seat 0 starts at the bottom;
/// 2 seats: bottom, top; 3: bottom, upper left, upper right; 4: bottom,
/// lower left, top, upper right; 6: every point clockwise from the bottom.
/// Each seat's target is the point opposite its own. Seats move in strict
/// rotation.
///
/// The game ends when a seat's target is full with at least one of its own
/// pegs in it (so pegs left in a target by another seat cannot stop a
/// win): that seat wins. It also ends after `moveCap` moves per seat
/// (bots that shuffle would otherwise never end): the seat with most pegs in
/// its target, then the least total distance to go, wins; equal on both is
/// a draw. A seat that leaves while two or more play on has its pegs lifted
/// off the board, is skipped in the rotation and ranks last; the rotation
/// is then no longer strict. `scores` is pegs in the target; `placements` rank by the same
/// order, with the winner first.
public struct ChineseCheckers: Game, Hashable {
    /// "chinese-checkers": the game's name on the wire, in the match blob and in
    /// the store; a person may also type "sternhalma" or "halma".
    public static let id = "chinese-checkers"
    /// 1, the rules as first released: a host refuses a guest with another
    /// version, and a match saved under another does not open
    /// (`rulesVersionMismatch`).
    public static let rulesVersion = 1
    /// "Chinese Checkers": the name `parlor games` and the match screens show.
    public static let displayName = "Chinese Checkers"
    /// The one line of rules `parlor games` prints under the name.
    public static let summary = "2, 3, 4 or 6 players race ten pegs each across a 121-hole star by steps and chains of jumps; first to fill the opposite point wins."
    /// What plain mode shows as the move to type: the holes a peg moves from
    /// and to, or the whole chain of a jump.
    public static let moveHelp = "from-to holes, e.g. n1-m5 (row a-q, then place in the row from the left); jumps as a chain p2-n2-l4 or by its ends p2-l4"
    /// Two to six players, but not five: `seatCounts` lists the counts played.
    public static let seatRange = 2...6
    /// 2, 3, 4 or 6 players, each with a home point (`homePoints(seats:)`);
    /// there is no layout for five.
    public static let seatCounts = [2, 3, 4, 6]
    /// True: seats move in turn 0, 1, 2, …; once a seat leaves a table of three
    /// or more, the rotation skips it and the match stops checking parity.
    public static let alternatesStrictly = true

    /// Holes on the board.
    public static let holeCount = 121
    /// Pegs per seat.
    public static let pegsPerSeat = 10
    /// Moves each seat may make before the game ends on the cap.
    public static let moveCap = 150

    /// Each hole's occupant, or -1.
    public private(set) var holes: [Int8]
    /// Moves made by all seats together; the game ends on the cap at
    /// `moveCap * seatCount`.
    public private(set) var moveCount = 0
    /// In progress until a seat's target is full with at least one of its own
    /// pegs in it (that seat wins), or the move cap is reached (the seat still
    /// playing with most pegs home, then least distance to go, wins; equal on
    /// both is a draw).
    public private(set) var result: GameResult = .inProgress
    /// Players at the start: 2, 3, 4 or 6; a seat that left still counts.
    public let seatCount: Int
    /// Who is still in the rotation, and whose turn it is.
    public private(set) var rotation: SeatRotation

    /// A fresh board for `seats` players; an unsupported count (5) is set up as the next smaller one.
    public init(seats: Int = 2) {
        let count = Self.seatCounts.last { $0 <= seats } ?? 2
        seatCount = count
        rotation = SeatRotation(seatCount: count)
        holes = Array(repeating: -1, count: Self.holeCount)
        for (seat, point) in Self.homePoints(seats: count).enumerated() {
            for hole in Self.board.points[point] { holes[hole] = Int8(seat) }
        }
    }

    /// A position for tests: `seats` players, these pegs, `moveCount` moves made.
    init(seats: Int, pegs: [Int: SeatIndex], moveCount: Int = 0) {
        self.init(seats: seats)
        holes = Array(repeating: -1, count: Self.holeCount)
        for (hole, seat) in pegs where holes.indices.contains(hole) { holes[hole] = Int8(seat) }
        self.moveCount = moveCount
        rotation = SeatRotation(seatCount: self.seatCount, current: moveCount % self.seatCount)
    }

    /// The points seats start on, in seat order.
    public static func homePoints(seats: Int) -> [Int] {
        switch seats {
        case 3: [3, 5, 1]
        case 4: [3, 4, 0, 1]
        case 6: [3, 4, 5, 0, 1, 2]
        default: [3, 0]
        }
    }

    /// The point `seat` starts on.
    public func homePoint(of seat: SeatIndex) -> Int { Self.homePoints(seats: seatCount)[seat] }
    /// The point `seat` must fill.
    public func targetPoint(of seat: SeatIndex) -> Int { (homePoint(of: seat) + 3) % 6 }
    /// The holes `seat` must fill.
    public func targetHoles(of seat: SeatIndex) -> [Int] { Self.board.points[targetPoint(of: seat)] }

    /// The seat whose turn it is in the rotation (never a seat that left); nil
    /// once the game is over.
    public var activeSeat: SeatIndex? { result == .inProgress ? rotation.current : nil }

    /// Whether `seat` has left the match.
    public func hasLeft(_ seat: SeatIndex) -> Bool { rotation.hasLeft(seat) }

    /// The seat's pegs are lifted off the board (they would block other seats'
    /// targets for ever), it is skipped in the rotation, and it ranks last.
    public mutating func seatLeft(_ seat: SeatIndex) {
        guard rotation.remove(seat) else { return }
        for hole in holes.indices where holes[hole] == Int8(seat) { holes[hole] = -1 }
    }

    /// The seat with a peg in `hole`, or nil.
    public func peg(at hole: Int) -> SeatIndex? {
        guard holes.indices.contains(hole), holes[hole] >= 0 else { return nil }
        return Int(holes[hole])
    }

    /// Pegs in the target, per seat.
    public var scores: [Int]? {
        (0..<seatCount).map { seat in targetHoles(of: seat).filter { holes[$0] == Int8(seat) }.count }
    }

    /// Rows still to travel, summed over `seat`'s pegs, to the far tip of its target.
    public func distanceToGo(of seat: SeatIndex) -> Int {
        let tip = Self.board.tips[targetPoint(of: seat)]
        var total = 0
        for hole in holes.indices where holes[hole] == Int8(seat) { total += Self.board.distance(hole, tip) }
        return total
    }

    /// The winner first when there is one, then by pegs in the target and distance to go.
    public var placements: [Int]? {
        let scores = scores ?? []
        let keys = (0..<seatCount).map { seat -> (Int, Int, Int) in
            (result == .won(by: seat) ? 0 : hasLeft(seat) ? 2 : 1, -scores[seat], distanceToGo(of: seat))
        }
        return keys.map { key in 1 + keys.filter { $0 < key }.count }
    }

    // MARK: moves

    /// Holes reachable from `from` by one or more jumps, with `from` treated as empty.
    public func jumpDestinations(from: Int) -> Set<Int> {
        var seen: Set<Int> = [from]
        var frontier = [from]
        var reached: Set<Int> = []
        while let hole = frontier.popLast() {
            for direction in 0..<6 {
                let over = Self.board.neighbours[hole][direction]
                let landing = Self.board.jumps[hole][direction]
                guard over >= 0, landing >= 0, over != from, holes[over] >= 0,
                      landing == from || holes[landing] < 0, !seen.contains(landing) else { continue }
                seen.insert(landing)
                reached.insert(landing)
                frontier.append(landing)
            }
        }
        reached.remove(from)
        return reached
    }

    /// Every destination of the peg in `from`: empty neighbours and jump destinations.
    public func destinations(from: Int) -> Set<Int> {
        var result = jumpDestinations(from: from)
        for neighbour in Self.board.neighbours[from] where neighbour >= 0 && holes[neighbour] < 0 { result.insert(neighbour) }
        return result
    }

    /// Every step and every jump chain's end for each of the active seat's
    /// pegs, in raw-value order (`from * 121 + to`: by the hole moved from,
    /// then the hole moved to); none once the game is over.
    public var legalMoves: [Move] {
        guard let seat = activeSeat else { return [] }
        var moves: [Move] = []
        for from in holes.indices where holes[from] == Int8(seat) {
            for to in destinations(from: from).sorted() { moves.append(Move(from * Self.holeCount + to)) }
        }
        return moves
    }

    /// The move from `from` to `to`.
    public static func move(from: Int, to: Int) -> Move { Move(from * holeCount + to) }

    /// Whether `move` takes one of the active seat's pegs to an empty hole by
    /// one step or by a chain of jumps, in a game still going.
    public func isLegal(_ move: Move) -> Bool {
        guard let seat = activeSeat, (0..<Self.holeCount * Self.holeCount).contains(move.rawValue) else { return false }
        let from = move.rawValue / Self.holeCount, to = move.rawValue % Self.holeCount
        guard holes[from] == Int8(seat), holes[to] < 0 else { return false }
        if Self.board.neighbours[from].contains(to) { return true }
        return jumpDestinations(from: from).contains(to)
    }

    /// Moves the active seat's peg from hole `move.rawValue / 121` to hole
    /// `move.rawValue % 121` and passes the turn to the next seat still
    /// playing; then sets `result` when the mover's target is full or the
    /// move cap is reached.
    ///
    /// Throws `.gameOver` once the game is over, and `.illegalMove` for a
    /// move that is not a step or a jump chain of the active seat's; the game
    /// is then unchanged.
    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard let seat = activeSeat else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        let from = move.rawValue / Self.holeCount, to = move.rawValue % Self.holeCount
        holes[from] = -1
        holes[to] = Int8(seat)
        moveCount += 1
        rotation.passTurn()
        let target = targetHoles(of: seat)
        if target.allSatisfy({ holes[$0] >= 0 }), target.contains(where: { holes[$0] == Int8(seat) }) {
            result = .won(by: seat)
        } else if moveCount >= Self.moveCap * seatCount {
            let present = (0..<seatCount).filter { !hasLeft($0) }
            let keys = (0..<seatCount).map { (-(scores?[$0] ?? 0), distanceToGo(of: $0)) }
            let best = present.map { keys[$0] }.min { $0 < $1 } ?? (0, 0)
            let leaders = present.filter { keys[$0] == best }
            result = leaders.count == 1 ? .won(by: leaders[0]) : .draw
        }
    }

    // MARK: notation

    /// `m5`: the row letter and the place in the row, 1 on the left.
    public static func holeName(_ hole: Int) -> String {
        guard (0..<holeCount).contains(hole) else { return "?" }
        let (row, place) = board.rowAndPlace[hole]
        return "\(Character(Unicode.Scalar(UInt8(97 + row))))\(place + 1)"
    }

    /// The hole a person named, e.g. `m5`, or nil.
    public static func hole(named text: String) -> Int? {
        let chars = Array(text.lowercased())
        guard chars.count >= 2, let letter = chars[0].asciiValue, (97...113).contains(letter),
              let place = Int(String(chars[1...])), place >= 1 else { return nil }
        let row = Int(letter) - 97
        guard place <= board.rows[row].count else { return nil }
        return board.rows[row][place - 1]
    }

    /// `from-to`, e.g. `m5-l5`; the same text for a step and for a chain of jumps.
    public func notation(for move: Move) -> String {
        guard (0..<Self.holeCount * Self.holeCount).contains(move.rawValue) else { return "?" }
        return Self.holeName(move.rawValue / Self.holeCount) + "-" + Self.holeName(move.rawValue % Self.holeCount)
    }

    /// `from-to`, or a chain `a-b-c…` in which every hop is a jump over a peg
    /// into an empty hole on this board (nil otherwise). Holes may be
    /// separated by `-` or spaces.
    public func move(fromNotation text: String) -> Move? {
        let parts = text.trimmingWhitespace().split { $0 == "-" || $0 == " " }.map(String.init)
        guard parts.count >= 2 else { return nil }
        var cells: [Int] = []
        for part in parts {
            guard let hole = Self.hole(named: part) else { return nil }
            cells.append(hole)
        }
        guard let from = cells.first, let to = cells.last, from != to else { return nil }
        if cells.count > 2 {
            // Each hop must be a jump, judged with the moving peg lifted off its hole.
            for (a, b) in zip(cells, cells.dropFirst()) {
                guard let direction = Self.board.jumps[a].firstIndex(of: b) else { return nil }
                let over = Self.board.neighbours[a][direction]
                guard over != from, holes[over] >= 0, b == from || holes[b] < 0 else { return nil }
            }
        }
        return Self.move(from: from, to: to)
    }

    // MARK: the board

    /// The star's geometry, computed once.
    public struct Board: Sendable {
        /// Cube coordinates (x, y, z with x + y + z = 0) of each hole.
        public let coordinates: [(x: Int, y: Int, z: Int)]
        /// The holes of each row, top to bottom, left to right.
        public let rows: [[Int]]
        /// Each hole's row (0 = a) and place in it (0 = leftmost).
        public let rowAndPlace: [(Int, Int)]
        /// For each hole, its neighbour in each of six directions, or -1.
        public let neighbours: [[Int]]
        /// For each hole, the hole two steps away in each direction, or -1.
        public let jumps: [[Int]]
        /// The ten holes of each point, 0 top, clockwise.
        public let points: [[Int]]
        /// Each point's far tip.
        public let tips: [Int]
        /// Screen column (doubled-width, -12…12) of each hole.
        public let screenColumn: [Int]

        static let directions = [(1, -1, 0), (-1, 1, 0), (1, 0, -1), (-1, 0, 1), (0, 1, -1), (0, -1, 1)]

        init() {
            // The star is the union of two triangles: every coordinate at most 4,
            // or every coordinate at least -4. Rows run along z, from -8 at the top.
            var cells: [(x: Int, y: Int, z: Int)] = []
            var rows: [[Int]] = []
            for z in -8...8 {
                var row: [Int] = []
                for x in -8...8 {
                    let y = -x - z
                    let inUpper = x <= 4 && y <= 4 && z <= 4
                    let inLower = x >= -4 && y >= -4 && z >= -4
                    guard inUpper || inLower else { continue }
                    row.append(cells.count)
                    cells.append((x, y, z))
                }
                rows.append(row)
            }
            coordinates = cells
            self.rows = rows
            var places = Array(repeating: (0, 0), count: cells.count)
            for (r, row) in rows.enumerated() { for (p, hole) in row.enumerated() { places[hole] = (r, p) } }
            rowAndPlace = places
            var index: [Int: Int] = [:]
            func key(_ x: Int, _ y: Int) -> Int { (x + 16) * 64 + (y + 16) }
            for (hole, c) in cells.enumerated() { index[key(c.x, c.y)] = hole }
            neighbours = cells.map { c in Self.directions.map { d in index[key(c.x + d.0, c.y + d.1)] ?? -1 } }
            jumps = cells.map { c in Self.directions.map { d in index[key(c.x + 2 * d.0, c.y + 2 * d.1)] ?? -1 } }
            let tests: [((x: Int, y: Int, z: Int)) -> Bool] = [
                { $0.z < -4 }, { $0.x > 4 }, { $0.y < -4 }, { $0.z > 4 }, { $0.x < -4 }, { $0.y > 4 },
            ]
            points = tests.map { test in cells.indices.filter { test(cells[$0]) } }
            let corners = [(4, 4, -8), (8, -4, -4), (4, -8, 4), (-4, -4, 8), (-8, 4, 4), (-4, 8, -4)]
            tips = corners.map { index[key($0.0, $0.1)] ?? 0 }
            screenColumn = cells.map { 2 * $0.x + $0.z }
        }

        /// Steps between two holes on the hexagonal grid.
        public func distance(_ a: Int, _ b: Int) -> Int {
            let p = coordinates[a], q = coordinates[b]
            return max(abs(p.x - q.x), abs(p.y - q.y), abs(p.z - q.z))
        }
    }

    /// The board's geometry.
    public static let board = Board()

    /// The same pegs in the same holes after the same number of moves, with
    /// the same seat count and result; the rotation (who is to move, who
    /// left) is not compared.
    public static func == (lhs: ChineseCheckers, rhs: ChineseCheckers) -> Bool {
        lhs.holes == rhs.holes && lhs.moveCount == rhs.moveCount && lhs.seatCount == rhs.seatCount && lhs.result == rhs.result
    }

    /// Hashes the pegs and the move count.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(holes); hasher.combine(moveCount)
    }
}
