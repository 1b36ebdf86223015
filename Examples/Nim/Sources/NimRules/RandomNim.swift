import Games

/// Nim on three heaps dealt at random, 1 to 8 each: a game with chance.
///
/// The host of a match draws a seed (parlor does it, from the system's
/// cryptographic generator) and the heaps are dealt from it, so every peer,
/// the saved match and its replay start from the same heaps
/// (docs/LIBRARY.md, "Chance"). The rules and moves are `Nim`'s.
public struct RandomNim: CodableMoveGame, Hashable {
    public static let id = "nim-random"
    public static let rulesVersion = 2
    public static let displayName = "Nim (random heaps)"
    public static let summary = "Nim on three heaps of 1 to 8, dealt by the host's seed."
    public static let moveHelp = Nim.moveHelp
    /// Nim's moves: `Nim.Take`s.
    public typealias MoveValue = Nim.Take
    public static let moveByteLimit = Nim.moveByteLimit
    public static let seatRange = 2...2
    public static let alternatesStrictly = true
    /// The heaps come from the match's seed.
    public static let usesRandomness = true

    /// The position, as plain Nim.
    public private(set) var nim: Nim

    /// What is left in each heap.
    public var heaps: [Int] { nim.heaps }

    /// The heaps seed 0 deals; a match always uses `init(seats:seed:)`.
    public init(seats: Int) { self.init(seats: seats, seed: 0) }

    /// The heaps `seed` deals.
    public init(seats: Int, seed: UInt64) { nim = Nim(heaps: Self.heaps(dealtFrom: seed)) }

    /// Three draws of a generator seeded with `seed`, each taken to 1-8 by our
    /// own arithmetic (low three bits), so every peer deals the same heaps.
    public static func heaps(dealtFrom seed: UInt64) -> [Int] {
        var generator = SplitMix64(seed: seed)
        return (0..<3).map { _ in Int(generator.next() % 8) + 1 }
    }

    /// Registers it with parlor's catalog, as `Nim.register()` does Nim.
    public static func register() throws(GameCatalogError) { try GameCatalog.register(RandomNim.self) }

    public var seatCount: Int { 2 }
    public var moveCount: Int { nim.moveCount }
    public var result: GameResult { nim.result }
    public var activeSeat: SeatIndex? { nim.activeSeat }
    public var legalMoves: [Move] { nim.legalMoves }
    public func isLegal(_ move: Move) -> Bool { nim.isLegal(move) }
    public mutating func apply(_ move: Move) throws(RuleViolation) { try nim.apply(move) }
    public func notation(for move: Move) -> String { nim.notation(for: move) }
    public func move(fromNotation text: String) -> Move? { nim.move(fromNotation: text) }
}
