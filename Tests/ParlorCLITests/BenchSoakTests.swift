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

    @Test("an unknown game is a usage error that suggests the right one")
    func unknownGame() async throws {
        let result = try await ParlorProcess.run(["bench", "soak", "--game", "conect4"], environment: ["NO_COLOR": "1"],
                                                 timeout: .seconds(30))
        #expect(result.status == 64)
        #expect(result.stderr.contains("Did you mean 'connect4'?"))
    }
}
