import Bench
import Foundation
import Games

/// Runs `parlor bench soak` (Bench's `SoakBench`) and prints the figures
/// docs/SOAK.md records; fails when any match did not agree.
func runBenchSoak(_ options: BenchSoakOptions) async throws -> ExitCode {
    let games = options.game.map { [$0] } ?? GameCatalog.all.map { $0.id }
    Console.write("parlor bench soak: \(options.matches) matches of \(games.joined(separator: ", ")), random-move bots, "
                  + "\(SoakLimits.concurrentMatches) at a time over 127.0.0.1\n")
    let figures = await SoakBench.run(matches: options.matches, games: games, appVersion: ParlorVersion.current) { tally, agreed in
        if tally.played % max(1, options.matches / 10) == 0 || !agreed {
            Console.writeError("  \(tally.played)/\(options.matches) played, \(tally.desyncs) desyncs, \(tally.failed) failed\n")
        }
    }
    let tally = figures.tally, seconds = figures.seconds
    var report = """
          matches played: \(tally.played) in \(String(format: "%.1f", seconds)) s (\(String(format: "%.1f", Double(tally.played) / seconds)) matches/s)
          turns: \(tally.turns) (\(String(format: "%.0f", Double(tally.turns) / seconds)) turns/s)
          desyncs: \(tally.desyncs)
          failed matches: \(tally.failed)
          objects of finished matches still alive (controllers, peers, hosts, sockets): \(figures.survivors) of \(figures.watched)
          open file descriptors: \(figures.descriptorsBefore.map(String.init) ?? "?") before, \(figures.descriptorsAfter.map(String.init) ?? "?") after
          peak memory (VmHWM): \(figures.peakMemory ?? "?")   at the end (VmRSS): \(figures.residentMemory ?? "?")

        """
    for problem in tally.problems.prefix(10) { report += "  match \(problem.index + 1): \(problem.reason)\n" }
    Console.write(report)
    return figures.passed ? .success : .failure
}
