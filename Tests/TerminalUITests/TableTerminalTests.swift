import Foundation
import ParlorTestSupport
import Testing

/// Issue 12 item 7: a table of six in a real 80x24 terminal (tmux) shows every
/// seat with its piece and state, and a seat that quits is marked while the others play on.
@Suite("A table of six in a real terminal (tmux)")
struct TableTerminalTests {
    /// `parlor play chinese-checkers --seats N --vs VS` in a fresh data home at 80x24.
    func start(seats: Int, vs: String) throws -> (TmuxSession, String) {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = NSTemporaryDirectory() + "parlor-table-" + UUID().uuidString
        let tmux = try TmuxSession.start(
            [parlor, "play", "chinese-checkers", "--seats", "\(seats)", "--vs", vs, "--seed", "2"],
            environment: ["XDG_DATA_HOME": home, "TERM": "xterm-256color", "LANG": "C.UTF-8"])
        return (tmux, home)
    }

    @Test("six seats of Chinese checkers fit 80x24; the seat to move is marked, a quit is shown and play goes on",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func sixSeatsAt80x24() async throws {
        let (tmux, home) = try start(seats: 6, vs: "human,bot:easy,human,bot:easy,bot:easy")
        defer { tmux.kill(); try? FileManager.default.removeItem(atPath: home) }
        #expect(await tmux.waitFor("Player 1 (●), your turn."), "\(tmux.screenText())")
        let screen = tmux.screen()
        #expect(!tmux.screenText().contains("Window too small"))
        // Every seat's piece and name on the seat lines, the first to move marked.
        let seatLines = screen.filter { $0.contains("(you)") || $0.contains("bot") && !$0.contains("/10") }
        for (piece, name) in [("●", "Player 1"), ("○", "Player 2"), ("▲", "Easy bot"), ("■", "Player 3"),
                              ("◆", "Easy bot 2"), ("★", "Easy bot 3")] {
            #expect(seatLines.contains { $0.contains("\(piece) \(name) ") || $0.hasSuffix("\(piece) \(name)") }, "\(name): \(seatLines)")
        }
        #expect(seatLines.contains { $0.contains("▶ ● Player 1 (you) — to move") }, "\(seatLines)")

        // Player 1 quits; the table goes on with Player 2 to move.
        tmux.send("q")
        #expect(await tmux.waitFor("Quit this match? (y/n)"))
        tmux.send("y")
        #expect(await tmux.waitFor("Player 2 (○), your turn."), "\(tmux.screenText())")
        let after = tmux.screen()
        #expect(after.contains { $0.contains("● Player 1 (you) — quit") }, "\(tmux.screenText())")
        #expect(after.contains { $0.contains("▶ ○ Player 2 (you) — to move") }, "\(tmux.screenText())")
    }

    @Test("four seats of Chinese checkers fit 80x24 too, two seats to a line",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func fourSeatsAt80x24() async throws {
        let (tmux, home) = try start(seats: 4, vs: "human,bot:easy,human")
        defer { tmux.kill(); try? FileManager.default.removeItem(atPath: home) }
        #expect(await tmux.waitFor("Player 1 (●), your turn."), "\(tmux.screenText())")
        #expect(tmux.screen().contains { $0.contains("▶ ● Player 1 (you) — to move") && $0.contains("Easy bot") },
                "\(tmux.screenText())")
    }
}
