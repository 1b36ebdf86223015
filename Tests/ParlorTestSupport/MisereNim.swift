import Games
import Match

/// Misère Nim for two or three seats, as a developer would write it in a
/// package of their own: the seat that takes the last counter loses and
/// every other seat still playing wins. A game that ends with outcomes of its
/// own (`Game.outcomes`, issue 39): its end is not one winner or a draw, so
/// `result` stays `.inProgress` and the match reads `outcomes`.
///
/// The heaps, moves and rotation are the test suite's `Nim`'s.
public struct MisereNim: Game, Hashable {
    public static let id = "nim-misere"
    public static let rulesVersion = 1
    public static let displayName = "Misère Nim"
    public static let summary = "Take one or more from one heap; whoever takes the last one loses, everyone else wins."
    public static let moveHelp = Nim.moveHelp
    public static let seatRange = Nim.seatRange
    public static let alternatesStrictly = false

    /// The position, as plain Nim (whose "winner" took the last counter).
    public private(set) var nim: Nim

    /// What is left in each heap.
    public var heaps: [Int] { nim.heaps }

    public init(seats: Int) { nim = Nim(seats: seats) }

    /// A start with other heaps (1 to 8 each).
    public init(seats: Int, heaps: [Int]) { nim = Nim(seats: seats, heaps: heaps) }

    /// Registers the game with the catalog; safe to call from every test.
    public static func register() {
        do { try GameCatalog.register(MisereNim.self) } catch { preconditionFailure("\(error)") }
    }

    /// The seat that took the last counter, once the heaps are empty.
    public var tookTheLast: SeatIndex? {
        if case .won(let seat) = nim.result { return seat }
        return nil
    }

    public var outcomes: [SeatOutcome]? {
        tookTheLast.map { last in (0..<seatCount).map { $0 == last ? .lost : .won } }
    }

    /// Never a single winner or a draw: the end is in `outcomes`.
    public var result: GameResult { .inProgress }
    public var seatCount: Int { nim.seatCount }
    public var activeSeat: SeatIndex? { nim.activeSeat }
    public var moveCount: Int { nim.moveCount }
    public var legalMoves: [Move] { nim.legalMoves }
    public func isLegal(_ move: Move) -> Bool { nim.isLegal(move) }
    public mutating func apply(_ move: Move) throws(RuleViolation) { try nim.apply(move) }
    public mutating func seatLeft(_ seat: SeatIndex) { nim.seatLeft(seat) }
    public func notation(for move: Move) -> String { nim.notation(for: move) }
    public func move(fromNotation text: String) -> Move? { nim.move(fromNotation: text) }
}

extension MisereNim {
    /// Seat 0 empties heap a, seat 1 heap b, seat 2 takes four of heap c and
    /// seat 0 the last counter: seat 0 lost, seats 1 and 2 won.
    public static let seatZeroTakesTheLast = [Nim.move(heap: 0, count: 3), Nim.move(heap: 1, count: 4),
                                              Nim.move(heap: 2, count: 4), Nim.move(heap: 2, count: 1)]

    /// A three-seat match between Ana, Bo and Cy ended by `seatZeroTakesTheLast`:
    /// outcomes lost, won, won. Registers the game first.
    public static func endedWithTwoWinners() throws -> MatchState {
        register()
        var generator = SplitMix64(seed: 39)
        var state = MatchState(matchID: .random(using: &generator), gameType: MisereNim.self,
                               seats: ["Ana", "Bo", "Cy"].map { Seat(playerID: .random(using: &generator), name: $0) })
        for move in seatZeroTakesTheLast {
            guard let seat = state.activeSeat else { break }
            state = try state.applying(.move(move, by: seat), now: 1)
        }
        return state
    }
}
