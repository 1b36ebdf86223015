import Foundation
import ParlorTestSupport
import Testing

/// Lines a command prints on an 80-column terminal: fitted, or broken at
/// spaces, never mid-word ("r / unning").
@Suite("Printed lines at 80 columns (tmux)", .serialized)
struct NarrowTerminalTests {
    /// The screen's lines joined with single spaces: a line broken at a space
    /// reads as the sentence again, one broken mid-word does not.
    private static func joined(_ screen: [String]) -> String {
        screen.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    @Test("parlor matches fits a table of four at 80 columns: names are cut, a row wraps between columns, no word is split",
          .enabled(if: LeavingTerminalTests.canRun))
    func matchesFit() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("narrow")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        // End of input leaves the match for now: an interrupted table of four with long names.
        _ = try ReplayTerminalTests.run(parlor, ["play", "dots-and-boxes", "--seats", "4", "--vs", "bot:easy,human,bot:hard",
                                                 "--plain", "--name", "Anastasia Longname"], environment: home.environment)
        let tmux = try TmuxSession.start(["sh", "-c", "\"$0\" matches; echo \"exit status $?\"; sleep 60", parlor],
                                         columns: 80, rows: 24, environment: home.environment)
        defer { tmux.kill() }
        #expect(await tmux.waitFor("exit status 0"), "\(tmux.screenText())")
        let text = Self.joined(tmux.screen())
        for whole in ["ID", "GAME", "OPPONENT", "TURN", "STATE", "OUTCOME", "LAST ACTIVITY", "dots-and-boxes", "Easy bot", "interrupted"] {
            #expect(text.contains(whole), "'\(whole)' is not split: \(tmux.screenText())")
        }
        #expect(text.range(of: #"\d{4}-\d\d-\d\d \d\d:\d\d"#, options: .regularExpression) != nil, "\(tmux.screenText())")
    }

    @Test("the host's lines break at spaces at 80 columns",
          .enabled(if: LeavingTerminalTests.canRun))
    func hostLinesBreakAtSpaces() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("narrow-host")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let tmux = try TmuxSession.start([parlor, "host", "dots-and-boxes", "--seats", "4", "--port", "0"],
                                         columns: 80, rows: 24, environment: home.environment)
        defer { tmux.kill() }
        #expect(await tmux.waitFor("Waiting for players", timeout: .seconds(15)), "\(tmux.screenText())")
        try await Task.sleep(for: .milliseconds(300))
        let sentence = "A table of 4: it starts when every seat is taken. Press b to give the empty seats to bots and start "
            + "once a guest is seated. Waiting for players to join… (q, Esc or Ctrl-C to stop)"
        #expect(Self.joined(tmux.screen()).contains(sentence), "\(tmux.screenText())")
    }
}
