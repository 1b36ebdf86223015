import Bots
import Games
import ParlorTestSupport
import Testing
@testable import Match

/// Found by `parlor bench soak`: every participant keeps its controller (to
/// submit), and the controller kept its participants after the match, so
/// each finished match stayed in memory (about 30 KB a match, 300 MB over a
/// 10,000-match soak).
struct MatchControllerReleaseTests {
    /// Waits up to a second for `isGone` (a bot's search may hold its controller for a moment after the end).
    func eventually(_ isGone: () -> Bool) async -> Bool {
        for _ in 0..<100 {
            if isGone() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return isGone()
    }

    @Test("a controller and its bots are freed once the match has ended", arguments: ["connect4", "cube4", "tictactoe"])
    func freedAfterTheEnd(gameID: String) async throws {
        weak var weakController: MatchController?
        weak var weakBot: BotParticipant?
        do {
            let state = MatchFixtures.newMatch(gameID)
            let a = BotParticipant(playerID: state.seats[0].playerID, strategy: randomStrategy(seed: 3))
            let b = BotParticipant(playerID: state.seats[1].playerID, strategy: randomStrategy(seed: 4))
            let controller = MatchController(state: state, participants: [a, b])
            weakController = controller
            weakBot = a
            try await controller.start()
            let final = await controller.finished()
            #expect(final.isEnded)
        }
        #expect(await eventually { weakController == nil }, "the controller of a finished \(gameID) match is still alive")
        #expect(await eventually { weakBot == nil }, "a bot of a finished \(gameID) match is still alive")
    }

    @Test("a controller stopped by a failure frees its participants too")
    func freedAfterAFailure() async throws {
        weak var weakController: MatchController?
        weak var weakParticipant: ScriptedParticipant?
        do {
            let state = MatchFixtures.newMatch("tictactoe")
            let a = ScriptedParticipant(playerID: state.seats[0].playerID, script: [])
            let b = ScriptedParticipant(playerID: state.seats[1].playerID, script: [])
            let controller = MatchController(state: state, participants: [a, b])
            weakController = controller
            weakParticipant = a
            try await controller.start()
            await controller.fail(.connectionLost("the test cut it"))
            #expect(await controller.isStopped)
        }
        #expect(await eventually { weakController == nil })
        #expect(await eventually { weakParticipant == nil })
    }
}
