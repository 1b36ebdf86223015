import Games
import Match
import ParlorTestSupport
import Testing
import Store

/// Issue 39, "a message with a turn, saved with it": a match whose moves
/// came with messages is saved and loaded back with every one of them.
@Suite("A message with a turn on disk")
struct TurnMessageStoreTests {
    @Test("a Connect Four match with two messages is saved, listed and loaded back with them, its hash and its replay")
    func savedAndLoaded() throws {
        var state = MatchFixtures.newMatch("connect4")
        state = try state.applying(.move(Move(3), by: 0, message: TurnMessage("Your move, Ben")), now: 1)
        state = try state.applying(.move(Move(2), by: 1), now: 2)
        state = try state.applying(.move(Move(3), by: 0, message: TurnMessage("Watch the diagonal")), now: 3)
        let (listed, record) = try RegisteredGameStoreTests.savedListedAndLoaded(state, localSeat: 1)
        #expect(listed.map { $0.state.message?.text } == ["Watch the diagonal"])
        let loaded = record.state
        #expect(loaded.moves.map(\.message?.text) == ["Your move, Ben", nil, "Watch the diagonal"])
        #expect(loaded.stateHash == state.stateHash && loaded.moves == state.moves)
        #expect(loaded.replayPositions.last?.message?.text == "Watch the diagonal")
    }
}
