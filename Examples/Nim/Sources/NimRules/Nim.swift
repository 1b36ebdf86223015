import Games

/// Nim: three heaps of 3, 4 and 5 counters. On a turn a player takes one or
/// more counters from one heap; whoever takes the last counter wins.
///
/// A move is a `Take` (a heap and a count), a `Codable` value that travels
/// as a byte move (`CodableMoveGame`, docs/LIBRARY.md, "Moves that are
/// values"). A person types a move as the heap's number and the count: `2 3`
/// takes 3 from heap 2.
public struct Nim: CodableMoveGame, Hashable {
    public static let id = "nim"              // on the wire and on disk
    public static let rulesVersion = 2        // bump when a rule changes (2: moves are `Take`s)
    public static let displayName = "Nim"
    public static let summary = "Take one or more from one heap; whoever takes the last one wins."
    public static let moveHelp = "a heap and a count, e.g. 2 3 takes 3 from heap 2"
    public static let seatRange = 2...2
    public static let alternatesStrictly = true
    /// A `Take`'s JSON is about 20 bytes; anything longer is refused unread.
    public static let moveByteLimit: Int? = 32

    /// One move: take `count` counters from heap `heap` (both 1-based, as a person types them).
    public struct Take: Codable, Hashable, Sendable {
        /// The heap, 1-based.
        public var heap: Int
        /// How many counters, at least 1.
        public var count: Int
        /// Take `count` from heap `heap`.
        public init(heap: Int, count: Int) {
            self.heap = heap
            self.count = count
        }
    }
    public typealias MoveValue = Take

    /// What is left in each heap.
    public private(set) var heaps = [3, 4, 5]
    public private(set) var moveCount = 0

    public init(seats: Int) {}

    /// A start with other heaps (`RandomNim` deals them).
    public init(heaps: [Int]) { self.heaps = heaps }

    /// Registers Nim with parlor's catalog, once at start-up, before hosting,
    /// joining or reading a saved match; registering it again does nothing.
    public static func register() throws(GameCatalogError) { try GameCatalog.register(Nim.self) }

    /// The move that takes `count` from `heap` (both 1-based, as a person types them).
    public static func take(_ count: Int, fromHeap heap: Int) -> Move {
        // A Take of two small numbers always fits the 32 bytes.
        try! move(Take(heap: heap, count: count))
    }

    public var seatCount: Int { 2 }
    public var result: GameResult { heaps.allSatisfy { $0 == 0 } ? .won(by: (moveCount - 1) % 2) : .inProgress }
    public var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }

    public var legalMoves: [Move] {
        heaps.indices.flatMap { heap in (0..<heaps[heap]).map { Self.take($0 + 1, fromHeap: heap + 1) } }.sorted()
    }

    public func isLegal(_ move: Move) -> Bool {
        guard let take = Self.value(of: move) else { return false }
        // Any numbers may come from a peer: compared, never made into a range.
        return heaps.indices.contains(take.heap - 1) && take.count >= 1 && take.count <= heaps[take.heap - 1]
    }

    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move), let take = Self.value(of: move) else { throw .illegalMove(move) }
        heaps[take.heap - 1] -= take.count
        moveCount += 1
    }

    public func notation(for move: Move) -> String {
        Self.value(of: move).map { "\($0.heap) \($0.count)" } ?? "?"
    }

    public func move(fromNotation text: String) -> Move? {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Int($0) }
        guard numbers.count == 2, (1...heaps.count).contains(numbers[0]), (1...99).contains(numbers[1]) else { return nil }
        return Self.take(numbers[1], fromHeap: numbers[0])
    }
}
