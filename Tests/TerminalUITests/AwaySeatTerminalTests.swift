import Foundation
import ParlorTestSupport
import Testing

/// Issue 12 items 4 and 7 in a real 80x24 terminal (tmux): a guest at a
/// three-seat table watches another guest's parlor get killed; its seat list
/// marks that seat away and says how long the seat is kept.
@Suite("An away seat in a real terminal (tmux)", .serialized)
struct AwaySeatTerminalTests {
    @Test("a guest killed with SIGKILL is marked away on another guest's full screen at 80x24",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func awayOnTheFullScreen() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = try PasscodeTerminalTests.scratchHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = try PasscodeTerminalTests.Host(parlor, ["host", "dots-and-boxes", "--seats", "3", "--bot", "easy", "--grace", "60",
                                                           "--json", "--port", "0", "--name", "Hana", "--seat", "first"], home: home)
        defer { host.stop() }
        #expect(await host.waitFor("\"listening\""), "host: \(host.text)")
        let port = try #require(host.events.first { $0["event"] as? String == "listening" }?["port"] as? Int)
        // Seat index 1: a person at a real terminal; seat index 2: a bot guest, killed below.
        let tmux = try TmuxSession.start([parlor, "join", "127.0.0.1:\(port)"],
                                         environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_DATA_HOME": home + "/a"])
        defer { tmux.kill() }
        #expect(await tmux.waitFor("of 3 seated"), "\(tmux.screenText())")
        let botHome = try PasscodeTerminalTests.scratchHome()
        defer { try? FileManager.default.removeItem(atPath: botHome) }
        let bot = try PasscodeTerminalTests.Host(parlor, ["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"], home: botHome)
        defer { bot.stop() }
        #expect(await tmux.waitFor("Your turn.", timeout: .seconds(20)), "\(tmux.screenText())")
        kill(bot.process.processIdentifier, SIGKILL)
        #expect(await tmux.waitFor("is away (the seat is kept", timeout: .seconds(20)), "\(tmux.screenText())")
        let screen = tmux.screen()
        // The bot guest's seat line (seat index 2, ▲) is marked; the person to move is not.
        #expect(screen.contains { $0.contains("▲ Easy bot — away") }, "\(tmux.screenText())")
        #expect(screen.contains { $0.contains("○") && $0.contains("(you) — to move") && !$0.contains("away") }, "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("Window too small"))
    }
}
