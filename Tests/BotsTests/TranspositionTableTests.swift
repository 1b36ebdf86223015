@testable import Bots
import Games
import Testing

@Suite("A cleared transposition table answers as a fresh one")
struct TranspositionTableTests {
    @Test("What was stored before a clear is gone, and what is stored after it is found")
    func clearForgets() {
        var table = TranspositionTable(bits: 8)
        table.store(42, depth: 3, score: -7, bound: .lower, move: 5)
        #expect(table.probe(42)?.score == -7)
        table.clear()
        #expect(table.probe(42) == nil)
        table.store(43, depth: 4, score: 9, bound: .exact, move: 2)
        let entry = table.probe(43)
        #expect(entry?.depth == 4 && entry?.score == 9 && entry?.bound == .exact && entry?.move == 2)
    }

    @Test("When the generations run out, the memory is zeroed: an old entry never comes back")
    func generationsWrap() {
        var table = TranspositionTable(bits: 4)
        table.store(7, depth: 1, score: 1, bound: .exact, move: 0)
        // 2^15 clears bring the generation back to the one the entry was stored in.
        for _ in 0..<(1 << 15) { table.clear() }
        #expect(table.probe(7) == nil)
        table.store(7, depth: 2, score: 3, bound: .upper, move: 1)
        #expect(table.probe(7)?.score == 3)
    }

    @Test("hard's search with one table kept through a game picks the moves it picks with a new table each move")
    func keptTableChangesNoMove() throws {
        // Consecutive positions of one game share most of their lines: an
        // entry left over from the move before would change the search.
        var kept: TranspositionTable?
        var game = Connect4()
        var random = SplitMix64(seed: 8)
        var differed = 0
        while !game.isOver && game.moveCount < 30 {
            let board = Connect4Bits(game)
            let candidates = Connect4Player.columns(board.nonLosingMoves(board.possible))
            if candidates.count > 1 {
                var fresh: TranspositionTable?
                let withKept = Connect4Player.hard(board, candidates: candidates, nodeBudget: 100_000, table: &kept, shouldStop: { false })
                let withFresh = Connect4Player.hard(board, candidates: candidates, nodeBudget: 100_000, table: &fresh, shouldStop: { false })
                if withKept?.column != withFresh?.column || withKept?.score != withFresh?.score { differed += 1 }
            }
            let moves = game.legalMoves
            try game.apply(moves[Int(random.next() % UInt64(moves.count))])
        }
        #expect(differed == 0, "\(differed) positions searched differently")
    }
}
