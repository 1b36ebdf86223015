import Foundation
import Match
import ParlorTestSupport
import Testing
@testable import ParlorCLI

/// `parlor bench soak`, run as the real binary: real hosts and guests over loopback.
@Suite("parlor bench soak")
struct BenchSoakTests {
    /// The figure a line of the report gives, e.g. `desyncs: 0` -> "0".
    static func figure(_ name: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + ":") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) }
    }

    @Test("20 matches over loopback: all played, host and guest agree on every final state")
    func twentyMatches() async throws {
        let result = try await ParlorProcess.run(["bench", "soak", "--matches", "20"], environment: ["NO_COLOR": "1"],
                                                 timeout: .seconds(120))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(Self.figure("desyncs", in: result.stdout) == "0", "\(result.stdout)")
        #expect(Self.figure("failed matches", in: result.stdout) == "0", "\(result.stdout)")
        #expect(Self.figure("matches played", in: result.stdout)?.hasPrefix("20 in ") == true, "\(result.stdout)")
        let turns = Self.figure("turns", in: result.stdout)?.split(separator: " ").first.flatMap { Int($0) } ?? 0
        #expect(turns >= 20 * 5, "every game takes at least five moves to end: \(result.stdout)")
        #expect(Self.figure("peak memory (VmHWM)", in: result.stdout)?.contains("kB") == true, "\(result.stdout)")
    }

    @Test("the verdict: equal ended states agree; different states, or a desync either side saw, are desyncs")
    func verdict() throws {
        let start = MatchFixtures.newMatch("tictactoe")
        let won = try MatchFixtures.after([0, 3, 1, 4, 2], in: start)       // seat 0 completes the top row
        let otherWin = try MatchFixtures.after([0, 3, 1, 4, 8, 5], in: start)  // seat 1 completes the middle row
        guard case .agreed(let turns) = soakVerdict(index: 0, host: won, hostFailure: nil, guest: won, guestFailure: nil) else {
            Issue.record("equal final states were not an agreement"); return
        }
        #expect(turns == 5)
        guard case .desync = soakVerdict(index: 0, host: won, hostFailure: nil, guest: otherWin, guestFailure: nil) else {
            Issue.record("different final states were not a desync"); return
        }
        guard case .desync = soakVerdict(index: 0, host: won, hostFailure: nil, guest: won, guestFailure: .desync("seen")) else {
            Issue.record("a desync the guest detected was not counted"); return
        }
        guard case .failed = soakVerdict(index: 0, host: start, hostFailure: .connectionLost("cut"), guest: start, guestFailure: nil) else {
            Issue.record("a lost connection was not a failed match"); return
        }
        guard case .failed = soakVerdict(index: 0, host: start, hostFailure: nil, guest: start, guestFailure: nil) else {
            Issue.record("a match that never ended was not a failed match"); return
        }
    }

    @Test("an unknown game is a usage error that suggests the right one")
    func unknownGame() async throws {
        let result = try await ParlorProcess.run(["bench", "soak", "--game", "conect4"], environment: ["NO_COLOR": "1"],
                                                 timeout: .seconds(30))
        #expect(result.status == 64)
        #expect(result.stderr.contains("Did you mean 'connect4'?"))
    }
}
