import Games
import Synchronization

/// One committed change to a match: a move, or a seat leaving.
public enum MatchChange: Hashable, Sendable, CustomStringConvertible {
    /// The seat played a move, with the message its player sent with it
    /// (GameKit's `match.message`), if any; a bot sends none.
    case move(Move, by: SeatIndex, message: TurnMessage? = nil)
    /// The seat quit (in turn or out of turn).
    case quit(SeatIndex)
    /// The seat's turn deadline passed.
    case timeExpired(SeatIndex)

    /// The seat the change is about.
    public var seat: SeatIndex {
        switch self {
        case .move(_, let seat, _), .quit(let seat), .timeExpired(let seat): seat
        }
    }

    /// The change for logs, seats 0-based and the move as its raw value:
    /// "seat 0 plays 3", "seat 1 plays 3 saying 'Your move'", "seat 0 quits",
    /// "seat 1 ran out of time".
    public var description: String {
        switch self {
        case .move(let move, let seat, nil): "seat \(seat) plays \(move.rawValue)"
        case .move(let move, let seat, let message?): "seat \(seat) plays \(move.rawValue) saying '\(message)'"
        case .quit(let seat): "seat \(seat) quits"
        case .timeExpired(let seat): "seat \(seat) ran out of time"
        }
    }
}

/// A move in the match's history, with the message sent with it.
public struct PlayedMove: Hashable, Sendable {
    /// The seat that moved.
    public var seat: SeatIndex
    /// The move, in the game's raw encoding.
    public var move: Move
    /// What the mover's player said with it (`TurnMessage`), or nil.
    public var message: TurnMessage?
    /// A move of the history.
    public init(seat: SeatIndex, move: Move, message: TurnMessage? = nil) {
        self.seat = seat
        self.move = move
        self.message = message
    }
}

/// Why the match refused a change.
public enum MatchRuleError: Error, Hashable, Sendable {
    /// The match has ended; nothing more can happen.
    case matchEnded
    /// There is no such seat.
    case noSuchSeat(SeatIndex)
    /// The seat has already left the match.
    case seatHasLeft(SeatIndex)
    /// Not this seat's turn by the authoritative state.
    case notYourTurn(active: SeatIndex?, attempted: SeatIndex)
    /// The rules refused the move.
    case illegalMove(Move)
    /// The match blob cannot carry the move (`Game.canCarry`): a numbered
    /// move outside `Move.wireRange` (0...65535), a byte move longer than its
    /// game's `moveByteLimit` or one that would make the match's data larger
    /// than `MatchBlob.maximumSize`, or a move of the other kind than the
    /// game's. Refused, never cut to fit.
    case moveNotEncodable(Move)
    /// The turn deadline has not passed, so the turn cannot expire.
    case deadlineNotReached
}

/// The whole state of one match: the game, the seats, the history.
///
/// A value type: the controller snapshots it before a change and restores the
/// snapshot on failure. `sequence` counts committed changes (moves, quits,
/// time expiries); the state hash covers everything but the deadline.
public struct MatchState: Sendable {
    /// The match's id, the same on every side and for its whole life (saves,
    /// resumes); a peer's state with another is refused (`SuccessorError.otherMatch`).
    public var matchID: MatchID { didSet { encoding = nil } }
    /// The game position after `moves`, as any game; `game(as:)` gives it as your type.
    public private(set) var game: any Game { didSet { encoding = nil } }
    /// The seats in order of play, seat 0 first. Their players and names are
    /// fixed for the match (a peer's state that changes them is refused,
    /// `SuccessorError.seatsChanged`); their status and outcome follow the changes.
    public var seats: [Seat] { didSet { encoding = nil } }
    /// The moves played so far, oldest first, each with its seat and message.
    /// A quit or a time expiry is not a move: it shows in `seats` and `leftAfter`.
    public private(set) var moves: [PlayedMove] { didSet { encoding = nil } }
    /// Number of committed changes; the next change has `sequence + 1`.
    public private(set) var sequence: UInt32 { didSet { encoding = nil } }
    /// Seconds a seat has for its turn; 0 means no limit.
    public var turnTimeout: UInt32 { didSet { encoding = nil } }
    /// When the active seat's turn expires, in milliseconds since 1970 UTC; 0 means none.
    public var deadline: Int64 {
        // The hash leaves the deadline out, so a known encoding only needs its deadline bytes rewritten.
        didSet { if deadline != oldValue { encoding = encoding?.movingDeadline(to: deadline) } }
    }
    /// For each seat, how many moves had been played when it left (quit or ran
    /// out of time); nil while it plays or once it finished normally. With three
    /// or more seats the match goes on after a departure, and replaying the
    /// history needs to know when each seat stopped taking turns.
    public private(set) var leftAfter: [Int?] { didSet { encoding = nil } }
    /// The seed the host drew for this match's chance, for a game that uses
    /// randomness (`Game.usesRandomness`); nil for every other game. Fixed
    /// for the whole match: the game's start was made from it, the blob
    /// carries it (format 3), and a peer's state with another seed is refused
    /// (`SuccessorError.seedChanged`).
    public let seed: UInt64?
    /// This state's blob and hash, worked out at most once and shared by its
    /// copies (`MatchBlob.encode`, `stateHash`). Any change drops it; nil
    /// means "work it out every time".
    var encoding: EncodingCache? = EncodingCache()

    /// A new match of `game` between `seats`, nobody has moved yet.
    ///
    /// For a game without chance. A game that uses randomness needs its seed
    /// in the match, so it starts with `init(matchID:gameType:seats:seed:…)`;
    /// passing one here is a programming error and traps.
    public init(matchID: MatchID, game: any Game, seats: [Seat], turnTimeout: UInt32 = 0, now: Int64 = 0) {
        precondition(!type(of: game).usesRandomness,
                     "\(type(of: game).id) uses randomness: start its match with MatchState(matchID:gameType:seats:seed:)")
        self.init(matchID: matchID, starting: game, seed: nil, seats: seats, turnTimeout: turnTimeout, now: now)
    }

    /// A new match of `gameType` between `seats`, nobody has moved yet; a game
    /// that uses randomness starts from `seed` (`Game.init(seats:seed:)`),
    /// any other ignores it.
    ///
    /// The host of a match makes it this way and a guest adopts the host's
    /// state, seed and all. `seed` defaults to a fresh draw from the system's
    /// cryptographic generator (`drawSeed()`); pass one to reproduce a start.
    public init(matchID: MatchID, gameType: any Game.Type, seats: [Seat], seed: UInt64 = MatchState.drawSeed(),
                turnTimeout: UInt32 = 0, now: Int64 = 0) {
        self.init(matchID: matchID, starting: gameType.start(seats: seats.count, seed: seed),
                  seed: gameType.usesRandomness ? seed : nil, seats: seats, turnTimeout: turnTimeout, now: now)
    }

    /// A seed for a new match from the system's cryptographic generator
    /// (`SystemRandomNumberGenerator`: getrandom on Linux), so that no seat
    /// can choose or predict the start before the host makes it.
    public static func drawSeed() -> UInt64 {
        var system = SystemRandomNumberGenerator()
        return system.next()
    }

    private init(matchID: MatchID, starting game: any Game, seed: UInt64?, seats: [Seat], turnTimeout: UInt32, now: Int64) {
        self.matchID = matchID
        self.game = game
        self.seed = seed
        self.seats = seats
        self.moves = []
        self.sequence = 0
        self.turnTimeout = turnTimeout
        self.deadline = turnTimeout > 0 && now > 0 ? now + Int64(turnTimeout) * 1000 : 0
        self.seats = seats.map { var s = $0; s.status = .playing; s.outcome = .none; return s }
        self.leftAfter = Array(repeating: nil, count: seats.count)
    }

    /// Rebuilds a state from decoded parts without checking them; the blob decoder validates.
    init(matchID: MatchID, game: any Game, seed: UInt64? = nil, seats: [Seat], moves: [PlayedMove], sequence: UInt32,
         turnTimeout: UInt32, deadline: Int64, leftAfter: [Int?]) {
        self.matchID = matchID; self.game = game; self.seed = seed; self.seats = seats; self.moves = moves
        self.sequence = sequence; self.turnTimeout = turnTimeout; self.deadline = deadline
        self.leftAfter = leftAfter
    }

    /// The message sent with the latest move (GameKit's `match.message`), or
    /// nil when that move came without one or nobody has moved yet. Every
    /// move's own is in `moves`.
    public var message: TurnMessage? { moves.last?.message }

    /// Whether any move of the match came with a message (its blob is then format 4).
    public var hasMessages: Bool { moves.contains { $0.message != nil } }

    /// The same match with no move's message: what a peer that cannot read
    /// one (an older spectator) is shown. A valid state of its own, with its
    /// own hash; each change after it is one change after this one too.
    public var withoutMessages: MatchState {
        guard hasMessages else { return self }
        var copy = self
        copy.moves = moves.map { PlayedMove(seat: $0.seat, move: $0.move) }
        return copy
    }

    /// Whether any seat has left while the match went on (the rotation is then no longer strict).
    public var someSeatHasLeft: Bool { leftAfter.contains { $0 != nil } }

    /// The game position as the game type you wrote, e.g. `state.game(as: Nim.self)?.heaps`;
    /// nil when the match is of another game (check `gameID` to tell which).
    ///
    /// Use it instead of casting `game`: a match decoded from a peer or from
    /// disk holds whichever registered type its game id names.
    public func game<G: Game>(as type: G.Type) -> G? { game as? G }

    /// The game's id, e.g. `connect4`.
    public var gameID: String { type(of: game).id }
    /// The game's rules version.
    public var rulesVersion: Int { type(of: game).rulesVersion }

    /// Whether the match has ended for everyone.
    public var isEnded: Bool { seats.allSatisfy { $0.status != .playing } }

    /// The seat whose turn it is, or nil when the match has ended.
    ///
    /// Derived from the rules and the seats' statuses, never from who asked.
    public var activeSeat: SeatIndex? {
        guard !isEnded, let seat = game.activeSeat, seats.indices.contains(seat),
              seats[seat].status == .playing else { return nil }
        return seat
    }

    /// The seat with this player id, or nil.
    public func seat(of player: PlayerID) -> SeatIndex? {
        seats.firstIndex { $0.playerID == player }
    }

    /// Returns the state after `change`, or throws and changes nothing.
    ///
    /// `now` (milliseconds since 1970) sets the next deadline when the match
    /// has a turn timeout; a time expiry is accepted only once `now` has
    /// reached the deadline.
    public func applying(_ change: MatchChange, now: Int64) throws(MatchRuleError) -> MatchState {
        guard !isEnded else { throw .matchEnded }
        let seat = change.seat
        guard seats.indices.contains(seat) else { throw .noSuchSeat(seat) }
        guard seats[seat].status == .playing else { throw .seatHasLeft(seat) }
        var next = self
        switch change {
        case .move(let move, _, let message):
            guard activeSeat == seat else { throw .notYourTurn(active: activeSeat, attempted: seat) }
            if type(of: game).alternatesStrictly, !someSeatHasLeft, game.paritySeat != seat {
                throw .notYourTurn(active: game.paritySeat, attempted: seat)
            }
            guard type(of: game).canCarry(move) else { throw .moveNotEncodable(move) }
            MatchWork.note(matchID, \.applies)
            do { try next.game.apply(move) } catch { throw .illegalMove(move) }
            next.moves.append(PlayedMove(seat: seat, move: move, message: message))
        case .quit:
            next.depart(seat, as: .quit)
        case .timeExpired:
            guard activeSeat == seat else { throw .notYourTurn(active: activeSeat, attempted: seat) }
            guard deadline > 0, now >= deadline else { throw .deadlineNotReached }
            next.depart(seat, as: .timeExpired)
        }
        next.sequence += 1
        next.settleOutcomes()
        next.startTurnClock(now: now)
        next.encoding = EncodingCache()
        // Byte moves make the data grow by what the moves hold: refused once it
        // would not fit (encoded once here, and kept for the commit's sends and saves).
        if case .move(let move, _, _) = change, move.bytes != nil, MatchBlob.encode(next).count > MatchBlob.maximumSize {
            throw .moveNotEncodable(move)
        }
        return next
    }

    /// Sets the deadline of the turn that begins at `now`: none once the match has ended or without a turn timeout.
    mutating func startTurnClock(now: Int64) {
        deadline = (!isEnded && turnTimeout > 0) ? now + Int64(turnTimeout) * 1000 : 0
    }

    /// Marks `seat` as gone; when two or more seats still play, the game goes
    /// on without it (the game skips it from now on).
    mutating func depart(_ seat: SeatIndex, as outcome: Outcome) {
        seats[seat].status = .left
        seats[seat].outcome = outcome
        if leftAfter.indices.contains(seat) { leftAfter[seat] = moves.count }
        if seats.filter({ $0.status == .playing }).count >= 2 { game.seatLeft(seat) }
    }

    /// Sets every seat's outcome and status from the rules and departures.
    ///
    /// When one seat is left, it wins (with two seats, any departure ends the
    /// match); otherwise the rules decide: a game that ends with outcomes of
    /// its own (`Game.outcomes`) gives each seat still playing its own (a seat
    /// it leaves out lost); else in a draw the seats the game ranks first tie
    /// and any it ranks lower lost. The one place a match's end is decided:
    /// `expectedSeats()` (every received or decoded state) comes here too.
    mutating func settleOutcomes() {
        let present = seats.indices.filter { seats[$0].status != .left }
        if present.count <= 1 {
            for index in present { seats[index].outcome = .won; seats[index].status = .done }
            for index in seats.indices where seats[index].status == .left {
                seats[index].status = .done  // keep quit / timeExpired outcomes
            }
            return
        }
        if let own = game.outcomes {
            for index in present { seats[index].outcome = own.indices.contains(index) ? Outcome(own[index]) : .lost }
            for index in seats.indices { seats[index].status = .done }
            return
        }
        switch game.result {
        case .inProgress:
            break
        case .won(let winner):
            for index in present { seats[index].outcome = index == winner ? .won : .lost }
            for index in seats.indices { seats[index].status = .done }
        case .draw:
            // At a table the seats that share first place tie; the others, ranked below them, lost.
            let places = game.placements
            for index in present {
                seats[index].outcome = places.map { $0.indices.contains(index) && $0[index] > 1 } == true ? .lost : .tied
            }
            for index in seats.indices { seats[index].status = .done }
        }
    }

    /// The outcomes that the rules and departures imply, for validating a decoded or received state.
    func expectedSeats() -> [Seat] {
        var copy = self
        for index in copy.seats.indices {
            let left = copy.seats[index].outcome == .quit || copy.seats[index].outcome == .timeExpired
            copy.seats[index].status = left ? .left : .playing
            if !left { copy.seats[index].outcome = .none }
        }
        copy.settleOutcomes()
        return copy.seats
    }

    /// Each seat's place once the match has ended, indexed by seat: 1 is first
    /// and seats that tie share a place. nil while the match goes on and for
    /// games that do not rank (`Game.placements` is nil). The one rule for
    /// every view: the seats that won come first (one, or several when the
    /// game ends with outcomes of its own; among them the game's ranking
    /// decides), a seat that quit or ran out of time ranks below every seat
    /// that did not, and otherwise the game's own ranking decides.
    public var placements: [Int]? {
        guard isEnded, let ranks = game.placements, ranks.count == seats.count else { return nil }
        let keys = seats.indices.map { seat -> (Int, Int) in
            let outcome = seats[seat].outcome
            return (outcome == .won ? 0 : outcome == .quit || outcome == .timeExpired ? 2 : 1, ranks[seat])
        }
        return keys.map { key in 1 + keys.filter { $0 < key }.count }
    }

    /// How many committed changes were departures (quit or timeExpired).
    var departureCount: Int {
        seats.filter { $0.outcome == .quit || $0.outcome == .timeExpired }.count
    }

    /// The state hash: FNV-1a 64 over the blob encoding with the deadline zeroed.
    public var stateHash: UInt64 { MatchBlob.stateHash(of: self) }

    /// Works out which single change turns `self` into `next`, or throws.
    ///
    /// This is how a receiver checks a whole blob from a peer: `next` must be
    /// this match, its history must extend ours by exactly one change that the
    /// rules allow, with the outcomes the rules imply. The hash is checked by
    /// the decoder. The deadline is the sender's business and is not compared.
    public func change(to next: MatchState) throws(SuccessorError) -> MatchChange {
        try judge(next).change
    }

    /// `change(to:)`, also returning our state after the change as the rules make it
    /// (`next` with our own game position and deadline).
    func judge(_ next: MatchState) throws(SuccessorError) -> (change: MatchChange, expected: MatchState) {
        guard next.matchID == matchID else { throw .otherMatch }
        guard next.gameID == gameID, next.rulesVersion == rulesVersion else { throw .otherGame }
        guard next.sequence == sequence &+ 1 else { throw .wrongSequence(expected: sequence &+ 1, got: next.sequence) }
        guard next.seats.count == seats.count,
              zip(next.seats, seats).allSatisfy({ $0.playerID == $1.playerID && $0.name == $1.name }) else {
            throw .seatsChanged
        }
        guard next.turnTimeout == turnTimeout else { throw .settingsChanged }
        // The start was drawn from the seed: another seed rewrites the whole history.
        guard next.seed == seed else { throw .seedChanged }
        guard next.moves.count >= moves.count, Array(next.moves.prefix(moves.count)) == moves else {
            throw .historyRewritten
        }
        let change: MatchChange
        switch next.moves.count - moves.count {
        case 1:
            guard let last = next.moves.last else { throw .notOneChange }
            change = .move(last.move, by: last.seat, message: last.message)
        case 0:
            let departed = seats.indices.filter {
                seats[$0].status == .playing && (next.seats[$0].outcome == .quit || next.seats[$0].outcome == .timeExpired)
            }
            guard departed.count == 1, let seat = departed.first else { throw .notOneChange }
            change = next.seats[seat].outcome == .quit ? .quit(seat) : .timeExpired(seat)
        default:
            throw .notOneChange
        }
        let expected: MatchState
        do {
            // A time expiry is judged against the sender's clock: accept it at the deadline.
            expected = try applying(change, now: max(deadline, 1))
        } catch {
            throw .ruleViolation(error)
        }
        guard expected.seats.map(\.outcome) == next.seats.map(\.outcome),
              expected.seats.map(\.status) == next.seats.map(\.status),
              expected.leftAfter == next.leftAfter else { throw .outcomesDisagree }
        return (change, expected)
    }
}

/// A change judged once: `state` is the state after `change`, worked out by
/// the rules from a base state that had `baseSequence` and `baseHash`. Only
/// this module makes one (`MatchState.successor(decoding:)`), so a
/// controller whose committed state is that base may commit `state` without
/// judging the change again (`MatchController.submit(_:from:)`).
public struct MatchSuccessor: Sendable {
    /// The one change.
    public let change: MatchChange
    /// The state after it, with the sender's deadline and the received blob as its encoding.
    public let state: MatchState
    let baseSequence: UInt32
    let baseHash: UInt64

    /// Whether `base` is the state this change was judged on.
    func follows(_ base: MatchState) -> Bool {
        base.sequence == baseSequence && base.stateHash == baseHash
    }
}

/// A state's encoding, worked out once. A class so that copies of a state
/// share it; the lock makes filling it in safe from any thread.
final class EncodingCache: Sendable {
    struct Encoded: Sendable {
        /// The whole blob, the state hash last.
        var blob: [UInt8]
        var hash: UInt64
        /// Where the blob's deadline field starts (the hash reads it as zeros).
        var deadlineOffset: Int
    }

    private let stored: Mutex<Encoded?>

    init(_ encoded: Encoded? = nil) { stored = Mutex(encoded) }

    /// The encoding, made by `make` the first time.
    func value(_ make: () -> Encoded) -> Encoded {
        if let known = stored.withLock({ $0 }) { return known }
        let made = make()
        stored.withLock { $0 = $0 ?? made }
        return made
    }

    /// A cache for the same state with another deadline: the blob's deadline
    /// field rewritten where the encoding put it, the hash kept.
    func movingDeadline(to deadline: Int64) -> EncodingCache {
        guard var known = stored.withLock({ $0 }) else { return EncodingCache() }
        let offset = known.deadlineOffset
        guard offset >= 0, offset + 8 <= known.blob.count else { return EncodingCache() }
        let value = UInt64(bitPattern: deadline)
        for index in 0..<8 { known.blob[offset + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * index)) }
        return EncodingCache(known)
    }
}

/// Why a received state is not an acceptable next state.
public enum SuccessorError: Error, Hashable, Sendable {
    /// `next` is of another match (another `matchID`).
    case otherMatch
    /// `next` is of another game, or of another rules version of this one.
    case otherGame
    /// `next` is not numbered as the change after ours: `expected` is our
    /// `sequence + 1`, `got` is its `sequence` (a change missed or repeated).
    case wrongSequence(expected: UInt32, got: UInt32)
    /// `next` has another number of seats, or a seat with another player id or name.
    case seatsChanged
    /// `next` has another turn timeout.
    case settingsChanged
    /// `next`'s moves do not begin with ours: a move already played was changed or dropped.
    case historyRewritten
    /// The state carries another seed than the match began with (a game that
    /// uses randomness): its start, and so its history, is not ours.
    case seedChanged
    /// `next` is not exactly one change after ours: two or more moves more, or
    /// no new move and not exactly one seat newly quit or out of time.
    case notOneChange
    /// The one change `next` makes is one the rules refuse (an illegal move, a
    /// move out of turn, a time expiry before the deadline); the error says which.
    case ruleViolation(MatchRuleError)
    /// The change is allowed, but `next`'s outcomes, statuses or `leftAfter`
    /// are not the ones the rules give after it.
    case outcomesDisagree
}
