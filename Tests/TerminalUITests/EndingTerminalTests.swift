import Foundation
import ParlorTestSupport
import Testing

/// Issue 15, "endings say what happens next": when a LAN match breaks off,
/// both sides read, in full and within the window, who left, that the match
/// can continue, the exact `parlor resume ID` for this side and what the
/// other side must do. Two real parlors in two real terminals (tmux).
@Suite("Endings in a real terminal (tmux)", .serialized)
struct EndingTerminalTests {
    /// The screen as one line of words: wrapping and indents do not matter, the words do.
    static func words(_ lines: [String]) -> String {
        lines.joined(separator: " ").split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    /// The process that `parent` (the pane's shell) runs.
    static func child(of parent: Int32) -> Int32? {
        let text = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The match id in the title line.
    static func matchID(_ screen: String) -> String? {
        guard let range = screen.range(of: "match ") else { return nil }
        let id = screen[range.upperBound...].prefix { $0.isHexDigit }
        return id.count == 8 ? String(id) : nil
    }

    @Test("the side left behind reads who left and both resume lines, wrapped within the window",
          .enabled(if: LeavingTerminalTests.canRun), arguments: [(80, "guest"), (40, "guest"), (80, "host"), (40, "host")])
    func endingTexts(columns: Int, dies: String) async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let hostHome = LeavingTerminalTests.home("end-host"), guestHome = LeavingTerminalTests.home("end-guest")
        defer { for path in [hostHome.path, guestHome.path] { try? FileManager.default.removeItem(atPath: path) } }
        let port = freePort()
        // Under a shell that prints parlor's exit status on the normal screen afterwards.
        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        let host = try TmuxSession.start(["sh", "-c", shell, parlor, "host", "connect4", "--port", "\(port)", "--name", "Ana", "--seat", "first",
                                          "--grace", "3", "--rematch", "0"],
                                         columns: columns, rows: 24, environment: hostHome.environment)
        defer { host.kill() }
        #expect(await host.waitFor("Waiting for a player"), "\(host.screenText())")
        let guest = try TmuxSession.start(["sh", "-c", shell, parlor, "join", "127.0.0.1:\(port)", "--name", "Bo", "--grace", "3", "--rematch", "0"],
                                          columns: columns, rows: 24, environment: guestHome.environment)
        defer { guest.kill() }
        #expect(await host.waitFor("Your turn"), "\(host.screenText())")
        host.send("4", "Enter")
        #expect(await guest.waitFor("Your turn"), "\(guest.screenText())")
        let id = try #require(Self.matchID(guest.screenText()), "\(guest.screenText())")

        // One side's parlor dies at once (kill -9: no goodbye); the other is left behind.
        let (gone, left, goneName) = dies == "guest" ? (guest, host, "Bo") : (host, guest, "Ana")
        let shellPID = try #require(gone.pid)
        _ = kill(try #require(Self.child(of: shellPID)), SIGKILL)
        #expect(await left.waitFor("Press any key to leave", timeout: .seconds(30)), "\(left.screenText())")
        let endScreen = left.screen()
        let text = Self.words(endScreen)
        // In full (at 40 columns the long reason of a guest's failed redials may end in "…" here, not below).
        #expect(text.contains("Match stopped: connection lost: \(goneName) did not come back"), "\(endScreen)")
        #expect(text.contains("can continue: run 'parlor resume \(id)' here, and \(goneName) must run 'parlor resume \(id)' on the other machine."),
                "\(endScreen.joined(separator: "\n"))")
        #expect(!text.contains("waiting for"), "a stale waiting line: \(endScreen.joined(separator: "\n"))")
        #expect(endScreen.allSatisfy { $0.count < columns }, "a line reaches the window's edge: \(endScreen.joined(separator: "\n"))")

        // After a key, the normal screen keeps the same words, broken at spaces.
        left.send("x")
        #expect(await left.waitFor("exit status 75", timeout: .seconds(20)), "\(left.screenText())")
        let after = left.screen()
        let afterText = Self.words(after)
        #expect(afterText.contains("Match stopped: connection lost: \(goneName) did not come back within 3 s"), "\(after)")
        #expect(afterText.contains("and \(goneName) must run 'parlor resume \(id)' on the other machine."), "\(after.joined(separator: "\n"))")
        #expect(!afterText.contains("is still playing"), "\(after.joined(separator: "\n"))")
        // The ending is broken at spaces, short of the edge: no word split by the terminal.
        let ending = after.drop { !$0.contains("Match stopped") }.filter { !$0.isEmpty && !$0.hasPrefix("exit status") }
        #expect(ending.count >= 3, "\(after.joined(separator: "\n"))")
        #expect(ending.allSatisfy { $0.count < columns }, "\(after.joined(separator: "\n"))")
    }
}
