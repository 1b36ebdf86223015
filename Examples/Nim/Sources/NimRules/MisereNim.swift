import Games

/// Misère Nim for two or three seats: Nim's heaps and moves, but whoever
/// takes the last counter loses, and every other seat still playing wins.
///
/// Its end is not one winner or a draw, so it ends the match with outcomes
/// of its own (`outcomes`, docs/LIBRARY.md, "Outcomes of the game's own"):
/// GameKit's `matchOutcome` set for each participant before
/// `endMatchInTurn(withMatch:)`. `result` stays `.inProgress`; parlor reads
/// `outcomes`, and a peer whose state claims other outcomes is refused.
public struct MisereNim: CodableMoveGame, Hashable {
    public static let id = "nim-misere"
    public static let rulesVersion = 2
    public static let displayName = "Misère Nim"
    public static let summary = "Take one or more from one heap; whoever takes the last one loses, everyone else wins."
    public static let moveHelp = Nim.moveHelp
    /// Nim's moves: `Nim.Take`s.
    public typealias MoveValue = Nim.Take
    public static let moveByteLimit = Nim.moveByteLimit
    public static let seatRange = 2...3
    /// A seat that leaves a table of three is skipped, so the rotation is not strict.
    public static let alternatesStrictly = false

    /// The heaps and moves, as plain Nim.
    public private(set) var nim = Nim(seats: 2)
    /// The seat that took the last counter, once the heaps are empty.
    public private(set) var tookTheLast: SeatIndex?
    private var rotation: SeatRotation

    /// What is left in each heap.
    public var heaps: [Int] { nim.heaps }

    public init(seats: Int) { rotation = SeatRotation(seatCount: seats) }

    /// Registers it with parlor's catalog, as `Nim.register()` does Nim.
    public static func register() throws(GameCatalogError) { try GameCatalog.register(MisereNim.self) }

    /// Once the heaps are empty: the seat that took the last counter lost, every other seat won.
    public var outcomes: [SeatOutcome]? {
        tookTheLast.map { last in (0..<seatCount).map { $0 == last ? .lost : .won } }
    }

    /// Never one winner or a draw: the end is in `outcomes`.
    public var result: GameResult { .inProgress }
    public var seatCount: Int { rotation.seatCount }
    public var moveCount: Int { nim.moveCount }
    public var activeSeat: SeatIndex? { tookTheLast == nil ? rotation.current : nil }
    public var legalMoves: [Move] { tookTheLast == nil ? nim.legalMoves : [] }
    public func isLegal(_ move: Move) -> Bool { tookTheLast == nil && nim.isLegal(move) }

    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard tookTheLast == nil else { throw .gameOver }
        try nim.apply(move)
        if nim.heaps.allSatisfy({ $0 == 0 }) { tookTheLast = rotation.current } else { rotation.passTurn() }
    }

    /// A seat that quit a table of three is never named to move again.
    public mutating func seatLeft(_ seat: SeatIndex) { _ = rotation.remove(seat) }

    public func notation(for move: Move) -> String { nim.notation(for: move) }
    public func move(fromNotation text: String) -> Move? { nim.move(fromNotation: text) }
}
