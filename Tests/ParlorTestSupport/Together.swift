import Games

/// A cooperative game for three seats: each seat in turn keeps the baton
/// (move 0) or drops it (move 1); a drop loses for everyone at once, three
/// keeps win for everyone. Move 2 keeps it but ends with an outcomes list one
/// seat short (the last seat is then lost), to pin that rule.
public struct Together: Game, Hashable {
    public static let id = "together"
    public static let rulesVersion = 1
    public static let displayName = "Together"
    public static let summary = "Pass the baton round the table without dropping it."
    public static let moveHelp = "keep or drop"
    public static let seatRange = 3...3
    public static let alternatesStrictly = true
    /// Keep the baton, drop it, or keep it and end one seat short.
    public static let keep = Move(0), drop = Move(1), shortList = Move(2)

    /// The moves so far.
    public private(set) var played: [Move] = []
    public init(seats: Int) {}

    /// Registers the game with the catalog; safe to call from every test.
    public static func register() {
        do { try GameCatalog.register(Together.self) } catch { preconditionFailure("\(error)") }
    }

    public var outcomes: [SeatOutcome]? {
        if played.contains(Self.drop) { return [.lost, .lost, .lost] }
        if played.count == 3 { return played.last == Self.shortList ? [.won, .won] : [.won, .won, .won] }
        return nil
    }

    public var result: GameResult { .inProgress }
    public var seatCount: Int { 3 }
    public var moveCount: Int { played.count }
    public var activeSeat: SeatIndex? { outcomes == nil ? played.count % 3 : nil }
    public var legalMoves: [Move] { outcomes == nil ? [Self.keep, Self.drop, Self.shortList] : [] }
    public func isLegal(_ move: Move) -> Bool { legalMoves.contains(move) }
    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard outcomes == nil else { throw .gameOver }
        guard isLegal(move) else { throw .illegalMove(move) }
        played.append(move)
    }
    public func notation(for move: Move) -> String { ["keep", "drop", "short"][move.rawValue] }
    public func move(fromNotation text: String) -> Move? { ["keep", "drop", "short"].firstIndex(of: text).map { Move($0) } }
}
