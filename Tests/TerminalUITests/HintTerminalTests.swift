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
