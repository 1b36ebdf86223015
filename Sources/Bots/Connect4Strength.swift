import Games

/// How well each Connect Four level plays, measured against the exact
/// solver (`parlor bench bots`): the share of its moves that keep the
/// position's exact value, on positions reached by random play.
public enum Connect4Strength {
    /// `count` positions after a number of random moves drawn from `plies`,
    /// none of them over, fixed by `seed`; each with its columns (0-based).
    public static func positions(count: Int, plies: ClosedRange<Int>, seed: UInt64) -> [(game: Connect4, columns: [Int])] {
        var random = SplitMix64(seed: seed)
        var positions: [(game: Connect4, columns: [Int])] = []
        while positions.count < count {
            var game = Connect4()
            var columns: [Int] = []
            let length = Int.random(in: plies, using: &random)
            while game.moveCount < length, !game.isOver, let move = game.legalMoves.randomElement(using: &random) {
                try? game.apply(move)
                columns.append(move.rawValue)
            }
            if !game.isOver && game.moveCount == length { positions.append((game, columns)) }
        }
        return positions
    }

    /// How many of `entrant`'s moves in `positions` keep the exact value
    /// (the same score as the best move: a win as quick, a draw, a loss as
    /// slow), judged by `judge`'s analysis of each position. `bot` keeps its
    /// tables from one call to the next.
    public static func movesKeepingValue(
        _ bot: Bot, in positions: [Connect4], judge: [Connect4Analysis], seed: UInt64
    ) -> Int {
        var bot = bot.reseeded(seed)
        var kept = 0
        for (game, analysis) in zip(positions, judge) {
            guard let move = bot.chooseMove(in: game) else { continue }
            if analysis.moveScores[move.rawValue] == analysis.score { kept += 1 }
        }
        return kept
    }

    /// One move of `hard` in its own games: the position it moved in, the
    /// moves that led there (columns 1-7, as typed), its move and how long
    /// it took.
    public struct HardMove: Sendable {
        /// The position hard moved in.
        public let game: Connect4
        /// The columns played to reach it, 1-7, as typed.
        public let line: String
        /// Hard's move.
        public let move: Move
        /// How long hard took to choose it.
        public let took: Duration
    }

    /// `count` games of `hard` from the empty board against medium, which
    /// plays a random move one time in three; hard takes the first seat in
    /// even games and the second in odd ones. Fixed by `seed`. `eachMove`
    /// sees every move hard makes, `gameOver` each game's moves when it ends.
    /// Where hard's play is judged that matters: the positions it reaches.
    public static func hardOwnGames(
        count: Int, seed: UInt64, eachMove: (HardMove) throws -> Void, gameOver: (String) -> Void = { _ in }
    ) throws {
        var random = SplitMix64(seed: seed)
        let clock = ContinuousClock()
        for index in 0..<count {
            var hard = Bot(level: .hard, seed: seed &+ UInt64(index))
            var other = Bot(level: .medium, seed: seed &+ UInt64(index) &+ 1000)
            var game = Connect4()
            var line = ""
            while !game.isOver {
                let chosen: Move?
                if game.moveCount % 2 == index % 2 {
                    let start = clock.now
                    chosen = hard.chooseMove(in: game)
                    if let chosen { try eachMove(HardMove(game: game, line: line, move: chosen, took: clock.now - start)) }
                } else if random.next() % 3 == 0 {
                    let moves = game.legalMoves
                    chosen = moves[Int(random.next() % UInt64(moves.count))]
                } else {
                    chosen = other.chooseMove(in: game)
                }
                guard let move = chosen else { throw OwnGameError(line: line) }
                try game.apply(move)
                line += String(move.rawValue + 1)
            }
            gameOver(line)
        }
    }

    /// A bot of `hardOwnGames` found no move in a game not over.
    public struct OwnGameError: Error, CustomStringConvertible {
        /// The columns played before the bot found no move, 1-7, as typed.
        public let line: String
        /// "no move after" the line.
        public var description: String { "no move after \(line)" }
    }
}
