import Foundation
import ParlorTestSupport
import Testing

/// Issue 6: "no escape code ever reaches a pipe". Every command that can run
/// without a terminal is run with stdout and stderr on pipes, in an
/// environment that asks for as much colour as possible (xterm-256color,
/// COLORTERM=truecolor, no NO_COLOR), as `ssh box parlor ...` without a pty
/// would. Neither stream may contain an ESC byte.
@Suite("Output into pipes", .serialized)
struct PipeOutputTests {
    /// A data home with one finished match in it, and a colour-loving terminal type.
    static func colourfulEnvironment() async throws -> (environment: [String: String], matchID: String) {
        let home = NSTemporaryDirectory() + "parlor-pipe-" + UUID().uuidString
        let environment = ["XDG_DATA_HOME": home, "TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "",
                           "CLICOLOR_FORCE": "1", "AVAHI_COMPAT_NOWARN": ""]
        let played = try await ParlorProcess.run(["play", "tictactoe", "--bot", "easy", "--vs", "bot:easy", "--seed", "3"],
                                                 environment: environment, timeout: .seconds(60))
        #expect(played.status == 0, "\(played.stderr)")
        let listed = try await ParlorProcess.run(["matches", "--json"], environment: environment, timeout: .seconds(30))
        let id = jsonEvents(listed.stdout).compactMap { $0["id"] as? String }.first
        return (environment, try #require(id, "no saved match in: \(listed.stdout)"))
    }

    @Test("no command writes an escape code into a pipe, on stdout or stderr")
    func noEscapeCodesInPipes() async throws {
        let (environment, id) = try await Self.colourfulEnvironment()
        var commands: [[String]] = [
            [], ["--help"], ["help", "host"], ["games"], ["matches"], ["matches", "--json"],
            ["replay", id], ["replay", id, "--json"], ["replay", "no-such-match"],
            ["play", "connect4", "--bot", "medium", "--vs", "bot:easy", "--seed", "5"],
            ["play", "connect4", "--bot", "easy", "--vs", "bot:easy", "--seed", "5", "--json"],
            ["play", "nosuchgame"], ["frobnicate"], ["host", "connect4", "--port", "99999"],
            ["join", "127.0.0.1:1"], ["browse", "--timeout", "1"], ["browse", "--json", "--timeout", "1"],
            ["doctor"], ["forget", "no-such-match"],
        ]
        for name in ["play", "host", "join", "browse", "games", "matches", "replay", "resume", "forget", "doctor"] {
            commands.append([name, "--help"])
        }
        for arguments in commands {
            let result = try await ParlorProcess.run(arguments, environment: environment, timeout: .seconds(90))
            let shown = (["parlor"] + arguments).joined(separator: " ")
            #expect(!result.timedOut && result.status < 128, "\(shown) hung or crashed (status \(result.status))")
            #expect(!result.stdout.contains("\u{1B}"), "\(shown): escape code on stdout: \(result.stdout.prefix(300))")
            #expect(!result.stderr.contains("\u{1B}"), "\(shown): escape code on stderr: \(result.stderr.prefix(300))")
            #expect(!(result.stdout + result.stderr).isEmpty, "\(shown) printed nothing at all")
        }
    }

    @Test("--json commands print only JSON objects on stdout, one per line")
    func jsonIsOnlyJSON() async throws {
        let (environment, id) = try await Self.colourfulEnvironment()
        for arguments in [["matches", "--json"], ["replay", id, "--json"],
                          ["play", "tictactoe", "--bot", "easy", "--vs", "bot:easy", "--seed", "9", "--json"]] {
            let result = try await ParlorProcess.run(arguments, environment: environment, timeout: .seconds(60))
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(!lines.isEmpty)
            for line in lines {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
                #expect(object is [String: Any], "\(arguments): not a JSON object: \(line.prefix(200))")
            }
        }
    }
}
