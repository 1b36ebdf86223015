@preconcurrency import Glibc
import Synchronization
import TerminalUI

/// Ctrl-C during a bench: what a user expects is that it stops now and
/// leaves nothing behind (no store of its own in the data directory, no
/// host process of its own still serving).
///
/// `run` measures in a task of its own that the first SIGINT, SIGTERM or
/// SIGHUP cancels; the bench's loops and waits give way to the cancellation
/// and its defers clean up; then `cleanUp` runs, still watched. A second
/// signal does not wait: `cleanUpNow` runs on the signal queue and the
/// process exits with 128 + the signal.
enum BenchInterruption {
    /// The result of `body`, and the first signal that came, if one did.
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T, cleanUp: @Sendable () -> Void = {},
                                 cleanUpNow: @escaping @Sendable () -> Void) async -> (result: Result<T, any Error>, signal: Int32?) {
        let books = Mutex<(signal: Int32?, task: Task<T, any Error>?)>((nil, nil))
        let watcher = SignalWatcher(signals: SignalWatcher.terminating) { number in
            let (again, task) = books.withLock { books in
                defer { books.signal = books.signal ?? number }
                return (books.signal != nil, books.task)
            }
            if again {
                cleanUpNow()
                _exit(ExitCode(endedBy: number).rawValue)
            }
            task?.cancel()
        }
        defer { watcher.cancel() }
        let task = Task { try await body() }
        // A signal that came before the task did cancels it now.
        if books.withLock({ books in books.task = task; return books.signal != nil }) { task.cancel() }
        let result = await task.result
        cleanUp()
        return (result, books.withLock { $0.signal })
    }
}

/// Says which stores of earlier runs, cut short, `BenchLeftovers` removed from `parent` (nothing when none).
func reportLeftovers(_ removed: [String], bench: String, parent: String) {
    guard !removed.isEmpty else { return }
    Console.writeError("parlor: bench \(bench): removed \(removed.count) store\(removed.count == 1 ? "" : "s") that runs cut short "
                       + "left in \(parent): \(removed.joined(separator: ", "))\n")
}
