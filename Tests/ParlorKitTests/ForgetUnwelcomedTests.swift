import Foundation
import Games
import Match
import Testing
import ParlorKit
@testable import Store

/// A host stopped (q, Ctrl-C) while a new match is saved before its first
/// WELCOME welcomes nobody; the record it just wrote must go too, or `parlor
/// matches` lists an interrupted match at move 0 that nobody ever joined and
/// `parlor resume` waits for a guest who never knew of it.
@Suite struct ForgetUnwelcomedTests {
    @Test("a first save that nobody was welcomed into is removed from the store, its journal too")
    func theRecordOfAMatchNobodyJoinedIsRemoved() async throws {
        let root = NSTemporaryDirectory() + "parlor-forget-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = MatchStore(directory: root)
        let saves = FirstSaves(store: store)
        let state = MatchState(matchID: .random(), gameType: Connect4.self,
                                   seats: [Seat(playerID: .random(), name: "Ana"), Seat(playerID: .random(), name: "Bo")])
        let record = StoredMatch(state: state, role: .host, localSeat: 0, lastActivity: 1, seatToken: [UInt8](repeating: 7, count: 16),
                                 listenPort: 7477)
        let kept = StoredMatch(state: MatchState(matchID: .random(), gameType: Connect4.self,
                                                     seats: [Seat(playerID: .random(), name: "Cy"), Seat(playerID: .random(), name: "Di")]),
                               role: .host, localSeat: 0, lastActivity: 1, seatToken: [UInt8](repeating: 8, count: 16), listenPort: 7478)
        #expect(await saves.save(record) == nil)
        #expect(await saves.save(kept) == nil)
        #expect(store.list().matches.count == 2)
        #expect(FileManager.default.fileExists(atPath: store.path(for: record)))

        try saves.forget(record)
        #expect(!FileManager.default.fileExists(atPath: store.path(for: record)))
        #expect(!FileManager.default.fileExists(atPath: MatchStore.journalPath(forMatchFile: store.path(for: record))))
        #expect(saves.take(record.state.matchID) == nil, "the forgotten match's recorder was left to be used")
        // The other match, welcomed into, stays as it was.
        #expect(store.list().matches.map(\.state.matchID) == [kept.state.matchID])
        #expect(saves.take(kept.state.matchID) != nil)
    }
}
