import Games

/// Nim whose three heaps are dealt from the match's seed, 1 to 8 each: a game
/// that uses randomness (issue 39, "seeded randomness given to the game by
/// the host"), as a developer would write one in a package of their own.
/// The rules and moves are `Nim`'s; only the start is drawn.
public struct SeededNim: Game, Hashable {
    public static let id = "nim-seeded"
    public static let rulesVersion = 1
    public static let displayName = "Seeded Nim"
    public static let summary = "Nim on three heaps of 1 to 8, dealt from the host's seed."
    public static let moveHelp = Nim.moveHelp
    public static let seatRange = Nim.seatRange
    public static let alternatesStrictly = false
    public static let usesRandomness = true

    /// The position, as plain Nim.
    public private(set) var nim: Nim

    /// What is left in each heap.
    public var heaps: [Int] { nim.heaps }

    /// The heaps seed 0 deals, for a caller without a seed.
    public init(seats: Int) { self.init(seats: seats, seed: 0) }

    public init(seats: Int, seed: UInt64) {
        nim = Nim(seats: seats, heaps: Self.heaps(dealtFrom: seed))
    }

    /// The heaps `seed` deals: three draws of SplitMix64, each mapped to 1-8 by
    /// its low three bits (arithmetic of our own, the same on every peer).
    public static func heaps(dealtFrom seed: UInt64) -> [Int] {
        var generator = SplitMix64(seed: seed)
        return (0..<3).map { _ in Int(generator.next() % 8) + 1 }
    }

    /// Registers the game with the catalog; safe to call from every test.
    public static func register() {
        do { try GameCatalog.register(SeededNim.self) } catch { preconditionFailure("\(error)") }
    }

    public var seatCount: Int { nim.seatCount }
    public var activeSeat: SeatIndex? { nim.activeSeat }
    public var moveCount: Int { nim.moveCount }
    public var legalMoves: [Move] { nim.legalMoves }
    public var result: GameResult { nim.result }
    public func isLegal(_ move: Move) -> Bool { nim.isLegal(move) }
    public mutating func apply(_ move: Move) throws(RuleViolation) { try nim.apply(move) }
    public mutating func seatLeft(_ seat: SeatIndex) { nim.seatLeft(seat) }
    public func notation(for move: Move) -> String { nim.notation(for: move) }
    public func move(fromNotation text: String) -> Move? { nim.move(fromNotation: text) }
}
