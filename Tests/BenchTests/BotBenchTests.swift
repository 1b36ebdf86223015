import Bench
import Games
import Testing

/// `parlor bench bots --positions FILE`: the solver's positions, written for other solvers to time.
@Suite("Bench: the bots bench's positions")
struct BotBenchTests {
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
}
