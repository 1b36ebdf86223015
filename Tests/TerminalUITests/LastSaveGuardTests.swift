@preconcurrency import Glibc
import Synchronization
import Testing
@testable import TerminalUI

/// A signal while the end of a match is being saved does not kill parlor; it is acted on after the save.
@Suite(.serialized) struct LastSaveGuardTests {
    @Test func aSignalDuringTheLastSaveIsHeldAndTheFirstIsGivenBackAfterIt() async throws {
        let held = LastSaveGuard()
        // Before the frontend returns its own watcher has the signals; here they are ignored, not fatal.
        kill(getpid(), SIGTERM)
        held.frontendReturned()
        // Dispatch arms its signal sources off this thread.
        try await Task.sleep(for: .milliseconds(200))
        kill(getpid(), SIGINT)
        try await Task.sleep(for: .milliseconds(50))
        kill(getpid(), SIGTERM)
        try await Task.sleep(for: .milliseconds(300))
        #expect(held.release() == SIGINT, "the first signal after the frontend returned")
        #expect(held.release() == SIGINT, "a second release changes nothing")
    }

    /// A source made after the last one of its signal was cancelled never
    /// heard it (libdispatch on Linux): a host that watched while it waited
    /// for its guest was deaf to SIGHUP, Ctrl-C and kill for its whole match.
    @Test func aWatcherMadeAfterAnotherWasCancelledStillHearsTheSignal() async throws {
        let heard = Mutex<[String]>([])
        let first = SignalWatcher(signals: [SIGUSR2]) { _ in heard.withLock { $0.append("first") } }
        try await Task.sleep(for: .milliseconds(200))
        kill(getpid(), SIGUSR2)
        try await Task.sleep(for: .milliseconds(200))
        first.cancel()
        let second = SignalWatcher(signals: [SIGUSR2]) { _ in heard.withLock { $0.append("second") } }
        try await Task.sleep(for: .milliseconds(200))
        kill(getpid(), SIGUSR2)
        try await Task.sleep(for: .milliseconds(200))
        // A newer watcher hears it first; when it stops, the one before hears it again.
        let third = SignalWatcher(signals: [SIGUSR2]) { _ in heard.withLock { $0.append("third") } }
        kill(getpid(), SIGUSR2)
        try await Task.sleep(for: .milliseconds(200))
        third.cancel()
        kill(getpid(), SIGUSR2)
        try await Task.sleep(for: .milliseconds(200))
        second.cancel()
        #expect(heard.withLock { $0 } == ["first", "second", "third", "second"])
    }
}
