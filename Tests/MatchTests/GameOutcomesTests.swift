import Bots
import Games
import ParlorTestSupport
import Testing
@testable import Match

/// Issue 39, item 3: a game ends the match with outcomes of its own
/// (`Game.outcomes`, GameKit's `matchOutcome` per participant before
/// `endMatchInTurn`), decided once in `MatchState.settleOutcomes()`; every
/// received or decoded state must carry exactly those outcomes.
@Suite("A game that ends with outcomes of its own")
struct GameOutcomesTests {
    init() {
        Nim.register()
        MisereNim.register()
        Together.register()
    }

    /// A fresh match of `type` between Ana, Ben (and Cy).
    static func newMatch(_ type: any Game.Type, seats: Int) -> MatchState {
        var generator = SplitMix64(seed: 39)
        let seats = ["Ana", "Ben", "Cy"].prefix(seats).map { Seat(playerID: .random(using: &generator), name: $0) }
        return MatchState(matchID: .random(using: &generator), gameType: type, seats: seats)
    }

    /// `state` after `moves` (each by the seat to move), every state along the way too.
    static func played(_ moves: [Move], in state: MatchState) throws -> [MatchState] {
        var states = [state]
        for move in moves {
            let last = try #require(states.last)
            states.append(try last.applying(.move(move, by: try #require(last.activeSeat)), now: 1))
        }
        return states
    }

    static let anaTakesTheLast = MisereNim.seatZeroTakesTheLast

    @Test("three bots play misère Nim offline through the controller: the seat that took the last counter lost, both others won")
    func offlineThroughTheController() async throws {
        let start = Self.newMatch(MisereNim.self, seats: 3)
        let bots = start.seats.map { BotParticipant(playerID: $0.playerID, strategy: { game, _ in game.legalMoves.first }) }
        let controller = MatchController(state: start, participants: bots)
        try await controller.start()
        let final = await controller.finished()
        // One from heap a each time: 12 moves in rotation, the 12th (Cy's) empties the heaps.
        #expect(final.moves.count == 12 && final.moves.last?.seat == 2)
        #expect(final.seats.map(\.outcome) == [.won, .won, .lost])
        #expect(final.isEnded && final.activeSeat == nil && final.seats.allSatisfy { $0.status == .done })
        #expect(final.game.isOver && final.game.result == .inProgress, "over by its outcomes alone")
        #expect(final.placements == nil, "the game does not rank")
        let decoded = try MatchBlob.decode(MatchBlob.encode(final))
        #expect(decoded.seats.map(\.outcome) == [.won, .won, .lost])
        #expect(decoded.stateHash == final.stateHash)
    }

    @Test("the same moves end plain Nim with one winner and misère Nim with two, in the blob's existing outcome bytes")
    func theSameMovesOtherOutcomes() throws {
        let plain = try #require(try Self.played(Self.anaTakesTheLast, in: Self.newMatch(Nim.self, seats: 3)).last)
        let misere = try #require(try Self.played(Self.anaTakesTheLast, in: Self.newMatch(MisereNim.self, seats: 3)).last)
        #expect(plain.seats.map(\.outcome) == [.won, .lost, .lost])
        #expect(misere.seats.map(\.outcome) == [.lost, .won, .won])
        #expect(misere.isEnded && plain.isEnded)
        // Format 2 as any three-seat match: outcome bytes 2 (lost) and 1 (won).
        let blob = MatchBlob.encode(misere)
        #expect(Array(blob[4..<6]) == [0, 2])
        #expect(BlobForge.outcomeOffsets(in: blob).map { blob[$0] } == [2, 1, 1])
    }

    @Test("two seats: whoever takes the last loses, and the format-1 blob says so")
    func twoSeats() throws {
        let states = try Self.played([Nim.move(heap: 0, count: 3), Nim.move(heap: 1, count: 4), Nim.move(heap: 2, count: 5)],
                                     in: Self.newMatch(MisereNim.self, seats: 2))
        let final = try #require(states.last)
        #expect(final.seats.map(\.outcome) == [.lost, .won])
        let blob = MatchBlob.encode(final)
        #expect(Array(blob[4..<6]) == [0, 1])
        #expect(try MatchBlob.decode(blob).seats.map(\.outcome) == [.lost, .won])
    }

    @Test("a seat that quit keeps quit; of the two that played on, the one that took the last lost and the other won")
    func aSeatThatQuitKeepsQuit() throws {
        var state = try #require(try Self.played([Nim.move(heap: 0, count: 3)], in: Self.newMatch(MisereNim.self, seats: 3)).last)
        state = try state.applying(.quit(2), now: 1)
        #expect(!state.isEnded && state.seats[2].outcome == .quit)
        // Ben, Ana, Ben: Ben takes the last.
        let final = try #require(try Self.played([Nim.move(heap: 1, count: 4), Nim.move(heap: 2, count: 4), Nim.move(heap: 2, count: 1)],
                                                 in: state).last)
        #expect(final.seats.map(\.outcome) == [.won, .lost, .quit])
        #expect(try MatchBlob.decode(MatchBlob.encode(final)).seats.map(\.outcome) == [.won, .lost, .quit])
    }

    @Test("a state claiming other outcomes than the game's is refused, as a next state and as a whole blob",
          arguments: [[Outcome.won, .lost, .lost], [.lost, .won, .lost], [.won, .won, .won], [.lost, .tied, .tied]])
    func otherOutcomesAreRefused(claimed: [Outcome]) throws {
        let states = try Self.played(Self.anaTakesTheLast, in: Self.newMatch(MisereNim.self, seats: 3))
        let (before, final) = (states[states.count - 2], try #require(states.last))
        var lie = final
        for index in lie.seats.indices { lie.seats[index].outcome = claimed[index] }
        #expect(throws: SuccessorError.outcomesDisagree) { try before.change(to: lie) }
        #expect(before.successor(decoding: MatchBlob.encode(lie)) == nil)
        #expect(throws: MatchBlobError.outcomesDisagree) { try MatchBlob.decode(MatchBlob.encode(lie)) }
        // The honest end is accepted both ways.
        #expect(try before.change(to: final) == .move(Nim.move(heap: 2, count: 1), by: 0))
        #expect(before.successor(decoding: MatchBlob.encode(final))?.state.seats.map(\.outcome) == [.lost, .won, .won])
    }

    @Test("a cooperative game ends lost for everyone at once, or won for everyone, and a seat its outcomes leave out lost")
    func cooperative() throws {
        let dropped = try #require(try Self.played([Together.keep, Together.drop], in: Self.newMatch(Together.self, seats: 3)).last)
        #expect(dropped.isEnded && dropped.seats.map(\.outcome) == [.lost, .lost, .lost])
        let kept = try #require(try Self.played([Together.keep, Together.keep, Together.keep], in: Self.newMatch(Together.self, seats: 3)).last)
        #expect(kept.seats.map(\.outcome) == [.won, .won, .won])
        let short = try #require(try Self.played([Together.keep, Together.keep, Together.shortList],
                                                 in: Self.newMatch(Together.self, seats: 3)).last)
        #expect(short.seats.map(\.outcome) == [.won, .won, .lost])
        #expect(try MatchBlob.decode(MatchBlob.encode(short)).seats.map(\.outcome) == [.won, .won, .lost])
    }

    @Test("parlor's bot reads a game's own outcomes: at misère Nim it leaves the last counter to the other seat")
    func theBotReadsOutcomes() throws {
        for level in [BotLevel.medium, .hard] {
            var bot = Bot(level: level, seed: 7)
            // Two in heap c: taking both loses at once, taking one leaves the last to Ben.
            let game = MisereNim(seats: 2, heaps: [0, 0, 2])
            #expect(bot.chooseMove(in: game) == Nim.move(heap: 2, count: 1), "\(level)")
        }
    }
}
