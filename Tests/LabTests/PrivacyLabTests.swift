import Foundation
import ParlorTestSupport
import Testing
@preconcurrency import Glibc

extension LabSuite {
    /// Issue 38, item 8: what a listener on the LAN sees of a whole match, a
    /// host killed mid-match and the match resumed, joined by name through real
    /// avahi-daemons: a packet socket on host A's eth0 (scripts/lab-capture)
    /// records every TCP payload of the game's port, and none of it is a name,
    /// the game, a match blob or a clear parlor frame.
    @Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
    struct PrivacyOnTheLAN {
        static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
            let needle = Array(needle.utf8)
            guard !needle.isEmpty, needle.count <= haystack.count else { return false }
            for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
                if Array(haystack[start..<(start + needle.count)]) == needle { return true }
            }
            return false
        }

        @Test func aCapturedMatchWithAResumeShowsNothingInClear() async throws {
            try await Lab.with(hosts: 2) { lab in
                let capturePath = NSTemporaryDirectory() + "parlor-capture-\(getpid())-\(UUID().uuidString)"
                defer { try? FileManager.default.removeItem(atPath: capturePath) }
                let script = ParlorBinary.packageRoot.appendingPathComponent("scripts/lab-capture").path
                let capture = try lab.start(host: "A", [script, capturePath, "7477", "240"])
                try await capture.waitForOutput(containing: "capturing", timeout: 10)

                let hostData = try DataDirectory()
                let host = try lab.start(host: "A", ParlorCommand.command(
                    ["host", "connect4", "--bot", "medium", "--json", "--port", "7477", "--name", "Zanzibarina", "--grace", "90"], data: hostData))
                try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                let guest = try lab.start(host: "B", ParlorCommand.command(
                    ["join", "Zanzibarina's Connect Four", "--bot", "medium", "--json", "--name", "Quixotical", "--grace", "90"],
                    data: try DataDirectory()))
                try await host.waitForOutput(containing: "\"event\":\"move\"", timeout: 60)
                // The host dies mid-match; parlor resume brings it back and the guest finds it again.
                host.send(SIGKILL)
                _ = await host.wait(timeout: 10)
                let resumed = try lab.start(host: "A", ParlorCommand.command(["resume", "--bot", "medium", "--json", "--grace", "90"],
                                                                               data: hostData))
                #expect(await guest.wait(timeout: 180) == 0, "join stderr: \(guest.errors())")
                #expect(await resumed.wait(timeout: 30) == 0, "resume stderr: \(resumed.errors())")
                #expect(JSONLines.events("joined", in: resumed.output()).contains { $0["resumed"] as? Bool == true },
                        "the guest came back: \(resumed.output())")
                capture.send(SIGTERM)
                _ = await capture.wait(timeout: 10)

                let wire = [UInt8](FileManager.default.contents(atPath: capturePath) ?? Data())
                #expect(wire.count > 2_000, "the capture saw the match: \(wire.count) bytes")
                #expect(Self.contains(wire, "PN"), "protocol 3 records crossed the wire")
                for secret in ["Zanzibarina", "Quixotical", "connect4", "PMB"] {
                    #expect(!Self.contains(wire, secret), "\(secret) crossed the LAN in clear")
                }
                #expect(!Self.contains(wire, "PL\u{01}") && !Self.contains(wire, "PL\u{02}"), "a clear parlor frame crossed the LAN")
            }
        }
    }
}
