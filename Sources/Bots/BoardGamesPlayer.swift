import Games

/// Bots for reversi, dots and boxes and Chinese checkers: one alpha-beta
/// search over the public `Game` protocol, with an evaluation and a move
/// order per game.
///
/// The search asks the rules who moves next, so extra turns (dots and
/// boxes) and automatic passes (reversi) need nothing special; with more
/// than two seats it is "paranoid": every other seat is assumed to play
/// against this one.
///
/// - easy: one ply, the evaluation plus a large random term, so it takes
///   a box or a corner often but not always and blunders;
/// - medium: a fixed shallow search (`mediumDepth`), ties at random;
/// - hard: iterative deepening until `hardTime` has passed (the last fully
///   searched depth decides), so it answers within about a second.
enum BoardGamesPlayer {
    /// Whether this player has an evaluation for `game`.
    static func plays(_ game: any Game) -> Bool {
        game is Reversi || game is DotsAndBoxes || game is ChineseCheckers
    }

    /// Plies searched at `medium`.
    static func mediumDepth(_ game: any Game) -> Int {
        switch game {
        case is DotsAndBoxes: 3
        default: 2
        }
    }

    /// How long `hard` keeps deepening.
    static let hardTime = Duration.milliseconds(700)
    /// Deepest `hard` goes (reached only near the end of a game).
    static let hardMaximumDepth = 20
    /// The random term `easy` adds, in evaluation units.
    static let easyNoise = 60

    /// A move for the seat to move; `thinking` is how long `hard` deepens (tests shorten it).
    static func chooseMove(_ game: any Game, level: BotLevel, random: inout SplitMix64, shouldStop: () -> Bool,
                           thinking: Duration = hardTime) -> Move? {
        switch game {
        case let reversi as Reversi:
            return choose(reversi, level: level, random: &random, shouldStop: shouldStop, thinking: thinking,
                          evaluate: ReversiJudge.value, order: ReversiJudge.order)
        case let dots as DotsAndBoxes:
            return choose(dots, level: level, random: &random, shouldStop: shouldStop, thinking: thinking,
                          evaluate: DotsJudge.value, order: DotsJudge.order)
        case let checkers as ChineseCheckers:
            return choose(checkers, level: level, random: &random, shouldStop: shouldStop, thinking: thinking,
                          evaluate: CheckersJudge.value, order: CheckersJudge.order)
        default:
            return nil
        }
    }

    private static func choose<G: Game>(
        _ game: G, level: BotLevel, random: inout SplitMix64, shouldStop: () -> Bool, thinking: Duration,
        evaluate: @escaping (G, SeatIndex) -> Int, order: @escaping (G, [Move]) -> [Move]
    ) -> Move? {
        withoutActuallyEscaping(shouldStop) { stop in
            choose(game, level: level, random: &random, stop: stop, thinking: thinking, evaluate: evaluate, order: order)
        }
    }

    private static func choose<G: Game>(
        _ game: G, level: BotLevel, random: inout SplitMix64, stop shouldStop: @escaping () -> Bool, thinking: Duration,
        evaluate: @escaping (G, SeatIndex) -> Int, order: @escaping (G, [Move]) -> [Move]
    ) -> Move? {
        guard let me = game.activeSeat else { return nil }
        let moves = order(game, game.legalMoves)
        guard !moves.isEmpty else { return nil }
        if moves.count == 1 { return moves[0] }
        switch level {
        case .easy:
            var best = Int.min, bestMove = moves[0]
            for move in moves {
                guard let after = try? game.applying(move) else { continue }
                if after.result == .won(by: me) { return move }
                let score = ScoredSearch<G>.terminalValue(after, me: me) ?? evaluate(after, me)
                let noisy = score + Int(random.next() % UInt64(easyNoise))
                if noisy > best { best = noisy; bestMove = move }
            }
            return bestMove
        case .medium:
            var search = ScoredSearch(me: me, evaluate: evaluate, order: order, deadline: nil, shouldStop: shouldStop)
            return search.best(game, moves: moves, depth: mediumDepth(game), random: &random)?.move
        case .hard:
            let deadline = ContinuousClock.now + thinking
            var search = ScoredSearch(me: me, evaluate: evaluate, order: order, deadline: deadline, shouldStop: shouldStop)
            var chosen: Move?
            var ordered = moves
            for depth in 1...hardMaximumDepth {
                guard let found = search.best(game, moves: ordered, depth: depth, random: &random) else { break }
                chosen = found.move
                // The best move first next time: alpha-beta cuts most behind it.
                ordered = [found.move] + ordered.filter { $0 != found.move }
                if found.value.magnitude >= ScoredSearch<G>.win / 2 || !search.reachedDepthLimit { break }
                if ContinuousClock.now >= deadline { break }
            }
            return chosen ?? moves.first
        }
    }
}

/// Depth-limited alpha-beta for `me`; every other seat minimises.
struct ScoredSearch<G: Game> {
    static var win: Int { 1_000_000 }
    let me: SeatIndex
    let evaluate: (G, SeatIndex) -> Int
    let order: (G, [Move]) -> [Move]
    let deadline: ContinuousClock.Instant?
    let shouldStop: () -> Bool
    private var nodes = 0
    private(set) var stopped = false
    /// Whether the last search was cut by its depth somewhere (deeper would tell more).
    private(set) var reachedDepthLimit = false

    init(me: SeatIndex, evaluate: @escaping (G, SeatIndex) -> Int, order: @escaping (G, [Move]) -> [Move],
         deadline: ContinuousClock.Instant?, shouldStop: @escaping () -> Bool) {
        self.me = me; self.evaluate = evaluate; self.order = order; self.deadline = deadline; self.shouldStop = shouldStop
    }

    /// A win sooner is better than a win later, a loss later better than sooner.
    static func terminalValue(_ game: G, me: SeatIndex) -> Int? {
        switch game.result {
        case .inProgress: return nil
        case .draw: return 0
        case .won(let seat): return seat == me ? win - game.moveCount : -(win - game.moveCount)
        }
    }

    /// The best root move at `depth`, ties at random; nil when stopped before the search finished.
    mutating func best(_ game: G, moves: [Move], depth: Int, random: inout SplitMix64) -> (move: Move, value: Int)? {
        reachedDepthLimit = false
        var alpha = -Self.win * 2
        var bestMoves: [Move] = []
        for move in moves {
            guard let after = try? game.applying(move) else { continue }
            // A window one wider than alpha keeps equal moves for the random tie-break.
            guard let value = value(after, depth: depth - 1, alpha: alpha - 1, beta: Self.win * 2) else { return nil }
            if value > alpha { alpha = value; bestMoves = [move] } else if value == alpha { bestMoves.append(move) }
        }
        guard let move = bestMoves.randomElement(using: &random) else { return nil }
        return (move, alpha)
    }

    private mutating func value(_ game: G, depth: Int, alpha: Int, beta: Int) -> Int? {
        nodes += 1
        if nodes & 255 == 0, shouldStop() || (deadline.map { ContinuousClock.now >= $0 } ?? false) { stopped = true }
        if stopped { return nil }
        if let terminal = Self.terminalValue(game, me: me) { return terminal }
        guard let seat = game.activeSeat else { return 0 }
        if depth <= 0 {
            reachedDepthLimit = true
            return evaluate(game, me)
        }
        let maximising = seat == me
        var alpha = alpha, beta = beta
        var best = maximising ? Int.min : Int.max
        for move in order(game, game.legalMoves) {
            guard let after = try? game.applying(move) else { continue }
            guard let score = value(after, depth: depth - 1, alpha: alpha, beta: beta) else { return nil }
            if maximising {
                best = max(best, score); alpha = max(alpha, score)
            } else {
                best = min(best, score); beta = min(beta, score)
            }
            if alpha >= beta { break }
        }
        return best == Int.min || best == Int.max ? evaluate(game, me) : best
    }
}

/// Reversi: corners and edges by a weight table, plus mobility.
enum ReversiJudge {
    static let weights: [Int] = [
        100, -20, 10, 5, 5, 10, -20, 100,
        -20, -50, -2, -2, -2, -2, -50, -20,
        10, -2, -1, -1, -1, -1, -2, 10,
        5, -2, -1, -1, -1, -1, -2, 5,
        5, -2, -1, -1, -1, -1, -2, 5,
        10, -2, -1, -1, -1, -1, -2, 10,
        -20, -50, -2, -2, -2, -2, -50, -20,
        100, -20, 10, 5, 5, 10, -20, 100,
    ]

    static func value(_ game: Reversi, _ me: SeatIndex) -> Int {
        var total = 0
        for cell in 0..<64 {
            guard let seat = game.disc(at: cell) else { continue }
            total += seat == me ? weights[cell] : -weights[cell]
        }
        let mobility = game.legalBits(for: me).nonzeroBitCount - game.legalBits(for: 1 - me).nonzeroBitCount
        let discs = (game.scores ?? [0, 0])
        let empties = 64 - discs[0] - discs[1]
        // Late in the game the disc count is what decides.
        let discWeight = empties < 14 ? 6 : 0
        return total + 4 * mobility + discWeight * (discs[me] - discs[1 - me])
    }

    /// Corners first, then by the weight of the cell.
    static func order(_ game: Reversi, _ moves: [Move]) -> [Move] {
        moves.sorted { weights[$0.rawValue] > weights[$1.rawValue] }
    }
}

/// Dots and boxes: boxes won, and who is left to take three-sided boxes.
enum DotsJudge {
    static func value(_ game: DotsAndBoxes, _ me: SeatIndex) -> Int {
        let scores = game.scores ?? []
        var total = 0
        for seat in scores.indices { total += seat == me ? 100 * scores[seat] : -100 * scores[seat] }
        // A three-sided box is the next mover's to take.
        let open = (0..<DotsAndBoxes.boxes * DotsAndBoxes.boxes).filter { game.owners[$0] == nil && game.sidesDrawn(ofBox: $0) == 3 }.count
        total += (game.activeSeat == me ? 80 : -80) * open
        return total
    }

    /// Moves that complete a box, then moves that give no box away, then the rest.
    static func order(_ game: DotsAndBoxes, _ moves: [Move]) -> [Move] {
        var completing: [Move] = [], safe: [Move] = [], giving: [Move] = []
        for move in moves {
            let sides = DotsAndBoxes.boxes(beside: move.rawValue).map { game.sidesDrawn(ofBox: $0) }
            if sides.contains(3) { completing.append(move) } else if sides.contains(2) { giving.append(move) } else { safe.append(move) }
        }
        return completing + safe + giving
    }
}

/// Chinese checkers: distance still to go, against the other seats'.
enum CheckersJudge {
    static func value(_ game: ChineseCheckers, _ me: SeatIndex) -> Int {
        let others = game.seatCount - 1
        var total = -cost(game, me) * others
        for seat in 0..<game.seatCount where seat != me { total += cost(game, seat) }
        return total * 10 / max(1, others)
    }

    /// Rows to go plus a charge for the peg furthest behind, so none is left at home.
    static func cost(_ game: ChineseCheckers, _ seat: SeatIndex) -> Int {
        let board = ChineseCheckers.board
        let tip = board.tips[game.targetPoint(of: seat)]
        var total = 0, worst = 0
        for hole in 0..<ChineseCheckers.holeCount where game.peg(at: hole) == seat {
            let distance = board.distance(hole, tip)
            total += distance
            worst = max(worst, distance)
        }
        return total + 2 * worst
    }

    /// Moves that travel furthest towards the target first.
    static func order(_ game: ChineseCheckers, _ moves: [Move]) -> [Move] {
        guard let seat = game.activeSeat else { return moves }
        let board = ChineseCheckers.board
        let tip = board.tips[game.targetPoint(of: seat)]
        func gain(_ move: Move) -> Int {
            let from = move.rawValue / ChineseCheckers.holeCount, to = move.rawValue % ChineseCheckers.holeCount
            return board.distance(from, tip) - board.distance(to, tip)
        }
        return moves.map { ($0, gain($0)) }.sorted { $0.1 > $1.1 }.map(\.0)
    }
}
