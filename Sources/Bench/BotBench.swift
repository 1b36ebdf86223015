import Bots
import Foundation
import Games

/// Runs `parlor bench bots`. Connect Four: hard against medium from varied
/// openings, each level's share of moves that keep the exact value, and the
/// exact solver's time per position. Cube Four: hard against the hard of
/// earlier releases, with the longest move. Other games: hard against medium.
func runBenchBots(_ options: BenchBotsOptions) async throws -> ExitCode {
    if let path = options.positionsFile, options.game == Connect4.id {
        do {
            try Data(BotBench.positionLines().utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw BenchPositionsError(path: path, reason: error.localizedDescription)
        }
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        // A CPU-bound loop: keep it off Swift's cooperative pool.
        DispatchQueue.global().async {
            BotBench.run(game: options.game, games: options.games)
            continuation.resume()
        }
    }
    return .success
}

/// `--positions FILE` could not be written.
struct BenchPositionsError: UserFacingError {
    let path: String
    let reason: String
    var exitCode: ExitCode { .ioError }
    var message: String { "cannot write the positions to \(path): \(reason)" }
}

/// The figures `parlor bench bots` prints, written as they come.
enum BotBench {
    /// The position sets the issue names: random play of 8-12, 14-20 and 28-34 moves.
    static let sets: [(plies: ClosedRange<Int>, count: Int)] = [(8...12, 20), (14...20, 100), (28...34, 200)]

    /// Each set's positions, fixed by the set's seed.
    static func positions(_ index: Int) -> [(game: Connect4, columns: [Int])] {
        Connect4Strength.positions(count: sets[index].count, plies: sets[index].plies, seed: 77 + UInt64(index))
    }

    /// `--positions`' text: a line per position, the set (`8-12`), a space,
    /// and the moves as columns 1-7 (what other solvers read).
    static func positionLines() -> String {
        sets.indices.flatMap { index in
            positions(index).map { "\(label(sets[index].plies)) " + $0.columns.map { String($0 + 1) }.joined() + "\n" }
        }.joined()
    }

    static func run(game: String, games: Int) {
        let opponent: BotDuel.Entrant = game == Cube4.id ? .legacyHard : .level(.medium)
        let opponentName = game == Cube4.id ? "the hard of earlier releases" : "medium"
        Console.write("parlor bench bots: \(games) games of \(game), hard against \(opponentName), seats alternating\n")
        let result = BotDuel.play(gameID: game, .level(.hard), against: opponent, games: games, seed: 2026) { done in
            if done % 10 == 0 { Console.writeError("  \(done)/\(games)\n") }
        }
        let share = result.games == 0 ? 0 : 100 * Double(result.winsByA) / Double(result.games)
        Console.write("""
              hard won \(result.winsByA), \(game == Cube4.id ? "old hard" : "medium") won \(result.winsByB), drawn \(result.draws) (of \(result.games)): hard \(percent(share))
              time per move: hard \(milliseconds(result.averageMoveTimeA)) (p99 \(milliseconds(result.p99MoveTimeA)), \
            longest \(milliseconds(result.longestMoveA))), \
            other \(milliseconds(result.averageMoveTimeB)) (longest \(milliseconds(result.longestMoveB)))

            """)
        if game == Cube4.id {
            let met = share >= 90 && result.longestMoveA < .seconds(1)
            Console.write("  goal: hard wins at least 90% and never takes 1 s over a move: \(met ? "met" : "not met")\n")
            Console.write("  load average at the end: \(loadAverage())\n")
        }
        if game == Connect4.id { connect4Strength() }
    }

    /// Each level's share of value-keeping moves, and the solver's time, on each set.
    static func connect4Strength() {
        let entrants: [(String, BotDuel.Entrant)] = [
            ("easy", .level(.easy)), ("medium", .level(.medium)), ("hard", .level(.hard)), ("old hard", .legacyHard),
        ]
        let clock = ContinuousClock()
        let book = Connect4Book.shipped
        // Every table made once: one bot per level, one solver without and one with the book.
        let bots = entrants.map { $0.1.bot(seed: 0) }
        let solvers = [Connect4Solver(book: nil), Connect4Solver(book: book)]
        Console.write("moves keeping the exact value (the best move's score), positions from random play:\n")
        Console.write("  moves    positions" + entrants.map { pad($0.0, 10) }.joined() + "\n")
        var timings: [String] = []
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
            timings.append("  \(pad(label(set.plies), 5, left: true))    \(pad(milliseconds(times[0]), 12))\(pad(milliseconds(slowest[0]), 12))"
                + "\(pad(milliseconds(times[1]), 12))\(pad(milliseconds(slowest[1]), 12))")
            let analyses = positions.compactMap { solvers[1].analyse($0) }
            var row = "  \(pad(label(set.plies), 5, left: true))    \(pad(String(positions.count), 9))"
            for (offset, bot) in bots.enumerated() {
                let kept = Connect4Strength.movesKeepingValue(bot, in: positions, judge: analyses, seed: UInt64(offset))
                row += pad(percent(100 * Double(kept) / Double(max(analyses.count, 1))), 10)
            }
            Console.write(row + "\n")
        }
        Console.write("exact solver, mean time per position (table cleared before each):\n")
        Console.write("  book: \(book.map { "\($0.count) positions, up to move \($0.depth)" } ?? "none")\n")
        Console.write("  moves    " + ["no book", "slowest", "with book", "slowest"].map { pad($0, 12) }.joined() + "\n")
        Console.write(timings.joined(separator: "\n") + "\n")
    }

    /// The 1-minute load average (`/proc/loadavg`): how busy the machine was while the times were taken.
    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "unknown"
    }

    static func label(_ plies: ClosedRange<Int>) -> String { "\(plies.lowerBound)-\(plies.upperBound)" }

    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value) }

    static func milliseconds(_ duration: Duration) -> String {
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return ms < 1 ? String(format: "%.3f ms", ms) : String(format: "%.1f ms", ms)
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + fill : fill + text
    }
}
