import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Two peers in one process over the in-memory stream.
@Suite struct SessionProtocolTests {
    @Test(arguments: ["connect4", "tictactoe", "cube4"])
    func botAgainstBotPlaysToTheEndWithEqualHashes(game: String) async throws {
        let pair = try await JoinedPair.make(game: game)
        let match = try await BotMatch.start(pair, host: TestStrategies.seeded(1), guest: TestStrategies.seeded(2))
        let hostFinal = try #require(await finished(match.hostController))
        let guestFinal = try #require(await finished(match.guestController))
        #expect(hostFinal.isEnded)
        #expect(hostFinal.moves.count >= 5)  // a real game was played, not an early stop
        #expect(hostFinal.moves == guestFinal.moves)
        #expect(hostFinal.stateHash == guestFinal.stateHash)
        #expect(hostFinal.seats.map(\.outcome) == guestFinal.seats.map(\.outcome))
        #expect(await match.hostController.stopFailure == nil)
        #expect(await match.guestController.stopFailure == nil)
    }
}
