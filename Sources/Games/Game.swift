/// A seat at the table, 0-based. The first player is seat 0.
///
/// Seats are indices into a match's seat list; the 1-based numbers a person
/// reads are produced only at the user interface's edge.
public typealias SeatIndex = Int

/// One move, in a game's own encoding: a small number (a column, a cell, a
/// peg) for most games, or a string of bytes for a game whose moves do not
/// fit a number (a bid, a word, a `Codable` value: `Move(encoding:)`).
///
/// Which of the two a game's moves are is the game's `moveByteLimit`: nil
/// (the default, every built-in game) for numbers, which travel as two bytes
/// in the match blob, so only raw values in `Move.wireRange` can be played;
/// a number of bytes for byte moves (`Move(bytes:)`), which travel with their
/// length. A match refuses a move its game cannot carry (`Game.canCarry`)
/// instead of changing it to one that fits. What a move means is the game's
/// business; `Game.notation(for:)` and `Game.move(fromNotation:)` translate to
/// and from what a person types.
public struct Move: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The game-specific, 0-based number of a numbered move; 0 for a byte move.
    public var rawValue: Int
    /// The bytes of a byte move, nil for a numbered move.
    public private(set) var bytes: [UInt8]?

    /// Wraps a raw, game-specific number. No validation: ask the game.
    public init(_ rawValue: Int) {
        self.rawValue = rawValue
        self.bytes = nil
    }

    /// A byte move: for a game whose `moveByteLimit` is at least `bytes.count`.
    /// No validation: ask the game.
    public init(bytes: [UInt8]) {
        self.rawValue = 0
        self.bytes = bytes
    }

    /// The raw values a numbered move can carry: two bytes in the match blob
    /// (on the wire and on disk), 0...65535. The one place this limit is decided.
    public static let wireRange: ClosedRange<Int> = 0...Int(UInt16.max)

    /// The most bytes a game may allow one byte move (`Game.moveByteLimit`).
    public static let maximumByteLimit = 4096

    /// Whether this is a numbered move whose raw value is in `wireRange`. A
    /// match refuses a move that does not fit (`MatchRuleError.moveNotEncodable`)
    /// instead of changing it to one that does; keep a game's legal moves within range.
    public var fitsOnTheWire: Bool { bytes == nil && Self.wireRange.contains(rawValue) }

    /// Numbered moves by number, before byte moves; byte moves byte by byte.
    public static func < (lhs: Move, rhs: Move) -> Bool {
        switch (lhs.bytes, rhs.bytes) {
        case (nil, nil): lhs.rawValue < rhs.rawValue
        case (nil, _?): true
        case (_?, nil): false
        case let (left?, right?): left.lexicographicallyPrecedes(right)
        }
    }

    /// `Move(3)` for a numbered move, `Move(bytes: 7b22…)` (hexadecimal) for a byte move.
    public var description: String {
        guard let bytes else { return "Move(\(rawValue))" }
        return "Move(bytes: \(Self.hex(bytes)))"
    }

    /// `bytes` in lower-case hexadecimal, two digits a byte.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// How a game stands, by its rules alone.
public enum GameResult: Hashable, Sendable {
    /// Someone still has to move.
    case inProgress
    /// The seat made a winning line (or otherwise won by the rules).
    case won(by: SeatIndex)
    /// The board is full, or the rules declare a draw.
    case draw
}

/// How one seat ended, as the game itself says: what a GameKit game sets as
/// each participant's `matchOutcome` before `endMatchInTurn(withMatch:)`.
///
/// A game that ends otherwise than with one winner or a draw (the seat that
/// took the last stick lost and every other seat won; a cooperative game
/// that everyone wins or loses together) returns one per seat from
/// `Game.outcomes`. The match gives each seat still playing the matching
/// `Outcome` (`won`, `lost`, `tied`); a seat that quit or ran out of time
/// keeps that.
public enum SeatOutcome: Hashable, Sendable, CaseIterable {
    /// The seat won (several seats may).
    case won
    /// The seat lost (every seat may).
    case lost
    /// The seat tied.
    case tied
}

/// Why a move was refused by the rules.
public enum RuleViolation: Error, Hashable, Sendable {
    /// The game is already over.
    case gameOver
    /// The seat asked to move is not the seat whose turn it is.
    case notYourTurn(active: SeatIndex?, attempted: SeatIndex)
    /// The move is outside the board or the target is full.
    case illegalMove(Move)
}

/// A turn-based game: a value with an active seat, legal moves, apply, and a result.
///
/// Conforming types are plain value types, cheap to copy, so that a bot can
/// search by copying and a controller can snapshot before applying a move.
/// Conforming types do no I/O.
///
/// The rules decide who moves next (`activeSeat`); a game in which the
/// players strictly alternate says so with `alternatesStrictly`, and only
/// then is move parity used as an extra check.
public protocol Game: Sendable {
    /// The stable identifier used on the wire and on disk, e.g. `connect4`.
    static var id: String { get }
    /// Bumped whenever a rule change would make old and new peers disagree.
    static var rulesVersion: Int { get }
    /// The name a person reads, e.g. "Connect Four".
    static var displayName: String { get }
    /// One line of rules for `parlor games`.
    static var summary: String { get }
    /// How a move is typed in plain mode, e.g. "a column, 1-7".
    static var moveHelp: String { get }
    /// How many seats the game can be played with.
    static var seatRange: ClosedRange<Int> { get }
    /// The seat counts the game accepts, ascending; by default every count in
    /// `seatRange`. A game with gaps (Chinese checkers: 2, 3, 4 or 6) lists them.
    static var seatCounts: [Int] { get }
    /// Whether seats move in strict rotation (seat = move count mod seats).
    static var alternatesStrictly: Bool { get }

    /// nil (the default) when the game's moves are numbers (`Move(_:)`, two
    /// bytes each in the match blob); otherwise its moves are byte strings
    /// (`Move(bytes:)`, for instance a `Codable` value through
    /// `Move(encoding:limit:)`) of at most this many bytes, 1 through
    /// `Move.maximumByteLimit`. A match of such a game is written in blob
    /// format 5 (docs/PROTOCOL.md section 5); every other game's bytes are
    /// unchanged. A longer move is refused, never cut.
    static var moveByteLimit: Int? { get }

    /// Whether the game uses chance: its start (or its dice, its deck) is
    /// drawn from a seed the host picks for each match. False by default.
    ///
    /// A game that says true is made with `init(seats:seed:)`, and its
    /// matches carry the seed in the match blob (format 3, docs/PROTOCOL.md
    /// section 5), so that every peer, a saved match and its replay start
    /// from the same position. Games that say false keep format 1 and 2 byte
    /// for byte.
    static var usesRandomness: Bool { get }

    /// The starting position for `seats` players (a value from `seatCounts`).
    ///
    /// For a game that uses randomness, a fixed start (as if the seed were 0)
    /// for callers that have no seed; a match always uses `init(seats:seed:)`.
    init(seats: Int)

    /// The starting position for `seats` players, with every chance drawn from
    /// `seed` (the role of GameplayKit's `GKARC4RandomSource(seed:)`).
    ///
    /// Equal seeds must give equal games, on every peer and every parlor
    /// version that has the same rules version: draw with your own arithmetic
    /// on a `SplitMix64(seed: seed)` kept in the game (the standard library's
    /// `random(in:using:)` does not promise to map bits to numbers the same
    /// way in every Swift release). Called by the match layer only when
    /// `usesRandomness` is true; by default it ignores the seed and calls
    /// `init(seats:)`.
    init(seats: Int, seed: UInt64)

    /// How many seats this game was started with.
    var seatCount: Int { get }
    /// The seat to move, or nil when the game is over.
    var activeSeat: SeatIndex? { get }
    /// Moves applied so far.
    var moveCount: Int { get }
    /// Every legal move for the active seat, in ascending order; empty when over.
    var legalMoves: [Move] { get }
    /// Whether `move` is legal for the active seat now.
    func isLegal(_ move: Move) -> Bool
    /// Applies `move` for the active seat, or throws and leaves the game unchanged.
    mutating func apply(_ move: Move) throws(RuleViolation)
    /// The result so far.
    var result: GameResult { get }
    /// Each seat's score where the rules keep one (discs, boxes, pegs home),
    /// indexed by seat; nil by default, for games that keep no score.
    var scores: [Int]? { get }
    /// Each seat's place, indexed by seat: 1 is first, and seats that tie share
    /// a place (scores 5, 3, 5 give places 1, 3, 1). nil when the game does not
    /// rank. By default derived from `scores` (higher is better); a game that
    /// ranks otherwise (by finishing order) says so itself. Meaningful once the
    /// game is over; while it goes on it is the standing so far.
    var placements: [Int]? { get }

    /// Each seat's outcome, indexed by seat, once the game has ended with
    /// outcomes of its own; nil while it goes on, and always nil for a game
    /// whose end `result` says (the default: every built-in game).
    ///
    /// The shape of GameKit's `endMatchInTurn(withMatch:)` after setting each
    /// participant's `matchOutcome`: return non-nil from the move that ends
    /// the game, and from then on nil from `activeSeat` and no `legalMoves`.
    /// When it is non-nil the match ends with these outcomes and does not read
    /// `result` (which such a game may leave `.inProgress`); `isOver` is true
    /// either way. A seat that has quit or run out of time keeps that outcome
    /// whatever this says, and a seat the array leaves out is lost. Like every
    /// rule it must follow from the moves alone: each peer works it out from
    /// the history, and a peer's state with other outcomes is refused.
    var outcomes: [SeatOutcome]? { get }

    /// `seat` has left the match (it quit or ran out of time) while at least
    /// two other seats play on: from now on the game never names it to move
    /// and never ranks it above a seat still playing. Games for two seats
    /// never see this (a departure ends their match); the default does nothing.
    mutating func seatLeft(_ seat: SeatIndex)

    /// What a person types for `move`, 1-based where numbers are shown.
    func notation(for move: Move) -> String
    /// Parses what a person typed (trimmed, case-insensitive), or nil.
    func move(fromNotation text: String) -> Move?
}

extension Game {
    /// Every count in `seatRange`; a game with gaps (Chinese checkers: 2, 3, 4
    /// or 6) gives its own.
    public static var seatCounts: [Int] { Array(seatRange) }

    /// No chance by default: the match carries no seed and its blob keeps format 1 or 2.
    public static var usesRandomness: Bool { false }

    /// Numbered moves by default (two bytes each in the match blob).
    public static var moveByteLimit: Int? { nil }

    /// Whether a match of this game can carry `move`: a numbered move in
    /// `Move.wireRange` for a game of numbered moves; a byte move of at most
    /// `moveByteLimit` bytes for a game of byte moves. The one place this is
    /// decided; a move it refuses is `MatchRuleError.moveNotEncodable`.
    public static func canCarry(_ move: Move) -> Bool {
        guard let limit = moveByteLimit else { return move.fitsOnTheWire }
        guard let bytes = move.bytes else { return false }
        return bytes.count <= min(limit, Move.maximumByteLimit)
    }

    /// By default the seed is ignored: the start is `init(seats:)`.
    public init(seats: Int, seed: UInt64) { self.init(seats: seats) }

    /// No score by default: nil, which makes the default `placements` nil too.
    public var scores: [Int]? { nil }

    /// No outcomes of the game's own: `result` says how it ended.
    public var outcomes: [SeatOutcome]? { nil }

    /// Nothing by default: enough for a two-seat game, whose match ends when a
    /// seat leaves.
    public mutating func seatLeft(_ seat: SeatIndex) {}

    /// Places by `scores` (`places(byScore:)`: higher is better, ties share a
    /// place); nil for a game that keeps no score.
    public var placements: [Int]? { scores.map(Self.places(byScore:)) }

    /// Places for `scores`, higher is better, ties share the better place.
    public static func places(byScore scores: [Int]) -> [Int] {
        scores.map { score in 1 + scores.filter { $0 > score }.count }
    }

    /// The start of a match: `init(seats:seed:)` for a game that uses
    /// randomness, `init(seats:)` for any other (which never sees a seed).
    public static func start(seats: Int, seed: UInt64) -> Self {
        usesRandomness ? Self(seats: seats, seed: seed) : Self(seats: seats)
    }

    /// Returns a copy with `move` applied, or throws and changes nothing.
    public func applying(_ move: Move) throws(RuleViolation) -> Self {
        var copy = self
        try copy.apply(move)
        return copy
    }

    /// Whether the game has ended: won or drawn (`result`), or ended with
    /// outcomes of its own (`outcomes`).
    public var isOver: Bool { result != .inProgress || outcomes != nil }

    /// The seat that would move next under strict rotation, for parity checks.
    public var paritySeat: SeatIndex { moveCount % seatCount }

    /// `Self.id`, for a game held as `any Game` (`state.game.gameID`).
    public var gameID: String { Self.id }
    /// `Self.rulesVersion`, for a game held as `any Game`.
    public var gameRulesVersion: Int { Self.rulesVersion }
    /// `Self.displayName`, for a game held as `any Game` ("Connect Four").
    public var gameDisplayName: String { Self.displayName }
}
