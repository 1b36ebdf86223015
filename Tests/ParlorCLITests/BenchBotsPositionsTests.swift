import Bots
import Foundation
import Games
import ParlorTestSupport
import Testing
@testable import ParlorCLI

/// `parlor bench bots --positions FILE`: the solver's positions, written for other solvers to time.
@Suite("parlor bench bots --positions")
struct BenchBotsPositionsTests {
    @Test("the flag parses into the options")
    func parses() throws {
        #expect(try parsed(["bench", "bots", "--positions", "/tmp/p.txt"], as: BenchBotsOptions.self)
            == BenchBotsOptions(games: 100, game: "connect4", positionsFile: "/tmp/p.txt"))
    }

    @Test("a file that cannot be written: exit 74 with the path in the error, before any game is played")
    func unwritable() async throws {
        let path = "/nonexistent-dir-\(UUID().uuidString)/positions.txt"
        let result = try await parlor(["bench", "bots", "--games", "1", "--positions", path])
        #expect(result.status == 74, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("Error: cannot write the positions to \(path)"), "\(result.stderr)")
        #expect(!result.stdout.contains("hard won"), "\(result.stdout)")
    }
}
