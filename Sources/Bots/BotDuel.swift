import Games

/// The tally of a `BotDuel`: who won how often, and how long each side thought.
public struct DuelResult: Sendable {
    /// The game played.
    public var gameID: String
    /// The first level named in the duel.
    public var levelA: BotLevel
    /// The second level named in the duel.
    public var levelB: BotLevel
    /// Games played to the end.
    public var games = 0
    /// Games won by `levelA`.
    public var winsByA = 0
    /// Games won by `levelB`.
    public var winsByB = 0
    /// Games that ended in a draw.
    public var draws = 0
    /// Moves chosen by `levelA` (opening plies excluded).
    public var movesByA = 0
    /// Moves chosen by `levelB` (opening plies excluded).
    public var movesByB = 0
    /// Wall-clock time `levelA` spent choosing its moves.
    public var thinkingTimeA: Duration = .zero
    /// Wall-clock time `levelB` spent choosing its moves.
    public var thinkingTimeB: Duration = .zero
    /// The longest `levelA` took over one move.
    public var longestMoveA: Duration = .zero
    /// The longest `levelB` took over one move.
    public var longestMoveB: Duration = .zero

    /// Every move's time for `levelA`, in the order played.
    public var moveTimesA: [Duration] = []

    /// The time `levelA` stayed within on 99% of its moves (zero when it made none).
    public var p99MoveTimeA: Duration {
        let sorted = moveTimesA.sorted()
        guard !sorted.isEmpty else { return .zero }
        return sorted[min(sorted.count - 1, (sorted.count * 99 + 99) / 100 - 1)]
    }

    /// Average time per move for `levelA`, zero when it made none.
    public var averageMoveTimeA: Duration { movesByA == 0 ? .zero : thinkingTimeA / movesByA }
    /// Average time per move for `levelB`, zero when it made none.
    public var averageMoveTimeB: Duration { movesByB == 0 ? .zero : thinkingTimeB / movesByB }
}

/// Plays bots against each other and counts results: the evidence that the
/// levels are ordered as their names promise (`parlor bench bots`).
public enum BotDuel {
    /// Plays `games` games of `gameID` between levels `a` and `b` and counts results.
    ///
    /// Every pair of games starts from the same random opening (a few plies
    /// drawn from `seed`), once with `a` moving first and once with `b`, so
    /// neither level profits from a lucky opening. Deterministic for a
    /// given seed, apart from the timings. `progress` is called with the
    /// number of finished games after each one, on the calling thread.
    /// An unknown game id plays nothing. Blocks for as long as the games
    /// take: call it off any UI thread.
    public static func play(
        gameID: String, _ a: BotLevel, against b: BotLevel, games: Int, seed: UInt64,
        progress: ((Int) -> Void)? = nil
    ) -> DuelResult {
        play(gameID: gameID, .level(a), against: .level(b), games: games, seed: seed, progress: progress)
    }

    /// Who takes part in a duel: a level, or `hard` as it played before
    /// (`Bot.legacyHard`), which only benches measure against.
    public enum Entrant: Sendable, Equatable {
        /// Today's bot at this level.
        case level(BotLevel)
        /// `hard` as it played before the exact solver (`Bot.legacyHard`).
        case legacyHard

        /// A fresh bot for this entrant whose random choices are fixed by `seed`.
        public func bot(seed: UInt64) -> Bot {
            switch self {
            case .level(let level): Bot(level: level, seed: seed)
            case .legacyHard: Bot.legacyHard(seed: seed)
            }
        }

        var level: BotLevel {
            switch self {
            case .level(let level): level
            case .legacyHard: .hard
            }
        }
    }

    /// `play(gameID:_:against:games:seed:progress:)` between any two entrants.
    public static func play(
        gameID: String, _ a: Entrant, against b: Entrant, games: Int, seed: UInt64,
        progress: ((Int) -> Void)? = nil
    ) -> DuelResult {
        var result = DuelResult(gameID: gameID, levelA: a.level, levelB: b.level)
        guard let fresh = GameCatalog.newGame(id: gameID) else { return result }
        var random = SplitMix64(seed: seed)
        var opening = fresh
        let clock = ContinuousClock()
        for index in 0..<max(games, 0) {
            if index % 2 == 0 { opening = randomOpening(from: fresh, random: &random) }
            let seatOfA = index % 2
            // Fresh bots for every game, so that each game is a trial of its own
            // (a time-limited search would otherwise play differently after the
            // games before it); within a game each keeps its tables across moves.
            var botA = a.bot(seed: random.derivedSeed())
            var botB = b.bot(seed: random.derivedSeed())
            var game = opening
            var forfeitBy: SeatIndex?
            while let seat = game.activeSeat {
                let start = clock.now
                let move = seat == seatOfA ? botA.chooseMove(in: game) : botB.chooseMove(in: game)
                let elapsed = clock.now - start
                if seat == seatOfA {
                    result.movesByA += 1; result.thinkingTimeA += elapsed; result.moveTimesA.append(elapsed)
                    result.longestMoveA = max(result.longestMoveA, elapsed)
                } else {
                    result.movesByB += 1; result.thinkingTimeB += elapsed
                    result.longestMoveB = max(result.longestMoveB, elapsed)
                }
                guard let move, (try? game.apply(move)) != nil else { forfeitBy = seat; break }
            }
            result.games += 1
            switch (game.result, forfeitBy) {
            case (_, let seat?): if seat == seatOfA { result.winsByB += 1 } else { result.winsByA += 1 }
            case (.won(let seat), nil): if seat == seatOfA { result.winsByA += 1 } else { result.winsByB += 1 }
            case (.draw, nil), (.inProgress, nil): result.draws += 1
            }
            progress?(index + 1)
        }
        return result
    }

    /// How many random plies open a duel game of `gameID`: one each, so
    /// both sides start with one random stone; tic-tac-toe at most one,
    /// because a random second stone can already lose the game.
    static func openingPlies(for gameID: String) -> ClosedRange<Int> {
        gameID == TicTacToe.id ? 0...1 : 2...2
    }

    /// A position a few random plies in that is not already over.
    static func randomOpening(from fresh: any Game, random: inout SplitMix64) -> any Game {
        let plies = Int.random(in: openingPlies(for: fresh.gameID), using: &random)
        for _ in 0..<100 {
            var game = fresh
            for _ in 0..<plies {
                guard let move = game.legalMoves.randomElement(using: &random) else { break }
                try? game.apply(move)
            }
            if !game.isOver { return game }
        }
        return fresh
    }
}
