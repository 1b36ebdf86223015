@preconcurrency import Glibc
import Games
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
        // Format 1 had no port, no table seats, no settings and no peer key: drop the two bytes after the pid,
        // the table's seat count (0), the settings' length (0) and the 32 zero bytes of the key after them,
        // and rewrite the checksum.
        let portOffset = 4 + 2 + 1 + 1 + 1 + 8 + 1 + Int(bytes[17]) + 16 + 4
        #expect(bytes[(portOffset + 2)..<(portOffset + 4 + 32)].allSatisfy { $0 == 0 })
        bytes.removeSubrange(portOffset..<portOffset + 4 + 32)
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

    /// A table of four (dots-and-boxes) as its host keeps it: its own seat, two guests' tokens, a bot's level.
    func tableRecord() throws -> StoredMatch {
        let game = try #require(GameCatalog.game(id: "dots-and-boxes"))
        let seats = ["Ana", "Bo", "Cy", "Easy bot"].map { Seat(playerID: PlayerID.random(), name: $0) }
        let state = MatchState(matchID: MatchID.random(), game: game.init(seats: 4), seats: seats)
        return StoredMatch(state: state, role: .host, localSeat: 0, lastActivity: 5, seatToken: Array(repeating: 1, count: 16),
                           writerPID: 1, listenPort: 7622,
                           tableSeats: [.init(kind: .own), .init(kind: .guest, seatToken: Array(repeating: 1, count: 16)),
                                        .init(kind: .guest, seatToken: Array(repeating: 2, count: 16)),
                                        .init(kind: .bot, botLevel: "easy")])
    }

    @Test func aTableHostsRecordKeepsEverySeatsTokenAndItsBotsLevels() throws {
        let directory = temporaryDirectory()
        let record = try tableRecord()
        let recorder = MatchRecorder(store: MatchStore(directory: directory), record: record)
        #expect(recorder.saveNow(record.state))
        recorder.saveNow(try record.state.applying(.move(.init(0), by: 0), now: 6))   // the journal's frame carries them too
        let loaded = try onlyRecord(in: MatchStore(directory: directory))
        #expect(loaded.state.moves.count == 1)
        #expect(loaded.tableSeats == record.tableSeats)
        #expect(loaded.tableSeats.map(\.kind) == [.own, .guest, .guest, .bot])
        #expect(loaded.tableSeats[2].seatToken == Array(repeating: 2, count: 16) && loaded.tableSeats[3].botLevel == "easy")
    }

    @Test func aTablesSeatsThatDoNotFitItsMatchAreReportedAsDamage() throws {
        var record = try tableRecord()
        record.tableSeats.removeLast()
        #expect(throws: StoredMatchError.invalidField("table seats")) { try StoredMatch(decoding: record.encoded()) }
        record = try tableRecord()
        record.tableSeats[0].kind = .guest   // the host's own seat must be its own
        #expect(throws: StoredMatchError.invalidField("table seats")) { try StoredMatch(decoding: record.encoded()) }
    }

    @Test func aFormatTwoFileFromBeforeTableSeatsIsStillReadAndResavedInTheNewFormat() throws {
        let directory = temporaryDirectory()
        let record = StoredMatch(state: try state([3, 3]), role: .host, localSeat: 0, lastActivity: 5,
                                 seatToken: Array(repeating: 9, count: 16), writerPID: 1, listenPort: 7000)
        var bytes = record.encoded()
        // Format 2 ended its fields with the port: drop the table's seat count (0), the settings' length (0)
        // and the peer key (32 zero bytes), and rewrite the checksum.
        let countOffset = 4 + 2 + 1 + 1 + 1 + 8 + 1 + Int(bytes[17]) + 16 + 4 + 2
        #expect(bytes[countOffset..<(countOffset + 2 + 32)].allSatisfy { $0 == 0 })
        bytes.removeSubrange(countOffset..<countOffset + 2 + 32)
        bytes[5] = 2
        bytes.removeLast(8)
        var writer = ByteWriter()
        writer.write(fnv1a64(bytes))
        bytes += writer.bytes
        let store = MatchStore(directory: directory)
        let path = store.path(for: record)
        writeFile(path, bytes)
        let loaded = try store.load(path: path)
        #expect(loaded.listenPort == 7000 && loaded.state.moves.count == 2 && loaded.tableSeats.isEmpty)
        #expect(loaded.seatToken == Array(repeating: 9, count: 16))
        // Resumed: its next save is written whole, in format 3, and reads back the same.
        let recorder = MatchRecorder(store: store, record: loaded)
        #expect(recorder.saveNow(try state([3, 3, 4])))
        let resaved = try onlyRecord(in: store)
        #expect(resaved.state.moves.count == 3 && resaved.listenPort == 7000 && resaved.seatToken == loaded.seatToken)
    }

    @Test func aHostsSettingsAreKeptAndAFormatThreeRecordReadsWithoutThem() throws {
        let directory = temporaryDirectory()
        var record = try tableRecord()
        record.hostSettings = StoredMatch.HostSettings(talk: false, hints: true, spectators: 3, spectatorCode: "look-4",
                                                       awayBotSeconds: 30, graceSeconds: nil, heartbeatTimeoutSeconds: 20)
        let recorder = MatchRecorder(store: MatchStore(directory: directory), record: record)
        #expect(recorder.saveNow(record.state))
        let loaded = try onlyRecord(in: MatchStore(directory: directory))
        #expect(loaded.hostSettings == record.hostSettings)
        // The same record as format 3 wrote it: no settings block, no peer key (format 5), no seat keys (format 6).
        record.hostSettings = nil
        var bytes = record.encoded(format: 5)
        let keyOffset = bytes.count - 8 - 4 - MatchBlob.encode(record.state).count - 32
        #expect(bytes[keyOffset..<(keyOffset + 32)].allSatisfy { $0 == 0 })
        bytes.removeSubrange(keyOffset..<(keyOffset + 32))
        let settingsOffset = keyOffset - 1
        #expect(bytes[settingsOffset] == 0)
        bytes.remove(at: settingsOffset)
        bytes[5] = 3
        bytes.removeLast(8)
        var writer = ByteWriter()
        writer.write(fnv1a64(bytes))
        bytes += writer.bytes
        let old = try StoredMatch(decoding: bytes)
        #expect(old.hostSettings == nil && old.tableSeats == record.tableSeats)
        // A guest's record has no host settings; bits no parlor writes are damage, not guessed at.
        var guest = StoredMatch(state: record.state, role: .guest, localSeat: 1, lastActivity: 1)
        guest.hostSettings = StoredMatch.HostSettings()
        #expect(throws: StoredMatchError.invalidField("host settings")) { try StoredMatch(decoding: guest.encoded()) }
    }

    @Test("the other side's key is kept (format 5); a format-4 record reads with none, and is written back in the current format")
    func thePeersKeyIsKept() throws {
        let key = (0..<32).map { UInt8($0 + 1) }
        let record = StoredMatch(state: try state([3, 4]), role: .guest, localSeat: 1, lastActivity: 1, peerAddress: "192.0.2.7:7477",
                                 seatToken: Array(repeating: 9, count: 16), peerKey: key)
        let read = try StoredMatch(decoding: record.encoded())
        #expect(read.peerKey == key && read.hasPeerKey)
        // As format 4 wrote it: no key.
        var bytes = record.encoded()
        let keyOffset = bytes.count - 8 - 4 - MatchBlob.encode(record.state).count - 32
        #expect(Array(bytes[keyOffset..<(keyOffset + 32)]) == key)
        bytes.removeSubrange(keyOffset..<(keyOffset + 32))
        bytes[5] = 4
        bytes.removeLast(8)
        var writer = ByteWriter()
        writer.write(fnv1a64(bytes))
        bytes += writer.bytes
        let old = try StoredMatch(decoding: bytes)
        #expect(!old.hasPeerKey && old.peerAddress == "192.0.2.7:7477" && old.state.moves.count == 2)
        let migrated = old.encoded()
        #expect(migrated[5] == UInt8(StoredMatch.currentFormat))
        #expect(try StoredMatch(decoding: migrated).seatToken == old.seatToken)
    }

    @Test("each table guest's key is kept (format 6); a format-5 table record reads with none, its tokens and bots intact")
    func eachTableGuestsKeyIsKept() throws {
        var record = try tableRecord()
        let key = (0..<32).map { UInt8(200 - $0) }
        guard let guestSeat = record.tableSeats.firstIndex(where: { $0.kind == .guest }) else {
            Issue.record("the table record has no guest seat")
            return
        }
        record.tableSeats[guestSeat].playerKey = key
        let read = try StoredMatch(decoding: record.encoded())
        #expect(read.tableSeats[guestSeat].playerKey == key && read.tableSeats[guestSeat].hasPlayerKey)
        #expect(read.tableSeats.filter(\.hasPlayerKey).count == 1, "only the guest's seat has a key")
        let old = try StoredMatch(decoding: record.encoded(format: 5))
        #expect(old.tableSeats.allSatisfy { !$0.hasPlayerKey })
        #expect(old.tableSeats.map(\.seatToken) == record.tableSeats.map(\.seatToken))
        #expect(old.tableSeats.map(\.botLevel) == record.tableSeats.map(\.botLevel))
        // A key cut short is a damaged file, not a key.
        var bytes = record.encoded()
        bytes.removeLast(8 + 4 + MatchBlob.encode(record.state).count + 40)
        #expect(throws: StoredMatchError.self) { try StoredMatch(decoding: bytes) }
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
