import Foundation
import ParlorTestSupport
import Testing

/// A spectator in a real terminal (tmux) against real processes over loopback.
@Suite("A spectator's screen in a real terminal (tmux)", .serialized)
struct SpectatorTerminalTests {
    /// A host at its first turn who does not move, an easy bot joined, and a spectator arriving then:
    /// nothing moves while it watches, so whatever it shows, it was shown at once.
    @Test("a spectator who arrives while nobody moves sees the board and the seats at once, and q leaves",
          .enabled(if: LeavingTerminalTests.canRun))
    func lateSpectatorSeesTheBoardAtOnce() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let hostHome = LeavingTerminalTests.home("watch-host"), watchHome = LeavingTerminalTests.home("watch-spectator")
        let guestHome = LeavingTerminalTests.home("watch-guest")
        defer { for path in [hostHome.path, watchHome.path, guestHome.path] { try? FileManager.default.removeItem(atPath: path) } }
        let port = freePort()
        let host = try TmuxSession.start([parlor, "host", "connect4", "--port", "\(port)", "--name", "Ana", "--seat", "first"],
                                         columns: 100, rows: 30, environment: hostHome.environment)
        defer { host.kill() }
        #expect(await host.waitFor("Waiting for a player"), "\(host.screenText())")
        let guest = try TmuxSession.start([parlor, "join", "127.0.0.1:\(port)", "--bot", "easy", "--json"],
                                          columns: 100, rows: 30, environment: guestHome.environment)
        defer { guest.kill() }
        #expect(await host.waitFor("Your turn"), "\(host.screenText())")

        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        let watcher = try TmuxSession.start(["sh", "-c", shell, parlor, "watch", "127.0.0.1:\(port)"],
                                            columns: 100, rows: 30, environment: watchHome.environment)
        defer { watcher.kill() }
        // The board and both seats, before anyone moves (the host waits for a key that never comes).
        #expect(await watcher.waitUntil(timeout: .seconds(5)) { screen in
            let text = screen.joined(separator: "\n")
            return text.contains("1   2   3   4   5   6   7") && text.contains("Ana") && text.contains("Easy bot")
        }, "\(watcher.screenText())")
        watcher.send("q")
        #expect(await watcher.waitFor("exit status 0", timeout: .seconds(10)), "\(watcher.screenText())")
        #expect(!watcher.screenText().contains("parlor resume"), "a spectator has nothing to resume: \(watcher.screenText())")
    }
}
