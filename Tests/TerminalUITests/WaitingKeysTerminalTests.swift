import Foundation
import ParlorTestSupport
import Testing

/// Every waiting screen has a working q/Esc: the host's "Waiting for a player
/// to join…" screen echoed `q^[` and only Ctrl-C stopped it.
@Suite("Waiting screens stop on q or Esc (tmux)", .serialized)
struct WaitingKeysTerminalTests {
    @Test("the host's waiting screen stops on q, and on Esc, without echoing them; the exit status is 0",
          .enabled(if: LeavingTerminalTests.canRun), arguments: ["q", "Escape"])
    func hostWaitStops(key: String) async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("wait-host")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let port = freePort()
        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        let host = try TmuxSession.start(["sh", "-c", shell, parlor, "host", "connect4", "--port", "\(port)", "--name", "Ana"],
                                         columns: 80, rows: 24, environment: home.environment)
        defer { host.kill() }
        #expect(await host.waitFor("Waiting for a player to join"), "\(host.screenText())")
        #expect(host.screenText().contains("q, Esc or Ctrl-C to stop"), "\(host.screenText())")
        host.send(key)
        #expect(await host.waitFor("exit status 0", timeout: .seconds(10)), "\(host.screenText())")
        #expect(host.screenText().contains("Stopped hosting; nobody joined."), "\(host.screenText())")
        #expect(!host.screenText().contains("^["), "\(host.screenText())")
    }
}

/// Questions asked on a line outside a match go through TerminalUI's one
/// line reader (`LinePrompt`): `forget`'s y/N, in a real terminal.
@Suite("A typed answer on a real terminal (tmux)", .serialized)
struct LinePromptTerminalTests {
    @Test("forget asks, n keeps the match and y forgets it", .enabled(if: LeavingTerminalTests.canRun))
    func forgetAsks() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("forget")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        // A finished hot-seat match to forget, played through a pipe.
        let play = Process()
        play.executableURL = URL(fileURLWithPath: parlor)
        play.arguments = ["play", "tictactoe", "--vs", "human", "--plain"]
        play.environment = ProcessInfo.processInfo.environment.merging(home.environment) { _, new in new }
        let input = Pipe()
        play.standardInput = input
        play.standardOutput = FileHandle.nullDevice
        try play.run()
        input.fileHandleForWriting.write(Data("1\n4\n2\n5\n3\n".utf8))
        try input.fileHandleForWriting.close()
        play.waitUntilExit()
        let matches = try FileManager.default.contentsOfDirectory(atPath: home.path + "/parlor/matches").filter { $0.hasSuffix(".match") }
        let id = try #require(matches.first.map { String($0.prefix(8)) }, "no saved match")
        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        for (answer, outcome) in [("n", "Kept."), ("y", "Forgot match \(id).")] {
            let tmux = try TmuxSession.start(["sh", "-c", shell, parlor, "forget", id], columns: 100, rows: 10, environment: home.environment)
            defer { tmux.kill() }
            #expect(await tmux.waitFor("[y/N]"), "\(tmux.screenText())")
            tmux.send(answer)
            tmux.send("Enter")
            #expect(await tmux.waitFor(outcome), "\(tmux.screenText())")
            #expect(await tmux.waitFor("exit status 0"), "\(tmux.screenText())")
        }
    }
}

extension WaitingKeysTerminalTests {
    @Test("resume's wait for the other player stops on q with the resume line, exit 75", .enabled(if: LeavingTerminalTests.canRun))
    func resumeWaitStops() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let hostHome = LeavingTerminalTests.home("wait-resume"), guestHome = LeavingTerminalTests.home("wait-resume-guest")
        defer { for path in [hostHome.path, guestHome.path] { try? FileManager.default.removeItem(atPath: path) } }
        let port = freePort()
        func spawn(_ arguments: [String], _ environment: [String: String]) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: parlor)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        // The host dies at its first turn (a test hook), leaving an interrupted match to resume.
        var crashing = hostHome.environment
        crashing["PARLOR_TEST_CRASH_AT"] = "after-confirm"
        let host = try spawn(["host", "connect4", "--bot", "easy", "--json", "--port", "\(port)", "--seat", "first"], crashing)
        try await Task.sleep(for: .milliseconds(700))
        let guest = try spawn(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--grace", "1"], guestHome.environment)
        host.waitUntilExit()
        guest.waitUntilExit()
        let matches = try FileManager.default.contentsOfDirectory(atPath: hostHome.path + "/parlor/matches").filter { $0.hasSuffix(".match") }
        let id = try #require(matches.first.map { String($0.prefix(8)) }, "no saved match")
        let shell = "\"$0\" \"$@\"; echo \"exit status $?\"; sleep 60"
        let tmux = try TmuxSession.start(["sh", "-c", shell, parlor, "resume", id, "--grace", "60"], columns: 100, rows: 24,
                                         environment: hostHome.environment)
        defer { tmux.kill() }
        #expect(await tmux.waitFor("q, Esc or Ctrl-C to stop", timeout: .seconds(15)), "\(tmux.screenText())")
        tmux.send("q")
        #expect(await tmux.waitFor("exit status 75", timeout: .seconds(10)), "\(tmux.screenText())")
        #expect(tmux.screenText().contains("stopped waiting for"), "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("q\n") && !tmux.screenText().contains("^["), "\(tmux.screenText())")
    }
}
