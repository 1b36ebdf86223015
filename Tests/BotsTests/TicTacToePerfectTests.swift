import Bots
import Games
import Testing

/// Tic-tac-toe's value for the side to move by plain minimax through the
/// rules in Games: 1 a win, 0 a draw, -1 a loss; memoised on the board.
struct TicTacToeOracle {
    private var memo: [TicTacToe: Int] = [:]

    mutating func value(_ game: TicTacToe) -> Int {
        if let known = memo[game] { return known }
        var best = -2
        for move in game.legalMoves {
            best = max(best, valueOfPlaying(move, in: game))
        }
        memo[game] = best
        return best
    }

    /// The value of playing `move` for the player making it.
    mutating func valueOfPlaying(_ move: Move, in game: TicTacToe) -> Int {
        var after = game
        try? after.apply(move)
        switch after.result {
        case .won: return 1
        case .draw: return 0
        case .inProgress: return -value(after)
        }
    }
}

@Suite("hard plays tic-tac-toe perfectly")
struct TicTacToePerfectTests {
    @Test("In every reachable position, hard's move keeps the game's value")
    func everyPosition() {
        var oracle = TicTacToeOracle()
        var seen = Set<TicTacToe>()
        var frontier = [TicTacToe()]
        var bot = Bot(level: .hard, seed: 7)
        while let game = frontier.popLast() {
            guard !game.isOver, seen.insert(game).inserted else { continue }
            for move in game.legalMoves {
                var after = game
                try? after.apply(move)
                frontier.append(after)
            }
            guard let move = bot.chooseMove(in: game) else { Issue.record("no move"); continue }
            #expect(oracle.valueOfPlaying(move, in: game) == oracle.value(game), "\(game.cells) played \(move.rawValue)")
        }
        // Every position that is not over, with either side to move: 4520 of them.
        #expect(seen.count == 4520)
    }
}
