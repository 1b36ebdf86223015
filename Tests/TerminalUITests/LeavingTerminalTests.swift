import Foundation
import ParlorTestSupport
import Testing

/// Issue 15, "leaving is never losing by accident": Ctrl-C and a closed
/// terminal leave a match for now, never quit it, and `parlor resume`
/// continues it, in a LAN match and against a bot. The real binary in a real
/// terminal (tmux).
@Suite("Leaving for now in a real terminal (tmux)", .serialized)
struct LeavingTerminalTests {
    static var parlor: String? { ReplayTerminalTests.parlor }
    static var canRun: Bool { TmuxSession.isAvailable && parlor != nil }

    /// A fresh data home and the environment for a full-screen parlor in it.
    static func home(_ label: String) -> (path: String, environment: [String: String]) {
        let path = NSTemporaryDirectory() + "parlor-\(label)-" + UUID().uuidString
        return (path, ["XDG_DATA_HOME": path, "TERM": "xterm-256color", "LANG": "C.UTF-8", "USER": "ana"])
    }

    /// The JSON objects in a file written by `--json`, one per line.
    static func events(inFile path: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    /// Polls `path` until one of its JSON events satisfies `predicate`.
    static func waitForEvent(in path: String, timeout: Duration = .seconds(20),
                             _ predicate: ([String: Any]) -> Bool) async -> [String: Any]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let event = events(inFile: path).first(where: predicate) { return event }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// The id in the first "parlor resume ID" on `screen`.
    static func resumeID(_ screen: String) -> String? {
        guard let range = screen.range(of: "parlor resume ") else { return nil }
        let id = screen[range.upperBound...].prefix { $0.isHexDigit }
        return id.count >= 8 ? String(id) : nil
    }

    /// `parlor matches --json` in `home`: the saved matches.
    static func matches(_ parlor: String, home: String) throws -> [[String: Any]] {
        let text = try ReplayTerminalTests.run(parlor, ["matches", "--json"], environment: ["XDG_DATA_HOME": home])
        return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test("Ctrl-C in a LAN match leaves for now: exit 130, the resume line, and the host's JSON shows a leave, not a quit",
          .enabled(if: canRun))
    func controlCInALANMatch() async throws {
        let parlor = try #require(Self.parlor)
        let host = Self.home("leave-host"), guest = Self.home("leave-guest")
        defer { for path in [host.path, guest.path] { try? FileManager.default.removeItem(atPath: path) } }
        let hostOut = host.path + ".json"
        defer { try? FileManager.default.removeItem(atPath: hostOut) }
        try FileManager.default.createDirectory(atPath: host.path, withIntermediateDirectories: true)
        let hostTerm = try TmuxSession.start(["sh", "-c", "\"$0\" host connect4 --bot easy --json --port 0 --name Ana --seat second --grace 30 > \"$1\"",
                                              parlor, hostOut], environment: host.environment)
        defer { hostTerm.kill() }
        let listening = try #require(await Self.waitForEvent(in: hostOut) { $0["event"] as? String == "listening" },
                                     "host: \(hostTerm.screenText())")
        let port = try #require(listening["port"] as? Int)

        let tmux = try TmuxSession.start(["sh", "-c", "\"$0\" join 127.0.0.1:\"$1\" --name Bo; echo \"exit status $?\"",
                                          parlor, "\(port)"], environment: guest.environment)
        defer { tmux.kill() }
        #expect(await tmux.waitFor("Your turn", timeout: .seconds(20)), "\(tmux.screenText())")
        tmux.send("4", "Enter")
        #expect(await Self.waitForEvent(in: hostOut) { $0["event"] as? String == "move" && $0["seat"] as? Int == 0 } != nil)
        #expect(await tmux.waitFor("Your turn", timeout: .seconds(20)), "\(tmux.screenText())")
        tmux.send("C-c")
        #expect(await tmux.waitFor("exit status 130", timeout: .seconds(10)), "\(tmux.screenText())")
        let screen = tmux.screenText()
        let id = try #require(Self.resumeID(screen), "no resume line: \(screen)")
        #expect(screen.contains("for now"), "\(screen)")
        #expect(!screen.contains("quit,"), "\(screen)")

        // The host reads that Bo left and may come back; nobody quit.
        let notice = await Self.waitForEvent(in: hostOut) {
            ($0["event"] as? String == "notice") && (($0["text"] as? String)?.contains("may resume") == true)
        }
        #expect(notice != nil, "\(Self.events(inFile: hostOut))")
        #expect(!Self.events(inFile: hostOut).contains { $0["event"] as? String == "quit" }, "\(Self.events(inFile: hostOut))")
        let saved = try Self.matches(parlor, home: guest.path)
        #expect(saved.first?["state"] as? String == "interrupted", "\(saved)")
        #expect((saved.first?["id"] as? String)?.hasPrefix(id) == true, "\(saved)")
    }

    @Test("Ctrl-C against a bot leaves for now, and parlor resume ID continues the match on this machine",
          .enabled(if: canRun))
    func controlCInABotMatchThenResume() async throws {
        let parlor = try #require(Self.parlor)
        let home = Self.home("leave-bot")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let tmux = try TmuxSession.start(["sh", "-c", "\"$0\" play connect4 --vs bot:easy --seat first; echo \"exit status $?\"", parlor],
                                         environment: home.environment)
        defer { tmux.kill() }
        #expect(await tmux.waitFor("Your turn"), "\(tmux.screenText())")
        tmux.send("1", "Enter")
        try await Task.sleep(for: .milliseconds(800))
        #expect(await tmux.waitFor("Your turn"), "\(tmux.screenText())")
        tmux.send("C-c")
        #expect(await tmux.waitFor("exit status 130"), "\(tmux.screenText())")
        let screen = tmux.screenText()
        let id = try #require(Self.resumeID(screen), "no resume line: \(screen)")
        #expect(!screen.contains("quit,") && !screen.contains("wins"), "\(screen)")
        let saved = try Self.matches(parlor, home: home.path)
        #expect(saved.first?["state"] as? String == "interrupted", "\(saved)")

        let resumed = try TmuxSession.start(["sh", "-c", "\"$0\" resume \"$1\"; echo \"exit status $?\"", parlor, id],
                                            environment: home.environment)
        defer { resumed.kill() }
        #expect(await resumed.waitFor("Your turn"), "\(resumed.screenText())")
        #expect(!resumed.screenText().contains("cannot be resumed"), "\(resumed.screenText())")
        // The first move is still on the board: the disc in column 1.
        #expect(resumed.screen().contains { $0.contains("●") || $0.contains("X") }, "\(resumed.screenText())")
        // Quitting is a choice: q asks, y quits.
        resumed.send("q")
        #expect(await resumed.waitFor("Quit this match? (y/n)"), "\(resumed.screenText())")
        resumed.send("y")
        #expect(await resumed.waitFor("quit"), "\(resumed.screenText())")
        resumed.send("x")
        #expect(await resumed.waitFor("exit status 0"), "\(resumed.screenText())")
        #expect(try Self.matches(parlor, home: home.path).first?["state"] as? String == "ended")
    }

    @Test("closing the terminal (tmux kill-session, SIGHUP) during a bot match, then parlor resume continues it",
          .enabled(if: canRun))
    func closedTerminalThenResume() async throws {
        let parlor = try #require(Self.parlor)
        let home = Self.home("leave-hup")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let tmux = try TmuxSession.start([parlor, "play", "tictactoe", "--vs", "bot:easy", "--seat", "first"], environment: home.environment)
        defer { tmux.kill() }
        #expect(await tmux.waitFor("Your turn"), "\(tmux.screenText())")
        tmux.send("5", "Enter")
        try await Task.sleep(for: .milliseconds(1500))
        try tmux.tmux(["kill-session", "-t", tmux.name])
        // The match is saved as interrupted once parlor has seen the hang-up.
        let deadline = ContinuousClock.now + .seconds(10)
        var state: String?
        while ContinuousClock.now < deadline {
            state = try Self.matches(parlor, home: home.path).first?["state"] as? String
            if state == "interrupted" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(state == "interrupted")

        let resumed = try TmuxSession.start(["sh", "-c", "\"$0\" resume; echo \"exit status $?\"", parlor], environment: home.environment)
        defer { resumed.kill() }
        #expect(await resumed.waitFor("Your turn"), "\(resumed.screenText())")
        let board = resumed.screenText()
        #expect(!board.contains("none is saved") && !board.contains("cannot be resumed"), "\(board)")
        #expect(try Self.matches(parlor, home: home.path).first?["state"] as? String == "playing")
    }
}
