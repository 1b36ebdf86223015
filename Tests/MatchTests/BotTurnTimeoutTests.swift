import Bots
import Games
import Match
import ParlorTestSupport
import Testing

/// hard Connect Four can take seconds to solve a position exactly; with a
/// turn timeout it must still move in time, not lose on time.
@Suite("A bot with a turn timeout")
struct BotTurnTimeoutTests {
    @Test("hard Connect Four moves before its deadline where the exact solve takes longer")
    func hardMovesInTime() async throws {
        // 4,4,4,4,4,2,2,6,6,2: past hard's book, some 20 million nodes to
        // solve (about 2 s on one core); the turn allows 1 s.
        let now = wallClockMilliseconds()
        let state = try MatchFixtures.after([3, 3, 3, 3, 3, 1, 1, 5, 5, 1], in: MatchFixtures.newMatch(turnTimeout: 1, now: now),
                                            now: now)
        let hard = Bot(level: .hard, seed: 1)
        let bot = BotParticipant(playerID: state.seats[0].playerID) { game, answerBy, shouldStop in
            var copy = hard
            return copy.chooseMove(in: game, answerBy: answerBy, shouldStop: shouldStop)
        }
        let other = LocalParticipant(playerID: state.seats[1].playerID)
        let controller = MatchController(state: state, participants: [bot, other])
        let events = await controller.events()
        try await controller.start()
        let started = ContinuousClock.now
        var first: MatchChange?
        for await event in events {
            if case .committed(let change, _) = event { first = change; break }
        }
        let took = ContinuousClock.now - started
        _ = await other.quit()
        _ = await controller.finished()
        guard case .move(_, by: 0, _)? = first else {
            Issue.record("the bot's turn ended with \(String(describing: first)) after \(took)")
            return
        }
        // Half the time left, then a short search: inside the 1 s.
        #expect(took < .milliseconds(1_000), "took \(took)")
    }
}
