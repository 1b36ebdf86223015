import Games

/// Move choice for any `Game`, through `legalMoves` and `apply` alone.
///
/// `easy` uses it for every game (its rule needs nothing more); `medium` and
/// `hard` fall back to it for games without a dedicated engine.
enum GenericPlayer {
    static let win = 100_000
    /// How far `medium` and `hard` look, in plies, for games without an engine.
    static let mediumDepth = 3
    static let hardDepth = 5
    static let hardNodeBudget = 200_000

    /// Takes a win in one; otherwise avoids moves after which the next seat
    /// can win at once (which blocks a threat); otherwise picks at random.
    static func easyMove<G: Game>(_ game: G, random: inout SplitMix64, shouldStop: () -> Bool) -> Move? {
        guard let me = game.activeSeat else { return nil }
        let moves = game.legalMoves
        var safe: [Move] = []
        for move in moves {
            if shouldStop() { return nil }
            guard let after = try? game.applying(move) else { continue }
            if wins(after, seat: me) { return move }
            if !canWinAtOnce(after, against: me) { safe.append(move) }
        }
        return (safe.isEmpty ? moves : safe).randomElement(using: &random)
    }

    /// Whether the seat to move in `game`, when it is not `seat`, has a winning move.
    static func canWinAtOnce<G: Game>(_ game: G, against seat: SeatIndex) -> Bool {
        guard let next = game.activeSeat, next != seat else { return false }
        return game.legalMoves.contains { move in (try? game.applying(move)).map { wins($0, seat: next) } == true }
    }

    /// Whether `seat` has won `game`: by its result, or by the outcomes the game ended with (several seats may win).
    static func wins<G: Game>(_ game: G, seat: SeatIndex) -> Bool {
        if let outcomes = game.outcomes { return outcomes.indices.contains(seat) && outcomes[seat] == .won }
        return game.result == .won(by: seat)
    }

    /// A depth-limited search that assumes every other seat plays against
    /// this one; leaves that are not over count as even. Ties are broken at random.
    static func searchMove<G: Game>(
        _ game: G, depth: Int, nodeBudget: Int, random: inout SplitMix64, shouldStop: () -> Bool
    ) -> Move? {
        guard let me = game.activeSeat else { return nil }
        var search = Search<G>(me: me, nodeBudget: nodeBudget)
        var best = Int.min
        var bestMoves: [Move] = []
        for move in game.legalMoves {
            guard let after = try? game.applying(move) else { continue }
            guard let score = search.value(after, depth: depth - 1, alpha: -win * 2, beta: win * 2, shouldStop) else {
                if search.stopped { return nil }
                break
            }
            if score > best { best = score; bestMoves = [move] } else if score == best { bestMoves.append(move) }
        }
        return bestMoves.randomElement(using: &random) ?? game.legalMoves.first
    }

    private struct Search<G: Game> {
        let me: SeatIndex
        let nodeBudget: Int
        var nodes = 0
        var stopped = false

        /// The value of `game` for `me`, or nil once stopped or out of budget.
        mutating func value(_ game: G, depth: Int, alpha: Int, beta: Int, _ shouldStop: () -> Bool) -> Int? {
            nodes += 1
            if nodes & 63 == 0, shouldStop() { stopped = true }
            if stopped || nodes > nodeBudget { return nil }
            if let outcomes = game.outcomes {
                // The game's own end: a seat it leaves out lost, as in the match.
                switch outcomes.indices.contains(me) ? outcomes[me] : .lost {
                case .won: return win - game.moveCount
                case .lost: return -(win - game.moveCount)
                case .tied: return 0
                }
            }
            switch game.result {
            case .won(let seat): return seat == me ? win - game.moveCount : -(win - game.moveCount)
            case .draw: return 0
            case .inProgress: break
            }
            guard depth > 0, let seat = game.activeSeat else { return 0 }
            let maximising = seat == me
            var alpha = alpha, beta = beta
            var best = maximising ? Int.min : Int.max
            for move in game.legalMoves {
                guard let after = try? game.applying(move) else { continue }
                guard let score = value(after, depth: depth - 1, alpha: alpha, beta: beta, shouldStop) else { return nil }
                if maximising {
                    best = max(best, score); alpha = max(alpha, score)
                } else {
                    best = min(best, score); beta = min(beta, score)
                }
                if alpha >= beta { break }
            }
            return best == Int.min || best == Int.max ? 0 : best
        }
    }
}
