import Games
import Match
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

    /// A move is a `Take` value, saved as its JSON: it reads back the same,
    /// a heap past 8 is no longer a problem of the encoding, and a Take too
    /// long for the game's 32 bytes, or the same Take spelled otherwise, is refused.
    @Test func aMoveIsATakeValueSavedAsItsOneSpelling() throws {
        let move = try Nim.move(Nim.Take(heap: 2, count: 3))
        #expect(move.bytes == Array(#"{"count":3,"heap":2}"#.utf8))
        #expect(Nim.value(of: move) == Nim.Take(heap: 2, count: 3))
        var wide = Nim(heaps: [3, 40, 5])
        try wide.apply(Nim.take(30, fromHeap: 2))
        #expect(wide.heaps == [3, 10, 5])
        #expect(throws: MoveEncodingError.tooLong(bytes: 44, limit: 32)) {
            try Nim.move(Nim.Take(heap: 2_000_000_000_000, count: 3_000_000_000_000))
        }
        // A peer's numbers are judged, never trusted: an empty heap, a count of 0 or less, a heap that is not there.
        var emptied = Nim(heaps: [0, 4, 5])
        #expect(!emptied.isLegal(Nim.take(1, fromHeap: 1)) && !emptied.isLegal(Nim.take(0, fromHeap: 2)))
        #expect(!emptied.isLegal(Nim.take(-3, fromHeap: 2)) && !emptied.isLegal(Nim.take(1, fromHeap: 9)))
        #expect(throws: RuleViolation.self) { try emptied.apply(Nim.take(1, fromHeap: 1)) }
        let spaced = Move(bytes: Array(#"{"heap": 2, "count": 3}"#.utf8))
        #expect(!Nim(seats: 2).isLegal(spaced), "the same Take spelled otherwise is not a move")

        // In a match, saved and read back as a peer or the store reads it.
        try Nim.register()
        var generator = SplitMix64(seed: 7)
        let seats = [Seat(playerID: .random(using: &generator), name: "Ana"), Seat(playerID: .random(using: &generator), name: "Ben")]
        var state = MatchState(matchID: .random(using: &generator), game: Nim(seats: 2), seats: seats)
        state = try state.applying(.move(move, by: 0), now: 0)
        #expect(throws: MatchRuleError.illegalMove(spaced)) { try state.applying(.move(spaced, by: 1), now: 0) }
        let read = try MatchBlob.decode(MatchBlob.encode(state))
        #expect(read.moves.map { Nim.value(of: $0.move) } == [Nim.Take(heap: 2, count: 3)])
        #expect(read.game(as: Nim.self)?.heaps == [3, 1, 5])
    }
}
