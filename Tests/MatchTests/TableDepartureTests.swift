import Games
import Match
import Testing

/// Issue 12 item 2 at the match layer: with three or more seats a quit or a
/// time expiry leaves the match going for the others, the game names who is
/// next, and the blob (format 2) records when each seat left so the history
/// replays the same on every peer and from disk.
@Suite struct TableDepartureTests {
    func table(_ gameID: String, seats count: Int, turnTimeout: UInt32 = 0) -> MatchState {
        var generator = SplitMix64(seed: UInt64(count) * 77)
        let names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"]
        let seats = (0..<count).map { Seat(playerID: .random(using: &generator), name: names[$0]) }
        return MatchState(matchID: .random(using: &generator), game: GameCatalog.newGame(id: gameID, seats: count)!,
                          seats: seats, turnTimeout: turnTimeout, now: 1_000)
    }

    /// Plays the active seat's first legal move that does not end the game, `count` times.
    func play(_ count: Int, in state: MatchState) throws -> MatchState {
        var state = state
        for _ in 0..<count {
            let seat = try #require(state.activeSeat)
            let move = try #require(state.game.legalMoves.first)
            state = try state.applying(.move(move, by: seat), now: 2_000)
        }
        return state
    }

    func roundTrip(_ state: MatchState) throws -> MatchState {
        let bytes = MatchBlob.encode(state)
        let decoded = try MatchBlob.decode(bytes)
        #expect(decoded.stateHash == state.stateHash)
        #expect(decoded.leftAfter == state.leftAfter)
        #expect(decoded.activeSeat == state.activeSeat)
        return decoded
    }

    @Test("a seat that quits out of turn at a three-seat table is skipped, and the others play on")
    func quitOutOfTurn() throws {
        var state = try play(2, in: table("dots-and-boxes", seats: 3))
        #expect(state.activeSeat == 2)
        state = try state.applying(.quit(1), now: 3_000)
        #expect(!state.isEnded)
        #expect(state.seats[1].outcome == .quit)
        #expect(state.leftAfter == [nil, 2, nil])
        // Dots and boxes rotates 2 → 0 → 2 … from now on (no box is completed by these first lines).
        var movers: [Int] = []
        for _ in 0..<4 {
            movers.append(try #require(state.activeSeat))
            state = try play(1, in: state)
        }
        #expect(movers == [2, 0, 2, 0])
        #expect(throws: MatchRuleError.seatHasLeft(1)) { try state.applying(.quit(1), now: 4_000) }
        let decoded = try roundTrip(state)
        #expect(MatchBlob.encode(decoded)[4...5] == [0, 2], "three seats are written in format 2")
    }

    @Test("the seat to move quitting hands the turn to the next seat still playing")
    func quitInTurn() throws {
        var state = try play(1, in: table("dots-and-boxes", seats: 4))
        #expect(state.activeSeat == 1)
        state = try state.applying(.quit(1), now: 3_000)
        #expect(state.activeSeat == 2)
        _ = try roundTrip(state)
    }

    @Test("when all but one seat have left, the last one wins and the match ends")
    func lastSeatStandingWins() throws {
        var state = try play(3, in: table("dots-and-boxes", seats: 3))
        state = try state.applying(.quit(0), now: 3_000)
        #expect(!state.isEnded)
        state = try state.applying(.quit(2), now: 3_500)
        #expect(state.isEnded)
        #expect(state.seats.map(\.outcome) == [.quit, .won, .quit])
        _ = try roundTrip(state)
    }

    @Test("a turn that times out at a three-seat table marks that seat and the match goes on")
    func timeExpiryGoesOn() throws {
        var state = table("dots-and-boxes", seats: 3, turnTimeout: 30)
        let deadline = state.deadline
        state = try state.applying(.timeExpired(0), now: deadline)
        #expect(state.seats[0].outcome == .timeExpired)
        #expect(state.activeSeat == 1)
        #expect(!state.isEnded)
        _ = try roundTrip(state)
    }

    @Test("a receiver accepts the host's next state with a departure, and the departure's place in history is checked")
    func successorWithDeparture() throws {
        let before = try play(2, in: table("dots-and-boxes", seats: 3))
        let after = try before.applying(.quit(0), now: 3_000)
        #expect(try before.change(to: MatchBlob.decode(MatchBlob.encode(after))) == .quit(0))
        // A blob that says seat 0 left after more moves than were played is refused.
        var bytes = MatchBlob.encode(after)
        let offset = 4 + 2 + 16 + 1 + "dots-and-boxes".utf8.count + 2 + 1 + 16 + 1 + "Ana".utf8.count + 2
        #expect(bytes[offset...offset + 1] == [0, 2])
        bytes[offset + 1] = 9
        #expect(throws: MatchBlobError.invalidField("seat left after")) { try MatchBlob.decode(bytes) }
    }

    @Test("six-seat Chinese checkers fits the blob; a seat that quits has its pegs lifted and ranks last")
    func sixSeatCheckers() throws {
        var state = try play(3, in: table("chinese-checkers", seats: 6))
        #expect(state.activeSeat == 3)
        state = try state.applying(.quit(4), now: 3_000)
        let checkers = try #require(state.game(as: ChineseCheckers.self))
        #expect(!checkers.holes.contains(4), "seat 4's pegs are off the board")
        #expect(checkers.placements?[4] == 6)
        state = try play(2, in: state)
        #expect(state.moves.suffix(2).map(\.seat) == [3, 5], "seat 4 is skipped")
        _ = try roundTrip(state)
    }
}
