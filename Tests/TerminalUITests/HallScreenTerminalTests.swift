import Foundation
import Match
import ParlorTestSupport
import Testing
@testable import TerminalUI

/// Issue 14 item 1, "the host's full-screen view lists the tables live and
/// can open one to watch": `parlor host --tables` in tmux, a real guest
/// process joining it, and the host's pane showing the list, the opened
/// table's board with the guest's moves arriving, and the list again.
@Suite("The host's hall screen (tmux)", .serialized)
struct HallScreenTerminalTests {
    /// `parlor host connect4 --bot easy --tables 3` in tmux (the guest moves first); its port from the title.
    static func startHall(_ parlor: String, home: (path: String, environment: [String: String]),
                          columns: Int = 110) async throws -> (TmuxSession, Int) {
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let hall = try TmuxSession.start(["sh", "-c", "\"$0\" host connect4 --bot easy --tables 3 --port 0 --name Teach --seat second; "
                                          + "echo \"exit status $?\"; sleep 60", parlor],
                                         columns: columns, rows: 32, environment: home.environment)
        guard await hall.waitFor("0 of 3 tables in play", timeout: .seconds(20)) else {
            hall.kill()
            throw TmuxSession.Failure.commandFailed(["host"], status: 1, output: hall.screenText())
        }
        let screen = hall.screenText()
        guard let range = screen.range(of: #"on port \d+"#, options: .regularExpression),
              let port = Int(screen[range].dropFirst("on port ".count)) else {
            hall.kill()
            throw TmuxSession.Failure.commandFailed(["host"], status: 1, output: screen)
        }
        return (hall, port)
    }

    @Test("at 100 columns the list shows how to join and the LAN listing at its top, a student's talk, a finished table's result after it is freed, and the whole of Stop hosting?",
          .enabled(if: LeavingTerminalTests.canRun))
    func whatTheTeacherSees() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("hall-teacher")
        let guestHome = NSTemporaryDirectory() + "parlor-hall-teacher-guest-" + UUID().uuidString
        defer { for path in [home.path, guestHome] { try? FileManager.default.removeItem(atPath: path) } }
        let (hall, port) = try await Self.startHall(parlor, home: home, columns: 100)
        defer { hall.kill() }
        let top = hall.screen().prefix(12).joined(separator: "\n")
        #expect(top.contains("Students join with:") && top.contains("parlor join localhost:\(port)"), "\(hall.screenText())")
        #expect(top.contains("Listed on the LAN as") || top.contains("Not listed on the LAN:"), "\(hall.screenText())")

        let gus = try ScriptedParlor.start(parlor, ["join", "127.0.0.1:\(port)", "--json", "--name", "Gus"], home: guestHome)
        defer { gus.stop() }
        #expect(await gus.play("/say hello teacher", seat: 0, after: 0))
        #expect(await hall.waitFor("table 1 · Gus: hello teacher", timeout: .seconds(20)), "\(hall.screenText())")
        #expect(await gus.play("/quit", seat: 0, after: 0))
        // The table is freed, and its result stays on the list.
        #expect(await hall.waitFor("table 1: Teach won against Gus, 0 moves", timeout: .seconds(20)), "\(hall.screenText())")
        #expect(await hall.waitFor("0 of 3 tables in play", timeout: .seconds(40)), "\(hall.screenText())")
        #expect(hall.screenText().contains("table 1: Teach won against Gus"), "\(hall.screenText())")

        hall.send("q")
        #expect(await hall.waitFor("Stop hosting?"), "\(hall.screenText())")
        let asked = hall.screen().map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(asked.contains("('parlor resume' brings them back). y: stop   n: go on"), "cut at 100 columns: \(hall.screenText())")
        hall.send("n")
    }

    @Test("Enter opens a table: its board live as the guest's moves arrive; Esc goes back to the list; q asks before stopping",
          .enabled(if: LeavingTerminalTests.canRun))
    func openATable() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("hall-screen")
        let guestHome = NSTemporaryDirectory() + "parlor-hall-screen-guest-" + UUID().uuidString
        defer { for path in [home.path, guestHome] { try? FileManager.default.removeItem(atPath: path) } }
        let (hall, port) = try await Self.startHall(parlor, home: home)
        defer { hall.kill() }
        #expect(hall.screenText().contains("Enter: watch the table"), "\(hall.screenText())")

        let gus = try ScriptedParlor.start(parlor, ["join", "127.0.0.1:\(port)", "--json", "--name", "Gus"], home: guestHome)
        defer { gus.stop() }
        // The list shows the table as it fills, chosen (>) since it is the only one.
        #expect(await hall.waitUntil(timeout: .seconds(20)) { screen in
            screen.contains { $0.hasPrefix("> 1 ") && $0.contains("Gus vs Teach") && $0.contains("Gus to move") }
        }, "\(hall.screenText())")

        // Enter: the table's board and seats, as a spectator sees them.
        hall.send("Enter")
        #expect(await hall.waitFor("Watching table 1"), "\(hall.screenText())")
        #expect(hall.screenText().contains("Gus"), "\(hall.screenText())")
        #expect(hall.screenText().contains("Teach"), "\(hall.screenText())")
        #expect(await hall.waitFor("none yet"), "no move is listed before the first: \(hall.screenText())")

        // The guest drops in column 4 and the bot answers: both arrive on the open board.
        #expect(await gus.play("4", seat: 0, after: 0))
        #expect(await hall.waitFor("1. \u{25CF} 4"), "the guest's move on the host's board: \(hall.screenText())")
        #expect(await hall.waitFor("2. \u{25CB}"), "the bot's answer: \(hall.screenText())")
        #expect(await gus.play("4", seat: 0, after: 2))
        #expect(await hall.waitFor("3. \u{25CF} 4"), "\(hall.screenText())")
        #expect(hall.screenText().contains("Watching table 1"), "still on the table: \(hall.screenText())")

        // Esc: the list again, the table's moves counted.
        hall.send("Escape")
        #expect(await hall.waitUntil { screen in
            screen.contains { $0.contains("Gus vs Teach") && ($0.contains(" 3 ") || $0.contains(" 4 ")) }
        }, "\(hall.screenText())")
        #expect(!hall.screenText().contains("Watching table"), "\(hall.screenText())")

        // q on the list asks first; n goes on hosting; q then y stops, every match left for now.
        hall.send("q")
        #expect(await hall.waitFor("Stop hosting?"), "\(hall.screenText())")
        hall.send("n")
        #expect(await hall.waitUntil { !$0.joined().contains("Stop hosting?") }, "\(hall.screenText())")
        #expect(!hall.programExited && !hall.screenText().contains("exit status"), "n goes on hosting: \(hall.screenText())")
        hall.send("q")
        #expect(await hall.waitFor("Stop hosting?"), "\(hall.screenText())")
        hall.send("y")
        #expect(await hall.waitFor("exit status 130", timeout: .seconds(20)), "\(hall.screenText())")
        #expect(hall.screenText().contains("table(s) were left for now"), "\(hall.screenText())")
    }
}

/// The hall screen's keys, without a terminal.
@Suite("The hall screen's keys")
struct HallModelTests {
    static func rows(_ tables: [Int]) -> [HallScreen.Row] {
        tables.map { HallScreen.Row(table: $0, players: "Gus vs Teach", moves: 0, status: "Gus to move", matchID: "0123456789abcdef") }
    }

    @Test("↓/j and ↑/k choose among the tables, Enter opens the chosen one, Esc and q go back, Ctrl-C stops at once")
    func keys() {
        var model = HallModel()
        model.rows = Self.rows([1, 2, 4])
        #expect(model.handle(.enter) == .open(1))
        #expect(model.watching?.table == 1)
        #expect(model.handle(.character("j")) == .none, "keys do nothing on an open table")
        #expect(model.handle(.escape) == .back)
        #expect(model.watching == nil)
        #expect(model.handle(.down) == .redraw)
        #expect(model.handle(.character("j")) == .redraw)
        #expect(model.handle(.character("j")) == .redraw, "the last stays chosen")
        #expect(model.handle(.enter) == .open(4))
        #expect(model.handle(.character("q")) == .back)
        #expect(model.handle(.character("k")) == .redraw)
        #expect(model.handle(.enter) == .open(2))
        #expect(model.handle(.interrupt) == .stop)
    }

    @Test("q or Esc on the list asks before stopping; only y stops")
    func stopAsks() {
        var model = HallModel()
        model.rows = Self.rows([1])
        #expect(model.handle(.character("q")) == .redraw)
        #expect(model.confirmingStop)
        #expect(model.handle(.character("n")) == .redraw)
        #expect(!model.confirmingStop)
        #expect(model.handle(.escape) == .redraw)
        #expect(model.handle(.character("y")) == .stop)
    }

    @Test("the chosen table stays chosen and in sight when tables come and go")
    func selectionFollowsTheTable() {
        var model = HallModel()
        model.rows = Self.rows(Array(1...30))
        for _ in 0..<25 { _ = model.handle(.down) }
        #expect(model.selected == 26)
        model.rows = Self.rows(Array(3...30))
        #expect(model.handle(.enter) == .open(26))
        let lines = HallScreen.lines(title: "t", rows: Self.rows(Array(1...30)), selected: 26, columns: 100, height: 12)
        #expect(lines.contains { $0.hasPrefix("> 26 ") }, "\(lines)")
    }
}
