import Bench
import Bots
import Foundation
import Games

/// Runs `parlor bench bots` (Bench's `BotBench`), printing its figures as they come.
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
            printBotBench(game: options.game, games: options.games, seed: options.seed)
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

private func printBotBench(game: String, games: Int, seed: UInt64) {
    Console.write("parlor bench bots: \(games) games of \(game), hard against \(BotBench.opponentName(game)), seats alternating, "
                  + "openings of seed \(seed)\n")
    let duel = BotBench.duel(game: game, games: games, seed: seed) { done in
        if done % 10 == 0 { Console.writeError("  \(done)/\(games)\n") }
    }
    let result = duel.result
    Console.write("""
          hard won \(result.winsByA), \(game == Cube4.id ? "old hard" : "medium") won \(result.winsByB), drawn \(result.draws) (of \(result.games)): hard \(percent(duel.share))
          time per move: hard \(milliseconds(result.averageMoveTimeA)) (p99 \(milliseconds(result.p99MoveTimeA)), \
        longest \(milliseconds(result.longestMoveA))), \
        other \(milliseconds(result.averageMoveTimeB)) (longest \(milliseconds(result.longestMoveB)))

        """)
    if let met = duel.goalMet {
        Console.write("  goal: hard wins at least 90% and never takes 1 s over a move: \(goalVerdict(met))\n")
        Console.write("  load average at the end: \(BotBench.loadAverage())\n")
    }
    if game == Connect4.id { printConnect4Strength() }
}

/// The value-keeping table, a row per set as it is done, then the solver's times.
private func printConnect4Strength() {
    Console.write("moves keeping the exact value (the best move's score), positions from random play:\n")
    Console.write("  moves    positions" + BotBench.strengthLevels.map { pad($0.name, 10) }.joined() + "\n")
    let timings = BotBench.connect4Strength { row in
        Console.write("  \(pad(BotBench.label(row.plies), 5, left: true))    \(pad(String(row.positions), 9))"
            + row.keptPercent.map { pad(percent($0), 10) }.joined() + "\n")
    }
    let book = Connect4Book.shipped
    Console.write("exact solver, mean time per position (table cleared before each):\n")
    Console.write("  book: \(book.map { "\($0.count) positions, up to move \($0.depth)" } ?? "none")\n")
    Console.write("  moves    " + ["no book", "slowest", "with book", "slowest"].map { pad($0, 12) }.joined() + "\n")
    Console.write(timings.map { times in
        "  \(pad(BotBench.label(times.plies), 5, left: true))    \(pad(milliseconds(times.mean.withoutBook), 12))"
            + "\(pad(milliseconds(times.slowest.withoutBook), 12))"
            + "\(pad(milliseconds(times.mean.withBook), 12))\(pad(milliseconds(times.slowest.withBook), 12))"
    }.joined(separator: "\n") + "\n")
}

private func percent(_ value: Double) -> String { String(format: "%.1f%%", value) }

private func milliseconds(_ duration: Duration) -> String {
    let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    return ms < 1 ? String(format: "%.3f ms", ms) : String(format: "%.1f ms", ms)
}

private func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + fill : fill + text
}
