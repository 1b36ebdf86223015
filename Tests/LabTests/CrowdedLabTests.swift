import Foundation
@preconcurrency import Glibc
import Testing

extension LabSuite {
    /// Issue 40: a LAN party of a hundred hosts, each with its own
    /// avahi-daemon and one game. `parlor browse` on another host lists every
    /// one of them, and `parlor join` reaches games by exact name and by a
    /// unique prefix. Ninety-six games are `avahi-publish` services with
    /// parlor's TXT record (a debug parlor per host would take minutes to
    /// start on two cores); four are real `parlor host` processes to join.
    @Suite(.enabled(if: LabAvailability.isAvailable && Lab.builtProduct("parlor") != nil,
                    "needs the lab (root, namespaces, avahi) and a built parlor"))
    struct CrowdedLabTests {
        static let hosts = 101   // host 101 browses and joins; hosts 1 to 100 each offer one game
        static let players = [7, 33, 64, 98]   // the hosts that run a real parlor host

        static func gameName(_ index: Int) -> String { String(format: "Host%03d's Connect Four", index) }

        /// Eighteen games, each with its resolvers open on parlor's one avahi
        /// connection: a seat taken at a table must show in a watching browse
        /// (the table's resolver reports its new TXT record).
        @Test func aSeatTakenAtATableShowsInAWatchingBrowseOfEighteenGames() async throws {
            let hosts = 20   // 1 to 17 publish, 18 hosts a three-seat table, 19 joins it, 20 watches
            try await Lab.with(hosts: hosts) { lab in
                var processes: [LabProcess] = []
                defer {
                    for process in processes { process.send(SIGKILL) }
                }
                let homes = (table: try DataDirectory(), watch: try DataDirectory(), guest: try DataDirectory())
                for index in 1...17 {
                    processes.append(try lab.start(host: Lab.hostName(index), [
                        "avahi-publish", "-s", Self.gameName(index), "_parlor._tcp", "7477", "pv=1", "game=connect4",
                        "rv=1", "seats=1/2", "state=open", "match=", "code=0", "app=avahi-publish",
                        String(format: "host=Host%03d", index),
                    ]))
                }
                let table = try lab.start(host: Lab.hostName(18), ParlorCommand.command([
                    "host", "dots-and-boxes", "--seats", "3", "--bot", "easy", "--json", "--port", "7477",
                    "--name", "Table18", "--grace", "60",
                ], data: homes.table))
                processes.append(table)
                try await table.waitForOutput(containing: "\"event\":\"listening\"", timeout: 60)
                let listening = try #require(JSONLines.events("listening", in: table.output()).first)
                let name = try #require(listening["service"] as? String, "listening: \(listening)")

                let watch = try lab.start(host: Lab.hostName(hosts), ParlorCommand.command(
                    ["browse", "--watch", "--json"], data: homes.watch))
                processes.append(watch)
                // All eighteen with their addresses: by then the address lookups have closed every resolve.
                try await watch.waitForOutput("all 18 games with addresses", timeout: 60) { output in
                    Set(JSONLines.objects(output).filter { !($0["addresses"] as? [Any] ?? []).isEmpty }
                        .compactMap { $0["name"] as? String }).count >= 18
                }
                let before = JSONLines.objects(watch.output()).last { $0["name"] as? String == name }
                #expect(before?["seatsTaken"] as? Int == 1, "\(String(describing: before))")

                let guest = try lab.start(host: Lab.hostName(19), ParlorCommand.command(
                    ["join", "table18", "--bot", "easy", "--json", "--grace", "60"], data: homes.guest))
                processes.append(guest)
                // At a table the guest hears "table" (2 of 3 taken); "joined" waits for the third seat.
                try await guest.waitForOutput(containing: "\"event\":\"table\"", timeout: 30)
                let began = Date()
                try await watch.waitForOutput("\(name) with 2 of 3 seats taken", timeout: 30) { output in
                    JSONLines.objects(output).contains { $0["name"] as? String == name && $0["seatsTaken"] as? Int == 2 }
                }
                print("lab: a watching browse of 18 games showed the seat taken \(String(format: "%.1f", Date().timeIntervalSince(began))) s after the join")
                withExtendedLifetime(homes) {}
            }
        }

        @Test func browseOnAHundredAndFirstHostListsAllHundredAndJoinsByNameAndPrefix() async throws {
            try await Lab.with(hosts: Self.hosts) { lab in
                let browser = Lab.hostName(Self.hosts)
                var publishers: [LabProcess] = []
                var parlors: [LabProcess] = []
                defer {
                    for process in publishers + parlors { process.send(SIGKILL) }
                }
                let data = try DataDirectory()
                for index in 1...100 where !Self.players.contains(index) {
                    publishers.append(try lab.start(host: Lab.hostName(index), [
                        "avahi-publish", "-s", Self.gameName(index), "_parlor._tcp", "7477", "pv=1", "game=connect4",
                        "rv=1", "seats=1/2", "state=open", "match=", "code=0", "app=avahi-publish",
                        String(format: "host=Host%03d", index),
                    ]))
                }
                var homes: [DataDirectory] = []
                for index in Self.players {
                    let home = try DataDirectory()
                    homes.append(home)
                    let host = try lab.start(host: Lab.hostName(index), ParlorCommand.command([
                        "host", "connect4", "--bot", "easy", "--json", "--port", "7477",
                        "--name", String(format: "Host%03d", index),
                    ], data: home))
                    parlors.append(host)
                }
                for host in parlors {
                    try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 60)
                }

                // Every one of the hundred, listed by one browse, nothing refused.
                let began = Date()
                let browse = try await lab.poll(
                    host: browser, ParlorCommand.command(["browse", "--json", "--timeout", "5"], data: data), timeout: 60
                ) { result in
                    Set(JSONLines.events("found", in: result.standardOutput).compactMap { $0["name"] as? String }).count >= 100
                }
                let names = Set(JSONLines.events("found", in: browse.standardOutput).compactMap { $0["name"] as? String })
                #expect(names == Set((1...100).map(Self.gameName)), "missing: \(Set((1...100).map(Self.gameName)).subtracting(names).sorted())")
                #expect(!browse.standardError.contains("refused"), "stderr: \(browse.standardError)")
                print("lab: parlor browse on host \(browser) listed all 100 games (\(String(format: "%.1f", Date().timeIntervalSince(began))) s, first browse included)")

                // Three by exact name, one by a unique prefix, each to the end of a match against its bot.
                let targets = [Self.gameName(7), Self.gameName(33).lowercased(), Self.gameName(64), "host098"]
                for target in targets {
                    let started = Date()
                    let join = await lab.run(host: browser, try ParlorCommand.command(
                        ["join", target, "--bot", "easy", "--json"], data: data), timeout: 90)
                    #expect(join.status == 0, "join \(target): \(join.standardError)")
                    let joined = JSONLines.events("joined", in: join.standardOutput).first
                    #expect((joined?["address"] as? String)?.hasPrefix("10.77.0.") == true, "join \(target): \(join.standardOutput)")
                    #expect(!JSONLines.events("end", in: join.standardOutput).isEmpty, "join \(target): \(join.standardOutput)")
                    print("lab: parlor join \"\(target)\" among 100 games played to the end in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
                }
            }
        }
    }
}
