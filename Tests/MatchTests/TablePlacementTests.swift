import Games
import Match
import Testing

/// Issue 12 item 3: outcomes for N seats. `MatchState.placements` is the one
/// ranking every view shows (end screen, plain result, JSON, matches, replay).
@Suite struct TablePlacementTests {
    func table(_ gameID: String, seats count: Int) -> MatchState {
        var generator = SplitMix64(seed: UInt64(count) * 31)
        let seats = (0..<count).map { Seat(playerID: .random(using: &generator), name: "P\($0 + 1)") }
        return MatchState(matchID: .random(using: &generator), game: GameCatalog.newGame(id: gameID, seats: count)!,
                          seats: seats, now: 1_000)
    }

    /// Plays the active seat's moves as `pick` chooses them until the match ends.
    func playOut(_ state: MatchState, pick: (MatchState) -> Move?) throws -> MatchState {
        var state = state
        while let seat = state.activeSeat {
            let move = try #require(pick(state))
            state = try state.applying(.move(move, by: seat), now: 2_000)
        }
        return state
    }

    @Test("no places while the match goes on, nor for a game that does not rank")
    func noPlacesUntilTheEnd() throws {
        #expect(table("dots-and-boxes", seats: 3).placements == nil)
        let connect4 = try playOut(table("connect4", seats: 2)) { $0.game.legalMoves.first }
        #expect(connect4.isEnded && connect4.placements == nil)
    }

    @Test("four seats of dots and boxes: places follow the boxes, ties share the better place")
    func placesByBoxes() throws {
        let ended = try playOut(table("dots-and-boxes", seats: 4)) { $0.game.legalMoves.first }
        let scores = try #require(ended.game.scores)
        let places = try #require(ended.placements)
        for seat in 0..<4 {
            #expect(places[seat] == 1 + scores.filter { $0 > scores[seat] }.count, "\(scores) \(places)")
        }
        for seat in 0..<4 where ended.seats[seat].outcome == .won { #expect(places[seat] == 1) }
        for seat in 0..<4 where places[seat] > 1 { #expect(ended.seats[seat].outcome == .lost, "\(scores)") }
    }

    @Test("a seat that quit ranks below every seat that played on, whatever its score")
    func quitterRanksLast() throws {
        var state = table("dots-and-boxes", seats: 3)
        // Play until seat 0 has a box, then seat 0 quits: it must still come last.
        while let seat = state.activeSeat, (state.game.scores ?? [])[0] == 0 {
            state = try state.applying(.move(try #require(state.game.legalMoves.first), by: seat), now: 2_000)
        }
        #expect((state.game.scores ?? [])[0] > 0)
        state = try state.applying(.quit(0), now: 3_000)
        let ended = try playOut(state) { $0.game.legalMoves.last }
        let places = try #require(ended.placements)
        #expect(ended.seats[0].outcome == .quit)
        #expect(places[0] == 3, "\(places), scores \(ended.game.scores ?? [])")
        #expect(places[1] < 3 && places[2] < 3)
    }

    @Test("a draw at the top of a table: the seats sharing first place tie, the one below lost")
    func drawAtTheTop() throws {
        // Search a few fixed move orders for a three-seat game whose top two scores are equal.
        var found: MatchState?
        for offset in 0..<40 where found == nil {
            let ended = try playOut(table("dots-and-boxes", seats: 3)) { state in
                let moves = state.game.legalMoves
                return moves.isEmpty ? nil : moves[(state.moves.count * 7 + offset) % moves.count]
            }
            let scores = ended.game.scores ?? []
            if scores.filter({ $0 == scores.max() }).count == 2 { found = ended }
        }
        let ended = try #require(found, "no move order among 40 ended with two seats tied at the top")
        let places = try #require(ended.placements)
        #expect(places.sorted() == [1, 1, 3])
        for seat in 0..<3 {
            #expect(ended.seats[seat].outcome == (places[seat] == 1 ? .tied : .lost), "\(places)")
        }
    }
}
