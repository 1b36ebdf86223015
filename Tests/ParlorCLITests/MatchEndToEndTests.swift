@preconcurrency import Glibc
import Foundation
import ParlorTestSupport
import Testing

/// The JSON objects of a `--json` run, one per line.
func jsonEvents(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// A private data directory so tests never touch the user's saved matches.
func scratchDataHome() -> [String: String] {
    ["XDG_DATA_HOME": NSTemporaryDirectory() + "parlor-e2e-" + UUID().uuidString, "NO_COLOR": "1"]
}

/// Plays a headless `parlor play ARGUMENTS --json` match in a scratch data home and
/// returns its JSON events and the final end event, checking that stdout held JSON only.
func headlessMatch(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws
    -> (events: [[String: Any]], end: [String: Any], stdout: String) {
    let result = try await ParlorProcess.run(["play"] + arguments + ["--json"],
                                             environment: scratchDataHome(), timeout: .seconds(120))
    #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
    let events = jsonEvents(result.stdout)
    #expect(events.count == result.stdout.split(separator: "\n").count, "stdout has non-JSON lines", sourceLocation: sourceLocation)
    let end = try #require(events.last, sourceLocation: sourceLocation)
    #expect(end["event"] as? String == "end", sourceLocation: sourceLocation)
    return (events, end, result.stdout)
}

@Suite("Matches played by the real binary", .serialized)
struct MatchEndToEndTests {
    @Test("a headless bot match ends with an end event in which hard won")
    func headlessBotMatch() async throws {
        let (_, end, stdout) = try await headlessMatch(["connect4", "--bot", "hard", "--vs", "bot:easy", "--seed", "1"])
        let outcomes = try #require(end["outcomes"] as? [[String: Any]])
        let hard = try #require(outcomes.first { $0["name"] as? String == "Hard bot" })
        #expect(hard["outcome"] as? String == "won")
        #expect((end["hash"] as? String)?.count == 16)
        #expect(!stdout.contains("\u{1B}"), "escape codes on a pipe")
    }

    @Test("a tic-tac-toe game piped into plain mode reports the right winner", arguments: [
        ("1\n4\n2\n5\n3\n", "Player 1 (X) wins."),
        ("1\n4\n2\n5\n9\n6\n", "Player 2 (O) wins."),
        ("1\n2\n3\n5\n4\n6\n8\n7\n9\n", "It's a draw."),
    ])
    func pipedTicTacToe(moves: String, verdict: String) async throws {
        let result = try await ParlorProcess.run(["play", "tictactoe", "--vs", "human"], stdin: moves,
                                                 environment: scratchDataHome(), timeout: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(verdict), "\(result.stdout.suffix(400))")
        #expect(!result.stdout.contains("\u{1B}"))
    }

    @Test("a wrong move in plain mode gets a clear message and the prompt again")
    func wrongMoveInPlainMode() async throws {
        let result = try await ParlorProcess.run(["play", "connect4", "--vs", "bot:easy", "--plain", "--seed", "3"],
                                                 stdin: "9\nx\n", environment: scratchDataHome(), timeout: .seconds(30))
        // End of input leaves for now (75, the match stays resumable); nothing is quit.
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "Your move").count >= 3, "\(result.stdout)")
        #expect(result.stdout.contains("leaves the match for now"), "\(result.stdout)")
        #expect(result.stdout.contains("parlor resume "), "\(result.stdout)")
        #expect(!result.stdout.contains("Player (X) quit"), "\(result.stdout)")
    }

    @Test("two parlor processes play a match over 127.0.0.1 and agree on the final state", arguments: ["127.0.0.1", "::1"])
    func hostAndJoin(address: String) async throws {
        if address == "::1" {
            let probe = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(probe) }
            try #require(probe >= 0, "no IPv6 here")
        }
        let port = freePort()
        let hostEnv = scratchDataHome(), guestEnv = scratchDataHome()
        async let host = ParlorProcess.run(["host", "connect4", "--bot", "medium", "--json", "--port", "\(port)"],
                                           environment: hostEnv, timeout: .seconds(120))
        try await Task.sleep(for: .milliseconds(800))
        let target = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        let guest = try await ParlorProcess.run(["join", target, "--bot", "medium", "--json"],
                                                environment: guestEnv, timeout: .seconds(120))
        let hostResult = try await host
        #expect(guest.status == 0, "guest: \(guest.stderr)")
        #expect(hostResult.status == 0, "host: \(hostResult.stderr)")
        let hostEvents = jsonEvents(hostResult.stdout), guestEvents = jsonEvents(guest.stdout)
        #expect(hostEvents.first?["event"] as? String == "listening")
        #expect(hostEvents.first?["port"] as? Int == Int(port))
        #expect((hostEvents.first?["ssh"] as? String)?.hasPrefix("ssh -L \(port):localhost:\(port) ") == true,
                "no ssh -L line in \(String(describing: hostEvents.first))")
        let hostEnd = try #require(hostEvents.last), guestEnd = try #require(guestEvents.last)
        #expect(hostEnd["event"] as? String == "end" && guestEnd["event"] as? String == "end")
        #expect(hostEnd["hash"] as? String == guestEnd["hash"] as? String)
        let outcomes = { (event: [String: Any]) in (event["outcomes"] as? [[String: Any]])?.compactMap { $0["outcome"] as? String } }
        #expect(outcomes(hostEnd) == outcomes(guestEnd))
        #expect(hostEnd["moves"] as? Int == guestEnd["moves"] as? Int)

        // Both sides saved the match, ended, with the same moves.
        let hostSaved = try await ParlorProcess.run(["matches", "--json"], environment: hostEnv)
        let guestSaved = try await ParlorProcess.run(["matches", "--json"], environment: guestEnv)
        let hostRecord = try #require(jsonEvents(hostSaved.stdout).first), guestRecord = try #require(jsonEvents(guestSaved.stdout).first)
        #expect(hostRecord["state"] as? String == "ended" && guestRecord["state"] as? String == "ended")
        #expect(hostRecord["hash"] as? String == hostEnd["hash"] as? String)
        #expect(guestRecord["hash"] as? String == guestEnd["hash"] as? String)
        #expect(hostRecord["role"] as? String == "host" && guestRecord["role"] as? String == "guest")
    }

    @Test("joining a port where nobody listens fails quickly with a clear error")
    func joinRefused() async throws {
        let port = freePort()
        let result = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--plain"], environment: scratchDataHome(),
                                                 timeout: .seconds(20))
        #expect(result.status == 1)
        // One sentence: what happened and what to do, each said once.
        #expect(result.stderr == "Error: nothing is listening at 127.0.0.1:\(port); check that the host is running and the port is right\n",
                "\(result.stderr)")
    }

    @Test("hosting on a port that is taken says so")
    func hostPortTaken() async throws {
        let port = freePort()
        async let first = ParlorProcess.run(["host", "tictactoe", "--port", "\(port)", "--plain"],
                                            environment: scratchDataHome(), timeout: .seconds(3))
        try await Task.sleep(for: .milliseconds(800))
        let second = try await ParlorProcess.run(["host", "tictactoe", "--port", "\(port)", "--plain"],
                                                 environment: scratchDataHome(), timeout: .seconds(10))
        _ = try await first
        #expect(second.status == 1)
        #expect(second.stderr.contains("port \(port) is already in use"))
    }

    @Test("bench turns and bench tables with a --dir that cannot hold a store say which and why, and exit 1")
    func benchStoreUnavailable() async throws {
        let file = NSTemporaryDirectory() + "parlor-bench-file-" + UUID().uuidString
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        for arguments in [["bench", "turns", "--count", "10"], ["bench", "tables", "--tables", "1"]] {
            let result = try await ParlorProcess.run(arguments + ["--dir", file], environment: scratchDataHome(), timeout: .seconds(60))
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("cannot make a store in \(file)"), "\(result.stderr)")
            #expect(result.stderr.contains("Not a directory"), "\(result.stderr)")
            #expect(!result.stderr.contains("NSCocoaErrorDomain"), "\(result.stderr)")
        }
    }

    @Test("bench turns prints the full durable turn, the protocol alone and the floor, with ratios, and leaves no store behind")
    func benchTurns() async throws {
        let environment = scratchDataHome()
        let elsewhere = NSTemporaryDirectory() + "parlor-bench-dir-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        for extra in [[], ["--dir", elsewhere]] {
            let result = try await ParlorProcess.run(["bench", "turns", "--count", "30"] + extra, environment: environment,
                                                     timeout: .seconds(120))
            #expect(result.status == 0, "\(result.stderr)")
            let parent = extra.isEmpty ? environment["XDG_DATA_HOME"]! + "/parlor" : elsewhere
            #expect(result.stdout.contains("full turn (real host and guest, each saving to a store in \(parent))"), "\(result.stdout)")
            #expect(result.stdout.contains("protocol only (no store)"))
            #expect(result.stdout.contains("floor: plain blocking ping-pong + one durable append"))
            #expect(result.stdout.contains("ratio to floor: p50 "))
            #expect(result.stdout.contains("ratio to plain ping-pong: p50 "))
            #expect(result.stdout.contains("breakdown, not a floor: the same bytes echoed through parlor's event loop"))
            #expect(result.stdout.contains("breakdown, not a floor: the same turns on one plain thread per side"))
            // Six measured lines: full, full sealed (protocol 3), protocol only, the floor, the plain
            // ping-pong, the event loop; and the threaded turn with the stores and without.
            let lines = result.stdout.split(separator: "\n")
            let figures = lines.filter { $0.hasPrefix("    p50 ") && $0.contains(" µs   p99 ") }
            #expect(figures.count == 6, "\(result.stdout)")
            #expect(result.stdout.contains("full turn, sealed (both sides behind protocol 3's encrypted channel"), "\(result.stdout)")
            #expect(result.stdout.contains("ratio to the full turn in clear: p50 "), "\(result.stdout)")
            // Joining, in this process and against a host in another, each with a passcode offered too.
            #expect(result.stdout.components(separatedBy: "goal: the handshake adds at most 2 ms to joining, with a passcode too: ").count == 3,
                    "\(result.stdout)")
            #expect(result.stdout.contains("a host in another process, a table each"), "\(result.stdout)")
            #expect(result.stdout.components(separatedBy: "sealed, proving a passcode (CPace, XXpsk3): p50 ").count == 3, "\(result.stdout)")
            let threaded = lines.filter { ($0.hasPrefix("    with the stores: p50 ") || $0.hasPrefix("    no store:        p50 "))
                                          && $0.contains(" µs   p99 ") && $0.contains("ratio to") }
            #expect(threaded.count == 2, "\(result.stdout)")
            // The bench's own store is gone: nothing of it shows in the user's matches.
            let left = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
            #expect(!left.contains { $0.hasPrefix("bench-turns-") || $0.hasPrefix("parlor-bench-handshake-") }, "\(left)")
        }
    }
}
