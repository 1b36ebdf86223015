import Dispatch
@preconcurrency import Glibc
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Store

/// A fresh empty directory under /tmp for one test.
func temporaryDirectory() -> String {
    var template = Array("/tmp/parlor-store-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return path.map { String(cString: $0) } ?? "/tmp/parlor-store-fallback"
}

/// Runs blocking work on a Dispatch thread and waits for it without holding a pool thread.
func onDispatch(_ work: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, bytes.count) }
    close(fd)
}

struct MatchStoreTests {
    func record(seed: UInt64 = 1, moves: [Int] = [3, 3, 2]) throws -> StoredMatch {
        let state = try MatchFixtures.after(moves, in: MatchFixtures.newMatch(seed: seed))
        return StoredMatch(state: state, role: .guest, localSeat: 1, lastActivity: 1_700_000_000_000 + Int64(seed),
                           peerAddress: "127.0.0.1:7477", seatToken: Array(repeating: 7, count: 16), writerPID: 42)
    }

    @Test func savedMatchesComeBackIntact() throws {
        let store = MatchStore(directory: temporaryDirectory() + "/deep/matches")
        let original = try record()
        try store.save(original)
        let listed = store.list()
        #expect(listed.problems.isEmpty)
        let loaded = try #require(listed.matches.first)
        #expect(loaded.state.stateHash == original.state.stateHash)
        #expect(loaded.state.moves == original.state.moves)
        #expect(loaded.role == .guest && loaded.localSeat == 1)
        // Saved as playing; nobody holds its lock, so it stands interrupted now.
        #expect(loaded.phase == .interrupted)
        #expect(loaded.peerAddress == "127.0.0.1:7477" && loaded.seatToken == Array(repeating: 7, count: 16))
        #expect(loaded.opponentNames == ["Ana"])
    }

    @Test func savingAgainReplacesTheRecord() throws {
        let store = MatchStore(directory: temporaryDirectory())
        try store.save(try record(moves: [3]))
        try store.save(try record(moves: [3, 3, 2, 2]))
        let listed = store.list()
        #expect(listed.matches.count == 1)
        #expect(listed.matches.first?.state.moves.count == 4)
    }

    /// Hundreds of files written and listed: run off Swift's cooperative pool,
    /// so the other suites' timers are not held up meanwhile.
    @Test func damagedFilesAreReportedByNameAndSkipped() async throws {
        try await onDispatch { try self.checkDamagedFiles() }
    }

    func checkDamagedFiles() throws {
        let directory = temporaryDirectory()
        let store = MatchStore(directory: directory)
        let good = try record(seed: 1)
        try store.save(good)
        let bytes = try record(seed: 2).encoded()
        var generator = SplitMix64(seed: 5)
        // Every truncation of a real record, then random bytes.
        for length in stride(from: 0, to: bytes.count, by: 1) {
            writeFile(directory + "/cut.match", Array(bytes.prefix(length)))
            let listed = store.list()
            #expect(listed.matches.count == 1, "a cut file at \(length) bytes was accepted")
            #expect(listed.problems.map(\.path) == [directory + "/cut.match"])
        }
        for _ in 0..<200 {
            let noise = (0..<Int.random(in: 0...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            writeFile(directory + "/cut.match", noise)
            #expect(store.list().matches.count == 1)
        }
        var flipped = bytes
        flipped[flipped.count / 2] ^= 0x40
        writeFile(directory + "/cut.match", flipped)
        let problem = try #require(store.list().problems.first)
        #expect(problem.reason.contains("damaged"))
    }

    @Test func idPrefixesFindOneMatch() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let one = try record(seed: 1), two = try record(seed: 2)
        try store.save(one); try store.save(two)
        let found = try store.find(String(one.state.matchID.hex.prefix(6)).uppercased())
        #expect(found.first?.state.matchID == one.state.matchID)
        #expect(throws: StoreError.self) { try store.find("zz") }
        try store.remove(one)
        #expect(store.list().matches.map(\.state.matchID) == [two.state.matchID])
    }

    @Test func concurrentWritersNeverTearAFile() async throws {
        let directory = temporaryDirectory()
        let store = MatchStore(directory: directory)
        let base = MatchFixtures.newMatch(seed: 9)
        var states: [MatchState] = [base]
        for raw in [0, 1, 0, 1, 2, 3, 2, 3] { states.append(try states.last!.applying(.move(.init(raw), by: states.last!.activeSeat!), now: 1)) }
        let records = states.map { StoredMatch(state: $0, role: .host, localSeat: 0, lastActivity: Int64($0.sequence)) }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<50 { try? store.save(records[(round + worker) % records.count]) }
                }
            }
            group.addTask {
                for _ in 0..<200 {
                    let listed = store.list()
                    #expect(listed.problems.isEmpty, "a reader saw a torn file: \(listed.problems)")
                }
            }
        }
        #expect(store.list().matches.count == 1)
    }
}
