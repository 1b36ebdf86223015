import Games

/// Nim, as a developer would write it in a package of their own: a game that
/// is not in the Games module, which the library tests register with
/// `GameCatalog` to show that any game plays offline, on the LAN, saved and
/// replayed like the built-in ones (issue 39).
///
/// Three heaps of 3, 4 and 5; on a turn a seat takes one or more from one
/// heap; whoever takes the last one wins. Two or three seats, in rotation
/// (a seat that leaves a table of three is skipped). A move's raw value is
/// `heap * 8 + count - 1`: heap 0-2, count 1-8.
public struct Nim: Game, Hashable {
    public static let id = "nim"
    public static let rulesVersion = 1
    public static let displayName = "Nim"
    public static let summary = "Take one or more from one heap; whoever takes the last one wins."
    public static let moveHelp = "a heap and a count, e.g. b2 takes 2 from the second heap"
    public static let seatRange = 2...3
    public static let alternatesStrictly = false

    /// The heaps at the start.
    public static let startingHeaps = [3, 4, 5]

    /// What is left in each heap.
    public private(set) var heaps = Nim.startingHeaps
    public private(set) var moveCount = 0
    public private(set) var result: GameResult = .inProgress
    private var rotation: SeatRotation

    public init(seats: Int) { rotation = SeatRotation(seatCount: seats) }

    /// A start with other heaps (1 to 8 each, so that a count fits a move's three bits).
    public init(seats: Int, heaps: [Int]) {
        self.init(seats: seats)
        self.heaps = heaps
    }

    /// Registers Nim with the catalog; safe to call from every test (registration is idempotent).
    public static func register() {
        do { try GameCatalog.register(Nim.self, otherNames: ["heaps"]) } catch { preconditionFailure("\(error)") }
    }

    /// The raw value of taking `count` from `heap`.
    public static func move(heap: Int, count: Int) -> Move { Move(heap * 8 + count - 1) }

    public var seatCount: Int { rotation.seatCount }
    public var activeSeat: SeatIndex? { result == .inProgress ? rotation.current : nil }

    public var legalMoves: [Move] {
        guard result == .inProgress else { return [] }
        return heaps.indices.flatMap { heap in heaps[heap] > 0 ? (1...heaps[heap]).map { Self.move(heap: heap, count: $0) } : [] }
    }

    public func isLegal(_ move: Move) -> Bool {
        let (heap, count) = (move.rawValue / 8, move.rawValue % 8 + 1)
        return result == .inProgress && move.rawValue >= 0 && heaps.indices.contains(heap) && count <= heaps[heap]
    }

    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        heaps[move.rawValue / 8] -= move.rawValue % 8 + 1
        moveCount += 1
        if heaps.allSatisfy({ $0 == 0 }) {
            result = .won(by: rotation.current)
        } else {
            rotation.passTurn()
        }
    }

    public mutating func seatLeft(_ seat: SeatIndex) { _ = rotation.remove(seat) }

    public func notation(for move: Move) -> String {
        let letters = ["a", "b", "c"]
        let heap = move.rawValue / 8
        return (letters.indices.contains(heap) ? letters[heap] : "?") + String(move.rawValue % 8 + 1)
    }

    public func move(fromNotation text: String) -> Move? {
        let trimmed = text.lowercased().filter { !$0.isWhitespace }
        guard let first = trimmed.first, let heap = ["a", "b", "c"].firstIndex(of: first),
              let count = Int(trimmed.dropFirst()), (1...8).contains(count) else { return nil }
        return Self.move(heap: heap, count: count)
    }
}
