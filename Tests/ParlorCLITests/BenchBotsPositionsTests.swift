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

    @Test("one line per timed position: its set, then columns 1-7 that replay to a position still in play")
    func lines() throws {
        let lines = BotBench.positionLines().split(separator: "\n")
        #expect(lines.count == BotBench.sets.map(\.count).reduce(0, +))
        for (index, set) in BotBench.sets.enumerated() {
            let mine = lines.filter { $0.hasPrefix("\(BotBench.label(set.plies)) ") }
            #expect(mine.count == set.count)
            // The same positions the bench times, in the same order.
            let moves = mine.map { String($0.split(separator: " ")[1]) }
            #expect(moves == BotBench.positions(index).map { $0.columns.map { String($0 + 1) }.joined() })
            for text in moves {
                #expect(set.plies.contains(text.count), "\(text)")
                var game = Connect4()
                for character in text {
                    let column = try #require(character.wholeNumberValue)
                    try game.apply(Move(column - 1))
                }
                #expect(!game.isOver, "\(text)")
            }
        }
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
