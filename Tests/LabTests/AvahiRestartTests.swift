import Foundation
import Testing

extension LabSuite {
    /// avahi-daemon restarts (a package upgrade does that) while `parlor host`
    /// waits for a guest: the game must come back in browsers on the LAN and
    /// stay joinable, not vanish for good while the host keeps waiting.
    @Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
    struct AvahiRestart {
        @Test func aWaitingHostIsAdvertisedAgainAfterItsAvahiDaemonRestarts() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await ParlorOnTheLAN.startHost(on: lab, data: hostData, port: 7490)
                let guestData = try DataDirectory()
                let browse = ParlorCommand.command
                let name = ParlorOnTheLAN.gameName
                _ = try await lab.poll(host: "B", try browse(["browse", "--json", "--timeout", "3"], guestData),
                                       timeout: 20) { !ParlorOnTheLAN.sightings(of: name, in: $0.standardOutput).isEmpty }

                let restart = await Lab.runScript(["avahi-restart", "A"], prefix: lab.prefix, timeout: 60)
                #expect(restart.succeeded, "avahi-restart: \(restart.standardError)")
                let restarted = ContinuousClock.now
                let again = try await lab.poll(host: "B", try browse(["browse", "--json", "--timeout", "3"], guestData),
                                               timeout: 30) { !ParlorOnTheLAN.sightings(of: name, in: $0.standardOutput).isEmpty }
                print("lab: a host was advertised again \(ContinuousClock.now - restarted) after avahi-daemon restarted")
                let found = try #require(ParlorOnTheLAN.sightings(of: name, in: again.standardOutput).first)
                #expect(found["state"] as? String == "open")
                #expect(found["port"] as? Int == 7490)

                // Still joinable by name through the new daemon, and played to the end.
                let guest = await lab.run(host: "B", try browse(["join", name, "--bot", "easy", "--json"], guestData),
                                          timeout: 60)
                #expect(guest.status == 0, "join: \(guest.standardError)")
                #expect(await host.wait(timeout: 30) == 0, "host: \(host.errors())")
                let hostEnd = JSONLines.events("end", in: host.output()).last?["hash"] as? String
                let guestEnd = JSONLines.events("end", in: guest.standardOutput).last?["hash"] as? String
                #expect(hostEnd != nil && hostEnd == guestEnd)
            }
        }
    }
}
