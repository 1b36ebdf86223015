import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Testing

/// Issue 17 item 3 with real processes: the host's store (its XDG_DATA_HOME,
/// on a small tmpfs of its own) fills up mid-match. The host says so at once
/// (a JSON notice), the guest is told why, nothing the host could not save
/// reaches the guest, the host's record stays the last good state, and once
/// space is freed `parlor resume` on both sides finishes the match.
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

    // Disabled since the journal store: after the fill, the host's next turns are
    // small appends into the journal page already allocated, so they succeed (and
    // are durable) and no save fails at the chosen turn. The failure path itself
    // is covered by SaveFailureProtocolTests; this test needs a trigger that fails
    // a journal append for real (see the closing note of stop 19).
    @Test(.disabled("a full tmpfs no longer fails the journal's next append; needs a new trigger"),
          .enabled(if: getuid() == 0, "mounting the small tmpfs needs root"))
    func aHostWhoseStoreFillsUpStopsLoudlyKeepsTheLastGoodRecordAndResumesOnceFreed() async throws {
        let disk = try SmallFilesystem(size: "4m")
        defer { disk.unmount() }
        let guestHome = temporaryDataHome()
        let hostEnvironment = ["XDG_DATA_HOME": disk.path], guestEnvironment = ["XDG_DATA_HOME": guestHome]

        // The host's seat is typed (so the fill lands at a chosen turn); the guest is a bot.
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--seat", "first", "--grace", "4"],
                                     environment: hostEnvironment, keepStdinOpen: true)
        defer { host.send(SIGKILL) }
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening))
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--grace", "4"],
                                      environment: guestEnvironment)
        defer { guest.send(SIGKILL) }
        let joined = try #require(await guest.line(containing: "\"joined\""), Comment(rawValue: guest.transcript))
        let id = try #require(ResumeEndToEndTests.matchID(from: joined))

        #expect(await host.line(containing: "\"event\":\"turn\",\"seat\":0,\"sequence\":0") != nil, Comment(rawValue: host.transcript))
        host.type("4\n")
        #expect(await host.line(containing: "\"event\":\"turn\",\"seat\":0,\"sequence\":2") != nil, Comment(rawValue: host.transcript))
        let before = try await ParlorProcess.run(["matches", "--json"], environment: hostEnvironment, timeout: .seconds(30)).stdout
        #expect(Self.savedSequence(before) == 2, Comment(rawValue: before))

        // The disk is full now; the host's move at sequence 3 cannot be saved.
        let filler = disk.fill()
        let filled = ContinuousClock.now
        host.type("4\n")
        let notice = await host.line(containing: "could not save the match", timeout: .seconds(10))
        #expect(notice != nil && notice?.contains("\"event\":\"notice\"") == true, Comment(rawValue: host.transcript))
        #expect(ContinuousClock.now - filled < .seconds(5), "the failure was not shown at once")
        #expect(await guest.line(containing: "cannot save the match", timeout: .seconds(10)) != nil, Comment(rawValue: guest.transcript))

        // Nobody saved the state, so nobody else may see it: both leave for now.
        #expect(await host.wait(timeout: .seconds(30)) == 75, Comment(rawValue: host.transcript))
        #expect(await guest.wait(timeout: .seconds(30)) == 75, Comment(rawValue: guest.transcript))
        #expect(Self.lastMove(in: guest.output) == 2, "the guest saw a move the host had not saved:\n\(guest.transcript)")
        let during = try await ParlorProcess.run(["matches", "--json"], environment: hostEnvironment, timeout: .seconds(30))
        #expect(Self.savedSequence(during.stdout) == 2, Comment(rawValue: during.stdout + during.stderr))
        #expect(during.stdout.contains("\"state\":\"interrupted\""), Comment(rawValue: during.stdout + during.stderr))
        let guestRecord = try await ParlorProcess.run(["matches", "--json"], environment: guestEnvironment, timeout: .seconds(30)).stdout
        #expect(Self.savedSequence(guestRecord) == 2, Comment(rawValue: guestRecord))

        // Space freed: the match goes on from the last good record and finishes on both sides.
        #expect(unlink(filler) == 0)
        let resumedHost = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "60"], environment: hostEnvironment)
        defer { resumedHost.send(SIGKILL) }
        #expect(await resumedHost.line(containing: "\"listening\"") != nil, Comment(rawValue: resumedHost.transcript))
        let resumedGuest = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "60"], environment: guestEnvironment)
        defer { resumedGuest.send(SIGKILL) }
        #expect(await resumedGuest.wait(timeout: .seconds(90)) == 0, Comment(rawValue: resumedGuest.transcript))
        #expect(await resumedHost.wait(timeout: .seconds(30)) == 0, Comment(rawValue: resumedHost.transcript))
        let hostHistory = try await ParlorProcess.run(["replay", id, "--json"], environment: hostEnvironment, timeout: .seconds(30))
        let guestHistory = try await ParlorProcess.run(["replay", id, "--json"], environment: guestEnvironment, timeout: .seconds(30))
        #expect(hostHistory.stdout.contains("\"event\":\"end\""), Comment(rawValue: hostHistory.stdout + hostHistory.stderr))
        #expect(hostHistory.stdout == guestHistory.stdout, "the two saved histories differ")
    }
}
