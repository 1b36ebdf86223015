import Foundation
import ParlorTestSupport
import Testing

/// Issue 16: the hint key with the real binary in a real terminal (tmux).
@Suite("The hint key in a real terminal (tmux)")
struct HintTerminalTests {
    @Test("offline Connect Four: h names column 4, the only winning first move, and Enter plays it",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func hintOnTheEmptyBoard() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = NSTemporaryDirectory() + "parlor-hint-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        let tmux = try TmuxSession.start([parlor, "play", "connect4", "--vs", "bot:easy", "--seat", "first", "--seed", "5"],
                                         environment: ["XDG_DATA_HOME": home, "TERM": "xterm-256color", "LANG": "C.UTF-8"])
        defer { tmux.kill() }
        #expect(await tmux.waitFor("h: hint"), "the keys line offers no hint: \(tmux.screenText())")
        // Move the cursor away from the centre first, so the hint must move it back.
        tmux.send("1")
        tmux.send("h")
        #expect(await tmux.waitFor("Hint: 4 (Enter plays it).", timeout: .seconds(30)), "\(tmux.screenText())")
        tmux.send("Enter")
        #expect(await tmux.waitFor("Easy bot"), "\(tmux.screenText())")
        // Our stone went into column 4: the bottom row has a stone under the '4' of the column numbers.
        #expect(await tmux.waitUntil { screen in Self.bottomRowHasStone(screen, column: 4) }, "\(tmux.screenText())")
        tmux.send("q")
        tmux.send("y")
    }

    @Test("an offline match left with Ctrl-C and brought back with parlor resume keeps its hint key",
          .enabled(if: LeavingTerminalTests.canRun))
    func resumedOfflineMatchKeepsHints() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = LeavingTerminalTests.home("hint-resume")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        let tmux = try TmuxSession.start(["sh", "-c", shell, parlor, "play", "connect4", "--vs", "bot:easy", "--seat", "first"],
                                         environment: home.environment)
        defer { tmux.kill() }
        #expect(await tmux.waitFor("h: hint"), "\(tmux.screenText())")
        tmux.send("C-c")
        #expect(await tmux.waitFor("exit status 130"), "\(tmux.screenText())")
        let id = try #require(LeavingTerminalTests.resumeID(tmux.screenText()), "no resume line: \(tmux.screenText())")

        let resumed = try TmuxSession.start(["sh", "-c", shell, parlor, "resume", id], environment: home.environment)
        defer { resumed.kill() }
        #expect(await resumed.waitFor("Your turn"), "\(resumed.screenText())")
        #expect(resumed.screenText().contains("h: hint"), "the keys line lost the hint: \(resumed.screenText())")
        resumed.send("1")
        resumed.send("h")
        #expect(await resumed.waitFor("Hint: 4 (Enter plays it).", timeout: .seconds(30)), "\(resumed.screenText())")
        #expect(!resumed.screenText().contains("No hints"), "\(resumed.screenText())")
        resumed.send("C-c")
        #expect(await resumed.waitFor("exit status 130"), "\(resumed.screenText())")
    }

    @Test("Chinese checkers: h picks up the hinted peg, + marks where it can go, Enter plays the hint, and the board never moves",
          .enabled(if: LeavingTerminalTests.canRun))
    func checkersHintPlaysAndTheBoardStays() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = LeavingTerminalTests.home("hint-checkers")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let tmux = try TmuxSession.start([parlor, "play", "chinese-checkers", "--vs", "bot:easy", "--seat", "first"],
                                         columns: 100, rows: 30, environment: home.environment)
        defer { tmux.kill() }
        /// Where the widest row of holes starts on screen.
        func boardColumn() -> Int? {
            tmux.screen().first { $0.contains("e  1   2   3") }.map { $0.prefix { $0 == " " }.count }
        }
        #expect(await tmux.waitFor("Your turn"), "\(tmux.screenText())")
        let column = try #require(boardColumn(), "\(tmux.screenText())")
        tmux.send("h")
        #expect(await tmux.waitFor("(Enter plays it)."), "\(tmux.screenText())")
        let screen = tmux.screenText()
        let hint = try #require(screen.components(separatedBy: "Hint: ").last?.components(separatedBy: " (Enter").first, "\(screen)")
        #expect(screen.contains("(+ can go)") && screen.contains("[+]"), "the peg is not picked up with its holes marked: \(screen)")
        #expect(boardColumn() == column, "the board moved: \(screen)")
        tmux.send("Enter")
        // The move list says the hint was played, and the board is where it was.
        #expect(await tmux.waitFor("1. ● \(hint)"), "\(tmux.screenText())")
        #expect(boardColumn() == column, "the board moved: \(tmux.screenText())")
    }

    /// Whether the board's bottom row (above its frame's bottom edge) has
    /// the first player's stone under column `column`'s number.
    static func bottomRowHasStone(_ screen: [String], column: Int) -> Bool {
        guard let labels = screen.firstIndex(where: { $0.contains("1   2   3   4") }),
              let edge = screen.firstIndex(where: { $0.contains("└") }), edge > labels + 1,
              let label = Array(screen[labels]).firstIndex(of: Character(String(column))) else { return false }
        let bottom = Array(screen[edge - 1])
        return label < bottom.count && bottom[label] == "●"
    }
}
