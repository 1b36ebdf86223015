import Foundation
import ParlorTestSupport
import Testing
@preconcurrency import Glibc

/// The real `parlor` binary on the lab LAN: host on A, browse and join on B.
extension LabSuite {
    @Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
    struct ParlorOnTheLAN {
        static let gameName = "Ana's Connect Four"

        /// `parlor host connect4` on A with a bot, once it is listening and advertised.
        static func startHost(on lab: Lab, data: DataDirectory, port: Int = 7477) async throws -> LabProcess {
            let host = try lab.start(
                host: "A",
                ParlorCommand.command(
                    ["host", "connect4", "--bot", "medium", "--json", "--port", String(port), "--name", "Ana"],
                    data: data))
            try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
            let listening = try #require(JSONLines.events("listening", in: host.output()).first)
            #expect(listening["service"] as? String == gameName, "host stderr: \(host.errors())")
            return host
        }

        /// The `found` or `updated` objects about `name` in `--json` output.
        static func sightings(of name: String, in output: String) -> [[String: Any]] {
            JSONLines.objects(output).filter {
                ["found", "updated"].contains($0["event"] as? String) && $0["name"] as? String == name
            }
        }

        @Test func browseJSONOnBListsTheGameHostedOnAWithItsTXT() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await Self.startHost(on: lab, data: hostData)
                let guestData = try DataDirectory()
                let browse = try await lab.poll(
                    host: "B", ParlorCommand.command(["browse", "--json", "--timeout", "3"], data: guestData),
                    timeout: 20
                ) { !Self.sightings(of: Self.gameName, in: $0.standardOutput).isEmpty }
                #expect(browse.status == 0)
                // Nothing but JSON objects on stdout.
                let lines = browse.standardOutput.split(separator: "\n")
                #expect(JSONLines.objects(browse.standardOutput).count == lines.count, "stdout: \(browse.standardOutput)")

                // Listed as soon as its name and TXT are known (issue 40); its addresses follow in an update.
                let first = try #require(Self.sightings(of: Self.gameName, in: browse.standardOutput).first)
                #expect(first["event"] as? String == "found")
                let found = try #require(Self.sightings(of: Self.gameName, in: browse.standardOutput).last)
                #expect(found["game"] as? String == "connect4")
                #expect(found["hostPlayer"] as? String == "Ana")
                #expect(found["state"] as? String == "open")
                #expect(found["seatsTaken"] as? Int == 1)
                #expect(found["seatsTotal"] as? Int == 2)
                #expect(found["joinable"] as? Bool == true)
                #expect(found["port"] as? Int == 7477)
                #expect((found["addresses"] as? [String] ?? []).contains(lab.address(of: "A")))
                #expect((found["addresses"] as? [String] ?? []).contains { $0.hasPrefix("fe80:") && $0.hasSuffix("%eth0") })
                let txt = try #require(found["txt"] as? [String: Any])
                #expect(txt["pv"] as? String == "3", "protocol 3: an older parlor lists it as needing an update")
                #expect(txt["game"] as? String == "connect4")
                #expect(txt["rv"] as? String == "1")
                #expect(txt["seats"] as? String == "1/2")
                #expect(txt["state"] as? String == "open")
                #expect(txt["code"] as? String == "0")
                #expect(txt["host"] as? String == "Ana")
                #expect(!(txt["app"] as? String ?? "").isEmpty)

                // The text list says the same, one line per game.
                let text = await lab.run(
                    host: "B", try ParlorCommand.command(["browse", "--timeout", "2"], data: guestData))
                #expect(text.status == 0)
                let row = text.standardOutput.split(separator: "\n").first { $0.hasPrefix(Self.gameName) }
                let listed = String(try #require(row, "browse printed: \(text.standardOutput)"))
                #expect(listed.contains("Connect Four  Ana"))
                #expect(listed.contains("1 of 2 seated"))
                #expect(listed.contains("open"))
                #expect(listed.contains("\(lab.address(of: "A")):7477"))
                host.send(SIGKILL)
            }
        }

        @Test func joinByNameOnBPlaysToTheEndWithTheHostsHash() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await Self.startHost(on: lab, data: hostData)
                let watchData = try DataDirectory()
                let watcher = try lab.start(
                    host: "B", ParlorCommand.command(["browse", "--json", "--watch"], data: watchData))
                try await watcher.waitForOutput("the open game in browse --watch", timeout: 20) {
                    Self.sightings(of: Self.gameName, in: $0).contains { $0["state"] as? String == "open" }
                }

                let guestData = try DataDirectory()
                let started = Date()
                let join = await lab.run(
                    host: "B",
                    try ParlorCommand.command(["join", Self.gameName, "--bot", "medium", "--json"], data: guestData),
                    timeout: 180)
                print("lab: join by name on B played to the end in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
                #expect(join.status == 0, "join stderr: \(join.standardError)")
                let joined = try #require(JSONLines.events("joined", in: join.standardOutput).first)
                #expect(joined["address"] as? String == "\(lab.address(of: "A")):7477")
                let guestEnd = try #require(JSONLines.events("end", in: join.standardOutput).last)
                #expect(await host.wait(timeout: 30) == 0, "host stderr: \(host.errors())")
                let hostEnd = try #require(JSONLines.events("end", in: host.output()).last)
                let guestHash = try #require(guestEnd["hash"] as? String)
                #expect(guestHash == hostEnd["hash"] as? String)
                #expect(guestEnd["moves"] as? Int == hostEnd["moves"] as? Int)
                #expect((guestEnd["moves"] as? Int ?? 0) >= 7)

                // The host withdrew its game when it exited.
                try await watcher.waitForOutput("the game's loss in browse --watch", timeout: 20) { output in
                    JSONLines.events("lost", in: output).contains { $0["name"] as? String == Self.gameName }
                }
                watcher.send(SIGKILL)
            }
        }

        @Test func joinTriesTheNextAddressWhenOneDoesNotAnswerUpToIPv6LinkLocal() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await Self.startHost(on: lab, data: hostData)
                // "Detour Game" resolves to an IPv4 address no one has, then to
                // A's IPv6 link-local address, where the parlor host listens too.
                let linkLocal = await lab.run(host: "A", ["sh", "-c", "ip -6 -o addr show dev eth0 scope link"])
                let a6 = try #require(
                    linkLocal.standardOutput.split(separator: " ").first { $0.hasPrefix("fe80:") }?
                        .split(separator: "/").first.map(String.init), "A has no link-local address: \(linkLocal)")
                let nowhere = try lab.start(host: "A", ["avahi-publish", "-a", "-R", "detour.local", "10.77.0.99"])
                let there = try lab.start(host: "A", ["avahi-publish", "-a", "-R", "detour.local", a6])
                let service = try lab.start(host: "A", [
                    "avahi-publish", "-s", "-H", "detour.local", "Detour Game", "_parlor._tcp", "7477", "pv=1",
                    "game=connect4", "rv=1", "seats=1/2", "state=open", "match=", "code=0", "app=x", "host=Ana",
                ])
                let data = try DataDirectory()
                _ = try await lab.poll(
                    host: "B", ParlorCommand.command(["browse", "--json", "--timeout", "2"], data: data), timeout: 20
                ) {
                    Self.sightings(of: "Detour Game", in: $0.standardOutput).contains {
                        ($0["addresses"] as? [String] ?? []).count == 2
                    }
                }
                let join = await lab.run(
                    host: "B", try ParlorCommand.command(["join", "Detour Game", "--bot", "medium", "--json"], data: data),
                    timeout: 120)
                #expect(join.status == 0, "join stderr: \(join.standardError)")
                let joined = try #require(JSONLines.events("joined", in: join.standardOutput).first)
                #expect(joined["address"] as? String == "[\(a6)%eth0]:7477")
                #expect(await host.wait(timeout: 30) == 0)
                #expect(JSONLines.events("end", in: host.output()).last?["hash"] as? String
                        == JSONLines.events("end", in: join.standardOutput).last?["hash"] as? String)
                for publisher in [nowhere, there, service] { publisher.send(SIGKILL) }
            }
        }

        @Test func theTXTStateGoesFromOpenToPlayingWhenAGuestJoins() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await Self.startHost(on: lab, data: hostData)
                let watchData = try DataDirectory()
                let watcher = try lab.start(
                    host: "B", ParlorCommand.command(["browse", "--json", "--watch"], data: watchData))
                try await watcher.waitForOutput("the open game in browse --watch", timeout: 20) {
                    Self.sightings(of: Self.gameName, in: $0).contains { $0["state"] as? String == "open" }
                }
                // A guest in plain mode whose input stays open: it holds its
                // seat, so the match lasts until the state change has been seen.
                let guestData = try DataDirectory()
                let guest = try lab.start(
                    host: "B",
                    ["sh", "-c", "sleep 30 | \"$@\"", "guest"]
                        + ParlorCommand.command(["join", Self.gameName, "--plain"], data: guestData))
                try await host.waitForOutput(containing: "\"event\":\"joined\"", timeout: 20)
                let joined = Date()
                try await watcher.waitForOutput("state playing in browse --watch", timeout: 20) {
                    Self.sightings(of: Self.gameName, in: $0).contains { $0["state"] as? String == "playing" }
                }
                print("lab: the TXT state reached 'playing' on B \(Int(Date().timeIntervalSince(joined) * 1000)) ms after the guest joined")
                let sightings = Self.sightings(of: Self.gameName, in: watcher.output())
                #expect(sightings.first?["state"] as? String == "open")
                #expect(sightings.first?["joinable"] as? Bool == true)
                let playing = try #require(sightings.first { $0["state"] as? String == "playing" })
                #expect(playing["event"] as? String == "updated")
                #expect(playing["seatsTaken"] as? Int == 2)
                #expect((playing["match"] as? String ?? "").count == 32)
                #expect(playing["joinable"] as? Bool == false)
                #expect(playing["reason"] as? String == "already playing")

                // Another player now finds it, but cannot join it.
                let late = await lab.run(
                    host: "B", try ParlorCommand.command(["join", "ana", "--bot", "easy", "--json"], data: watchData))
                #expect(late.status == 1)
                #expect(late.standardError.contains("\"\(Self.gameName)\" cannot be joined: already playing"))
                guest.send(SIGKILL)
                host.send(SIGKILL)
                watcher.send(SIGKILL)
            }
        }

        @Test func aHostKilledWithSIGKILLDisappearsFromBrowseOnTheOtherHost() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await Self.startHost(on: lab, data: hostData)
                let watchData = try DataDirectory()
                let watcher = try lab.start(
                    host: "B", ParlorCommand.command(["browse", "--json", "--watch"], data: watchData))
                try await watcher.waitForOutput("the game in browse --watch", timeout: 20) {
                    !Self.sightings(of: Self.gameName, in: $0).isEmpty
                }

                let killed = Date()
                host.send(SIGKILL)
                try await watcher.waitForOutput("the killed host's game to be lost", timeout: 30) { output in
                    JSONLines.events("lost", in: output).contains { $0["name"] as? String == Self.gameName }
                }
                let seconds = Date().timeIntervalSince(killed)
                print("lab: a parlor host killed with SIGKILL on A left 'parlor browse --watch' on B after \(Int(seconds * 1000)) ms")
                // avahi-daemon withdraws a dead client's services at once and says goodbye on the LAN.
                #expect(seconds < 10)

                let after = await lab.run(
                    host: "B", try ParlorCommand.command(["browse", "--timeout", "1.5"], data: watchData))
                #expect(after.status == 0)
                #expect(!after.standardOutput.contains(Self.gameName), "still listed: \(after.standardOutput)")
                #expect(after.standardOutput.contains("No games found on the LAN."))
                watcher.send(SIGKILL)
            }
        }

        @Test func browseOnBListsAvahiPublishServicesAndExplainsTheUnjoinableOne() async throws {
            try await Lab.with { lab in
                let ours = try lab.start(host: "A", [
                    "avahi-publish", "-s", "Lab Interop Game", "_parlor._tcp", "40123", "pv=1", "game=connect4", "rv=1",
                    "seats=1/2", "state=open", "match=", "code=0", "app=avahi-publish", "host=Ana",
                ])
                let future = try lab.start(host: "A", [
                    "avahi-publish", "-s", "Future Parlor", "_parlor._tcp", "40124", "pv=99", "game=connect4",
                    "state=open", "host=Zed",
                ])
                let data = try DataDirectory()
                let browse = try await lab.poll(
                    host: "B", ParlorCommand.command(["browse", "--json", "--timeout", "3"], data: data), timeout: 20
                ) {
                    !Self.sightings(of: "Lab Interop Game", in: $0.standardOutput).isEmpty
                        && !Self.sightings(of: "Future Parlor", in: $0.standardOutput).isEmpty
                }
                let interop = try #require(Self.sightings(of: "Lab Interop Game", in: browse.standardOutput).last)
                #expect(interop["joinable"] as? Bool == true)
                #expect(interop["port"] as? Int == 40123)
                #expect(interop["hostTarget"] as? String == "hosta.local.")
                #expect((interop["addresses"] as? [String] ?? []).contains(lab.address(of: "A")))
                #expect(interop["app"] as? String == "avahi-publish")
                let foreign = try #require(Self.sightings(of: "Future Parlor", in: browse.standardOutput).first)
                #expect(foreign["joinable"] as? Bool == false)
                #expect(foreign["game"] as? String == "connect4")
                #expect(foreign["reason"] as? String
                        == "speaks protocol version 99; this parlor speaks 3 (update this parlor to join it)")

                // In the text list the joinable game comes first; the other carries its reason.
                let text = await lab.run(host: "B", try ParlorCommand.command(["browse", "--timeout", "3"], data: data))
                let lines = text.standardOutput.split(separator: "\n").map(String.init)
                let interopLine = try #require(lines.firstIndex { $0.hasPrefix("Lab Interop Game") }, "\(lines)")
                let futureLine = try #require(lines.firstIndex { $0.hasPrefix("Future Parlor") }, "\(lines)")
                #expect(interopLine < futureLine)
                #expect(lines.indices.contains(futureLine + 1)
                        && lines[futureLine + 1].contains("cannot join: speaks protocol version 99"))

                // Joining it by name says why not, without connecting.
                let join = await lab.run(
                    host: "B", try ParlorCommand.command(["join", "future", "--bot", "easy", "--json"], data: data))
                #expect(join.status == 1)
                #expect(join.standardError.contains("\"Future Parlor\" cannot be joined: speaks protocol version 99"))
                ours.send(SIGKILL)
                future.send(SIGKILL)
            }
        }

        @Test func avahiBrowseAndPythonZeroconfOnBSeeParlorsServiceFromA() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await Self.startHost(on: lab, data: hostData)
                let avahi = try await lab.poll(host: "B", ["avahi-browse", "-rpt", "_parlor._tcp"], timeout: 20) {
                    $0.standardOutput.contains("=;eth0;IPv4;Ana\\039s\\032Connect\\032Four;_parlor._tcp;local;hosta.local;")
                }
                let resolved = try #require(avahi.standardOutput.split(separator: "\n").first {
                    $0.hasPrefix("=;eth0;IPv4;Ana\\039s\\032Connect\\032Four;")
                })
                #expect(resolved.contains(";7477;"))
                for pair in ["pv=3", "game=connect4", "rv=1", "seats=1/2", "state=open", "code=0", "host=Ana"] {
                    #expect(resolved.contains("\"\(pair)\""), "\(pair) missing from \(resolved)")
                }

                if LabAvailability.hasPythonZeroconf {
                    let output = try await ZeroconfBrowser.browse(on: "B", in: lab)
                    #expect(output.contains("Ana's Connect Four._parlor._tcp.local."), "zeroconf saw: \(output)")
                    #expect(output.contains("'\(lab.address(of: "A"))'"))
                    #expect(output.contains(" 7477 "))
                    for (key, value) in [("pv", "3"), ("game", "connect4"), ("seats", "1/2"), ("state", "open"), ("host", "Ana")] {
                        #expect(output.contains("('\(key)', '\(value)')"), "\(key)=\(value) missing: \(output)")
                    }
                }
                host.send(SIGKILL)
            }
        }

        @Test func doctorOnALabHostPassesEveryCheck() async throws {
            try await Lab.with { lab in
                let data = try DataDirectory()
                let doctor = await lab.run(host: "B", try ParlorCommand.command(["doctor", "--json"], data: data))
                #expect(doctor.status == 0, "doctor said: \(doctor.standardOutput)\(doctor.standardError)")
                let checks = JSONLines.objects(doctor.standardOutput)
                #expect(checks.compactMap { $0["check"] as? String } == ["library", "daemon", "dbus", "interfaces", "roundtrip", "ports"])
                #expect(checks.allSatisfy { $0["ok"] as? Bool == true })
                func detail(_ id: String) -> String {
                    checks.first { $0["check"] as? String == id }.flatMap { $0["detail"] as? String } ?? ""
                }
                #expect(detail("interfaces").contains("eth0 (\(lab.address(of: "B"))"))
                #expect(detail("roundtrip").contains("found it in"))
                // The lab host's bus, counted by the bus itself: avahi-daemon's connection is not root's.
                #expect(detail("dbus").contains("of 256 in use by root"), "\(detail("dbus"))")
                #expect(detail("dbus").contains("max_connections_per_user"))
                #expect(detail("ports").contains("UDP 5353"))
                #expect(detail("ports").contains("TCP 7477"))
            }
        }

        @Test(.enabled(if: LabAvailability.hasTmux, "tmux is not installed"))
        func theLobbyOnBListsTheGameFromAAndJoinsIt() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await Self.startHost(on: lab, data: hostData)
                let guestData = try DataDirectory()
                try await LabTmux.with(lab: lab) { tmux in
                    try await tmux.start(ParlorCommand.command([], data: guestData))
                    let listed = try await tmux.waitForScreen(timeout: 20) { $0.contains(Self.gameName) }
                    #expect(listed.contains("> 1  \(Self.gameName)"), "screen:\n\(listed)")
                    #expect(listed.contains("h host a game"))
                    // Enter joins the selected game: the match screen appears and the host sees the guest.
                    await tmux.send(["Enter"])
                    let board = try await tmux.waitForScreen(timeout: 20) { $0.contains("(you)") }
                    #expect(board.contains("Lab (you)"), "screen:\n\(board)")
                    try await host.waitForOutput(containing: "\"event\":\"joined\"", timeout: 10)
                    await tmux.send(["q"])
                    await tmux.send(["y"])
                    #expect(await host.wait(timeout: 30) != nil)
                }
            }
        }

        @Test(.enabled(if: LabAvailability.hasTmux, "tmux is not installed"))
        func aNameMatchingSeveralGamesOffersAPickerOnATerminal() async throws {
            try await Lab.with { lab in
                let hostData = try DataDirectory()
                let host = try await Self.startHost(on: lab, data: hostData)
                let other = try lab.start(host: "A", [
                    "avahi-publish", "-s", "Ana's Other Game", "_parlor._tcp", "40125", "pv=1", "game=tictactoe",
                    "rv=1", "seats=1/2", "state=open", "match=", "code=0", "app=avahi-publish", "host=Ana",
                ])
                let guestData = try DataDirectory()
                try await LabTmux.with(lab: lab) { tmux in
                    try await tmux.start(ParlorCommand.command(["join", "ana", "--bot", "medium"], data: guestData))
                    let offered = try await tmux.waitForScreen(timeout: 20) { $0.contains("Join which game?") }
                    #expect(offered.contains("Games you can join:"), "screen:\n\(offered)")
                    let one = try #require(offered.split(separator: "\n").first { $0.hasPrefix("1 ") }, "screen:\n\(offered)")
                    let two = try #require(offered.split(separator: "\n").first { $0.hasPrefix("2 ") }, "screen:\n\(offered)")
                    #expect(one.contains(Self.gameName))
                    #expect(two.contains("Ana's Other Game"))
                    await tmux.send(["7", "Enter"])
                    _ = try await tmux.waitForScreen(timeout: 10) { $0.contains("'7' is not one of the numbers shown") }
                    await tmux.send(["1", "Enter"])
                    // The guest's bot plays the chosen game to the end.
                    #expect(await host.wait(timeout: 60) == 0, "host stderr: \(host.errors())")
                    #expect(!JSONLines.events("end", in: host.output()).isEmpty)
                }
                other.send(SIGKILL)
            }
        }

        @Test func browseWatchIntoAPipePrintsOneLinePerChangeWithoutEscapeCodes() async throws {
            try await Lab.with { lab in
                let data = try DataDirectory()
                let watcher = try lab.start(host: "B", ParlorCommand.command(["browse", "--watch"], data: data))
                let publisher = try lab.start(host: "A", [
                    "avahi-publish", "-s", "Watched Game", "_parlor._tcp", "40126", "pv=1", "game=connect4", "rv=1",
                    "seats=1/2", "state=open", "match=", "code=0", "app=avahi-publish", "host=Ana",
                ])
                // Found with its name, TXT and first address, then updated with the other family's (issue 40).
                try await watcher.waitForOutput(containing: "found: Watched Game | Connect Four | Ana | 1 of 2 seated | open | ", timeout: 20)
                try await watcher.waitForOutput("both addresses", timeout: 20) { output in
                    output.split(separator: "\n").contains { $0.contains("10.77.0.1:40126") && $0.contains("[fe80::") }
                }
                publisher.send(SIGKILL)
                try await watcher.waitForOutput(containing: "lost: Watched Game", timeout: 20)
                #expect(!watcher.output().contains("\u{1B}"))
                watcher.send(SIGKILL)
            }
        }
    }
}

/// DNS-SD where it is missing: the root network namespace of this machine,
/// with a D-Bus address that leads nowhere, so no avahi-daemon can ever answer.
extension LabSuite {
    @Suite(.enabled(if: ParlorBinary.isBuilt, "parlor is not built"))
    struct ParlorWithoutDNSSD {
        /// The environment of a parlor that cannot reach any avahi-daemon.
        static func environment(_ data: DataDirectory) -> [String: String] {
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/parlor-lab-no-bus"
            environment["XDG_DATA_HOME"] = data.path
            environment["USER"] = "lab"
            return environment
        }

        static func run(_ arguments: [String]) async throws -> ProcessResult {
            let data = try DataDirectory()
            return try await ParlorProcess.run(arguments, environment: environment(data), timeout: .seconds(60))
        }

        static func expectTheClearError(_ text: String) {
            #expect(text.contains("no avahi-daemon is running or D-Bus is unreachable"), "stderr: \(text)")
            #expect(text.contains("sudo systemctl start avahi-daemon"))
            #expect(text.contains("'parlor join HOST:PORT'"))
        }

        @Test func browseFailsWith69AndSaysWhatIsMissingAndWhatToDo() async throws {
            let text = try await Self.run(["browse"])
            #expect(text.status == 69)
            #expect(text.stdout == "")
            Self.expectTheClearError(text.stderr)
            let json = try await Self.run(["browse", "--json", "--watch"])
            #expect(json.status == 69)
            #expect(json.stdout == "")
            Self.expectTheClearError(json.stderr)
        }

        @Test func joinByNameFailsWith69AndSaysHowToJoinByAddress() async throws {
            let result = try await Self.run(["join", "Some Game", "--bot", "medium", "--json"])
            #expect(result.status == 69)
            #expect(result.stdout == "")
            #expect(result.stderr.contains("cannot look up \"Some Game\" on the LAN"))
            Self.expectTheClearError(result.stderr)
        }

        @Test func joinWithoutATargetOrATerminalIsAUsageError() async throws {
            let result = try await Self.run(["join"])
            #expect(result.status == 64)
            #expect(result.stderr.contains("missing argument TARGET"))
        }

        @Test func doctorFailsWith69AndNamesTheFix() async throws {
            let result = try await Self.run(["doctor"])
            #expect(result.status == 69)
            #expect(result.stdout.contains("ok    DNS-SD library"))
            #expect(result.stdout.contains("FAIL  avahi-daemon"))
            #expect(result.stdout.contains("sudo systemctl start"))
            #expect(result.stdout.contains("UDP 5353"))
            #expect(result.stdout.contains("parlor join ADDRESS:PORT"))
        }

        @Test(.enabled(if: LabAvailability.hasTmux, "tmux is not installed"))
        func theLobbyWithoutDNSSDSaysWhyAndStillOffersHostingAndOfflinePlay() async throws {
            let data = try DataDirectory()
            // In this namespace nothing else would stop the tmux server: it is killed on every path.
            try await LabTmux.with(lab: nil) { tmux in
                try await tmux.start(
                    [try ParlorCommand.executable()],
                    environment: ["DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/parlor-lab-no-bus",
                                  "XDG_DATA_HOME=\(data.path)", "USER=lab"])
                let screen = try await tmux.waitForScreen(timeout: 20) { $0.contains("DNS-SD is not available") }
                #expect(screen.contains("parlor join HOST:PORT"), "screen:\n\(screen)")
                #expect(screen.contains("p play a bot offline"))
                await tmux.send(["p"])
                let games = try await tmux.waitForScreen(timeout: 10) { $0.contains("play a bot offline. Which game?") }
                #expect(games.contains("1  Connect Four (connect4)"))
                await tmux.send(["Escape"])
                _ = try await tmux.waitForScreen(timeout: 10) { $0.contains("parlor: games on the LAN") }
                await tmux.send(["q"])
                // The lobby leaves the terminal as it found it: its text is gone with the alternate screen.
                let after = try await tmux.waitForScreen(timeout: 10) { !$0.contains("parlor: games on the LAN") }
                #expect(!after.contains("DNS-SD is not available"))
            }
        }

        @Test func hostStillHostsSaysWhyItIsNotAdvertisedAndIsJoinableByAddress() async throws {
            let hostData = try DataDirectory()
            let host = try LabProcess(
                executable: URL(fileURLWithPath: try ParlorCommand.executable()),
                arguments: ["host", "connect4", "--bot", "medium", "--plain", "--port", "0", "--name", "Ana"],
                environment: Self.environment(hostData))
            try await host.waitForOutput(containing: "Waiting for a player", timeout: 20)
            let output = host.output()
            #expect(output.contains("Players can join with:"))
            let line = try #require(output.split(separator: "\n").first { $0.contains("parlor join localhost:") })
            let port = try #require(line.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) })
            #expect(host.errors().contains("not advertised on the LAN"))
            Self.expectTheClearError(host.errors())

            let guest = try await Self.run(["join", "localhost:\(port)", "--bot", "medium", "--json"])
            #expect(guest.status == 0, "guest stderr: \(guest.stderr)")
            #expect(!JSONLines.events("end", in: guest.stdout).isEmpty)
            #expect(await host.wait(timeout: 30) == 0, "host stderr: \(host.errors())")
        }
    }
}

extension ParlorBinary {
    /// Whether the parlor executable exists.
    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: url.path) }
}

/// python-zeroconf (Debian's, for /usr/bin/python3): a separate mDNS implementation that no one here wrote.
enum ZeroconfBrowser {
    static let script = """
        import sys, time
        from zeroconf import Zeroconf, ServiceBrowser, ServiceListener
        found = {}
        class Listener(ServiceListener):
            def add_service(self, zc, type_, name):
                info = zc.get_service_info(type_, name, timeout=3000)
                if info: found[name] = info
            def update_service(self, zc, type_, name): self.add_service(zc, type_, name)
            def remove_service(self, zc, type_, name): pass
        zc = Zeroconf(interfaces=[sys.argv[1]])
        try:
            ServiceBrowser(zc, "_parlor._tcp.local.", Listener())
            deadline = time.time() + 10
            while time.time() < deadline and not found: time.sleep(0.1)
        finally:
            zc.close()
        for name, info in found.items():
            props = sorted((k.decode(), v.decode() if v is not None else None) for k, v in info.properties.items())
            print(name, info.parsed_addresses(), info.port, props)
        """

    /// Browses `_parlor._tcp` from `host` for up to 10 s; prints one line per service found.
    static func browse(on host: String, in lab: Lab) async throws -> String {
        let result = await lab.run(
            host: host, ["/usr/bin/python3", "-", lab.address(of: host)], input: script, timeout: 30)
        #expect(result.succeeded, "python3 failed: \(result.standardError)")
        return result.standardOutput
    }
}

/// tmux inside a lab host (or, with no lab, in this namespace), for the lobby, the
/// join picker and SSH logins: a real terminal the test can type into, read and resize.
struct LabTmux {
    let lab: Lab?
    let host: String
    let socket = "lab-tty-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    private init(lab: Lab?, host: String) {
        self.lab = lab
        self.host = host
    }

    private func run(_ arguments: [String]) async -> LabResult {
        if let lab { return await lab.run(host: host, arguments, timeout: 15) }
        do {
            let process = try LabProcess(
                executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments,
                environment: ProcessInfo.processInfo.environment)
            let status = await process.wait(timeout: 15)
            if status == nil { await process.stop() }
            return LabResult(status: status, standardOutput: process.output(), standardError: process.errors())
        } catch {
            return LabResult(status: nil, standardOutput: "", standardError: "\(error)")
        }
    }

    /// Starts `command` in a detached session of `columns` x `rows`, with TERM and LANG as a desktop terminal has them.
    /// With `keepingPane`, the pane stays after the program exits, for its last screen and exit status: the
    /// command then runs under `sh`, which prints "[exited N]" when it ends (tmux 3.3 does not always reap a
    /// pane's process when the machine is busy, so its own `pane_dead_status` may never come).
    func start(_ command: [String], environment: [String] = [], columns: Int = 100, rows: Int = 30,
               keepingPane: Bool = false) async throws {
        // The tmux server lives on: close every inherited descriptor first, or
        // Foundation's Process (which waits for one it passed down) would wait for it.
        // No signal stays blocked either, or the program under test could not be stopped.
        let closeAndExec = #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done; exec "$@""#
        // Same command queue, so the pane is kept even if the program exits at once.
        let options = keepingPane ? [";", "set-option", "-w", "-t", "tty", "remain-on-exit", "on",
                                     ";", "set-option", "-w", "-t", "tty", "window-size", "manual"] : []
        let program = keepingPane ? ["sh", "-c", #""$@"; echo "[exited $?]""#, "sh"] + command : command
        let result = await run(
            ["bash", "-c", closeAndExec, "tty", "tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s",
             "tty", "-x", String(columns), "-y", String(rows), "env", "TERM=xterm-256color", "LANG=C.UTF-8"]
                + environment + program + options)
        guard result.succeeded else {
            throw LabError.scriptFailed(arguments: ["tmux new-session"], result: result)
        }
    }

    /// As a person resizing their terminal window: the pty's size changes (over SSH, sshd passes it on).
    func resize(columns: Int, rows: Int) async {
        _ = await run(["tmux", "-L", socket, "resize-window", "-t", "tty", "-x", String(columns), "-y", String(rows)])
    }

    private func display(_ format: String) async -> String {
        await run(["tmux", "-L", socket, "display-message", "-p", "-t", "tty", format]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pid of the command (`env` execs it; with `keepingPane`, it is the child of the pane's `sh`).
    func commandPID() async -> pid_t? {
        guard let pane = pid_t(await display("#{pane_pid}")) else { return nil }
        let children = (try? String(contentsOfFile: "/proc/\(pane)/task/\(pane)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) } ?? pane
    }

    /// The command's exit status (128 + the signal if one killed it) once it has exited (needs
    /// `keepingPane`); nil after `timeout` seconds.
    func waitForExit(timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let screen = await screen()
            if let marker = screen.range(of: "[exited ", options: .backwards) {
                return Int32(screen[marker.upperBound...].prefix { $0.isNumber })
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return nil
    }

    func screen() async -> String {
        await run(["tmux", "-L", socket, "capture-pane", "-p", "-t", "tty"]).standardOutput
    }

    func send(_ keys: [String]) async {
        _ = await run(["tmux", "-L", socket, "send-keys", "-t", "tty"] + keys)
    }

    func waitForScreen(timeout: Double, until accept: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = await screen()
            if accept(last) { return last }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw LabError.timedOut(what: "the terminal screen", seconds: timeout, output: last)
    }

    func kill() async {
        _ = await run(["tmux", "-L", socket, "kill-server"])
    }

    /// Runs `body` with a tmux server of its own and kills that server (and the program in it) on every path.
    static func with<T: Sendable>(lab: Lab?, host: String = "B", _ body: (LabTmux) async throws -> T) async throws -> T {
        let tmux = LabTmux(lab: lab, host: host)
        do {
            let value = try await body(tmux)
            await tmux.kill()
            return value
        } catch {
            await tmux.kill()
            throw error
        }
    }
}
