import Bots
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// The participant strategy: one controller type, no LAN branches. A
/// scripted human against the same bot plays the same match offline and
/// against a remote host whose seat holds that bot.
@Suite struct SameControllerProtocolTests {
    /// Plays `script` for `local` whenever its seat is to move; returns the final state.
    static func drive(_ controller: MatchController, local: LocalParticipant, script: [Int]) async throws -> MatchState {
        let events = await controller.events()
        let player = Task {
            var moves = script.makeIterator()
            for await event in events {
                guard case .turnBegan(let seat, let state) = event, state.seat(of: local.playerID) == seat,
                      let column = moves.next() else { continue }
                _ = await local.play(Move(column))
            }
        }
        try await controller.start()
        let final = try #require(await finished(controller))
        player.cancel()
        return final
    }

    static let script = [3, 3, 3, 3, 3]  // four in column 4 wins against a bot that plays column 1

    @Test func aScriptedHumanAgainstABotPlaysTheSameOfflineAndOverTheNetwork() async throws {
        // Offline: one controller, a LocalParticipant and a BotParticipant.
        let human = PlayerID.random(), bot = PlayerID.random()
        let offlineState = MatchState(matchID: .random(), game: Connect4(),
                                      seats: [Seat(playerID: human, name: "Human"), Seat(playerID: bot, name: "Bot")])
        let offlineHuman = LocalParticipant(playerID: human)
        let offline = MatchController(state: offlineState, participants: [
            offlineHuman, BotParticipant(playerID: bot, strategy: TestStrategies.firstLegal),
        ])
        let offlineFinal = try await Self.drive(offline, local: offlineHuman, script: Self.script)

        // Over the network: the guest's controller holds the same LocalParticipant
        // type and a RemoteHost; the host's controller holds the bot.
        let pair = try await JoinedPair.make(seat: .second, guestName: "Human")
        let (hostController, _) = pair.hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.firstLegal) }
        try await hostController.start()
        let (guestController, remoteHuman) = pair.joined.makeController { LocalParticipant(playerID: $0) }
        let remoteFinal = try await Self.drive(guestController, local: remoteHuman, script: Self.script)
        let hostFinal = try #require(await finished(hostController))

        #expect(offlineFinal.moves == remoteFinal.moves)
        #expect(offlineFinal.seats.map(\.outcome) == remoteFinal.seats.map(\.outcome))
        #expect(remoteFinal.seats[0].outcome == .won)
        #expect(hostFinal.stateHash == remoteFinal.stateHash)
    }

    @Test func aGuestQuitOvertakenByTheHostsMoveStillQuits() async throws {
        let pair = try await JoinedPair.make(seat: .first)  // the host moves first
        let (hostController, hostLocal) = pair.hosted.makeController { LocalParticipant(playerID: $0) }
        let (guestController, guestLocal) = pair.joined.makeController { LocalParticipant(playerID: $0) }
        try await hostController.start()
        try await guestController.start()
        // The host's move is on its way when the guest quits out of turn, so the
        // host refuses the stale quit and the push overtakes it on the guest.
        pair.hostEnd.setFaults(.init(delay: .milliseconds(200)))
        _ = await hostLocal.play(Move(0))
        let result = await guestLocal.quit()
        guard case .committed(let state) = result else {
            Issue.record("the quit was lost: \(result)")
            return
        }
        #expect(state.moves.count == 1)
        let hostFinal = try #require(await finished(hostController))
        let guestFinal = try #require(await finished(guestController))
        #expect(hostFinal.stateHash == guestFinal.stateHash)
        #expect(hostFinal.seats[pair.hosted.guestSeat].outcome == .quit)
    }
}
