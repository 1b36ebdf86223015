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

    /// A host (Ana) at her first turn, who does not move, against an easy bot joined: the table a spectator watches.
    struct Table {
        let host: TmuxSession, guest: TmuxSession
        let port: UInt16
        let homes: [String]

        static func start(_ parlor: String) async throws -> Table {
            let hostHome = LeavingTerminalTests.home("watch-host"), guestHome = LeavingTerminalTests.home("watch-guest")
            let port = freePort()
            let host = try TmuxSession.start([parlor, "host", "connect4", "--port", "\(port)", "--name", "Ana", "--seat", "first"],
                                             columns: 100, rows: 30, environment: hostHome.environment)
            #expect(await host.waitFor("Waiting for a player"), "\(host.screenText())")
            let guest = try TmuxSession.start([parlor, "join", "127.0.0.1:\(port)", "--bot", "easy", "--json"],
                                              columns: 100, rows: 30, environment: guestHome.environment)
            #expect(await host.waitFor("Your turn"), "\(host.screenText())")
            return Table(host: host, guest: guest, port: port, homes: [hostHome.path, guestHome.path])
        }

        /// `parlor watch` of this table in a terminal of its own, with `extra` flags, in `home`.
        func watch(_ parlor: String, home: (path: String, environment: [String: String]), extra: [String] = []) throws -> TmuxSession {
            let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
            return try TmuxSession.start(["sh", "-c", shell, parlor, "watch", "127.0.0.1:\(port)"] + extra,
                                         columns: 100, rows: 30, environment: home.environment)
        }

        func stop() {
            host.kill()
            guest.kill()
            for path in homes { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    @Test("a spectator's full screen offers watching keys, its ? lists them, Enter says nothing of turns, and q says what it left",
          .enabled(if: LeavingTerminalTests.canRun))
    func spectatorKeysAndLastLine() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let table = try await Table.start(parlor)
        defer { table.stop() }
        let home = LeavingTerminalTests.home("watch-keys")
        let watcher = try table.watch(parlor, home: home)
        defer { watcher.kill(); try? FileManager.default.removeItem(atPath: home.path) }
        #expect(await watcher.waitFor("Watching   t: talk   q: leave   ?: keys"), "\(watcher.screenText())")
        #expect(!watcher.screenText().contains("Enter: drop"), "a player's keys: \(watcher.screenText())")
        watcher.send("Enter")
        watcher.send("h")
        try await Task.sleep(for: .milliseconds(500))
        #expect(!watcher.screenText().contains("It's not your turn"), "\(watcher.screenText())")
        #expect(!watcher.screenText().contains("No hints"), "\(watcher.screenText())")
        watcher.send("?")
        #expect(await watcher.waitFor("stop watching"), "\(watcher.screenText())")
        #expect(!watcher.screenText().contains("counts as a loss"), "\(watcher.screenText())")
        #expect(!watcher.screenText().contains("drop a piece"), "\(watcher.screenText())")
        watcher.send("x")
        #expect(await watcher.waitFor("q: leave"), "\(watcher.screenText())")
        watcher.send("q")
        #expect(await watcher.waitFor("exit status 0", timeout: .seconds(10)), "\(watcher.screenText())")
        #expect(watcher.screenText().contains("You stopped watching Connect Four (Ana vs Easy bot, move 1)."), "\(watcher.screenText())")
        #expect(!watcher.screenText().contains("is still playing"), "\(watcher.screenText())")
    }

    @Test("a plain spectator is told that nothing typed moves, and q says what it left",
          .enabled(if: LeavingTerminalTests.canRun))
    func plainSpectator() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let table = try await Table.start(parlor)
        defer { table.stop() }
        let home = LeavingTerminalTests.home("watch-plain")
        let watcher = try table.watch(parlor, home: home, extra: ["--plain"])
        defer { watcher.kill(); try? FileManager.default.removeItem(atPath: home.path) }
        #expect(await watcher.waitFor("Ana is thinking"), "\(watcher.screenText())")
        watcher.send("4", "Enter")
        #expect(await watcher.waitFor("You are watching: nothing typed here moves (/say TEXT talks, q leaves)."), "\(watcher.screenText())")
        watcher.send("q", "Enter")
        #expect(await watcher.waitFor("exit status 0", timeout: .seconds(10)), "\(watcher.screenText())")
        #expect(watcher.screenText().contains("You stopped watching Connect Four (Ana vs Easy bot, move 1)."), "\(watcher.screenText())")
    }
}
