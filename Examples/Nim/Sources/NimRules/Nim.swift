import Games

/// Nim: three heaps of 3, 4 and 5 counters. On a turn a player takes one or
/// more counters from one heap; whoever takes the last counter wins.
///
/// A move's raw value is `heap * 8 + count - 1` (heap 0-2, count 1-8): small,
/// as the match blob wants (docs/LIBRARY.md, "Limits today"). A person types
/// a move as the heap's number and the count: `2 3` takes 3 from heap 2.
public struct Nim: Game, Hashable {
    public static let id = "nim"              // on the wire and on disk
    public static let rulesVersion = 1        // bump when a rule changes
    public static let displayName = "Nim"
    public static let summary = "Take one or more from one heap; whoever takes the last one wins."
    public static let moveHelp = "a heap and a count, e.g. 2 3 takes 3 from heap 2"
    public static let seatRange = 2...2
    public static let alternatesStrictly = true

    /// What is left in each heap.
    public private(set) var heaps = [3, 4, 5]
    public private(set) var moveCount = 0

    public init(seats: Int) {}

    /// A start with other heaps, 1 to 8 each (a count must fit a move's three bits); `RandomNim` deals them.
    public init(heaps: [Int]) { self.heaps = heaps }

    /// Registers Nim with parlor's catalog, once at start-up, before hosting,
    /// joining or reading a saved match; registering it again does nothing.
    public static func register() throws(GameCatalogError) { try GameCatalog.register(Nim.self) }

    /// The move that takes `count` from `heap` (both 1-based, as a person types them).
    public static func take(_ count: Int, fromHeap heap: Int) -> Move { Move((heap - 1) * 8 + count - 1) }

    public var seatCount: Int { 2 }
    public var result: GameResult { heaps.allSatisfy { $0 == 0 } ? .won(by: (moveCount - 1) % 2) : .inProgress }
    public var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }

    public var legalMoves: [Move] {
        heaps.indices.flatMap { heap in (0..<heaps[heap]).map { Move(heap * 8 + $0) } }
    }

    public func isLegal(_ move: Move) -> Bool {
        let (heap, count) = (move.rawValue / 8, move.rawValue % 8 + 1)
        return move.rawValue >= 0 && heaps.indices.contains(heap) && count <= heaps[heap]
    }

    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        heaps[move.rawValue / 8] -= move.rawValue % 8 + 1
        moveCount += 1
    }

    public func notation(for move: Move) -> String { "\(move.rawValue / 8 + 1) \(move.rawValue % 8 + 1)" }

    public func move(fromNotation text: String) -> Move? {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Int($0) }
        guard numbers.count == 2, (1...3).contains(numbers[0]), (1...8).contains(numbers[1]) else { return nil }
        return Self.take(numbers[1], fromHeap: numbers[0])
    }
}
