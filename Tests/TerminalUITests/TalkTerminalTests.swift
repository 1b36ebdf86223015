import Foundation
import ParlorTestSupport
import Testing

/// Issue 13 item 4 in a real 80x24 terminal (tmux): a guest presses t, types
/// a line and Enter; the host relays it back and it shows under the board,
/// the whole board still on screen.
@Suite("Table talk in a real terminal (tmux)", .serialized)
struct TalkTerminalTests {
    @Test("t, a line and Enter: the line comes back from the host and shows under the connect4 board at 80x24",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func talkUnderTheBoard() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = try PasscodeTerminalTests.scratchHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = try PasscodeTerminalTests.Host(parlor, ["host", "connect4", "--bot", "easy", "--json", "--port", "0",
                                                           "--name", "Hana", "--seat", "second"], home: home)
        defer { host.stop() }
        #expect(await host.waitFor("\"listening\""), "host: \(host.text)")
        let port = try #require(host.events.first { $0["event"] as? String == "listening" }?["port"] as? Int)
        let tmux = try TmuxSession.start([parlor, "join", "127.0.0.1:\(port)", "--name", "Bo"],
                                         environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_DATA_HOME": home + "/a"])
        defer { tmux.kill() }
        #expect(await tmux.waitFor("Your turn.", timeout: .seconds(20)), "\(tmux.screenText())")
        #expect(tmux.screenText().contains("t: talk"), "the keys line names the talk key:\n\(tmux.screenText())")
        tmux.type("t")
        #expect(await tmux.waitFor("Say:"), "\(tmux.screenText())")
        tmux.type("hello from Bo")
        #expect(await tmux.waitFor("Say: hello from Bo"), "\(tmux.screenText())")
        tmux.send("Enter")
        #expect(await tmux.waitFor("Bo: hello from Bo", timeout: .seconds(10)), "\(tmux.screenText())")
        let screen = tmux.screen()
        #expect(!screen.contains { $0.contains("Say:") }, "the input closed after Enter:\n\(tmux.screenText())")
        // Under the board: below its bottom edge, with all six rows of cells still on screen.
        let talkRow = try #require(screen.lastIndex { $0.contains("Bo: hello from Bo") })
        let bottomEdge = try #require(screen.lastIndex { $0.contains("└") }, "\(tmux.screenText())")
        #expect(talkRow > bottomEdge, "\(tmux.screenText())")
        #expect(screen.filter { $0.contains("│ · │") || $0.contains("│ ● │") || $0.contains("│ ○ │") }.count == 6, "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("Window too small"))
        // The host heard it too, with Bo's seat and name.
        #expect(await host.waitFor("\"text\":\"hello from Bo\""), "host: \(host.text)")
    }
}
