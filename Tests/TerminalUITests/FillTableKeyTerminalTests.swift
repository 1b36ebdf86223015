import Foundation
import ParlorTestSupport
import Testing

/// Issue 12 item 6: a host whose table fills can start it early by hand. In a
/// real terminal (tmux), `b` before anyone is seated says why nothing
/// happens; once a guest is seated it gives the empty seat to a medium bot and
/// the match starts, on the host's screen and the guest's.
@Suite("A filling table started early with b (tmux)", .serialized)
struct FillTableKeyTerminalTests {
    @Test("b on a three-seat host's waiting screen: refused while nobody is seated, then a medium bot takes the empty seat and the match starts",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func bStartsTheTableWithBots() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = try PasscodeTerminalTests.scratchHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let tmux = try TmuxSession.start([parlor, "host", "dots-and-boxes", "--seats", "3", "--port", "0", "--name", "Ana"],
                                         columns: 100, rows: 30,
                                         environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_DATA_HOME": home + "/host",
                                                       "XDG_CONFIG_HOME": home + "/host"])
        defer { tmux.kill() }
        #expect(await tmux.waitFor("Press b to give the empty seats to bots"), "\(tmux.screenText())")
        // The port the system chose, from the join line on screen.
        let joinLine = try #require(tmux.screen().first { $0.contains("parlor join localhost:") })
        let port = try #require(Int(joinLine.split(separator: ":").last?.prefix { $0.isNumber } ?? ""))
        tmux.send("b")
        #expect(await tmux.waitFor("Nobody has taken a seat yet"), "\(tmux.screenText())")
        try FileManager.default.createDirectory(atPath: home + "/guest", withIntermediateDirectories: true)
        let guest = try PasscodeTerminalTests.Host(parlor, ["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"], home: home + "/guest")
        defer { guest.stop() }
        #expect(await guest.waitFor("\"table\""), "guest: \(guest.text)")
        // The table still waits for its third seat: nothing starts without the key.
        try await Task.sleep(for: .milliseconds(500))
        #expect(!guest.text.contains("\"started\""), "guest: \(guest.text)")
        tmux.send("b")
        #expect(await guest.waitFor("\"started\"", timeout: .seconds(20)), "guest: \(guest.text)")
        #expect(await tmux.waitFor("Medium bot 1", timeout: .seconds(20)), "\(tmux.screenText())")
        #expect(guest.text.contains("Medium bot 1"), "guest: \(guest.text)")
    }
}
