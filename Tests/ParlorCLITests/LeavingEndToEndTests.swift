@preconcurrency import Glibc
import Foundation
import ParlorTestSupport
import Testing

/// Issue 15, "leaving is never losing by accident", with real processes.
@Suite("Leaving without losing (real processes)")
struct LeavingEndToEndTests {
    @Test("join with nothing on stdin refuses before taking a seat; the seat stays free for the next guest")
    func joinWithNoInputTakesNoSeat() async throws {
        let port = freePort()
        async let host = ParlorProcess.run(["host", "connect4", "--bot", "easy", "--json", "--port", "\(port)", "--name", "Ana"],
                                           environment: scratchDataHome(), timeout: .seconds(90))
        try await Task.sleep(for: .milliseconds(800))
        let empty = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--name", "Bo"], environment: scratchDataHome(),
                                                timeout: .seconds(20))
        #expect(empty.status == 64, "\(empty.stdout)\(empty.stderr)")
        #expect(empty.stderr.contains("no seat was taken"), "\(empty.stderr)")
        #expect(!empty.stdout.contains("Joined"), "\(empty.stdout)")
        // The seat is still free: a second guest takes it and the match is played out.
        let guest = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--name", "Cy"],
                                                environment: scratchDataHome(), timeout: .seconds(60))
        #expect(guest.status == 0, "\(guest.stderr)")
        let hostResult = try await host
        let joins = jsonEvents(hostResult.stdout).filter { $0["event"] as? String == "joined" }
        #expect(joins.count == 1, "\(hostResult.stdout)")
        // --name is kept with --bot, as on host.
        #expect(joins.first?["name"] as? String == "Cy", "\(hostResult.stdout)")
        #expect(jsonEvents(hostResult.stdout).last?["event"] as? String == "end", "\(hostResult.stdout)")
    }
}
