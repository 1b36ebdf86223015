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
}
