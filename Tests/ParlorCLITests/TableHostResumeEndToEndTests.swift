import Foundation
import ParlorTestSupport
import Testing

/// Issue 12 item 4 over loopback with real processes: the host of a table is
/// killed with SIGKILL and `parlor resume` on the host brings the table back;
/// each guest, still running, comes back to its own seat by itself.
@Suite("A table's host resumed (real processes)", .serialized)
struct TableHostResumeEndToEndTests {
    @Test("a three-seat table's host killed with SIGKILL: resume on the host listens on the same port, both guests come back in any order, every side ends with one hash")
    func hostKilledAndResumed() async throws {
        let hostHome = LANTableEndToEndTests.environment()
        let host = try SpawnedParlor(["host", "dots-and-boxes", "--seats", "3", "--bot", "easy", "--grace", "60", "--json", "--port", "0",
                                      "--name", "Hana", "--seat", "first"], environment: hostHome)
        let port = try await LANTableEndToEndTests.port(host)
        var guests: [SpawnedParlor] = []
        for _ in 0..<2 {
            let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--grace", "60"],
                                          environment: LANTableEndToEndTests.environment())
            _ = try #require(await guest.line(containing: "\"table\"", timeout: .seconds(20)), Comment(rawValue: guest.transcript))
            guests.append(guest)
        }
        // A few moves in (each saved on the host before anyone saw it), the host dies.
        var moved = false
        for _ in 0..<200 where !moved {
            moved = jsonEvents(host.output).filter { $0["event"] as? String == "move" }.count >= 4
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(moved, Comment(rawValue: host.transcript))
        host.send(SIGKILL)
        _ = await host.wait(timeout: .seconds(10))
        #expect(!jsonEvents(host.output).contains { $0["event"] as? String == "end" }, "killed mid-match: \(host.transcript)")
        let killedAt = jsonEvents(host.output).filter { $0["event"] as? String == "move" }.count

        let resumed = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "60"], environment: hostHome)
        let listening = try #require(await resumed.line(containing: "\"listening\"", timeout: .seconds(20)), Comment(rawValue: resumed.transcript))
        #expect(jsonEvents(listening).first?["port"] as? Int == port, "the saved port: \(listening)")
        for process in [resumed] + guests {
            let status = await process.wait(timeout: .seconds(120))
            #expect(status == 0, Comment(rawValue: process.transcript))
        }
        let joined = jsonEvents(resumed.output).filter { $0["event"] as? String == "joined" }
        #expect(Set(joined.compactMap { $0["seat"] as? Int }) == [1, 2], "both guests back: \(joined)")
        let end = try LANTableEndToEndTests.end(resumed)
        #expect(end["moves"] as? Int == 40)
        #expect(jsonEvents(resumed.output).filter { $0["event"] as? String == "move" }.count > 0 && killedAt < 40,
                "the resumed host played the rest (killed after \(killedAt) moves)")
        for guest in guests { #expect(try LANTableEndToEndTests.end(guest)["hash"] as? String == end["hash"] as? String) }
    }
}
