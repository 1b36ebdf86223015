import Games
import Match
import ParlorTestSupport
import Testing
import Store

/// Issue 39, item 3: a match that a game ended with outcomes of its own
/// (Misère Nim at three seats: two winners) is saved and loaded back with
/// those outcomes, and the store reads it as an ended match.
@Suite("A game's own outcomes on disk")
struct GameOutcomesStoreTests {
    @Test("a three-seat Misère Nim match with two winners is saved, listed and loaded back with its outcomes and hash")
    func savedAndLoaded() throws {
        let state = try MisereNim.endedWithTwoWinners()
        #expect(state.seats.map(\.outcome) == [.lost, .won, .won])
        let (listed, record) = try RegisteredGameStoreTests.savedListedAndLoaded(state, localSeat: 1)
        #expect(listed.map { $0.state.seats.map(\.outcome) } == [[.lost, .won, .won]])
        let loaded = record.state
        #expect(loaded.seats.map(\.outcome) == [.lost, .won, .won])
        #expect(loaded.isEnded && loaded.activeSeat == nil)
        #expect(loaded.stateHash == state.stateHash)
        #expect(loaded.game(as: MisereNim.self)?.heaps == [0, 0, 0])
    }
}
