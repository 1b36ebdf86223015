@preconcurrency import Glibc
import Match
import ParlorTestSupport
import Testing
@testable import Store

/// The journal (docs/STORE.md): a turn is one frame appended and synced, the
/// match file is written whole only at the start and the end, a torn tail is
/// dropped rather than read as a move, and a journal left over from an older
/// match file never overrides a newer one.
struct JournalTests {
    func state(_ moves: [Int]) throws -> MatchState {
        try MatchFixtures.after(moves, in: MatchFixtures.newMatch(seed: 11))
    }

    func fileBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// A host's recorder that has saved the match after each of `moves`.
    func played(_ moves: [Int], in store: MatchStore) throws -> (MatchRecorder, matchFile: String, journal: String) {
        let recorder = MatchRecorder(store: store, record: StoredMatch(state: try state([]), role: .host, localSeat: 0, lastActivity: 0))
        #expect(recorder.saveNow(try state([])))
        for count in moves.indices { #expect(recorder.saveNow(try state(Array(moves.prefix(count + 1))))) }
        let matchFile = store.path(for: recorder.current)
        return (recorder, matchFile, MatchStore.journalPath(forMatchFile: matchFile))
    }

    @Test func aTurnAppendsOneFrameAndLeavesTheMatchFileAlone() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let (recorder, matchFile, journal) = try played([], in: store)
        let original = try #require(fileBytes(matchFile))
        let originalInode = inode(matchFile)
        var length = try #require(fileBytes(journal)).count
        #expect(length == MatchJournal.headerSize)
        for count in 1...6 {
            let next = try state(Array([3, 3, 2, 2, 4, 4].prefix(count)))
            #expect(recorder.saveNow(next))
            let grown = try #require(fileBytes(journal)).count
            #expect(grown - length == MatchJournal.frameHeaderSize + recorder.current.encoded().count)
            length = grown
            #expect(try store.load(path: matchFile).state.stateHash == next.stateHash)
        }
        // Not renamed over, not rewritten: the turns went to the journal only.
        #expect(fileBytes(matchFile) == original)
        #expect(inode(matchFile) == originalInode)
        #expect(store.list().matches.first?.state.moves.count == 6)
    }

    @Test func aTornOrDamagedTailIsDroppedNeverReadAsAMove() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let (recorder, matchFile, journal) = try played([3, 3, 2], in: store)
        let whole = try #require(fileBytes(journal))
        let lastFrame = MatchJournal.frameHeaderSize + recorder.current.encoded().count
        let before = try state([3, 3])
        func write(_ bytes: [UInt8]) {
            let fd = open(journal, O_WRONLY | O_TRUNC)
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        // Cut anywhere inside the last frame: the turn before it stands.
        for cut in [1, 5, MatchJournal.frameHeaderSize, lastFrame / 2, lastFrame - 1] {
            write(Array(whole.dropLast(cut)))
            #expect(try store.load(path: matchFile).state.stateHash == before.stateHash, "cut \(cut)")
        }
        // A flipped byte in the last frame's payload: the checksum catches it.
        var damaged = whole
        damaged[whole.count - 20] ^= 0x40
        write(damaged)
        #expect(try store.load(path: matchFile).state.stateHash == before.stateHash)
        // Garbage after the last good frame is not a move either.
        write(whole + [0, 0, 0, 9, 1, 2, 3])
        #expect(try store.load(path: matchFile).state.stateHash == (try state([3, 3, 2])).stateHash)
        #expect(store.list().problems.isEmpty)
    }

    /// A full tmpfs, for real: a journal append that needs a new page is cut
    /// short by the kernel (the part that fits in the page is written) and its
    /// next write gets ENOSPC. The failed save is reported, the file is cut
    /// back to its last good frame, the record is the turn before, and once
    /// space is back the same save succeeds. A short write left in place (a
    /// crash before the cut) is a torn tail and is dropped, never read as a move.
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aSaveCutShortByAFullFileSystemIsReportedCutBackAndNeverReadAsAMove() throws {
        let mountPoint = temporaryDirectory()
        #expect(mkdir(mountPoint, 0o700) == 0 || errno == EEXIST)
        try #require(system("/bin/mount -t tmpfs -o size=1m tmpfs \(mountPoint)") == 0)
        defer { _ = system("/bin/umount -l \(mountPoint)") }
        let store = MatchStore(directory: mountPoint + "/matches")
        let plan = [5, 3, 2, 3, 1, 5, 3, 1, 0, 1, 4, 1, 2, 5, 0, 5, 6, 6, 2, 0, 6, 0, 4, 2, 3, 0, 3, 4, 2, 3]
        let (recorder, matchFile, journal) = try played([], in: store)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        // Play until the next frame cannot fit in the journal's last page.
        var count = 0
        while true {
            let length = try #require(fileBytes(journal)).count
            let room = length % page == 0 ? 0 : page - length % page
            if room < MatchJournal.frameHeaderSize + recorder.current.encoded().count { break }
            count += 1
            try #require(count < plan.count, "the journal never reached a page's end")
            #expect(recorder.saveNow(try state(Array(plan.prefix(count)))))
        }
        let good = try #require(fileBytes(journal))
        let saved = try state(Array(plan.prefix(count)))

        let filler = mountPoint + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        for size in [1 << 16, 4096, 1] {
            let chunk = [UInt8](repeating: 0, count: size)
            while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, size) }) == size {}
        }
        close(fd)

        let next = try state(Array(plan.prefix(count + 1)))
        #expect(!recorder.saveNow(next))
        #expect(recorder.problems.last?.contains("No space left on device") == true, Comment(rawValue: "\(recorder.problems)"))
        #expect(fileBytes(journal) == good, "the failed append was not cut back to the last good frame")
        #expect(try store.load(path: matchFile).state.stateHash == saved.stateHash)

        // The same short write, left in place: the kernel writes what fits in the page and no more.
        let frame = MatchJournal.frame(StoredMatch(state: next, role: .host, localSeat: 0, lastActivity: 0))
        let raw = open(journal, O_WRONLY)
        let written = frame.withUnsafeBytes { pwrite(raw, $0.baseAddress, $0.count, off_t(good.count)) }
        close(raw)
        #expect(written > 0 && written < frame.count, "not a short write: \(written) of \(frame.count)")
        #expect(try store.load(path: matchFile).state.stateHash == saved.stateHash)
        #expect(store.list().matches.first?.state.sequence == saved.sequence)

        // Space back: the save goes through.
        #expect(unlink(filler) == 0)
        #expect(recorder.saveNow(next))
        #expect(try store.load(path: matchFile).state.stateHash == next.stateHash)
    }

    @Test func aJournalLeftFromAnOlderMatchFileIsIgnored() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let (recorder, matchFile, journal) = try played([3, 3, 2], in: store)
        // The match file is rewritten whole (as a compaction does) with an older state
        // and the journal stays, as after a crash before it was restarted.
        var rewritten = recorder.current
        rewritten.state = try state([3])
        try store.save(rewritten)
        #expect(fileBytes(journal) != nil)
        #expect(try store.load(path: matchFile).state.stateHash == (try state([3])).stateHash)
    }

    @Test func theEndFoldsTheJournalIntoTheMatchFile() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let (recorder, matchFile, journal) = try played([3, 3], in: store)
        let ended = try state([3, 3]).applying(.quit(0), now: 5)
        #expect(recorder.saveNow(ended))
        // Saved at once, as one more frame: the end reads back before it is folded in.
        #expect(try store.load(path: matchFile).phase == .ended)
        // The fold is the writer's next job; a save asked for after it waits for it.
        #expect(recorder.saveNow(ended))
        #expect(fileBytes(journal) == nil)
        let stored = try StoredMatch(decoding: try #require(fileBytes(matchFile)))
        #expect(stored.phase == .ended && stored.state.stateHash == ended.stateHash)
        // Forgetting the match removes both files.
        try store.remove(stored)
        #expect(fileBytes(matchFile) == nil)
    }

    @Test func aResumedMatchStartsAFreshJournalFromItsNewestRecord() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let (first, matchFile, _) = try played([3, 3, 2], in: store)
        first.markInterrupted()
        let loaded = try store.load(path: matchFile)
        let played = try state([3, 3, 2])
        #expect(loaded.phase == .interrupted && loaded.state.stateHash == played.stateHash)
        // `parlor resume`: a new recorder goes on from the loaded record.
        let again = MatchRecorder(store: store, record: loaded)
        #expect(again.saveNow(try state([3, 3, 2, 2])))
        #expect(again.saveNow(try state([3, 3, 2, 2, 4])))
        #expect(try store.load(path: matchFile).state.stateHash == (try state([3, 3, 2, 2, 4])).stateHash)
    }
}
