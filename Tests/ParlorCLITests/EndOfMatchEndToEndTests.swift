import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Testing

/// The end of a match reaches both disks (issue 17, items 1 and 2): real
/// `parlor` processes killed with SIGKILL at the end event
/// (`PARLOR_TEST_CRASH_AT=at-end`), then `parlor resume`; both records end
/// ended, with the same history.
@Suite(.serialized) struct EndOfMatchEndToEndTests {
    typealias Table = ResumeEndToEndTests.Table

    static let hostArguments = ["host", "connect4", "--bot", "easy", "--json", "--port", "0", "--seat", "first"]

    /// Starts a bot match and returns the host, the guest and the match id.
    static func start(_ table: Table, hostCrash: Bool, guestCrash: Bool, hostGrace: Int = 60) async throws
        -> (SpawnedParlor, SpawnedParlor, String) {
        let crash = ["PARLOR_TEST_CRASH_AT": "at-end"]
        let host = try SpawnedParlor(hostArguments + ["--grace", "\(hostGrace)"],
                                     environment: table.environment(.host, hostCrash ? crash : [:]))
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening))
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--grace", "60"],
                                      environment: table.environment(.guest, guestCrash ? crash : [:]))
        let joined = try #require(await guest.line(containing: "\"joined\""), Comment(rawValue: guest.transcript))
        let id = try #require(ResumeEndToEndTests.matchID(from: joined))
        return (host, guest, id)
    }

    /// Both sides' records are ended and hold the same history.
    static func expectBothEnded(_ table: Table, _ id: String) async throws {
        let hostHistory = try await table.replay(id, on: .host)
        let guestHistory = try await table.replay(id, on: .guest)
        #expect(hostHistory.stdout.contains("\"event\":\"end\""), Comment(rawValue: hostHistory.stdout + hostHistory.stderr))
        #expect(hostHistory.stdout == guestHistory.stdout, "the two saved histories differ")
        for side in [ResumeEndToEndTests.Side.host, .guest] {
            let listed = try await table.matches(on: side)
            #expect(listed.contains("\"state\":\"ended\""), Comment(rawValue: "\(side): \(listed)"))
        }
    }

    /// The guest dies at its end event, before it answers GOODBYE(matchOver):
    /// its own record of the end is already on disk, so nothing is lost, and
    /// the host, which never got the answer, says what it does not know.
    @Test func aGuestKilledAtTheEndHasTheEndOnDisk() async throws {
        let table = Table()
        let (host, guest, id) = try await Self.start(table, hostCrash: false, guestCrash: true, hostGrace: 3)
        #expect(await guest.wait(timeout: .seconds(90)) == 128 + SIGKILL, Comment(rawValue: guest.transcript))
        #expect(await host.wait(timeout: .seconds(60)) == 0, Comment(rawValue: host.transcript))
        #expect(host.output.contains("did not confirm the end"), Comment(rawValue: host.transcript))
        try await Self.expectBothEnded(table, id)
    }

    /// The host dies at its end event: the final state is saved, nothing of
    /// it sent. The guest, still running, keeps trying; `parlor resume ID`
    /// of the ended match on the host serves the end, and the guest learns it.
    @Test func aHostKilledAtTheEndServesTheEndOnResume() async throws {
        let table = Table()
        let (host, guest, id) = try await Self.start(table, hostCrash: true, guestCrash: false)
        #expect(await host.wait(timeout: .seconds(90)) == 128 + SIGKILL, Comment(rawValue: host.transcript))
        #expect(await guest.line(containing: "to come back", timeout: .seconds(20)) != nil, Comment(rawValue: guest.transcript))
        #expect(try await table.matches(on: .host).contains("\"state\":\"ended\""))

        let resumed = try SpawnedParlor(["resume", id, "--json", "--grace", "30"], environment: table.environment(.host))
        #expect(await guest.wait(timeout: .seconds(60)) == 0, Comment(rawValue: guest.transcript))
        #expect(await resumed.wait(timeout: .seconds(60)) == 0, Comment(rawValue: resumed.transcript))
        try await Self.expectBothEnded(table, id)
    }

    /// Both die: the host at its end event, then the guest while it waits.
    /// The guest's copy is behind; its `parlor resume` finds the host's
    /// `parlor resume ID`, in either order, and learns the end.
    @Test func aGuestWhoseCopyIsBehindLearnsTheEndWhenBothResume() async throws {
        let table = Table()
        let (host, guest, id) = try await Self.start(table, hostCrash: true, guestCrash: false)
        #expect(await host.wait(timeout: .seconds(90)) == 128 + SIGKILL, Comment(rawValue: host.transcript))
        #expect(await guest.line(containing: "to come back", timeout: .seconds(20)) != nil, Comment(rawValue: guest.transcript))
        guest.send(SIGKILL)
        _ = await guest.wait(timeout: .seconds(10))
        #expect(!(try await table.matches(on: .guest).contains("\"state\":\"ended\"")))

        let guestResume = try SpawnedParlor(["resume", "--json", "--grace", "30"], environment: table.environment(.guest))
        try await Task.sleep(for: .milliseconds(500))
        let hostResume = try SpawnedParlor(["resume", id, "--json", "--grace", "30"], environment: table.environment(.host))
        #expect(await guestResume.wait(timeout: .seconds(60)) == 0, Comment(rawValue: guestResume.transcript))
        #expect(await hostResume.wait(timeout: .seconds(60)) == 0, Comment(rawValue: hostResume.transcript))
        try await Self.expectBothEnded(table, id)
    }

    /// `parlor resume` on the host waits for its guest only as long as
    /// `--grace`, and says so.
    @Test func aResumedHostWaitsForItsGuestOnlyForItsGrace() async throws {
        let table = Table()
        // A person hosts, second: the guest's bot moves and the host's turn waits.
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--seat", "second", "--grace", "60"],
                                     environment: table.environment(.host), keepStdinOpen: true)
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening))
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"], environment: table.environment(.guest))
        let joined = try #require(await guest.line(containing: "\"joined\""), Comment(rawValue: guest.transcript))
        let id = try #require(ResumeEndToEndTests.matchID(from: joined))
        #expect(await host.line(containing: "\"event\":\"turn\",\"seat\":1") != nil, Comment(rawValue: host.transcript))
        guest.send(SIGKILL)
        host.send(SIGKILL)
        _ = await guest.wait(timeout: .seconds(10))
        _ = await host.wait(timeout: .seconds(10))
        let started = ContinuousClock.now
        let resumed = try SpawnedParlor(["resume", id, "--grace", "2"], environment: table.environment(.host))
        let status = await resumed.wait(timeout: .seconds(30))
        #expect(status == 75, Comment(rawValue: resumed.transcript))
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(resumed.output.contains("Waiting up to 2 s"), Comment(rawValue: resumed.transcript))
        #expect(resumed.errors.contains("did not come back within 2 s"), Comment(rawValue: resumed.transcript))
    }
}
