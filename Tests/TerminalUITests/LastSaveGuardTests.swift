@preconcurrency import Glibc
import Synchronization
import Testing
@testable import TerminalUI

/// A signal while the end of a match is being saved does not kill parlor; it is acted on after the save.
@Suite(.serialized) struct LastSaveGuardTests {
    @Test func aSignalDuringTheLastSaveIsHeldAndTheFirstIsGivenBackAfterIt() async throws {
        let held = LastSaveGuard()
        // Before the frontend returns its own watcher has the signals; here they are ignored, not fatal.
        try await Self.sendUntilHandled(SIGTERM)
        held.frontendReturned()
        try await Self.sendUntilHandled(SIGINT)
        try await Self.sendUntilHandled(SIGTERM)
        #expect(held.release() == SIGINT, "the first signal after the frontend returned")
        #expect(held.release() == SIGINT, "a second release changes nothing")
    }

    /// Sends `number` to this process and waits until the hub has handled it.
    /// Dispatch arms a signal's source off the thread that made it, and one
    /// sent before that is ignored (by design), so it is sent again after a
    /// second without a delivery; on a loaded machine arming takes a while.
    static func sendUntilHandled(_ number: Int32) async throws {
        let before = SignalHub.shared.deliveries
        for _ in 0..<20 {
            kill(getpid(), number)
            for _ in 0..<100 {
                try await Task.sleep(for: .milliseconds(10))
                if SignalHub.shared.deliveries > before { return }
            }
        }
        Issue.record("signal \(number) was never delivered")
    }

    /// A source made after the last one of its signal was cancelled never
    /// heard it (libdispatch on Linux): a host that watched while it waited
    /// for its guest was deaf to SIGHUP, Ctrl-C and kill for its whole match.
    @Test func aWatcherMadeAfterAnotherWasCancelledStillHearsTheSignal() async throws {
        let heard = Mutex<[String]>([])
        let first = SignalWatcher(signals: [SIGUSR2]) { _ in heard.withLock { $0.append("first") } }
        try await Self.sendUntilHandled(SIGUSR2)
        first.cancel()
        let second = SignalWatcher(signals: [SIGUSR2]) { _ in heard.withLock { $0.append("second") } }
        try await Self.sendUntilHandled(SIGUSR2)
        // A newer watcher hears it first; when it stops, the one before hears it again.
        let third = SignalWatcher(signals: [SIGUSR2]) { _ in heard.withLock { $0.append("third") } }
        try await Self.sendUntilHandled(SIGUSR2)
        third.cancel()
        try await Self.sendUntilHandled(SIGUSR2)
        second.cancel()
        #expect(heard.withLock { $0 } == ["first", "second", "third", "second"])
    }
}
