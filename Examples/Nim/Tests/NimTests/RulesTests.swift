import Games
import NimRules
import Testing

@Suite struct RulesTests {
    /// What a person types from the start, and the heaps it leaves (nil: refused).
    @Test(arguments: [
        ("2 3", [3, 1, 5]), ("3 5", [3, 4, 0]), ("1,1", [2, 4, 5]),
        ("1 4", nil), ("4 1", nil), ("2 0", nil), ("2", nil), ("b2", nil),
    ] as [(String, [Int]?)])
    func aTypedMove(_ typed: String, leaves heaps: [Int]?) {
        var nim = Nim(seats: 2)
        guard let move = nim.move(fromNotation: typed), nim.isLegal(move) else {
            #expect(heaps == nil, "'\(typed)' was refused")
            return
        }
        #expect(throws: Never.self) { try nim.apply(move) }
        #expect(nim.heaps == heaps)
        #expect(nim.notation(for: move) == String(typed.map { $0 == "," ? " " : $0 }))
    }

    @Test func whoeverTakesTheLastOneWins() throws {
        var nim = Nim(seats: 2)
        for typed in ["1 3", "2 4", "3 4", "3 1"] {
            #expect(nim.result == .inProgress)
            try nim.apply(#require(nim.move(fromNotation: typed)))
        }
        #expect(nim.result == .won(by: 1))
        #expect(nim.activeSeat == nil && nim.legalMoves.isEmpty)
        #expect(throws: RuleViolation.gameOver) { try nim.apply(Nim.take(1, fromHeap: 1)) }
    }

    @Test func everyLegalMoveTakesFromOneHeap() {
        let nim = Nim(seats: 2)
        #expect(nim.legalMoves.count == 3 + 4 + 5)
        #expect(nim.legalMoves.allSatisfy(nim.isLegal))
        #expect(!nim.isLegal(Move(-1)) && !nim.isLegal(Nim.take(4, fromHeap: 1)))
    }
}
