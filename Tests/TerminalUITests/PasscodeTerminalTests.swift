import Foundation
import ParlorTestSupport
import Testing

/// Issue 15 item 8: passcodes as a person at a terminal meets them. A real
/// `parlor host --code VALUE`, a real `parlor join` in a real terminal (tmux).
@Suite("Passcodes in a real terminal (tmux)", .serialized)
struct PasscodeTerminalTests {
    /// A `parlor host` in the background, its standard output in a file.
    final class Host: @unchecked Sendable {  // used by one test task at a time
        let process = Process()
        let output: String

        init(_ parlor: String, _ arguments: [String], home: String) throws {
            output = home + "/host.out"
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.executableURL = URL(fileURLWithPath: parlor)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": home + "/host"]) { _, new in new }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        /// Polls the output until it contains `needle`.
        func waitFor(_ needle: String, timeout: Duration = .seconds(15)) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if text.contains(needle) { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return text.contains(needle)
        }

        /// The JSON events written so far.
        var events: [[String: Any]] {
            text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    /// A `parlor join` in tmux, printing its exit status when it ends.
    static func join(_ parlor: String, port: Int, home: String) throws -> TmuxSession {
        try TmuxSession.start(["sh", "-c", "\"$0\" join 127.0.0.1:\"$1\" --bot easy --plain; echo \"exit status $?\"", parlor, String(port)],
                              environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_DATA_HOME": home + "/guest"])
    }

    /// A fresh directory for both sides' data.
    static func scratchHome() throws -> String {
        let home = NSTemporaryDirectory() + "parlor-passcode-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        return home
    }

    static func prompt(port: Int) -> String { "Passcode for the game at 127.0.0.1:\(port):" }

    /// A tic-tac-toe host whose code is ab12-cd (`--code VALUE`, the code as its own word after
    /// the game), and a `parlor join` in tmux at its passcode prompt. The caller stops both.
    static func codedHostAndPrompt(_ parlor: String, home: String) async throws -> (host: Host, tmux: TmuxSession, port: Int) {
        let host = try Host(parlor, ["host", "tictactoe", "--code", "ab12-cd", "--bot", "easy", "--json", "--port", "0"], home: home)
        #expect(await host.waitFor("\"listening\""), "host: \(host.text)")
        let listening = try #require(host.events.first { $0["event"] as? String == "listening" })
        #expect(listening["passcode"] as? String == "ab12-cd", "\(listening)")
        let port = try #require(listening["port"] as? Int)
        let tmux = try Self.join(parlor, port: port, home: home)
        #expect(await tmux.waitFor(Self.prompt(port: port)), "\(tmux.screenText())")
        return (host, tmux, port)
    }

    @Test("three wrong codes typed at the prompt: asked again twice, then exit 1; the host hears of each in --json",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func threeTriesThenGiveUp() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = try Self.scratchHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let (host, tmux, port) = try await Self.codedHostAndPrompt(parlor, home: home)
        defer { host.stop() }
        defer { tmux.kill() }
        for (number, code) in ["zz99-xx", "yy88-ww"].enumerated() {
            tmux.type(code)
            tmux.send("Enter")
            #expect(await tmux.waitFor("That passcode is wrong (\(number + 1) of 3 tries)."), "\(tmux.screenText())")
            #expect(await tmux.waitUntil { $0.filter { $0.contains(Self.prompt(port: port)) }.count == number + 2 },
                    "not asked again: \(tmux.screenText())")
        }
        tmux.type("xx77-vv")
        tmux.send("Enter")
        #expect(await tmux.waitFor("exit status 1", timeout: .seconds(20)), "\(tmux.screenText())")
        let screen = tmux.screenText()
        #expect(screen.contains("the host refused the passcode 3 times"), "\(screen)")
        for secret in ["zz99", "yy88", "xx77"] { #expect(!screen.contains(secret), "the typed code was echoed: \(screen)") }
        #expect(!screen.contains("passcodeWrong") && !screen.contains("(busy)"), "an internal name was shown: \(screen)")

        let notices = host.events.filter { $0["event"] as? String == "wrongPasscode" }
        #expect(notices.count == 3, "host: \(host.text)")
        #expect(notices.allSatisfy { $0["from"] as? String == "127.0.0.1" }, "\(notices)")
    }

    @Test("Ctrl-C at the passcode prompt says it stopped and nothing was joined, and exits as an interrupt (130), not as an error",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func ctrlCAtThePrompt() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = try Self.scratchHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let (host, tmux, _) = try await Self.codedHostAndPrompt(parlor, home: home)
        defer { host.stop() }
        defer { tmux.kill() }
        tmux.send("C-c")
        #expect(await tmux.waitFor("exit status 130"), "\(tmux.screenText())")
        #expect(tmux.screenText().contains("Stopped at the passcode prompt: nothing was joined."), "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("Error:"), "\(tmux.screenText())")
    }

    @Test("one wrong code, then the right one: the match is played; the host's screen says \"A wrong passcode from 127.0.0.1.\"",
          .enabled(if: TmuxSession.isAvailable && ReplayTerminalTests.parlor != nil))
    func wrongThenRight() async throws {
        let parlor = try #require(ReplayTerminalTests.parlor)
        let home = try Self.scratchHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        // `--code VALUE` before the game.
        let host = try Host(parlor, ["host", "--code", "ab12-cd", "tictactoe", "--bot", "easy", "--plain", "--port", "0"], home: home)
        defer { host.stop() }
        #expect(await host.waitFor("Waiting for a player"), "host: \(host.text)")
        let portLine = try #require(host.text.split(separator: "\n").first { $0.contains(" on port ") })
        let port = try #require(Int(portLine.split(separator: " ").last?.trimmingCharacters(in: .punctuationCharacters) ?? ""), "\(portLine)")
        #expect(host.text.contains("Passcode: ab12-cd"), "\(host.text)")

        let tmux = try Self.join(parlor, port: port, home: home)
        defer { tmux.kill() }
        #expect(await tmux.waitFor(Self.prompt(port: port)), "\(tmux.screenText())")
        tmux.type("zz99-xx")
        tmux.send("Enter")
        #expect(await tmux.waitFor("That passcode is wrong (1 of 3 tries)."), "\(tmux.screenText())")
        #expect(await host.waitFor("A wrong passcode from 127.0.0.1."), "host: \(host.text)")
        #expect(await tmux.waitUntil { $0.filter { $0.contains(Self.prompt(port: port)) }.count == 2 }, "\(tmux.screenText())")
        tmux.type("AB12CD")
        tmux.send("Enter")
        #expect(await tmux.waitFor("exit status 0", timeout: .seconds(60)), "\(tmux.screenText())")
        // The host saw the guest join and played its match to the end.
        #expect(await host.waitFor(" joined."), "host: \(host.text)")
        let deadline = ContinuousClock.now + .seconds(30)
        while host.process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!host.process.isRunning && host.process.terminationStatus == 0, "host: \(host.text)")
        #expect(!tmux.screenText().contains("AB12CD"), "the typed code was echoed")
    }
}
