import Bots
import Foundation
import Games

/// `parlor bench bots`. Connect Four: hard against medium from varied
/// openings, each level's share of moves that keep the exact value, and the
/// exact solver's time per position. Cube Four: hard against the hard of
/// earlier releases, with the longest move. Other games: hard against medium.
/// CPU-bound: callers run it off Swift's cooperative pool. ParlorCLI prints the figures as they come.
public enum BotBench {
    /// The position sets the issue names: random play of 8-12, 14-20 and 28-34 moves.
    public static let sets: [(plies: ClosedRange<Int>, count: Int)] = [(8...12, 20), (14...20, 100), (28...34, 200)]

    /// Each set's positions, fixed by the set's seed.
    public static func positions(_ index: Int) -> [(game: Connect4, columns: [Int])] {
        Connect4Strength.positions(count: sets[index].count, plies: sets[index].plies, seed: 77 + UInt64(index))
    }

    /// `--positions`' text: a line per position, the set (`8-12`), a space,
    /// and the moves as columns 1-7 (what other solvers read).
    public static func positionLines() -> String {
        sets.indices.flatMap { index in
            positions(index).map { "\(label(sets[index].plies)) " + $0.columns.map { String($0 + 1) }.joined() + "\n" }
        }.joined()
    }

    /// Hard against the opponent `game` is benched against, and the verdict.
    public struct Duel: Sendable {
        public var result: DuelResult
        /// Hard's share of the games, in percent.
        public var share: Double
        /// Cube Four's goal (hard wins at least 90% and never takes 1 s over a move); nil for other games.
        public var goalMet: Bool?
    }

    /// Hard's opponent for `game`: the hard of earlier releases for Cube Four, else medium.
    public static func opponentName(_ game: String) -> String {
        game == Cube4.id ? "the hard of earlier releases" : "medium"
    }

    /// Plays `games` games of `game` from openings drawn with `seed`, seats alternating;
    /// `progress` hears how many are done.
    public static func duel(game: String, games: Int, seed: UInt64 = 2026, progress: @escaping (Int) -> Void) -> Duel {
        let opponent: BotDuel.Entrant = game == Cube4.id ? .legacyHard : .level(.medium)
        let result = BotDuel.play(gameID: game, .level(.hard), against: opponent, games: games, seed: seed, progress: progress)
        let share = result.games == 0 ? 0 : 100 * Double(result.winsByA) / Double(result.games)
        let met = game == Cube4.id ? share >= 90 && result.longestMoveA < .seconds(1) : nil
        return Duel(result: result, share: share, goalMet: met)
    }

    /// The levels whose moves are judged, in the table's column order.
    public static let strengthLevels: [(name: String, entrant: BotDuel.Entrant)] = [
        ("easy", .level(.easy)), ("medium", .level(.medium)), ("hard", .level(.hard)), ("old hard", .legacyHard),
    ]

    /// One set's row: each level's share (percent) of moves keeping the exact value.
    public struct StrengthRow: Sendable {
        public var plies: ClosedRange<Int>
        public var positions: Int
        public var keptPercent: [Double]
    }

    /// The exact solver's mean and slowest time per position of one set, without and with the book.
    public struct SolverTimes: Sendable {
        public var plies: ClosedRange<Int>
        public var mean: (withoutBook: Duration, withBook: Duration)
        public var slowest: (withoutBook: Duration, withBook: Duration)
    }

    /// Each level's share of value-keeping moves, and the solver's time, on
    /// each set; `row` hears each set's row as it is done.
    public static func connect4Strength(row: (StrengthRow) -> Void) -> [SolverTimes] {
        let clock = ContinuousClock()
        // Every table made once: one bot per level, one solver without and one with the book.
        let bots = strengthLevels.map { $0.entrant.bot(seed: 0) }
        let solvers = [Connect4Solver(book: nil), Connect4Solver(book: Connect4Book.shipped)]
        var timings: [SolverTimes] = []
        for (index, set) in sets.enumerated() {
            let positions = Self.positions(index).map(\.game)
            // Solver time per position from a cleared table, without and with the book.
            var times: [Duration] = [], slowest: [Duration] = []
            for solver in solvers {
                var total = Duration.zero, longest = Duration.zero
                for position in positions {
                    solver.clearTable()
                    let start = clock.now
                    _ = solver.score(position)
                    let elapsed = clock.now - start
                    total += elapsed
                    longest = max(longest, elapsed)
                }
                times.append(total / positions.count)
                slowest.append(longest)
            }
            timings.append(SolverTimes(plies: set.plies, mean: (times[0], times[1]), slowest: (slowest[0], slowest[1])))
            let analyses = positions.compactMap { solvers[1].analyse($0) }
            let kept = bots.enumerated().map { offset, bot in
                100 * Double(Connect4Strength.movesKeepingValue(bot, in: positions, judge: analyses, seed: UInt64(offset)))
                    / Double(max(analyses.count, 1))
            }
            row(StrengthRow(plies: set.plies, positions: positions.count, keptPercent: kept))
        }
        return timings
    }

    /// The 1-minute load average (`/proc/loadavg`): how busy the machine was while the times were taken.
    public static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "unknown"
    }

    /// A set's name: `8-12`.
    public static func label(_ plies: ClosedRange<Int>) -> String { "\(plies.lowerBound)-\(plies.upperBound)" }
}
