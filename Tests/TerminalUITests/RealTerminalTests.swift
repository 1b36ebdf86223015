import Foundation
import ParlorTestSupport
import Bots
import Games
import Match
import Testing
@testable import TerminalUI

/// The full-screen frontend in a real terminal: this test bundle re-runs itself
/// inside tmux with `PARLOR_TUI_CHILD` set, where `fullScreenChild` plays a
/// match on the pty, and the parent types keys and reads the screen.
@Suite("Real terminal (tmux)")
struct RealTerminalTests {
    static let environment = ProcessInfo.processInfo.environment
    static let isChild = environment["PARLOR_TUI_CHILD"] != nil

    /// Not a test on its own: the program run inside tmux by the tests below.
    @Test(.enabled(if: isChild))
    func fullScreenChild() async throws {
        let env = Self.environment
        let resultPath = try #require(env["PARLOR_TUI_RESULT"])
        try "\(getpid())".write(toFile: resultPath + ".pid", atomically: true, encoding: .utf8)
        let game = try #require(GameCatalog.newGame(id: env["PARLOR_TUI_GAME"] ?? "connect4"))
        let ana = LocalParticipant(playerID: Fixtures.ana)
        let bot = BotParticipant(playerID: Fixtures.bot, minimumThinkTime: .milliseconds(200)) { game, _ in game.legalMoves.first }
        let controller = MatchController(state: Fixtures.state(game), participants: [ana, bot])
        let options = DisplayOptions.detect(environment: env, isTTY: true)
        let exit = try await FullScreenFrontend(options: options).play(controller: controller, locals: [ana])
        let kind: String
        switch exit {
        case .ended: kind = "ended"
        case .failed: kind = "failed"
        case .terminalLost: kind = "terminalLost"
        case .interrupted(let signal, _): kind = "interrupted\(signal)"
        case .inputEnded: kind = "inputEnded"
        case .left: kind = "left"
        }
        if case .terminalLost = exit {
            // sshd and tmux may send another SIGHUP after the terminal is gone; it
            // must not kill parlor while it still saves the match.
            kill(getpid(), SIGHUP)
            try await Task.sleep(for: .milliseconds(100))
        }
        let outcomes = exit.state.seats.map(\.outcome.description).joined(separator: " ")
        try "\(kind) \(outcomes)".write(toFile: resultPath, atomically: true, encoding: .utf8)
    }

    struct Child {
        let tmux: TmuxSession
        let resultPath: String
        let sttyPath: String

        /// Starts the child in an 80x24 tmux pane; after it ends, `stty -a` records the terminal's mode.
        static func start(game: String = "connect4", term: String = "xterm-256color") throws -> Child {
            let directory = FileManager.default.temporaryDirectory.path
            let stem = "\(directory)/parlor-tui-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let binary = CommandLine.arguments[0]
            let script = "\"$0\" --testing-library swift-testing --filter fullScreenChild; stty -a > \"$1\""
            let tmux = try TmuxSession.start(["sh", "-c", script, binary, stem + ".stty"], environment: [
                "PARLOR_TUI_CHILD": "1", "PARLOR_TUI_RESULT": stem + ".result", "PARLOR_TUI_GAME": game,
                "TERM": term, "LANG": "C.UTF-8",
            ])
            return Child(tmux: tmux, resultPath: stem + ".result", sttyPath: stem + ".stty")
        }

        func result(timeout: Duration = .seconds(10)) async -> String? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let text = try? String(contentsOfFile: resultPath, encoding: .utf8) { return text }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }

        var pid: Int32? { (try? String(contentsOfFile: resultPath + ".pid", encoding: .utf8)).flatMap { Int32($0) } }

        /// `stty -a` after the child ended: the terminal must be back in cooked mode with echo.
        func sttyAfterExit(timeout: Duration = .seconds(10)) async -> String? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let text = try? String(contentsOfFile: sttyPath, encoding: .utf8), !text.isEmpty { return text }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }

        func cleanUp() {
            tmux.kill()
            for path in [resultPath, resultPath + ".pid", sttyPath] { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// The column of connect4 cell `column`'s glyph on the screen ("  │" then 4 per cell).
    static func glyphColumn(_ column: Int) -> Int { 2 + 4 * column }

    /// The bottom board row (the line above `└`), from its left edge (the board is centred in the window).
    static func bottomRow(_ screen: [String]) -> [Character]? {
        guard let index = screen.firstIndex(where: { $0.contains("└") }), index > 0 else { return nil }
        return Array(screen[index - 1].drop { $0 != "│" })
    }

    @Test("play, resize, and quit connect4 in a real 80x24 terminal; the terminal is restored",
          .enabled(if: TmuxSession.isAvailable && !isChild))
    func playResizeQuit() async throws {
        let child = try Child.start()
        defer { child.cleanUp() }
        let tmux = child.tmux
        #expect(await tmux.waitFor("Your turn", timeout: .seconds(30)), "\(tmux.screenText())")
        #expect(tmux.screenText().contains("1   2   3   4   5   6   7"))

        tmux.send("4", "Enter")
        // The bot answers in column 1 (its first legal move); our piece is in column 4.
        let answered = await tmux.waitUntil { screen in
            guard let row = Self.bottomRow(screen), row.count > Self.glyphColumn(3) else { return false }
            return row[Self.glyphColumn(3)] == "●" && row[Self.glyphColumn(0)] == "○"
                && screen.joined().contains("Your turn")
        }
        #expect(answered, "\(tmux.screenText())")

        // 40x15 holds connect4's board and status line (it used to ask for 40x17).
        tmux.resize(columns: 40, rows: 15)
        #expect(await tmux.waitFor("Your turn"), "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("Window too small"), "\(tmux.screenText())")
        tmux.resize(columns: 20, rows: 5)
        #expect(await tmux.waitFor("or q to quit."), "\(tmux.screenText())")
        // Wrapped (or shortened) to fit, never cut mid-word at the window's edge ("Window too small: ne").
        #expect(tmux.screenText().contains("need 31x10"), "\(tmux.screenText())")
        tmux.resize(columns: 80, rows: 24)
        #expect(await tmux.waitFor("Your turn"), "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("Window too small"))

        // ? shows the keys; Escape closes the overlay and does nothing else.
        tmux.send("?")
        #expect(await tmux.waitFor("these keys"), "\(tmux.screenText())")
        #expect(tmux.screenText().contains("Enter, Space"), "\(tmux.screenText())")
        tmux.send("Escape")
        #expect(await tmux.waitFor("Your turn"), "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("these keys"))

        tmux.send("q")
        #expect(await tmux.waitFor("Quit this match? (y/n)"), "\(tmux.screenText())")
        tmux.send("y")
        #expect(await child.result() == "ended quit won")
        let stty = try #require(await child.sttyAfterExit())
        #expect(stty.contains(" icanon") && !stty.contains("-icanon"), "\(stty)")
        #expect(stty.contains(" echo ") && !stty.contains("-echo "), "\(stty)")
        // Back on the normal screen, the result stays visible.
        #expect(await tmux.waitFor("Result: Ana (●) quit, Bot (○) won."), "\(tmux.screenText())")
    }

    @Test("SIGTERM restores the terminal and ends the run as interrupted",
          .enabled(if: TmuxSession.isAvailable && !isChild))
    func terminate() async throws {
        let child = try Child.start(game: "cube4")
        defer { child.cleanUp() }
        #expect(await child.tmux.waitFor("Level 4", timeout: .seconds(30)), "\(child.tmux.screenText())")
        let pid = try #require(child.pid)
        kill(pid, SIGTERM)
        #expect(await child.result() == "interrupted\(SIGTERM) none none")
        let stty = try #require(await child.sttyAfterExit())
        #expect(!stty.contains("-icanon") && !stty.contains("-echo "), "\(stty)")
        #expect(!child.tmux.screenText().contains("Level 4"), "still on the alternate screen: \(child.tmux.screenText())")
    }

    @Test("when the terminal vanishes (SSH disconnect) the run ends as terminalLost within seconds, nothing quit, and a late SIGHUP does not kill it",
          .enabled(if: TmuxSession.isAvailable && !isChild))
    func terminalVanishes() async throws {
        let child = try Child.start(game: "tictactoe", term: "xterm")
        defer { child.cleanUp() }
        #expect(await child.tmux.waitFor("Your turn", timeout: .seconds(30)), "\(child.tmux.screenText())")
        let killed = ContinuousClock.now
        child.tmux.kill()
        // The child is a whole test bundle re-run in the pane; on two busy cores
        // its start-up noise can eat seconds, so allow 10 s and report the time.
        #expect(await child.result(timeout: .seconds(10)) == "terminalLost none none")
        print("terminal lost noticed after \(ContinuousClock.now - killed)")
    }
}
