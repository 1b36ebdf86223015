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
