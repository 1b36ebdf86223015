import Bots
import Foundation
import Games
import Match
import NimRules
import Session
import Store
import Testing

/// Misère Nim ends the match with outcomes of its own (`Game.outcomes`):
/// whoever takes the last counter loses and every other seat wins, at two
/// seats and at three, offline, over loopback, on disk and in what `nim` prints.
@Suite(.serialized, .timeLimit(.minutes(1))) struct MisereTests {
    init() throws { try MisereNim.register() }

    /// Each seat takes what `typed` says, in turn, from a fresh game of `seats`.
    static func played(_ typed: [String], seats: Int) throws -> MatchState {
        var state = MatchState(matchID: .random(), gameType: MisereNim.self,
                               seats: ["Ana", "Ben", "Cy"].prefix(seats).map { Seat(playerID: .random(), name: $0) })
        for text in typed {
            let move = try #require(state.game.move(fromNotation: text))
            state = try state.applying(.move(move, by: try #require(state.activeSeat)), now: 1)
        }
        return state
    }

    @Test func atThreeSeatsWhoeverTakesTheLastOneLosesAndBothOthersWin() throws {
        // Ana, Ben, Cy, Ana: Ana takes the last one.
        let state = try Self.played(["1 3", "2 4", "3 4", "3 1"], seats: 3)
        #expect(state.game(as: MisereNim.self)?.tookTheLast == 0)
        #expect(state.seats.map(\.outcome) == [.lost, .won, .won])
        #expect(state.isEnded && state.activeSeat == nil)
        #expect(try MatchBlob.decode(MatchBlob.encode(state)).seats.map(\.outcome) == [.lost, .won, .won])
    }

    @Test func atTwoSeatsTheOtherSeatWins() throws {
        let state = try Self.played(["1 3", "2 4", "3 5"], seats: 2)
        #expect(state.seats.map(\.outcome) == [.lost, .won])
    }

    @Test func aSeatThatQuitsATableOfThreeIsSkippedAndKeepsQuit() throws {
        var state = try Self.played(["1 3"], seats: 3)
        state = try state.applying(.quit(1), now: 1)
        #expect(state.activeSeat == 2, "Ben quit: Cy moves, then Ana")
        for text in ["2 4", "3 4", "3 1"] {
            state = try state.applying(.move(try #require(state.game.move(fromNotation: text)), by: try #require(state.activeSeat)), now: 1)
        }
        // Cy, Ana, Cy: Cy takes the last one.
        #expect(state.seats.map(\.outcome) == [.won, .quit, .lost])
    }

    @Test func threeBotsPlayOfflineAndParlorsBotLeavesTheLastOneToAnother() async throws {
        let seats = ["Ana", "Ben", "Cy"].map { Seat(playerID: .random(), name: $0) }
        let bots = seats.map { BotParticipant(playerID: $0.playerID, bot: Bot(level: .hard, seed: 5)) }
        let controller = MatchController(state: MatchState(matchID: .random(), gameType: MisereNim.self, seats: seats), participants: bots)
        try await controller.start()
        let final = await controller.finished()
        let last = try #require(final.moves.last?.seat)
        #expect(final.seats.indices.map { final.seats[$0].outcome == ($0 == last ? .lost : .won) } == [true, true, true])
        // With one counter left in one heap and two in another, hard takes the heap of two whole:
        // the next seat must then take the last one.
        var bot = Bot(level: .hard, seed: 1)
        var game = MisereNim(seats: 2)
        for move in ["1 3", "2 3", "3 3"] { try game.apply(#require(game.move(fromNotation: move))) }
        #expect(game.heaps == [0, 1, 2] && game.activeSeat == 1)
        #expect(bot.chooseMove(in: game).map(game.notation) == "3 2")
    }

    @Test func overLoopbackBothSidesEndWithTheSameOutcomesAndTheSavedMatchKeepsThem() async throws {
        let match = try await LoopbackMatch.start(gameID: MisereNim.id, seed: 9, appVersion: "nim-test", hostPlayer: { id, random in
            BotParticipant(playerID: id) { game, _ in random.pick(from: game.legalMoves) }
        }, sealed: true)
        #expect(await match.playRandomlyToTheEnd() > 0)
        let host = await match.hostController.finished()
        let guest = await match.guestController.finished()
        let last = try #require(host.moves.last?.seat)
        #expect(host.seats[last].outcome == .lost && host.seats[1 - last].outcome == .won)
        #expect(guest.seats.map(\.outcome) == host.seats.map(\.outcome) && guest.stateHash == host.stateHash)
        let store = MatchStore(directory: try temporaryHome().path + "/matches")
        let record = StoredMatch(state: guest, role: .guest, localSeat: match.joined.seat, lastActivity: wallClockMilliseconds())
        try store.save(record)
        #expect(try store.load(path: store.path(for: record)).state.seats.map(\.outcome) == host.seats.map(\.outcome))
    }

    @Test func nimPlayMisereSeatsThreeAndNamesBothWinnersAndTheSeatThatTookTheLastOne() async throws {
        let home = try temporaryHome()
        let (output, status) = try await NimProcess.run(["play", "--bot", "--misere"], home: home)
        #expect(status == 0)
        let movers = output.filter { $0.contains(" took ") && $0.contains(": heaps ") }.map { $0.components(separatedBy: " took ")[0] }
        #expect(Set(movers) == ["Bot 1", "Bot 2", "Bot 3"], "three seats: \(output)")
        let last = try #require(movers.last)
        let winners = ["Bot 1", "Bot 2", "Bot 3"].filter { $0 != last }
        let end = "Winners: \(winners[0]) and \(winners[1]) (\(last) took the last one and lost)"
        #expect(output.contains(end), "\(output)")
        // The saved match replays to the same end.
        let id = try #require(output.last?.split(separator: " ").last.map(String.init))
        let (replayed, replayStatus) = try await NimProcess.run(["replay", id], home: home)
        #expect(replayStatus == 0)
        #expect(replayed.last == end, "\(replayed)")
    }

    @Test func nimHostMisereAndJoinEndAlikeAndTheSeatThatTookTheLastOneLoses() async throws {
        let (hostOutput, guestOutput, hostStatus, guestStatus, _) = try await CommandTests.hostAndJoin(["--misere"])
        #expect(hostStatus == 0 && guestStatus == 0)
        let moves = guestOutput.filter { $0.contains(" took ") && $0.contains(": heaps ") }
        let last = try #require(moves.last?.components(separatedBy: " took ").first)
        let winner = last == "Host" ? "Guest" : "Host"
        #expect(guestOutput.contains("Winner: \(winner)") && hostOutput.contains("Winner: \(winner)"), "\(guestOutput)")
        let hash = { (output: [String]) in output.first { $0.hasPrefix("State hash: ") } }
        #expect(hash(guestOutput) != nil && hash(guestOutput) == hash(hostOutput))
    }
}
