import Bots
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

    @Test func aTransportAdaptedWithClosuresCarriesAWholeMatch() async throws {
        // The shape the TCP shell uses: its own events mapped, its send and close passed in.
        func adapt(_ inner: InMemoryByteStream) -> AdaptedByteStream {
            let (events, sink) = AsyncStream<ByteStreamEvent>.makeStream()
            Task {
                for await event in inner.events { sink.yield(event) }
                sink.finish()
            }
            return AdaptedByteStream(peerDescription: inner.peerDescription, events: events,
                                     send: { inner.send($0) }, close: { inner.close() })
        }
        let host = try MatchHost(configuration: HostConfiguration(gameID: "tictactoe", hostName: "Hostess",
                                                                  hostPlayerID: .random(), appVersion: "test"))
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(adapt(hostEnd))
        let joined = try await Guest.join(over: adapt(guestEnd), hello: Hello(appVersion: "test", playerID: .random(), playerName: "Guest"))
        let hosted = try await host.waitForGuest()
        // Participants chosen at run time, as the CLI does for --bot.
        let hostSeat: any Participant = BotParticipant(playerID: hosted.hostPlayerID, strategy: TestStrategies.seeded(8))
        let guestSeat: any Participant = BotParticipant(playerID: joined.playerID, strategy: TestStrategies.seeded(9))
        let hostController = hosted.makeController(with: hostSeat)
        let guestController = joined.makeController(with: guestSeat)
        try await hostController.start()
        try await guestController.start()
        let hostFinal = try #require(await finished(hostController))
        let guestFinal = try #require(await finished(guestController))
        #expect(hostFinal.isEnded && hostFinal.stateHash == guestFinal.stateHash)
    }

    @Test func aGuestWithTheHostsOwnPlayerIDIsAdmittedUnderAFreshHostID() async throws {
        let shared = PlayerID.random()
        let host = try MatchHost(configuration: HostConfiguration(gameID: "connect4", hostName: "Hostess",
                                                                  hostPlayerID: shared, appVersion: "test"))
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let joined = try await Guest.join(over: guestEnd, hello: Hello(appVersion: "test", playerID: shared, playerName: "Me too"))
        let hosted = try await host.waitForGuest()
        #expect(joined.playerID == shared)
        #expect(hosted.hostPlayerID != shared)
        #expect(hosted.initialState.seats[hosted.hostSeat].playerID == hosted.hostPlayerID)
    }
}
