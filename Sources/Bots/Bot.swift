import Games
import Synchronization

/// A computer opponent: picks moves for whichever seat is to move.
///
/// A bot is a plain value holding its level and a seeded random generator,
/// so the same seed facing the same sequence of positions plays the same
/// moves (`--seed`). `hard` Connect Four keeps its exact solver's table
/// (allocated on its first move, shared by copies of the bot) across moves:
/// the table holds proven facts, so reusing it never changes an answer. Its
/// heuristic search's table is kept too, but cleared before each search
/// (in constant time: `TranspositionTable.clear`).
/// `hard` Cube Four keeps its engine (`Cube4Engine`: table, move-ordering
/// hints) across moves too; it searches to a time budget, so its moves may
/// differ from run to run with the machine's load.
public struct Bot: Sendable {
    /// How strongly this bot plays.
    public let level: BotLevel
    private var random: SplitMix64
    /// `hard` as it played before the exact solver and the Cube Four
    /// engine's rework: only `parlor bench bots` measures against it.
    private let legacy: Bool
    private let memory = BotMemory()

    /// A bot of `level` whose random choices are fixed by `seed`.
    public init(level: BotLevel, seed: UInt64) {
        self.level = level
        random = SplitMix64(seed: seed)
        legacy = false
    }

    /// The `hard` bot of earlier releases, kept for `parlor bench bots`.
    public static func legacyHard(seed: UInt64) -> Bot { Bot(legacyHardSeed: seed) }

    private init(legacyHardSeed seed: UInt64) {
        level = .hard
        random = SplitMix64(seed: seed)
        legacy = true
    }

    /// This bot with its random choices fixed afresh by `seed`, sharing its
    /// tables (they hold facts about positions, true in any game): a bench
    /// plays many games with one bot per side and allocates them once.
    public func reseeded(_ seed: UInt64) -> Bot {
        var copy = self
        copy.random = SplitMix64(seed: seed)
        return copy
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
    ///
    /// `answerBy` is when the turn must be answered (a turn timeout): `hard`
    /// Connect Four, whose exact solve can take seconds, then plays a quick
    /// heuristic move instead of finishing it. The other games' searches
    /// already stop within a second.
    public mutating func chooseMove(
        in game: any Game, answerBy: ContinuousClock.Instant? = nil, shouldStop: @Sendable () -> Bool = { false }
    ) -> Move? {
        guard !shouldStop(), game.activeSeat != nil else { return nil }
        let move = pick(in: game, answerBy: answerBy, shouldStop: shouldStop)
        // A move found after the caller gave up is not wanted any more.
        guard let move, !shouldStop(), game.isLegal(move) else { return nil }
        return move
    }

    /// This bot as a `BotParticipant.TimedStrategy`: one copy, kept behind a
    /// lock, answers every turn, so its tables and random choices carry over
    /// from move to move as they do in `parlor play`.
    public func timedStrategy() -> BotParticipant.TimedStrategy {
        let bot = Mutex(self)
        return { game, answerBy, shouldStop in bot.withLock { $0.chooseMove(in: game, answerBy: answerBy, shouldStop: shouldStop) } }
    }

    private mutating func pick(in game: any Game, answerBy: ContinuousClock.Instant?, shouldStop: () -> Bool) -> Move? {
        if BoardGamesPlayer.plays(game) {
            return BoardGamesPlayer.chooseMove(game, level: level, random: &random, shouldStop: shouldStop)
        }
        if level == .easy { return GenericPlayer.easyMove(game, random: &random, shouldStop: shouldStop) }
        switch game {
        case let connect4 as Connect4:
            if level == .hard && !legacy {
                return memory.withConnect4Solver { solver, table in
                    Connect4Player.perfectMove(connect4, solver: solver, table: &table, answerBy: answerBy, shouldStop: shouldStop)
                }
            }
            if level == .hard {
                return memory.withConnect4Table { table in
                    Connect4Player.chooseMove(connect4, level: level, random: &random, table: &table, shouldStop: shouldStop)
                }
            }
            return Connect4Player.chooseMove(connect4, level: level, random: &random, shouldStop: shouldStop)
        case let cube4 as Cube4:
            if level == .hard && !legacy {
                return memory.withCube4Engine { engine in
                    Cube4Player.hardMove(cube4, engine: &engine, shouldStop: shouldStop)
                }
            }
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

/// What a bot keeps between moves: allocated on first use, shared by the
/// copies of one bot, behind a lock because a copy may move on another thread.
final class BotMemory: @unchecked Sendable {
    private let lock = Mutex(())
    /// `hard` Connect Four's solver; only touched under `lock`.
    private var connect4Solver: Connect4Solver?
    /// `hard` Connect Four's heuristic search table (made once, cleared
    /// before each search); only touched under `lock`.
    private var connect4Table: TranspositionTable?

    /// `hard` Cube Four's engine and its table; only touched under `lock`.
    private var cube4Engine: Cube4Engine?

    /// Runs `body` with `hard` Cube Four's engine kept across moves (nil
    /// until the first search makes one).
    func withCube4Engine<Result>(_ body: (inout Cube4Engine?) -> Result) -> Result {
        lock.withLock { _ in body(&cube4Engine) }
    }

    /// Runs `body` with the solver, made with the shipped book on first use,
    /// and the heuristic search's table.
    func withConnect4Solver<Result>(_ body: (Connect4Solver, inout TranspositionTable?) -> Result) -> Result {
        lock.withLock { _ in
            let solver = connect4Solver ?? Connect4Solver(book: Connect4Book.shipped)
            connect4Solver = solver
            return body(solver, &connect4Table)
        }
    }

    /// Runs `body` with the heuristic search's table alone (the old `hard`).
    func withConnect4Table<Result>(_ body: (inout TranspositionTable?) -> Result) -> Result {
        lock.withLock { _ in body(&connect4Table) }
    }
}
