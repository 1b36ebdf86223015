import Bots
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Issue 39, item 3: a game that ends with outcomes of its own (Misère Nim:
/// whoever takes the last counter loses) ends alike on both sides of a LAN
/// match, and neither side takes a state whose outcomes are not the game's.
@Suite("A game's own outcomes over the Session API", .serialized)
struct GameOutcomesProtocolTests {
    init() { MisereNim.register() }

    @Test("over loopback TCP, host and guest play Misère Nim to the end: the seat that took the last counter lost on both sides, equal hashes")
    func loopbackEndsAlike() async throws {
        let match = try await LoopbackMatch.start(gameID: MisereNim.id, seed: 11, appVersion: "test",
            hostPlayer: { id, random in BotParticipant(playerID: id) { game, _ in random.pick(from: game.legalMoves) } })
        #expect(match.joined.initialState.gameID == MisereNim.id)
        #expect(await match.playRandomlyToTheEnd() > 0)
        let host = await match.hostController.finished()
        let guest = await match.guestController.finished()
        let last = try #require(host.moves.last?.seat)
        #expect(host.isEnded && guest.isEnded && host.game.isOver)
        #expect(host.seats[last].outcome == .lost && host.seats[1 - last].outcome == .won, "\(host.seats.map(\.outcome))")
        #expect(guest.seats.map(\.outcome) == host.seats.map(\.outcome))
        #expect(host.stateHash == guest.stateHash && host.moves == guest.moves)
    }

    /// A two-seat Misère Nim match before and after the host's (seat 0's) last move, which takes the last counter.
    static func lastPush() throws -> (known: MatchState, final: MatchState) {
        var state = MatchState(matchID: .random(), gameType: MisereNim.self,
                               seats: [Seat(playerID: .random(), name: "Ana"), Seat(playerID: .random(), name: "Ben")])
        for (seat, move) in [(0, Nim.move(heap: 0, count: 3)), (1, Nim.move(heap: 1, count: 4))] {
            state = try state.applying(.move(move, by: seat), now: 1)
        }
        return (state, try state.applying(.move(Nim.move(heap: 2, count: 5), by: 0), now: 1))
    }

    @Test("a lying host whose final push says it won after taking the last counter is a desync the guest names; the honest push is taken")
    func aLyingHostIsRefused() throws {
        let (known, final) = try Self.lastPush()
        #expect(final.seats.map(\.outcome) == [.lost, .won])
        let lie = BlobForge.claimingOutcomes(MatchBlob.encode(final), [Outcome.won.rawValue, Outcome.lost.rawValue])
        guard case .failure(let desync) = GuestPushValidator.validate(.turn, sequence: final.sequence, blob: lie, known: known, guestSeat: 1) else {
            Issue.record("the guest took a final state with the outcomes swapped")
            return
        }
        #expect(desync.description.contains("the match's outcomes do not follow from its moves"), "\(desync)")
        let honest = try GuestPushValidator.validate(.turn, sequence: final.sequence, blob: MatchBlob.encode(final), known: known,
                                                     guestSeat: 1).get()
        #expect(honest.received.seats.map(\.outcome) == [.lost, .won])
        #expect(honest.received.stateHash == final.stateHash)
    }

    @Test("a lying guest whose last TURN claims the win after taking the last counter is refused outcomesDisagree")
    func aLyingGuestIsRefused() throws {
        let (committed, final) = try Self.lastPush()
        let lie = BlobForge.claimingOutcomes(MatchBlob.encode(final), [Outcome.won.rawValue, Outcome.lost.rawValue])
        let result = HostTurnValidator.validate(.turn, sequence: final.sequence, blob: lie, committed: committed, guestSeat: 0,
                                                committedHashes: [:])
        guard case .failure(let rejection) = result else {
            Issue.record("the host took a TURN with the outcomes swapped")
            return
        }
        #expect(rejection == TurnRejection(.outcomesDisagree, "The outcomes in that state do not follow from the rules."))
    }
}
