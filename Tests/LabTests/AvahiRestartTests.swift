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

        /// A host started while its avahi-daemon is down (a laptop whose
        /// daemon starts late, a daemon restarting) says it is not listed yet,
        /// keeps trying, and is listed, joinable by name, once the daemon answers.
        @Test func aHostStartedBeforeItsAvahiDaemonIsListedOnceTheDaemonAnswers() async throws {
            try await Lab.with { lab in
                let stop = await Lab.runScript(["avahi-stop", "A"], prefix: lab.prefix, timeout: 30)
                #expect(stop.succeeded, "avahi-stop: \(stop.standardError)")
                let hostData = try DataDirectory()
                let host = try lab.start(
                    host: "A",
                    ParlorCommand.command(["host", "connect4", "--bot", "medium", "--json", "--port", "7491", "--name", "Ana"],
                                          data: hostData))
                try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                let listening = try #require(JSONLines.events("listening", in: host.output()).first)
                #expect(listening["service"] is NSNull, "listening: \(listening)")
                #expect((listening["discovery"] as? String)?.contains("no avahi-daemon is running") == true)

                let start = await Lab.runScript(["avahi-start", "A"], prefix: lab.prefix, timeout: 60)
                #expect(start.succeeded, "avahi-start: \(start.standardError)")
                let started = ContinuousClock.now
                try await host.waitForOutput(containing: "\"event\":\"listed\"", timeout: 45)
                let listed = try #require(JSONLines.events("listed", in: host.output()).first)
                #expect(listed["service"] as? String == ParlorOnTheLAN.gameName)
                print("lab: a host started without its daemon was listed \(ContinuousClock.now - started) after the daemon started")

                let guestData = try DataDirectory()
                let name = ParlorOnTheLAN.gameName
                let browse = ParlorCommand.command
                let seen = try await lab.poll(host: "B", try browse(["browse", "--json", "--timeout", "3"], guestData),
                                              timeout: 20) { !ParlorOnTheLAN.sightings(of: name, in: $0.standardOutput).isEmpty }
                let found = try #require(ParlorOnTheLAN.sightings(of: name, in: seen.standardOutput).first)
                #expect(found["state"] as? String == "open")
                #expect(found["port"] as? Int == 7491)
                let guest = await lab.run(host: "B", try browse(["join", name, "--bot", "easy", "--json"], guestData), timeout: 60)
                #expect(guest.status == 0, "join: \(guest.standardError)")
                #expect(await host.wait(timeout: 30) == 0, "host: \(host.errors())")
            }
        }

        /// The browsing host's own avahi-daemon stops and starts again while
        /// `parlor browse --watch` runs (issue 40: parlor's one avahi-client
        /// connection loses its daemon). The browse says so once, keeps going,
        /// connects again: a game published meanwhile shows up, one that went
        /// meanwhile is reported lost, one that stayed is not.
        @Test func aWatchingBrowseKeepsGoingWhenItsOwnAvahiDaemonRestarts() async throws {
            try await Lab.with { lab in
                var processes: [LabProcess] = []
                defer {
                    for process in processes { process.send(SIGKILL) }
                }
                func publish(_ name: String) throws -> LabProcess {
                    try lab.start(host: "A", [
                        "avahi-publish", "-s", name, "_parlor._tcp", "7477", "pv=1", "game=connect4", "rv=1",
                        "seats=1/2", "state=open", "match=", "code=0", "app=avahi-publish", "host=HostA",
                    ])
                }
                let (stays, goes, comes) = ("Restart Stays", "Restart Goes", "Restart Comes")
                processes.append(try publish(stays))
                let going = try publish(goes)
                processes.append(going)
                let data = try DataDirectory()
                let watch = try lab.start(host: "B", ParlorCommand.command(["browse", "--watch", "--json"], data: data))
                processes.append(watch)
                func events(_ event: String, of name: String) -> [[String: Any]] {
                    JSONLines.events(event, in: watch.output()).filter { $0["name"] as? String == name }
                }
                try await watch.waitForOutput("both games found", timeout: 30) { _ in
                    !events("found", of: stays).isEmpty && !events("found", of: goes).isEmpty
                }

                let stop = await Lab.runScript(["avahi-stop", "B"], prefix: lab.prefix, timeout: 30)
                #expect(stop.succeeded, "avahi-stop: \(stop.standardError)")
                going.send(SIGTERM)
                processes.append(try publish(comes))
                let start = await Lab.runScript(["avahi-start", "B"], prefix: lab.prefix, timeout: 60)
                #expect(start.succeeded, "avahi-start: \(start.standardError)")
                let started = ContinuousClock.now

                try await watch.waitForOutput("the new game found and the gone one lost", timeout: 30) { _ in
                    !events("found", of: comes).isEmpty && !events("lost", of: goes).isEmpty
                }
                print("lab: a watching browse listed a game again \(ContinuousClock.now - started) after its daemon started")
                let refusals = JSONLines.events("refused", in: watch.output())
                #expect(refusals.count == 1, "\(refusals)")
                #expect((refusals.first?["reason"] as? String)?.contains("avahi-daemon went away") == true)
                #expect(events("lost", of: stays).isEmpty, "\(watch.output())")
                #expect(await watch.wait(timeout: 0.5) == nil, "the browse ended: \(watch.errors())")
                withExtendedLifetime(data) {}
            }
        }

        /// A host listed on the LAN whose terminal hangs up mid-match (its SSH
        /// connection drops) leaves for now and exits 129, and its guest hears
        /// it: the listing's own signal watcher, made and let go while the host
        /// waited, once left the match deaf to SIGHUP, Ctrl-C and kill.
        @Test func aListedHostThatHangsUpMidMatchLeavesForNow() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let guestData = try DataDirectory()
                // A person who never types: input held open by sleep; bash execs parlor, so `host` is parlor.
                let parlor = try ParlorCommand.executable()
                let host = try lab.start(host: "A", ["env", "XDG_DATA_HOME=\(hostData.path)", "USER=lab", "bash", "-c",
                                                     "exec \(parlor) host connect4 --json --port 7492 --seat first --grace 60 --name Ana < <(sleep 600)"])
                try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                let listening = try #require(JSONLines.events("listening", in: host.output()).first)
                #expect(listening["service"] as? String == ParlorOnTheLAN.gameName, "the host is not listed: \(host.errors())")
                let guest = try lab.start(host: "B", try ParlorCommand.command(
                    ["join", ParlorOnTheLAN.gameName, "--bot", "easy", "--json", "--grace", "60"], data: guestData))
                try await host.waitForOutput(containing: "\"event\":\"turn\",\"seat\":0,\"sequence\":0", timeout: 30)
                host.send(SIGHUP)
                try await guest.waitForOutput(containing: "leaving, may resume", timeout: 15)
                #expect(await host.wait(timeout: 15) == 129, "host: \(host.output()) \(host.errors())")
                await guest.stop()
            }
        }
    }
}
