import Match
import ParlorTestSupport
import Testing
@testable import Store

/// Where a user's parlor data lives, and what a record says about resuming.
struct StoreLayoutTests {
    @Test(arguments: [
        (["XDG_DATA_HOME": "/data", "HOME": "/home/ana"], "/data/parlor"),
        (["XDG_DATA_HOME": "relative", "HOME": "/home/ana"], "/home/ana/.local/share/parlor"),  // XDG says: ignore a relative path
        (["HOME": "/home/ana"], "/home/ana/.local/share/parlor"),
        (["HOME": ""], "/tmp/.local/share/parlor"),
        ([:], "/tmp/.local/share/parlor"),
    ])
    func theDataDirectoryHoldsTheMatchStore(environment: [String: String], expected: String) {
        #expect(MatchStore.dataDirectory(environment: environment) == expected)
        #expect(MatchStore.defaultDirectory(environment: environment) == expected + "/matches")
    }

    @Test func aRecordWithoutASeatTokenSaysSo() {
        let state = MatchFixtures.newMatch()
        #expect(!StoredMatch(state: state, role: .guest, localSeat: 1, lastActivity: 0).hasSeatToken)
        #expect(!StoredMatch(state: state, role: .guest, localSeat: 1, lastActivity: 0, seatToken: [1, 2, 3]).hasSeatToken,
                "a token of the wrong size is not kept")
        var one = Array(repeating: UInt8(0), count: 16)
        one[15] = 1
        #expect(StoredMatch(state: state, role: .guest, localSeat: 1, lastActivity: 0, seatToken: one).hasSeatToken)
    }
}
