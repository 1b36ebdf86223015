import Games
import Match
import ParlorTestSupport
import Testing
import Store

/// Issue 39: a match of a game the caller registered (Nim) is saved, listed
/// and loaded back like a built-in game's, and its replay reads from the file.
@Suite("A registered game's saved match")
struct RegisteredGameStoreTests {
    init() { Nim.register() }

    /// `state` saved as the host's record in a fresh store, what the store then lists, and the record loaded back.
    static func savedListedAndLoaded(_ state: MatchState, localSeat: Int) throws -> (listed: [StoredMatch], loaded: StoredMatch) {
        let store = MatchStore(directory: temporaryDirectory() + "/matches")
        let record = StoredMatch(state: state, role: .host, localSeat: localSeat, lastActivity: 1_700_000_000_000,
                                 peerAddress: "", seatToken: Array(repeating: 7, count: 16), writerPID: 42)
        try store.save(record)
        let listed = store.list()
        #expect(listed.problems.isEmpty, "\(listed.problems)")
        return (listed.matches, try store.load(path: store.path(for: record)))
    }

    @Test("a Nim match saved mid-game loads back with the same state, is listed, and replays its moves")
    func savedAndLoaded() throws {
        var generator = SplitMix64(seed: 39)
        var state = MatchState(matchID: .random(using: &generator), game: try #require(GameCatalog.newGame(id: Nim.id, seats: 3)),
                               seats: ["Ana", "Ben", "Cy"].map { Seat(playerID: .random(using: &generator), name: $0) })
        for (seat, move) in [(0, Nim.move(heap: 1, count: 4)), (1, Nim.move(heap: 2, count: 1))] {
            state = try state.applying(.move(move, by: seat), now: 1)
        }
        let (listed, loaded) = try Self.savedListedAndLoaded(state, localSeat: 0)
        #expect(listed.map(\.state.matchID) == [state.matchID])
        #expect(loaded.state.gameID == "nim")
        #expect(loaded.state.stateHash == state.stateHash)
        #expect(loaded.state.activeSeat == 2)
        #expect(loaded.state.moveNotations == ["b4", "c1"])
        #expect(loaded.state.replayPositions.compactMap { $0.game(as: Nim.self)?.heaps } == [[3, 4, 5], [3, 0, 5], [3, 0, 4]])
    }
}
