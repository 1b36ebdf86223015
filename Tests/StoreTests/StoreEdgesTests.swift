import Foundation
@preconcurrency import Glibc
import Match
import ParlorTestSupport
import Testing
@testable import Store

/// Issue 17 items 14, 16 and 17 at the store: the lock decides "playing",
/// a FIFO is refused by name without blocking, and what killed saves and
/// killed players left behind is removed, never what a live one holds.
@Suite(.serialized) struct StoreEdgesTests {
    func record(seed: UInt64 = 1, pid: Int32 = 0) -> StoredMatch {
        StoredMatch(state: MatchFixtures.newMatch("tictactoe", seed: seed), role: .guest, localSeat: 1, phase: .playing,
                    lastActivity: Int64(seed), peerAddress: "127.0.0.1:1", seatToken: Array(repeating: 3, count: 16),
                    writerPID: pid)
    }

    /// `/usr/bin/flock --close PATH sleep 30`: another live process holding `path`'s lock
    /// (the `sleep` it starts does not inherit it). Returns its pid.
    func holdLock(_ path: String) throws -> pid_t {
        var pid: pid_t = 0
        let words: [String] = ["/usr/bin/flock", "--close", path, "sleep", "30"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        try #require(posix_spawn(&pid, "/usr/bin/flock", nil, nil, argv, environ) == 0)
        // Until the child has the lock, it is not held.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            if fd >= 0, flock(fd, LOCK_SH | LOCK_NB) != 0 { break }
            if fd >= 0 { flock(fd, LOCK_UN) }
            usleep(10_000)
        }
        return pid
    }

    func end(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    func names(in directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory))?.sorted() ?? []
    }

    @Test func aMatchIsPlayingExactlyWhileAProcessHoldsItsLock() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let saved = record(pid: getpid())
        try store.save(saved)
        // Saved as playing by this very (live) process, but nobody holds it: interrupted.
        #expect(store.list().matches.first?.phase == .interrupted)
        let holder = try holdLock(store.lockPath(for: saved))
        #expect(store.list().matches.first?.phase == .playing)
        #expect(try store.claim(saved) == nil, "another process holds it")
        #expect(throws: ResumeRefusal.self) { try store.claimForResume(.newest) }
        end(holder)
        // The kernel released it with the process: interrupted, and resume takes it at once.
        #expect(store.list().matches.first?.phase == .interrupted)
        let (chosen, claim) = try store.claimForResume(.newest)
        #expect(chosen.state.matchID == saved.state.matchID)
        #expect(store.list().matches.first?.phase == .playing, "this process holds it now")
        claim.release()
        #expect(store.list().matches.first?.phase == .interrupted)
        #expect(!names(in: store.directory).contains { $0.hasSuffix(".lock") }, "the released lock file is removed")
    }

    @Test func aLockFileLeftByAKilledPlayerIsRemovedAndAHeldOneKept() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let stale = record(seed: 1), held = record(seed: 2)
        try store.save(stale)
        try store.save(held)
        writeFile(store.lockPath(for: stale), Array("99999\n".utf8))
        let holder = try holdLock(store.lockPath(for: held))
        defer { end(holder) }
        let phases = store.list().matches.map { ($0.state.matchID, $0.phase) }
        #expect(phases.contains { $0 == (stale.state.matchID, .interrupted) })
        #expect(phases.contains { $0 == (held.state.matchID, .playing) })
        let left = names(in: store.directory)
        #expect(!left.contains(String(store.lockPath(for: stale).split(separator: "/").last!)))
        #expect(left.contains(String(store.lockPath(for: held).split(separator: "/").last!)))
    }

    @Test func aFIFOInTheStoreIsReportedByNameWithoutBlocking() async throws {
        let store = MatchStore(directory: temporaryDirectory())
        try store.save(record())
        let fifo = store.directory + "/0123456789abcdef0123456789abcdef-guest-1.match"
        try #require(mkfifo(fifo, 0o600) == 0)
        let started = ContinuousClock.now
        let listed = store.list()
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(listed.matches.count == 1)
        #expect(listed.problems.map(\.path) == [fifo])
        #expect(listed.problems.first?.reason.contains("not a regular file") == true)
    }

    /// A temporary file with its modification time `seconds` ago.
    func plantTemporary(_ store: MatchStore, _ name: String, age seconds: Int) -> String {
        let path = store.directory + "/" + name
        writeFile(path, [1, 2, 3])
        var times = [timespec(tv_sec: time(nil) - seconds, tv_nsec: 0), timespec(tv_sec: time(nil) - seconds, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
        return path
    }

    @Test func temporaryFilesOfKilledSavesAreRemovedAndALiveWritersAreKept() throws {
        let store = MatchStore(directory: temporaryDirectory())
        try store.save(record())
        let base = MatchStore.fileName(matchID: record().state.matchID, role: .guest, seat: 1)
        let abandoned = plantTemporary(store, ".\(base).99999-1.tmp", age: 600)
        let written = plantTemporary(store, ".\(base).99998-1.tmp", age: 600)
        let fresh = plantTemporary(store, ".\(base).99997-1.tmp", age: 0)
        let unrelated = plantTemporary(store, ".notes.tmp", age: 600)
        let writer = try holdLock(written)
        defer { end(writer) }
        #expect(store.list().matches.count == 1)
        let left = Set(names(in: store.directory).map { store.directory + "/" + $0 })
        #expect(!left.contains(abandoned), "a killed save's file is removed")
        #expect(left.contains(written), "a file whose writer holds its lock is kept")
        #expect(left.contains(fresh), "a file created a moment ago (its writer may not have locked it yet) is kept")
        #expect(left.contains(unrelated), "only the store's own temporary names are touched")
    }

    @Test func aStaleTemporaryNameOfAReusedPidDoesNotStopASave() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let saved = record()
        // What a killed process with this pid left behind, for each of the next writes' serials.
        let base = MatchStore.fileName(matchID: saved.state.matchID, role: .guest, seat: 1)
        let next = MatchStore.writeCounter.load(ordering: .relaxed) + 1
        for serial in next..<next + 4 { writeFile(store.directory + "/.\(base).\(getpid())-\(serial).tmp", [0]) }
        try store.save(saved)
        #expect(store.list().matches.count == 1)
    }
}

/// A store's directory is listed by reading each entry's name in place, never
/// copying the whole fixed-size name field out of a record only as long as its
/// name (which read past the record, and once crashed `parlor bench turns`).
@Suite struct DirectoryNamesTests {
    @Test("every name, of every length a file system allows, is listed exactly once, and . and .. are not")
    func everyLengthOfNameIsListed() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var made: Set<String> = []
        for length in 1...255 {
            let name = String(repeating: Character(UnicodeScalar(UInt8(97 + length % 26))), count: length)
            let fd = open(directory + "/" + name, O_CREAT | O_WRONLY, 0o600)
            try #require(fd >= 0, "could not make a file with a name of \(length) bytes")
            close(fd)
            made.insert(name)
        }
        let listed = try #require(directoryEntryNames(directory))
        #expect(listed.count == 255)
        #expect(Set(listed) == made)
        #expect(directoryEntryNames(directory + "/missing") == nil)
    }
}
