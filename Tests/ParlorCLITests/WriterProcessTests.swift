import Foundation
import ParlorTestSupport
import Store
import Testing
@testable import ParlorCLI
@preconcurrency import Glibc

/// A match saved as "playing" is being played only while the process that
/// wrote it runs; `parlor matches` and `parlor resume` go by that.
@Suite struct WriterProcessTests {
    static func record(writtenBy pid: Int32) -> StoredMatch {
        StoredMatch(state: MatchFixtures.newMatch("tictactoe"), role: .host, localSeat: 0, lastActivity: 0, writerPID: pid)
    }

    @Test("a match whose writer was killed but not yet collected by its parent (a zombie) is interrupted")
    func zombieWriter() async throws {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for pointer in argv { free(pointer) } }
        try #require(posix_spawn(&pid, "/bin/true", nil, nil, argv, environ) == 0)
        // Not waited for: it stays a zombie until the end of the test.
        defer { var status: Int32 = 0; waitpid(pid, &status, 0) }
        let deadline = ContinuousClock.now + .seconds(10)
        while WriterProcessTests.isRunningByKillAlone(pid), Stores.processIsRunning(pid), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.isRunningByKillAlone(pid), "kill(pid, 0) still finds the zombie")
        #expect(Stores.shownPhase(of: Self.record(writtenBy: pid)) == .interrupted)
    }

    @Test("a match whose writer still runs is being played; one whose writer is gone is interrupted")
    func liveAndGoneWriters() {
        #expect(Stores.shownPhase(of: Self.record(writtenBy: getppid())) == .playing)
        #expect(Stores.shownPhase(of: Self.record(writtenBy: Int32.max - 1)) == .interrupted)
    }

    static func isRunningByKillAlone(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 }
}
