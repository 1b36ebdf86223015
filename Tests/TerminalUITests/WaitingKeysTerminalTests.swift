import Foundation
import Testing

/// Every waiting screen has a working q/Esc: the host's "Waiting for a player
/// to join…" screen echoed `q^[` and only Ctrl-C stopped it.
@Suite("Waiting screens stop on q or Esc (tmux)", .serialized)
struct WaitingKeysTerminalTests {
    @Test("the host's waiting screen stops on q, and on Esc, without echoing them; the exit status is 0",
          .enabled(if: LeavingTerminalTests.canRun), arguments: ["q", "Escape"])
    func hostWaitStops(key: String) async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("wait-host")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let port = 47_900 + Int.random(in: 0..<90)
        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        let host = try TmuxSession.start(["sh", "-c", shell, parlor, "host", "connect4", "--port", "\(port)", "--name", "Ana"],
                                         columns: 80, rows: 24, environment: home.environment)
        defer { host.kill() }
        #expect(await host.waitFor("Waiting for a player to join"), "\(host.screenText())")
        #expect(host.screenText().contains("q, Esc or Ctrl-C to stop"), "\(host.screenText())")
        host.send(key)
        #expect(await host.waitFor("exit status 0", timeout: .seconds(10)), "\(host.screenText())")
        #expect(host.screenText().contains("Stopped hosting; nobody joined."), "\(host.screenText())")
        #expect(!host.screenText().contains("^["), "\(host.screenText())")
    }
}
