import Foundation
import Match
import Testing
@testable import Store

/// Match files written by release 1 (Tests/Golden/store-release1: the host's and
/// the guest's copy of one connect4 match between two real `parlor` processes,
/// recorded with `scripts/record-wire`). Whatever the store's format becomes,
/// these keep loading, listing as ended and replaying to the same result.
@Suite struct ReleaseOneRecordsTests {
    static let golden = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Golden/store-release1")

    /// A fresh copy of the recorded store, so a test that writes cannot change the fixture.
    func copiedStore() throws -> (MatchStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("release1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.golden.path) {
            try FileManager.default.copyItem(at: Self.golden.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        return (MatchStore(directory: directory.path), directory)
    }

    @Test("both sides' records of a release-1 match list as ended, with the same moves and result")
    func bothSidesLoad() throws {
        let (store, directory) = try copiedStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let listed = store.list()
        #expect(listed.problems.isEmpty, "\(listed.problems)")
        let records = listed.matches
        #expect(records.map(\.role).sorted { $0.description < $1.description } == [.guest, .host])
        let host = try #require(records.first { $0.role == .host })
        let guest = try #require(records.first { $0.role == .guest })
        #expect(host.state.matchID == guest.state.matchID)
        #expect(host.state.stateHash == guest.state.stateHash)
        #expect(host.state.moves.count == 7)
        #expect(records.allSatisfy { store.phase(of: $0) == .ended && $0.state.isEnded })
        #expect(host.state.seats.map(\.outcome) == [.won, .lost])
        #expect(host.state.replayPositions.count == host.state.moves.count + 1)
    }

    @Test("resume refuses a release-1 match that is over, by its id, without changing either file")
    func endedIsNotResumedOrRewritten() throws {
        let (store, directory) = try copiedStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
            try Data(contentsOf: directory.appendingPathComponent($0))
        }
        // The guest's side only: the host's ended copy is served so its guest learns the end.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("d8ed3ae5a7e36bad59819bc88a2b7e90-host-0.match"))
        #expect(throws: ResumeRefusal.self) { try store.claimForResume(.match("d8ed3ae5")) }
        let after = try Data(contentsOf: directory.appendingPathComponent("d8ed3ae5a7e36bad59819bc88a2b7e90-guest-1.match"))
        #expect(before.contains(after), "the guest's file is unchanged")
    }
}
