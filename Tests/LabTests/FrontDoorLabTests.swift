import Foundation
import ParlorTestSupport
import Testing

/// The library's front door (ParlorKit) through real avahi-daemons: a program
/// of its own (`Tools/parlorkit-lan`) hosts on A, and another on B finds the
/// game by its listed name and plays it to the same end.
extension LabSuite {
    @Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
    struct FrontDoorOnTheLAN {
        /// `parlorkit-lan`, built beside `parlor`.
        static func executable() throws -> String {
            let path = ParlorBinary.url.deletingLastPathComponent().appendingPathComponent("parlorkit-lan").path
            guard FileManager.default.isExecutableFile(atPath: path) else { throw ParlorProcessError.executableMissing(path) }
            return path
        }

        @Test func aGameHostedThroughTheFrontDoorIsJoinedByItsListedName() async throws {
            try await Lab.with { lab in
                let host = try lab.start(host: "A", [try Self.executable(), "host", "Ana"])
                try await host.waitForOutput(containing: "listed ", timeout: 20)
                #expect(host.output().contains("listed Ana's Tic-tac-toe"), "host: \(host.output()) \(host.errors())")
                let guest = try await lab.run(host: "B", [try Self.executable(), "join", "Ana's Tic-tac-toe"], timeout: 60)
                #expect(guest.status == 0, "guest: \(guest.standardOutput) \(guest.standardError)")
                let status = await host.wait(timeout: 20)
                #expect(status == 0, "host: \(host.output()) \(host.errors())")
                let hashes = [host.output(), guest.standardOutput].map { text in
                    text.split(separator: "\n").first { $0.hasPrefix("hash ") }.map(String.init)
                }
                #expect(hashes[0] != nil && hashes[0] == hashes[1], "the same end on both sides: \(hashes)")
            }
        }
    }
}
