import Foundation
import Match
import ParlorTestSupport
import Testing
@testable import Store

/// The tables `parlor resume` brings back with one of a many-table host's records.
@Suite struct SiblingTablesTests {
    func table(_ seed: UInt64, pid: Int32 = 4242, port: UInt16 = 7477, role: StoredMatch.Role = .host,
               phase: StoredMatch.Phase = .interrupted, token: UInt8 = 5) -> StoredMatch {
        StoredMatch(state: MatchFixtures.newMatch("tictactoe", seed: seed), role: role, localSeat: 0, phase: phase,
                    lastActivity: Int64(seed), seatToken: Array(repeating: token, count: 16), writerPID: pid, listenPort: port)
    }

    @Test func onlyTheSameProcesssUnfinishedTablesOnTheSamePortComeBack() throws {
        let directory = NSTemporaryDirectory() + "parlor-siblings-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = MatchStore(directory: directory)
        let first = table(1)
        let sibling = table(2)
        for record in [first, sibling, table(3, pid: 99), table(4, port: 8000), table(5, phase: .ended),
                       table(6, role: .guest), table(7, token: 0)] {
            try store.save(record)
        }
        let found = store.siblingTables(of: first).map(\.state.matchID)
        #expect(found == [sibling.state.matchID])
        #expect(store.siblingTables(of: table(8, pid: 0)).isEmpty, "a record without its writer's pid has no siblings")
    }
}
