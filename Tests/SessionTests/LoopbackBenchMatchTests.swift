import Bots
import Games
import Match
import Synchronization
import Testing
@testable import Session

/// The match `parlor bench turns` times: a random host against the caller's
/// moves over 127.0.0.1, recorded by whoever passes a recording in.
@Suite("A loopback match for the benches", .serialized)
struct LoopbackBenchMatchTests {
    final class Count: Sendable { let value = Mutex(0) }

    static func start(seed: UInt64, recorded: Count? = nil) async throws -> LoopbackMatch {
        try await LoopbackMatch.start(seed: seed, appVersion: "test",
            hostPlayer: { id, random in BotParticipant(playerID: id) { game, _ in random.pick(from: game.legalMoves) } },
            record: { sides in
                recorded?.value.withLock { $0 += 1 }
                #expect(sides.hosted.initialState.matchID == sides.joined.initialState.matchID)
                return []
            })
    }

    @Test func theCallersRandomMovesPlayTheMatchToTheSameEndOnBothSides() async throws {
        let recorded = Count()
        let match = try await Self.start(seed: 5, recorded: recorded)
        #expect(recorded.value.withLock { $0 } == 1)
        for await event in match.events {
            if case .ended = event { break }
            guard case .turnBegan(let seat, let state) = event, seat == match.joined.seat else { continue }
            let (move, bytes) = try #require(match.randomMove(in: state))
            #expect(bytes > FrameFormat.headerSize)
            guard case .committed = await match.local.play(move) else { break }
        }
        await match.finish()
        let host = await match.hostController.finished()
        let guest = await match.guestController.finished()
        #expect(host.isEnded)
        #expect(host.stateHash == guest.stateHash)
        #expect(host.moves.count >= 7)
    }

    @Test func finishingAMatchInPlayQuitsItForTheGuest() async throws {
        let match = try await Self.start(seed: 9)
        await match.finish()
        let host = await match.hostController.finished()
        #expect(host.isEnded)
        #expect(host.seats[match.joined.seat].outcome == Outcome.quit)
    }

    @Test func theSameSeedMakesTheSameMoves() {
        let moves = (0..<7).map { Move($0) }
        let first = RandomMoves(seed: 3)
        let second = RandomMoves(seed: 3)
        #expect((0..<20).map { _ in first.pick(from: moves) } == (0..<20).map { _ in second.pick(from: moves) })
        #expect(RandomMoves(seed: 3).pick(from: []) == nil)
    }
}
