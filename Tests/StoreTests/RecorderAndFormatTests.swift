@preconcurrency import Glibc
import Match
import ParlorTestSupport
import Testing
@testable import Store

/// The recorder's rules for resume: never go back to an older state, keep
/// "interrupted" until the match moves on, and the format the host's port
/// was added in (older files still read).
struct RecorderAndFormatTests {
    func state(_ moves: [Int]) throws -> MatchState {
        try MatchFixtures.after(moves, in: MatchFixtures.newMatch(seed: 9))
    }

    func onlyRecord(in store: MatchStore) throws -> StoredMatch {
        let listed = store.list()
        #expect(listed.problems.isEmpty)
        #expect(listed.matches.count == 1)
        return try #require(listed.matches.first)
    }

    @Test func aLateOlderStateNeverReplacesANewerOne() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let recorder = MatchRecorder(store: store, record: StoredMatch(state: try state([]), role: .host, localSeat: 0,
                                                                       lastActivity: 0, listenPort: 7477))
        recorder.saveNow(try state([3, 3, 2]))   // the write-ahead save before a CONFIRM
        recorder.saveNow(try state([3, 3]))      // the event stream, behind
        #expect(try onlyRecord(in: store).state.moves.count == 3)
        #expect(try onlyRecord(in: store).listenPort == 7477)
    }

    @Test func anEndedRecordIsNeverOverwritten() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let won = try state([3]).applying(.quit(1), now: 1)
        let first = MatchRecorder(store: store, record: StoredMatch(state: won, role: .guest, localSeat: 0, lastActivity: 0))
        first.saveNow(won)
        #expect(try onlyRecord(in: store).phase == .ended)
        // A "rematch" under the same id, from a host that lies: sequence 0, playing.
        let again = MatchRecorder(store: store, record: StoredMatch(state: try state([]), role: .guest, localSeat: 0, lastActivity: 0))
        again.saveNow(try state([]))
        again.saveNow(try state([3, 3]))
        again.markInterrupted()
        let kept = try onlyRecord(in: store)
        #expect(kept.phase == .ended)
        #expect(kept.state.stateHash == won.stateHash)
        #expect(again.problems.contains { $0.contains("is over") })
        // Saving the same ended state again (a host resumed only to deliver the end) is no problem.
        let same = MatchRecorder(store: store, record: kept)
        same.saveNow(won)
        #expect(same.problems.isEmpty)
    }

    @Test func interruptedStaysUntilTheMatchMovesOn() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let recorder = MatchRecorder(store: store, record: StoredMatch(state: try state([3]), role: .guest, localSeat: 1,
                                                                       lastActivity: 0))
        recorder.saveNow(try state([3]))
        recorder.markInterrupted()
        #expect(try onlyRecord(in: store).phase == .interrupted)
        recorder.saveNow(try state([3]))         // a rollback to the same state, say
        #expect(try onlyRecord(in: store).phase == .interrupted)
        recorder.saveNow(try state([3, 4]))      // resumed, and a move
        let record = try onlyRecord(in: store)
        #expect(record.phase == .playing && record.state.moves.count == 2)
        #expect(record.writerPID == getpid())
    }

    @Test func aFormatOneFileFromBeforeTheListenPortIsStillRead() throws {
        let directory = temporaryDirectory()
        let record = StoredMatch(state: try state([3, 3]), role: .host, localSeat: 0, lastActivity: 5,
                                 seatToken: Array(repeating: 9, count: 16), writerPID: 1, listenPort: 7000)
        var bytes = record.encoded()
        // Format 1 had no port: drop the two bytes after the pid and rewrite the checksum.
        let portOffset = 4 + 2 + 1 + 1 + 1 + 8 + 1 + Int(bytes[17]) + 16 + 4
        bytes.removeSubrange(portOffset..<portOffset + 2)
        bytes[4] = 0
        bytes[5] = 1
        bytes.removeLast(8)
        var writer = ByteWriter()
        writer.write(fnv1a64(bytes))
        bytes += writer.bytes
        writeFile(directory + "/old.match", bytes)
        let loaded = try MatchStore(directory: directory).load(path: directory + "/old.match")
        #expect(loaded.listenPort == 0 && loaded.state.moves.count == 2)
        #expect(loaded.seatToken == Array(repeating: 9, count: 16))
    }

    @Test func aFileFromANewerParlorIsReportedNotGuessedAt() throws {
        let directory = temporaryDirectory()
        var bytes = StoredMatch(state: try state([]), role: .guest, localSeat: 1, lastActivity: 1).encoded()
        bytes[5] = 9
        writeFile(directory + "/new.match", bytes)
        let problem = try #require(MatchStore(directory: directory).list().problems.first)
        #expect(problem.reason.contains("newer parlor"))
    }
}
