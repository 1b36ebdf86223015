import Foundation
import ParlorTestSupport
import Testing

/// Issue 14 item 3 for one match on the full screen: the bell rings when the
/// turn becomes ours after a LAN opponent moved, not after an offline bot's
/// instant reply (on by default, off with
/// `--no-bell`), the window title says it is our turn and is put back on the
/// way out; on a pipe neither is ever written. Bytes read with `tmux pipe-pane`.
@Suite("The bell and the title on a real terminal (tmux)", .serialized)
struct BellAndTitleTerminalTests {
    /// Plays one move against the easy bot at connect4 and leaves with Ctrl-C; returns every byte parlor wrote.
    static func playOneMove(_ extra: [String]) async throws -> [UInt8] {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("bell")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let bytes = home.path + "/pane.bytes"
        var environment = home.environment
        environment["XDG_CONFIG_HOME"] = home.path + "/config"
        let tmux = try TmuxSession.start(["sh", "-c", "sleep 0.3; \"$0\" \"$@\"; echo \"exit status $?\"; sleep 60", parlor,
                                          "play", "connect4", "--vs", "bot:easy", "--seat", "first"] + extra,
                                         environment: environment)
        defer { tmux.kill() }
        try tmux.tmux(["pipe-pane", "-o", "-t", tmux.name, "cat >> '\(bytes)'"])
        #expect(await tmux.waitFor("Your turn", timeout: .seconds(20)), "\(tmux.screenText())")
        tmux.send("4", "Enter")
        // The bot answers (its piece shows beside its name and on the board), and it is our turn again.
        #expect(await tmux.waitUntil(timeout: .seconds(20)) { screen in
            let text = screen.joined(separator: "\n")
            return text.filter { $0 == "\u{25CB}" }.count >= 2 && text.contains("Your turn")
        }, "\(tmux.screenText())")
        try? await Task.sleep(for: .milliseconds(300))
        tmux.send("C-c")
        #expect(await tmux.waitFor("exit status 130", timeout: .seconds(15)), "\(tmux.screenText())")
        return Array((try? Data(contentsOf: URL(fileURLWithPath: bytes))) ?? Data())
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard needle.count <= bytes.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }

    @Test("offline: no BEL after the bot's instant reply (the person is looking), the title set and put back",
          .enabled(if: LeavingTerminalTests.canRun))
    func bellAndTitle() async throws {
        let bytes = try await Self.playOneMove([])
        #expect(!bytes.contains(0x07), "a bell after an offline bot's reply")
        #expect(Self.contains(bytes, "\u{1B}]2;parlor \u{2014} your turn: connect4 vs Easy bot\u{1B}\\"))
        #expect(Self.contains(bytes, "\u{1B}[22;2t") && Self.contains(bytes, "\u{1B}[23;2t"), "the old title saved and put back")
    }

    @Test("on the LAN: one BEL when the opponent has moved (none at the first turn)",
          .enabled(if: LeavingTerminalTests.canRun))
    func bellForALANOpponent() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let hostHome = LeavingTerminalTests.home("bell-host"), home = LeavingTerminalTests.home("bell-guest")
        defer { for path in [hostHome.path, home.path] { try? FileManager.default.removeItem(atPath: path) } }
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let port = freePort()
        // The host's bot opens; the guest's first turn comes after its move.
        let host = try TmuxSession.start([parlor, "host", "connect4", "--port", "\(port)", "--bot", "easy", "--seat", "first", "--json"],
                                         environment: hostHome.environment)
        defer { host.kill() }
        #expect(await host.waitFor("listening"), "\(host.screenText())")
        let bytes = home.path + "/pane.bytes"
        let guest = try TmuxSession.start(["sh", "-c", "sleep 0.3; \"$0\" \"$@\"; echo \"exit status $?\"; sleep 60", parlor,
                                           "join", "127.0.0.1:\(port)", "--name", "Bo"], environment: home.environment)
        defer { guest.kill() }
        try guest.tmux(["pipe-pane", "-o", "-t", guest.name, "cat >> '\(bytes)'"])
        #expect(await guest.waitFor("Your turn", timeout: .seconds(20)), "\(guest.screenText())")
        try? await Task.sleep(for: .milliseconds(300))
        guest.send("C-c")
        #expect(await guest.waitFor("exit status 130", timeout: .seconds(15)), "\(guest.screenText())")
        let written = Array((try? Data(contentsOf: URL(fileURLWithPath: bytes))) ?? Data())
        #expect(written.filter { $0 == 0x07 }.count == 1, "one bell: the turn that came after the host's move")
    }

    @Test("--no-bell: no BEL at all", .enabled(if: LeavingTerminalTests.canRun))
    func noBell() async throws {
        let bytes = try await Self.playOneMove(["--no-bell"])
        #expect(!bytes.contains(0x07))
    }

    @Test("on a pipe: no bell and no title, whatever the flags", .enabled(if: LeavingTerminalTests.canRun))
    func pipe() throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("bell-pipe")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let text = try ReplayTerminalTests.run(parlor, ["play", "connect4", "--vs", "bot:easy", "--bot", "easy", "--seed", "3"],
                                               environment: home.environment)
        #expect(text.contains("Result:") || text.contains("wins") || text.contains("draw"), "\(text)")
        #expect(!text.utf8.contains(0x07) && !text.contains("\u{1B}]2;"))
    }
}
