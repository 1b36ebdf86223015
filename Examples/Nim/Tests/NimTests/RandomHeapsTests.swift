import Bots
import Games
import Match
import NimRules
import Session
import Store
import Testing

/// `--random-heaps`: Nim whose heaps the host's seed deals. What a player
/// would notice: the two sides of a match starting from different heaps, or a
/// saved match replaying from heaps it never had.
@Suite(.serialized, .timeLimit(.minutes(1))) struct RandomHeapsTests {
    init() throws {
        try Nim.register()
        try RandomNim.register()
    }

    @Test func equalSeedsDealEqualHeapsOfOneToEight() {
        #expect(RandomNim(seats: 2, seed: 42).heaps == RandomNim(seats: 2, seed: 42).heaps)
        let dealt = (0..<50).map { RandomNim(seats: 2, seed: $0).heaps }
        #expect(dealt.allSatisfy { $0.count == 3 && $0.allSatisfy((1...8).contains) })
        #expect(Set(dealt).count > 25, "seeds deal different heaps: \(dealt)")
        #expect(RandomNim.usesRandomness && !Nim.usesRandomness)
    }

    @Test func aMatchStartsFromItsSeedsHeapsAndPlaysByNimsRules() throws {
        let players = [Seat(playerID: .random(), name: "Ana"), Seat(playerID: .random(), name: "Ben")]
        var state = MatchState(matchID: .random(), gameType: RandomNim.self, seats: players, seed: 7)
        #expect(state.seed == 7 && state.game(as: RandomNim.self)?.heaps == RandomNim.heaps(dealtFrom: 7))
        while let seat = state.activeSeat, let move = state.game.legalMoves.last {
            state = try state.applying(.move(move, by: seat), now: 1)
        }
        #expect(state.game(as: RandomNim.self)?.heaps == [0, 0, 0])
        #expect(state.seats.contains { $0.outcome == .won })
    }

    @Test func bothSidesOfALoopbackMatchStartFromTheHostsHeapsAndEndAlike() async throws {
        let match = try await LoopbackMatch.start(gameID: RandomNim.id, seed: 3, appVersion: "nim-test", hostPlayer: { id, random in
            BotParticipant(playerID: id) { game, _ in random.pick(from: game.legalMoves) }
        }, sealed: true)
        let hostStart = match.hosted.initialState, guestStart = match.joined.initialState
        let seed = try #require(hostStart.seed)
        #expect(guestStart.seed == seed)
        #expect(guestStart.game(as: RandomNim.self)?.heaps == RandomNim.heaps(dealtFrom: seed))
        #expect(guestStart.stateHash == hostStart.stateHash)
        for await event in match.events {
            if case .ended = event { break }
            guard case .turnBegan(let seat, let state) = event, seat == match.joined.seat else { continue }
            let (move, _) = try #require(match.randomMove(in: state))
            guard case .committed = await match.local.play(move) else { break }
        }
        await match.finish()
        let host = await match.hostController.finished()
        let guest = await match.guestController.finished()
        #expect(host.isEnded && host.game.isOver)
        #expect(host.stateHash == guest.stateHash)

        // Saved by the guest and read back: the replay starts from the heaps the host dealt.
        let store = MatchStore(directory: try temporaryHome().path + "/matches")
        let record = StoredMatch(state: guest, role: .guest, localSeat: match.joined.seat, lastActivity: wallClockMilliseconds())
        try store.save(record)
        let loaded = try store.load(path: store.path(for: record)).state
        #expect(loaded.seed == seed && loaded.stateHash == host.stateHash)
        #expect(loaded.replayPositions.first?.game(as: RandomNim.self)?.heaps == RandomNim.heaps(dealtFrom: seed))
        #expect(loaded.replayPositions.last?.game(as: RandomNim.self)?.heaps == [0, 0, 0])
    }
}
