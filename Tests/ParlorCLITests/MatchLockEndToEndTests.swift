import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Store
import Testing

/// Issue 17 item 14: a match is "being played right now" while a process
/// holds its lock in the store, which the kernel releases when that process
/// dies; no process id decides it (a pid is reused, parlor may be pid 1).
@Suite(.serialized) struct MatchLockEndToEndTests {
    typealias Table = ResumeEndToEndTests.Table

    /// The `state` of the only match `parlor matches --json` lists on `side`.
    static func shownState(_ table: Table, _ side: ResumeEndToEndTests.Side) async throws -> String? {
        let listed = try await table.matches(on: side)
        let objects = listed.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return objects.first?["state"] as? String
    }

    /// Waits until `pid` has died (a zombie its parent has not collected yet, or gone).
    static func waitUntilDead(_ pid: pid_t) async {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            guard let name = stat.lastIndex(of: ")") else { return }
            let state = stat[stat.index(after: name)...].dropFirst().first
            if state == "Z" || state == "X" { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test("a match in play is playing; killed, it is interrupted at once; a second resume is refused; then it finishes")
    func theLockDecidesPlayingAndResume() async throws {
        let table = Table()
        let host = try SpawnedParlor(ResumeEndToEndTests.hostArguments, environment: table.environment(.host))
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening))
        // A person who has not typed yet: the guest's match is in play and stays so.
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--grace", "60"],
                                      environment: table.environment(.guest), keepStdinOpen: true)
        let joined = try #require(await guest.line(containing: "\"joined\""), Comment(rawValue: guest.transcript))
        let id = try #require(ResumeEndToEndTests.matchID(from: joined))
        #expect(await guest.line(containing: "\"event\":\"turn\",\"seat\":1") != nil, Comment(rawValue: guest.transcript))
        #expect(try await Self.shownState(table, .guest) == "playing")

        // Killed and not yet collected by its parent: the lock is free at once.
        guest.send(SIGKILL)
        await Self.waitUntilDead(guest.pid)
        #expect(try await Self.shownState(table, .guest) == "interrupted")

        // A resume by a person who has not typed yet holds the match...
        let first = try SpawnedParlor(["resume", id, "--json", "--grace", "60"], environment: table.environment(.guest),
                                      keepStdinOpen: true)
        #expect(await first.line(containing: "\"resumed\":true", timeout: .seconds(30)) != nil, Comment(rawValue: first.transcript))
        // ...so a second one is refused, naming the process that plays it.
        let second = try await ParlorProcess.run(["resume", id, "--json"], environment: table.environment(.guest),
                                                 timeout: .seconds(30))
        #expect(second.status == 1, Comment(rawValue: second.stdout + second.stderr))
        #expect(second.stderr.contains("is being played right now (by process \(first.pid))"), Comment(rawValue: second.stderr))

        // Killed in turn, it is resumed at once, by a bot this time, and the match finishes.
        first.send(SIGKILL)
        #expect(await first.wait(timeout: .seconds(10)) == 128 + SIGKILL)
        let last = try SpawnedParlor(["resume", id, "--bot", "easy", "--json", "--grace", "60"], environment: table.environment(.guest))
        #expect(await last.wait(timeout: .seconds(90)) == 0, Comment(rawValue: last.transcript))
        #expect(await host.wait(timeout: .seconds(30)) == 0, Comment(rawValue: host.transcript))
        #expect(try await Self.shownState(table, .guest) == "ended")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: table.guestHome + "/parlor/matches")
        #expect(leftovers.filter { $0.hasSuffix(".lock") || $0.hasSuffix(".tmp") }.isEmpty, "\(leftovers)")
    }

    @Test("a record saved as playing whose pid now belongs to a live process (this test, pid 1) is interrupted and resumable")
    func aReusedPidBlocksNothing() async throws {
        let home = temporaryDataHome()
        let store = MatchStore(directory: home + "/parlor/matches")
        for (seed, pid) in [(UInt64(1), getpid()), (2, 1)] {
            let record = StoredMatch(state: MatchFixtures.newMatch("tictactoe", seed: seed), role: .guest, localSeat: 1,
                                     phase: .playing, lastActivity: Int64(seed), peerAddress: "127.0.0.1:1",
                                     seatToken: Array(repeating: 5, count: 16), writerPID: pid)
            try store.save(record)
        }
        let listed = try await ParlorProcess.run(["matches", "--json"], environment: ["XDG_DATA_HOME": home], timeout: .seconds(30))
        #expect(listed.stdout.components(separatedBy: "\"state\":\"interrupted\"").count == 3, Comment(rawValue: listed.stdout))
        // Resume takes it: it tries the host (nobody there) rather than calling it in play.
        let resumed = try await ParlorProcess.run(["resume", "--json", "--grace", "1"], environment: ["XDG_DATA_HOME": home],
                                                  timeout: .seconds(60))
        #expect(!resumed.stderr.contains("being played"), Comment(rawValue: resumed.stderr))
        #expect(resumed.status == 75, Comment(rawValue: resumed.stdout + resumed.stderr))
    }

    @Test("a FIFO in the store is named as not a match file, and neither matches nor resume waits for it")
    func aFIFOInTheStoreHangsNothing() async throws {
        let home = temporaryDataHome()
        let directory = home + "/parlor/matches"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fifo = directory + "/00112233445566778899aabbccddeeff-host-0.match"
        try #require(mkfifo(fifo, 0o600) == 0)
        for arguments in [["matches"], ["resume"]] {
            let started = ContinuousClock.now
            let result = try await ParlorProcess.run(arguments, environment: ["XDG_DATA_HOME": home], timeout: .seconds(20))
            #expect(!result.timedOut && ContinuousClock.now - started < .seconds(10), "parlor \(arguments) hung on a FIFO")
            #expect(result.stderr.contains("skipped a damaged match file: \(fifo): not a parlor match file"),
                    Comment(rawValue: result.stderr))
        }
    }
}
