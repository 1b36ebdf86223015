import Bots
import Foundation

/// Runs `parlor bench bots`: `hard` against `medium` from varied openings,
/// counting wins; the issue asks for at least 95 of 100 at connect4.
func runBenchBots(_ options: BenchBotsOptions) async throws -> ExitCode {
    Console.write("parlor bench bots: \(options.games) games of \(options.game), hard against medium, seats alternating\n")
    let games = options.games, game = options.game
    let result = await withCheckedContinuation { continuation in
        // A CPU-bound loop: keep it off Swift's cooperative pool.
        DispatchQueue.global().async {
            continuation.resume(returning: BotDuel.play(gameID: game, .hard, against: .medium, games: games, seed: 2026) { done in
                if done % 10 == 0 { Console.writeError("  \(done)/\(games)\n") }
            })
        }
    }
    let hardMs = Double(result.averageMoveTimeA.microseconds) / 1000
    let mediumMs = Double(result.averageMoveTimeB.microseconds) / 1000
    Console.write("""
          hard won \(result.winsByA), medium won \(result.winsByB), drawn \(result.draws) (of \(result.games))
          time per move: hard \(String(format: "%.1f", hardMs)) ms, medium \(String(format: "%.1f", mediumMs)) ms

        """)
    return .success
}
