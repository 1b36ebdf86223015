import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Testing

/// Issue 17 item 3 with real processes, a real file system and a real kernel
/// error: the host's store (its XDG_DATA_HOME, on a small tmpfs of its own)
/// fails a save mid-match. The host says so at once (a JSON notice), the guest
/// is told why (GOODBYE cannotSave), nothing the host could not save reaches
/// the guest, the host's record stays the last good state, and once space (or
/// write access) is back the match goes on, in the same processes or with
/// `parlor resume`.
///
/// The trigger. A full tmpfs does not fail every write: the journal's next
/// frame usually lands in the page the journal already has, and succeeds (and
/// is durable). So the tests play a fixed game, both seats typed, and before
/// each move look at the host's journal from outside: once the room left in
/// its last page is smaller than its last frame (frames only grow, by the
/// move history), the next append must take a new page, and only then is the
/// tmpfs filled to the last byte. That append is cut short by the kernel
/// (the part that fits in the page is written) and its next write gets ENOSPC.
/// The moves, and so the frame sizes and the failing turn, are the same on
/// every run. A read-only store is a remount of the same tmpfs between two
/// processes (the kernel refuses to make a file system with a journal open
/// for writing read-only, so it cannot happen mid-match): a host or resume
/// started there is refused at once with EROFS, and nothing is lost.
///
/// Needs root (mount); a chmod'ed directory would not stop root.
@Suite(.serialized) struct FullStoreEndToEndTests {
    /// A tmpfs of `size` mounted on a new directory; unmount with `unmount`.
    struct SmallFilesystem {
        let path = temporaryDataHome()

        init(size: String) throws {
            let result = try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
            guard result == 0 else { throw MountFailed(status: result) }
        }

        /// Writes a filler file until the filesystem has no byte left; its path.
        func fill() -> String {
            let filler = path + "/filler"
            let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            defer { if fd >= 0 { close(fd) } }
            for size in [1 << 16, 4096, 1] {
                let chunk = [UInt8](repeating: 0, count: size)
                while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, size) }) == size {}
            }
            return filler
        }

        /// Remounts read-only or writable again; the mount's exit status.
        func remount(readOnly: Bool) throws -> Int32 {
            try Self.run("/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", path])
        }

        func unmount() { _ = try? Self.run("/bin/umount", ["-l", path]) }

        struct MountFailed: Error { let status: Int32 }

        static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// A full Connect Four game with no four in a row: a draw (the fault matrix's plan).
    /// Columns 0-6; the host (seat 0) plays the even sequences.
    static let plan = [5, 3, 2, 3, 1, 5, 3, 1, 0, 1, 4, 1, 2, 5, 0, 5, 6, 6, 2, 0, 6, 0, 4, 2,
                       3, 0, 3, 4, 2, 3, 2, 6, 0, 4, 1, 1, 5, 4, 4, 5, 6, 6]

    /// Both seats of a match typed from `plan`: seat 0 on `host`, seat 1 on `guest`.
    final class Typist: @unchecked Sendable {
        // @unchecked: used by one test task at a time.
        var host: SpawnedParlor
        var guest: SpawnedParlor
        private var typed: Set<Int> = []

        init(host: SpawnedParlor, guest: SpawnedParlor) {
            self.host = host
            self.guest = guest
        }

        /// Moves typed from `sequence` on are typed again when asked (they were not saved).
        func forget(from sequence: Int) { typed = typed.filter { $0 < sequence } }

        /// (seat, sequence) of the last `turn` event in `output`.
        static func latestTurn(in output: String) -> (seat: Int, sequence: Int)? {
            guard let line = output.split(separator: "\n").last(where: { $0.contains("\"event\":\"turn\"") }) else { return nil }
            func number(_ key: String) -> Int? {
                guard let range = line.range(of: "\"\(key)\":") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }
            guard let seat = number("seat"), let sequence = number("sequence") else { return nil }
            return (seat, sequence)
        }

        /// Types the planned move of every turn announced to its seat, each
        /// once, until `done()` holds; `beforeMove(sequence)` runs just before
        /// each is typed. False when `timeout` passed first.
        func play(timeout: Duration, beforeMove: (Int) -> Void = { _ in }, until done: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if done() { return true }
                for (process, seat) in [(host, 0), (guest, 1)] {
                    guard let turn = Self.latestTurn(in: process.output), turn.seat == seat,
                          turn.sequence < plan.count, !typed.contains(turn.sequence) else { continue }
                    if done() { return true }
                    beforeMove(turn.sequence)
                    typed.insert(turn.sequence)
                    process.type("\(plan[turn.sequence] + 1)\n")
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return done()
        }
    }

    /// True when the next frame appended to the journal at `path` cannot fit
    /// in the page the file already has: the room left in its last page is
    /// less than its last frame (the next one is at least as long).
    static func nextAppendNeedsANewPage(_ path: String) -> Bool {
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else { return false }
        var offset = 14, last = 0  // MatchJournal.headerSize; each frame: length u32, checksum u64, payload
        while bytes.count - offset >= 12 {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard bytes.count - offset - 12 >= length else { break }
            last = 12 + length
            offset += last
        }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let used = bytes.count % page
        return last > 0 && (used == 0 ? 0 : page - used) < last
    }

    /// The host's journal in the data home `home`, once it exists.
    static func journal(in home: String) -> String? {
        let directory = home + "/parlor/matches"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.first { $0.hasSuffix("-host-0.journal") }.map { directory + "/" + $0 }
    }

    /// The highest sequence of the `move` events in `output`.
    static func lastMove(in output: String) -> Int {
        output.split(separator: "\n").filter { $0.contains("\"event\":\"move\"") }.compactMap { line -> Int? in
            guard let range = line.range(of: "\"sequence\":") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.max() ?? 0
    }

    /// The `"sequence":N` of the one match `parlor matches --json` lists.
    static func savedSequence(_ listed: String) -> Int? {
        guard let range = listed.range(of: "\"sequence\":") else { return nil }
        return Int(listed[range.upperBound...].prefix { $0.isNumber })
    }

    /// A typed match: the host's data home on `disk`, the guest's on a directory of its own.
    static func start(on disk: SmallFilesystem, guestHome: String, grace: Int) async throws -> (Typist, id: String) {
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--seat", "first", "--grace", "\(grace)"],
                                     environment: ["XDG_DATA_HOME": disk.path], keepStdinOpen: true)
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening))
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--grace", "\(grace)"],
                                      environment: ["XDG_DATA_HOME": guestHome], keepStdinOpen: true)
        let joined = try #require(await guest.line(containing: "\"joined\""), Comment(rawValue: guest.transcript))
        return (Typist(host: host, guest: guest), try #require(ResumeEndToEndTests.matchID(from: joined)))
    }

    /// Plays until the host's next save cannot fit the journal's page, fills
    /// the disk then, and plays on until the host says it could not save. The
    /// filler's path and the sequence of the move typed into the full disk.
    static func playUntilASaveFails(_ match: Typist, on disk: SmallFilesystem) async throws -> (filler: String, at: Int) {
        var filled: (filler: String, at: Int)?
        let failed = await match.play(timeout: .seconds(90), beforeMove: { sequence in
            guard filled == nil, sequence >= 4, let journal = journal(in: disk.path), nextAppendNeedsANewPage(journal) else { return }
            filled = (disk.fill(), sequence)
        }, until: { match.host.output.contains("could not save the match") })
        #expect(failed, "no save failed; the match went to move \(lastMove(in: match.host.output))")
        return try #require(filled, Comment(rawValue: match.host.transcript))
    }

    static func history(_ id: String, home: String) async throws -> String {
        let result = try await ParlorProcess.run(["replay", id, "--json"], environment: ["XDG_DATA_HOME": home], timeout: .seconds(30))
        return result.stdout + result.stderr
    }

    static func saved(home: String) async throws -> String {
        let result = try await ParlorProcess.run(["matches", "--json"], environment: ["XDG_DATA_HOME": home], timeout: .seconds(30))
        return result.stdout + result.stderr
    }

    /// Both saved histories are the whole planned game, and the same.
    static func expectTheWholePlan(_ id: String, hostHome: String, guestHome: String) async throws {
        let hostHistory = try await history(id, home: hostHome), guestHistory = try await history(id, home: guestHome)
        let moves = hostHistory.split(separator: "\n").filter { $0.contains("\"event\":\"move\"") }.compactMap { line -> Int? in
            guard let range = line.range(of: "\"move\":") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(moves == plan, Comment(rawValue: hostHistory))
        #expect(hostHistory == guestHistory, "the two saved histories differ:\n\(hostHistory)\n\(guestHistory)")
    }

    @Test(.enabled(if: getuid() == 0, "mounting the small tmpfs needs root"))
    func aHostWhoseStoreFillsUpPausesLoudlyAndTheMatchGoesOnOnceSpaceIsBack() async throws {
        let disk = try SmallFilesystem(size: "4m")
        defer { disk.unmount() }
        let guestHome = temporaryDataHome()
        let (match, id) = try await Self.start(on: disk, guestHome: guestHome, grace: 60)
        defer { match.host.send(SIGKILL); match.guest.send(SIGKILL) }

        let (filler, filledAt) = try await Self.playUntilASaveFails(match, on: disk)
        let notice = try #require(match.host.output.split(separator: "\n").first { $0.contains("could not save the match") })
        #expect(notice.contains("\"event\":\"notice\"") && notice.contains("No space left on device"), Comment(rawValue: String(notice)))
        #expect(await match.guest.line(containing: "cannot save the match", timeout: .seconds(10)) != nil,
                Comment(rawValue: match.guest.transcript))

        // Paused: nothing newer than the host's record reaches the guest; the record is the last save
        // before the fill (the move typed into the full disk, or the one still being saved then).
        try? await Task.sleep(for: .seconds(2))
        let during = try await Self.saved(home: disk.path)
        let at = try #require(Self.savedSequence(during), Comment(rawValue: during))
        #expect(at == filledAt || at == filledAt - 1, Comment(rawValue: during))
        #expect(Self.lastMove(in: match.guest.output) == at, "the guest saw a move the host had not saved:\n\(match.guest.transcript)")

        // Space back: the host saves, says so, takes the guest back, and the match is played to its end.
        #expect(unlink(filler) == 0)
        #expect(await match.host.line(containing: "the match is saved again", timeout: .seconds(10)) != nil,
                Comment(rawValue: match.host.transcript))
        await Self.playToTheEnd(match)
        try await Self.expectTheWholePlan(id, hostHome: disk.path, guestHome: guestHome)
    }

    @Test(.enabled(if: getuid() == 0, "mounting the small tmpfs needs root"))
    func aHostWhoseStoreStaysFullLeavesForNowWithTheLastGoodRecordAndResumesOnceFreed() async throws {
        let disk = try SmallFilesystem(size: "4m")
        defer { disk.unmount() }
        let guestHome = temporaryDataHome()
        let (match, id) = try await Self.start(on: disk, guestHome: guestHome, grace: 4)
        defer { match.host.send(SIGKILL); match.guest.send(SIGKILL) }

        let (filler, filledAt) = try await Self.playUntilASaveFails(match, on: disk)
        #expect(await match.guest.line(containing: "cannot save the match", timeout: .seconds(10)) != nil,
                Comment(rawValue: match.guest.transcript))

        // Nobody saved the state, so nobody else may see it: both leave for now.
        #expect(await match.host.wait(timeout: .seconds(30)) == 75, Comment(rawValue: match.host.transcript))
        #expect(await match.guest.wait(timeout: .seconds(30)) == 75, Comment(rawValue: match.guest.transcript))
        let during = try await Self.saved(home: disk.path)
        let at = try #require(Self.savedSequence(during), Comment(rawValue: during))
        #expect(at == filledAt || at == filledAt - 1, Comment(rawValue: during))
        #expect(Self.lastMove(in: match.guest.output) == at, "the guest saw a move the host had not saved:\n\(match.guest.transcript)")
        #expect(during.contains("\"state\":\"interrupted\""), Comment(rawValue: during))
        #expect(Self.savedSequence(try await Self.saved(home: guestHome)) == at)

        // Space freed: the match goes on from the last good record and finishes on both sides.
        #expect(unlink(filler) == 0)
        match.forget(from: at)
        try await Self.resumeAndFinish(match, hostHome: disk.path, guestHome: guestHome)
        try await Self.expectTheWholePlan(id, hostHome: disk.path, guestHome: guestHome)
    }

    @Test(.enabled(if: getuid() == 0, "mounting the small tmpfs needs root"))
    func aReadOnlyStoreIsRefusedAtOnceAndLosesNothing() async throws {
        let disk = try SmallFilesystem(size: "4m")
        defer { disk.unmount() }
        let guestHome = temporaryDataHome()
        let (match, id) = try await Self.start(on: disk, guestHome: guestHome, grace: 60)
        defer { match.host.send(SIGKILL); match.guest.send(SIGKILL) }

        // Six moves, then both leave for now: the host at its turn by end of input, the guest by SIGTERM;
        // with no process writing, the store is made read-only.
        _ = await match.play(timeout: .seconds(60)) {
            Typist.latestTurn(in: match.host.output).map { $0.seat == 0 && $0.sequence >= 6 } ?? false
        }
        match.host.closeStdin()
        #expect(await match.host.wait(timeout: .seconds(30)) == 75, Comment(rawValue: match.host.transcript))
        #expect(await match.guest.line(containing: "may resume") != nil, Comment(rawValue: match.guest.transcript))
        match.guest.send(SIGTERM)
        #expect(await match.guest.wait(timeout: .seconds(30)) == 143, Comment(rawValue: match.guest.transcript))
        let before = try await Self.saved(home: disk.path)
        let at = try #require(Self.savedSequence(before), Comment(rawValue: before))
        match.forget(from: at)
        #expect(try disk.remount(readOnly: true) == 0)

        // A new host there refuses before it listens, so no guest is welcomed into a match it cannot save.
        let newHost = try await ParlorProcess.run(["host", "connect4", "--json", "--port", "0"],
                                                  environment: ["XDG_DATA_HOME": disk.path], timeout: .seconds(20))
        #expect(newHost.status == 74, Comment(rawValue: newHost.stdout + newHost.stderr))
        #expect(!newHost.stdout.contains("\"listening\""), Comment(rawValue: newHost.stdout))
        #expect(newHost.stderr.contains("matches cannot be saved here") && newHost.stderr.contains("Read-only file system"),
                Comment(rawValue: newHost.stderr))
        // Resuming there is refused at once, by the same cause, and the record is as it was.
        let resumed = try await ParlorProcess.run(["resume", "--json", "--grace", "5"],
                                                  environment: ["XDG_DATA_HOME": disk.path], timeout: .seconds(20))
        #expect(resumed.status != 0 && resumed.status != 75, Comment(rawValue: resumed.stdout + resumed.stderr))
        #expect(resumed.stderr.contains("Read-only file system"), Comment(rawValue: resumed.stderr))
        #expect(try await Self.saved(home: disk.path) == before)

        // Writable again: both resume and the match is played to its end.
        #expect(try disk.remount(readOnly: false) == 0)
        try await Self.resumeAndFinish(match, hostHome: disk.path, guestHome: guestHome)
        try await Self.expectTheWholePlan(id, hostHome: disk.path, guestHome: guestHome)
    }

    @Test(.enabled(if: getuid() == 0, "mounting the small tmpfs needs root"))
    func playAndJoinRefuseAReadOnlyStoreBeforeTheMatch() async throws {
        let disk = try SmallFilesystem(size: "1m")
        defer { disk.unmount() }
        #expect(try disk.remount(readOnly: true) == 0)
        let play = try await ParlorProcess.run(["play", "connect4", "--vs", "bot:easy", "--plain"], stdin: "4\n",
                                               environment: ["XDG_DATA_HOME": disk.path], timeout: .seconds(20))
        #expect(play.status == 74, Comment(rawValue: play.stdout + play.stderr))
        #expect(play.stderr.contains("matches cannot be saved here") && play.stderr.contains("Read-only file system"),
                Comment(rawValue: play.stderr))
        #expect(!play.stdout.contains("Connect Four"), "no match was shown: \(play.stdout)")
        #expect(!(play.stdout + play.stderr).contains("parlor resume"), Comment(rawValue: play.stdout + play.stderr))
        // A guest is refused before it connects, so no host seats a guest that could never take its seat back.
        let join = try await ParlorProcess.run(["join", "127.0.0.1:9", "--bot", "easy", "--json"],
                                               environment: ["XDG_DATA_HOME": disk.path], timeout: .seconds(20))
        #expect(join.status == 74, Comment(rawValue: join.stdout + join.stderr))
        #expect(join.stderr.contains("matches cannot be saved here"), Comment(rawValue: join.stderr))
    }

    @Test(.enabled(if: getuid() == 0, "mounting the small tmpfs needs root"))
    func aMatchWhoseSaveFailedNeverSaysItIsSaved() async throws {
        let disk = try SmallFilesystem(size: "1m")
        defer { disk.unmount() }
        // The store's directory exists, so it is writable at the start; then not one byte is left.
        try FileManager.default.createDirectory(atPath: disk.path + "/parlor/matches", withIntermediateDirectories: true)
        _ = disk.fill()
        for json in [false, true] {
            let play = try await ParlorProcess.run(["play", "connect4", "--vs", "bot:easy", json ? "--json" : "--plain"], stdin: "4\n",
                                                   environment: ["XDG_DATA_HOME": disk.path], timeout: .seconds(30))
            let everything = play.stdout + play.stderr
            #expect(play.stderr.contains("could not be saved"), Comment(rawValue: everything))
            #expect(!everything.contains("saved here"), Comment(rawValue: everything))
            #expect(!everything.contains("parlor resume"), Comment(rawValue: everything))
            if json {
                let left = try #require(jsonEvents(play.stdout).last { $0["event"] as? String == "leftForNow" }, Comment(rawValue: everything))
                #expect(left["resume"] == nil && left["unsaved"] is String, "\(left)")
            } else {
                #expect(play.stdout.contains("cannot continue it"), Comment(rawValue: everything))
            }
        }
        let listed = try await ParlorProcess.run(["matches"], environment: ["XDG_DATA_HOME": disk.path], timeout: .seconds(20))
        #expect(!listed.stdout.contains("interrupted"), Comment(rawValue: listed.stdout))
    }

    /// `parlor resume` on both sides, both seats typed, to the end.
    static func resumeAndFinish(_ match: Typist, hostHome: String, guestHome: String) async throws {
        match.host = try SpawnedParlor(["resume", "--json", "--grace", "60"], environment: ["XDG_DATA_HOME": hostHome],
                                       keepStdinOpen: true)
        #expect(await match.host.line(containing: "\"listening\"") != nil, Comment(rawValue: match.host.transcript))
        match.guest = try SpawnedParlor(["resume", "--json", "--grace", "60"], environment: ["XDG_DATA_HOME": guestHome],
                                        keepStdinOpen: true)
        await playToTheEnd(match)
    }

    /// Types the rest of the plan; both processes report the end and exit 0.
    static func playToTheEnd(_ match: Typist) async {
        let ended = await match.play(timeout: .seconds(90)) {
            match.host.output.contains("\"event\":\"end\"") && match.guest.output.contains("\"event\":\"end\"")
        }
        #expect(ended, Comment(rawValue: match.host.transcript + "\n" + match.guest.transcript))
        #expect(await match.host.wait(timeout: .seconds(30)) == 0, Comment(rawValue: match.host.transcript))
        #expect(await match.guest.wait(timeout: .seconds(30)) == 0, Comment(rawValue: match.guest.transcript))
    }
}
