import Games
import Testing
@testable import Bots

/// Issue 16 item 4: the Cube Four search's bit-parallel line analysis.
@Suite("Cube Four search")
struct Cube4SearchTests {
    @Test("the 13 directions hold exactly the 76 lines of the cube")
    func directionsAreTheLines() {
        var lines = Set<UInt64>()
        for direction in Cube4Lines.directions {
            var starts = direction.starts
            while starts != 0 {
                let start = UInt64(starts.trailingZeroBitCount)
                starts &= starts - 1
                var line: UInt64 = 0
                for step in 0..<UInt64(4) { line |= 1 << (start + step * direction.shift) }
                lines.insert(line)
            }
        }
        #expect(lines == Set(Cube4.lineMasks))
        #expect(lines.count == 76)
    }

    @Test("bit-parallel analysis gives what the line-by-line one gives, on positions from random play")
    func analysisAgreesWithTheReference() throws {
        var random = SplitMix64(seed: 16)
        var checked = 0
        for weights in [Cube4Player.mediumWeights, Cube4Search.legacyWeights, (3, 7, 11, 13)] {
            let search = Cube4Search(weights: weights, nodeBudget: 0, tableBits: nil, shouldStop: { false })
            for _ in 0..<300 {
                var game = Cube4()
                let plies = Int.random(in: 0...50, using: &random)
                for _ in 0..<plies where !game.isOver {
                    let move = try #require(game.legalMoves.randomElement(using: &random))
                    try game.apply(move)
                }
                guard !game.isOver else { continue }
                let board = Cube4Bits(game)
                let fast = search.analyse(board), slow = search.analyseLineByLine(board)
                #expect(fast.mine == slow.mine && fast.theirs == slow.theirs && fast.score == slow.score, "after \(plies) random plies")
                checked += 1
            }
        }
        #expect(checked > 400)
    }
}
