@preconcurrency import Glibc
import Testing
@testable import TerminalUI

/// A signal while the end of a match is being saved does not kill parlor; it is acted on after the save.
@Suite(.serialized) struct LastSaveGuardTests {
    @Test func aSignalDuringTheLastSaveIsHeldAndTheFirstIsGivenBackAfterIt() async throws {
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
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
}
