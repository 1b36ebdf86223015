import Foundation
import ParlorTestSupport
import Testing
@preconcurrency import Glibc

extension LabSuite {
    /// `parlor watch NAME` on the lab LAN: a spectator on C finds the game hosted
    /// on A by its advertised name and watches it to the end while B plays.
    @Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
    struct SpectatorOnTheLAN {
        static let gameName = "Ana's Connect Four"

        @Test func aSpectatorOnCWatchesByNameAndEndsWithTheHostsHash() async throws {
            try await Lab.with(hosts: 3) { lab in
                let host = try lab.start(
                    host: "A",
                    ParlorCommand.command(["host", "connect4", "--bot", "medium", "--json", "--port", "7477", "--name", "Ana"],
                                          data: try DataDirectory()))
                try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                let watcher = try lab.start(host: "C", ParlorCommand.command(["watch", Self.gameName, "--json"], data: try DataDirectory()))
                try await watcher.waitForOutput(containing: "\"event\":\"watching\"", timeout: 30)
                // The advertisement counts the spectator: browse on B sees "1/16".
                let browsing = try lab.start(host: "B", ParlorCommand.command(["browse", "--json", "--watch"], data: try DataDirectory()))
                try await browsing.waitForOutput("the spectator counted in the TXT record", timeout: 20) { output in
                    JSONLines.objects(output).contains { $0["name"] as? String == Self.gameName && $0["spectatorsWatching"] as? Int == 1 }
                }
                browsing.send(SIGKILL)
                let join = await lab.run(
                    host: "B", try ParlorCommand.command(["join", Self.gameName, "--bot", "medium", "--json"], data: try DataDirectory()),
                    timeout: 180)
                #expect(join.status == 0, "join stderr: \(join.standardError)")
                #expect(await host.wait(timeout: 30) == 0, "host stderr: \(host.errors())")
                #expect(await watcher.wait(timeout: 30) == 0, "watch stderr: \(watcher.errors())")
                let hostEnd = try #require(JSONLines.events("end", in: host.output()).last)
                let watchEnd = try #require(JSONLines.events("end", in: watcher.output()).last, "watch output: \(watcher.output())")
                #expect(watchEnd["hash"] as? String == hostEnd["hash"] as? String)
                #expect(watchEnd["moves"] as? Int == hostEnd["moves"] as? Int)
                let watching = try #require(JSONLines.events("watching", in: watcher.output()).first)
                #expect(watching["address"] as? String == "\(lab.address(of: "A")):7477")
            }
        }
    }
}
