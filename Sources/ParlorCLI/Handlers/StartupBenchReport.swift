import Bench
import Foundation

/// Runs `parlor bench startup` (Bench's `StartupBench`) and prints each
/// case's median and its ratio to the trivial binary against the goal.
func runBenchStartup(_ options: BenchStartupOptions) async throws -> ExitCode {
    // Measured before the heading: a failure prints the error alone.
    let figures = try measureStartup()
    Console.write("parlor bench startup: spawn to exit, median of \(StartupBench.runs) runs, stdout to /dev/null\n")
    Console.write("  the trivial binary: \(StartupBench.trivialName), prints one line, Swift runtime in shared libraries\n")
    Console.write(StartupBench.runtimeLinkedIn()
        ? "  parlor: Swift runtime and Foundation linked in (a release build)\n"
        : "  parlor: Swift runtime and Foundation in shared libraries (a debug build; release builds link them in)\n")
    for entry in figures {
        var line = "  \(entry.label): \(twoDecimals(Double(entry.median.microseconds) / 1000)) ms"
        if let ratio = entry.ratio {
            line += ", \(twoDecimals(ratio))x the trivial binary"
            line += " (goal: \(StartupBench.goal)x or less, "
            line += goalVerdict(entry.goalMet) + ")"
        }
        Console.write(line + "\n")
    }
    return .success
}

private func measureStartup() throws -> [StartupBench.Case] {
    do { return try StartupBench.measure() } catch let failure as StartupBench.Failure {
        throw CommandFailure(failure.message, exitCode: failure.exitCode)
    }
}

/// `value` with two decimals.
private func twoDecimals(_ value: Double) -> String { String(format: "%.2f", value) }

extension StartupBench.Failure {
    /// What the person reads after "Error: ".
    var message: String {
        switch self {
        case .noOwnExecutable: "cannot find parlor's own executable (/proc/self/exe is unreadable)"
        case .floorMissing(let path):
            "the floor \(path) is missing: build it with 'swift build -c release --product \(StartupBench.trivialName)'"
        case .cannotStart(let program, let reason): "cannot start \(program): \(reason)"
        case .cannotWait(let program, let reason): "cannot wait for \(program): \(reason)"
        case .runFailed(let command, let status): "\(command) failed (wait status \(status))"
        }
    }

    var exitCode: ExitCode {
        switch self {
        case .noOwnExecutable, .cannotStart, .cannotWait: .ioError
        case .floorMissing, .runFailed: .failure
        }
    }
}
