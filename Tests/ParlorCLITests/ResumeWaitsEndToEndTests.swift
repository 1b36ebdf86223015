import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Testing

/// Issue 17 item 18 with real processes: every wait of `parlor resume` is
/// bounded by --grace, and what it prints is true: a host stopped past its
/// grace does not call a guest that gave up meanwhile "back", and a guest
/// whose saved address is answered by another parlor is told so (not that
/// it offered the wrong game).
@Suite(.serialized) struct ResumeWaitsEndToEndTests {
    typealias Table = ResumeEndToEndTests.Table

    /// A match interrupted on both sides: the host is killed before its third
    /// send, the guest gives up after a 1 s grace. Returns the host's port and the match id.
    static func interruptedMatch(_ table: Table) async throws -> (port: String, id: String) {
        let host = try SpawnedParlor(ResumeEndToEndTests.hostArguments,
                                     environment: table.environment(.host, ["PARLOR_TEST_CRASH_AT": "before-send:3"]))
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening))
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--grace", "1"],
                                      environment: table.environment(.guest))
        let joined = try #require(await guest.line(containing: "\"joined\""), Comment(rawValue: guest.transcript))
        let id = try #require(ResumeEndToEndTests.matchID(from: joined))
        #expect(await host.wait(timeout: .seconds(60)) == 128 + SIGKILL, Comment(rawValue: host.transcript))
        #expect(await guest.wait(timeout: .seconds(60)) == 75, Comment(rawValue: guest.transcript))
        return (port, id)
    }

    /// `parlor resume --grace hostGrace` on the host, stopped (SIGSTOP) while
    /// the guest's `parlor resume --grace 3` tries and gives up (exit 75,
    /// within its grace), continued (SIGCONT) 1 s later. Returns the host.
    static func hostStoppedWhileItsGuestGivesUp(_ table: Table, hostGrace: Int) async throws -> SpawnedParlor {
        let host = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "\(hostGrace)"], environment: table.environment(.host))
        #expect(await host.line(containing: "\"listening\"") != nil, Comment(rawValue: host.transcript))
        host.send(SIGSTOP)
        let began = ContinuousClock.now
        let guest = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "3"], environment: table.environment(.guest))
        #expect(await guest.wait(timeout: .seconds(30)) == 75, Comment(rawValue: guest.transcript))
        #expect(ContinuousClock.now - began < .seconds(10), "the guest's wait was not bounded by its grace")
        try await Task.sleep(for: .seconds(1))
        host.send(SIGCONT)
        return host
    }

    /// `parlor resume --grace 3` on the host with nobody coming back gives up after about 3 s.
    @Test func aResumedHostWaitsOnlyItsGraceForTheGuest() async throws {
        let table = Table()
        _ = try await Self.interruptedMatch(table)
        let began = ContinuousClock.now
        let host = try SpawnedParlor(["resume", "--bot", "easy", "--grace", "3"], environment: table.environment(.host))
        #expect(await host.wait(timeout: .seconds(30)) == 75, Comment(rawValue: host.transcript))
        let waited = ContinuousClock.now - began
        #expect(waited >= .seconds(3) && waited < .seconds(15), "waited \(waited)")
        #expect(host.output.contains("Waiting up to 3 s"), Comment(rawValue: host.transcript))
        #expect(host.errors.contains("did not come back within 3 s"), Comment(rawValue: host.transcript))
    }

    /// The resumed host is stopped while its guest resumes, and stays stopped
    /// past both graces; the guest gives up. After SIGCONT the host must not
    /// say the guest is back (it is gone), only that it did not come back, and
    /// both copies stay interrupted, so the next pair of resumes finishes the match.
    @Test func aResumedHostStoppedPastItsGraceNeverCallsTheDepartedGuestBack() async throws {
        let table = Table()
        let (_, id) = try await Self.interruptedMatch(table)
        let host = try await Self.hostStoppedWhileItsGuestGivesUp(table, hostGrace: 3)
        #expect(await host.wait(timeout: .seconds(30)) == 75, Comment(rawValue: host.transcript))
        #expect(!host.output.contains("\"joined\""), Comment(rawValue: host.transcript))
        #expect(!host.output.contains("is back"), Comment(rawValue: host.transcript))
        #expect(host.errors.contains("did not come back within 3 s"), Comment(rawValue: host.transcript))
        for side in [ResumeEndToEndTests.Side.host, .guest] {
            let listed = try await table.matches(on: side)
            #expect(listed.contains("\"state\":\"interrupted\""), Comment(rawValue: "\(side): \(listed)"))
        }

        // Nothing was lost: resumed again, the match finishes on both sides.
        let again = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "60"], environment: table.environment(.host))
        #expect(await again.line(containing: "\"listening\"") != nil, Comment(rawValue: again.transcript))
        let back = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "60"], environment: table.environment(.guest))
        #expect(await back.wait(timeout: .seconds(90)) == 0, Comment(rawValue: back.transcript))
        #expect(await again.wait(timeout: .seconds(30)) == 0, Comment(rawValue: again.transcript))
        try await EndOfMatchEndToEndTests.expectBothEnded(table, id)
    }

    /// Within the host's grace this time: the resumed host (--grace 30) is
    /// stopped while its guest resumes with --grace 3 and gives up. After
    /// SIGCONT the host reads that guest's HELLO and its close together; it
    /// must not take it back (no "is back", no match that then waits for a
    /// guest who is gone), and it keeps waiting, so the guest's next resume
    /// is taken back and the match finishes.
    @Test func aGuestThatGaveUpWhileTheResumedHostWasStoppedIsNotCalledBack() async throws {
        let table = Table()
        let (_, id) = try await Self.interruptedMatch(table)
        let host = try await Self.hostStoppedWhileItsGuestGivesUp(table, hostGrace: 30)
        try await Task.sleep(for: .seconds(2))
        #expect(!host.output.contains("\"joined\""), "the host took back a guest that had given up:\n\(host.transcript)")

        let back = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "60"], environment: table.environment(.guest))
        #expect(await back.wait(timeout: .seconds(90)) == 0, Comment(rawValue: back.transcript))
        #expect(await host.wait(timeout: .seconds(30)) == 0, Comment(rawValue: host.transcript))
        #expect(host.output.components(separatedBy: "\"joined\"").count == 2, Comment(rawValue: host.transcript))
        #expect(!host.output.contains("did not come back"), Comment(rawValue: host.transcript))
        try await EndOfMatchEndToEndTests.expectBothEnded(table, id)
    }

    /// Another parlor (hosting tic-tac-toe) took the port the guest saved.
    /// The guest's `parlor resume` says that whoever answers there is not
    /// this match's host (protocol 3: its key is not the one the match was
    /// played with, so the guest refuses it before its seat token leaves),
    /// and its copy is kept as it was.
    @Test func aResumingGuestWhosePortWasTakenIsToldAnotherParlorAnswers() async throws {
        let table = Table()
        let (port, id) = try await Self.interruptedMatch(table)
        let squatter = try SpawnedParlor(["host", "tictactoe", "--bot", "easy", "--json", "--port", port],
                                         environment: ["XDG_DATA_HOME": temporaryDataHome()])
        defer { squatter.send(SIGKILL) }
        #expect(await squatter.line(containing: "\"listening\"") != nil, Comment(rawValue: squatter.transcript))
        let guest = try SpawnedParlor(["resume", "--json", "--grace", "10"], environment: table.environment(.guest))
        let status = await guest.wait(timeout: .seconds(30))
        #expect(status != nil && status != 0, Comment(rawValue: guest.transcript))
        #expect(guest.errors.contains("could not resume match \(id.prefix(8))"), Comment(rawValue: guest.transcript))
        #expect(guest.errors.contains("this is not the Player this match was played with"), Comment(rawValue: guest.transcript))
        #expect(!guest.errors.contains("the host refused"), Comment(rawValue: guest.transcript))
        #expect(try await table.matches(on: .guest).contains("\"state\":\"interrupted\""))
    }
}
