import Games

/// A computer opponent: picks moves for whichever seat is to move.
///
/// A bot is a plain value holding its level and a seeded random generator,
/// so the same seed facing the same sequence of positions plays the same
/// moves (`--seed`). Searches allocate their own tables on every call and
/// keep nothing between moves.
public struct Bot: Sendable {
    /// How strongly this bot plays.
    public let level: BotLevel
    private var random: SplitMix64

    /// A bot of `level` whose random choices are fixed by `seed`.
    public init(level: BotLevel, seed: UInt64) {
        self.level = level
        random = SplitMix64(seed: seed)
    }

    /// Picks a move for `game.activeSeat`.
    ///
    /// Pure CPU and possibly a few hundred milliseconds of it: call it off
    /// the UI's thread. `shouldStop` is polled every fraction of a
    /// millisecond; once it returns true the call returns nil promptly.
    /// Also nil when the game is over or has no legal move. Connect Four,
    /// Cube Four and tic-tac-toe have dedicated engines, reversi, dots and
    /// boxes and Chinese checkers a shared search with their own judgement
    /// (`BoardGamesPlayer`); any other game is
    /// searched through `legalMoves` and `apply`.
    public mutating func chooseMove(in game: any Game, shouldStop: @Sendable () -> Bool = { false }) -> Move? {
        guard !shouldStop(), game.activeSeat != nil else { return nil }
        let move = pick(in: game, shouldStop: shouldStop)
        // A move found after the caller gave up is not wanted any more.
        guard let move, !shouldStop(), game.isLegal(move) else { return nil }
        return move
    }

    private mutating func pick(in game: any Game, shouldStop: () -> Bool) -> Move? {
        if BoardGamesPlayer.plays(game) {
            return BoardGamesPlayer.chooseMove(game, level: level, random: &random, shouldStop: shouldStop)
        }
        if level == .easy { return GenericPlayer.easyMove(game, random: &random, shouldStop: shouldStop) }
        switch game {
        case let connect4 as Connect4:
            return Connect4Player.chooseMove(connect4, level: level, random: &random, shouldStop: shouldStop)
        case let cube4 as Cube4:
            return Cube4Player.chooseMove(cube4, level: level, random: &random, shouldStop: shouldStop)
        case let tictactoe as TicTacToe:
            return TicTacToePlayer.chooseMove(tictactoe, level: level, random: &random, shouldStop: shouldStop)
        default:
            let hard = level == .hard
            return GenericPlayer.searchMove(
                game, depth: hard ? GenericPlayer.hardDepth : GenericPlayer.mediumDepth,
                nodeBudget: hard ? GenericPlayer.hardNodeBudget : .max, random: &random, shouldStop: shouldStop)
        }
    }
}
