import Foundation
@preconcurrency import Glibc
import Testing

/// Issue 12's lab test: a four-seat dots-and-boxes table hosted on lab host A
/// (the host's own seat played by its bot, one `--bots` seat), joined by name
/// through the lab's real avahi-daemons from hosts B and C. The guest on C is
/// a person whose lines the test types into a FIFO, so the match waits for C
/// while the test does what it needs to (browse; kill B with SIGKILL and
/// `parlor resume` on B), then C quits midway and the others play on to the
/// end; every side ends with one final state hash and one set of places.
/// Serialized: each test brings up its own three-host lab on a two-core machine.
@Suite(.serialized, .enabled(if: LabAvailability.isAvailable && Lab.builtProduct("parlor") != nil,
                             "needs the lab (root, namespaces, avahi) and a built parlor"))
struct TableLabTests {
    /// The host on A, listening and advertised; returns it and its service name.
    static func startTable(_ lab: Lab, home: String, port: String) async throws -> (LabProcess, String) {
        let host = try lab.start(host: "A", try LinkCutTests.command(home, [
            "host", "dots-and-boxes", "--seats", "4", "--bot", "easy", "--bots", "easy", "--json", "--port", port,
            "--seat", "first", "--name", "Ana", "--grace", "60",
        ]))
        try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
        let listening = try #require(JSONLines.events("listening", in: host.output()).first, "host: \(host.errors())")
        return (host, try #require(listening["service"] as? String, "listening: \(listening)"))
    }

    /// `parlor browse --json` on `side` until `name` shows `taken` of 4 seats; returns that sighting.
    static func browse(_ lab: Lab, from side: String, home: String, name: String, taken: Int) async throws -> [String: Any] {
        let seen = try await lab.poll(host: side, try LinkCutTests.command(home, ["browse", "--json", "--timeout", "2"]),
                                      timeout: 30) { result in
            JSONLines.objects(result.standardOutput).contains { $0["name"] as? String == name && $0["seatsTaken"] as? Int == taken }
        }
        return try #require(JSONLines.objects(seen.standardOutput).last { $0["name"] as? String == name })
    }

    /// The host on A and the guest on B, each with its data home.
    struct Sides {
        var host: LabProcess
        var hostHome: String
        var b: LabProcess
        var bHome: String
    }

    /// The last JSON end event a side printed.
    static func end(_ process: LabProcess, _ side: String) throws -> [String: Any] {
        try #require(JSONLines.events("end", in: process.output()).last, "\(side): \(process.output())\(process.errors())")
    }

    static func places(_ end: [String: Any]) -> [Int] {
        (end["outcomes"] as? [[String: Any]] ?? []).compactMap { $0["place"] as? Int }
    }

    /// Seats A's host and bot, B's bot guest by name, C's person by name (browse from C says 3 of 4 first);
    /// waits for C's first turn, runs `whileCWaits` (which returns the host and B processes there at the end, new ones
    /// if it killed and resumed them), then C types /quit and everyone plays to the end.
    /// Returns every side's end event, the host's first.
    static func playTable(_ lab: Lab, port: String,
                          whileCWaits: (_ sides: Sides) async throws -> (host: LabProcess, b: LabProcess))
        async throws -> [(String, [String: Any])] {
        let scratch = LinkCutTests.Scratch()   // hostHome for A, guestHome and the FIFO for C
        let bHome = try DataDirectory()
        let (host, name) = try await startTable(lab, home: scratch.hostHome, port: port)

        let bGuest = try lab.start(host: "B", try LinkCutTests.command(bHome.path, ["join", name, "--bot", "easy", "--json", "--grace", "60"]))
        try await bGuest.waitForOutput(containing: "\"event\":\"table\"", timeout: 30)
        // Browse on C, before C sits down: A's seat, A's bot and B are taken.
        let sighting = try await browse(lab, from: "C", home: scratch.guestHome, name: name, taken: 3)
        #expect(sighting["seatsTotal"] as? Int == 4, "\(sighting)")
        #expect(sighting["game"] as? String == "dots-and-boxes", "\(sighting)")
        #expect((sighting["txt"] as? [String: Any])?["seats"] as? String == "3/4", "\(sighting)")
        let listed = await lab.run(host: "C", try LinkCutTests.command(scratch.guestHome, ["browse", "--timeout", "2"]))
        let row = listed.standardOutput.split(separator: "\n").first { $0.hasPrefix(name) }.map(String.init) ?? ""
        #expect(row.contains("3 of 4 seated"), "browse printed: \(listed.standardOutput)")

        // The FIFO as stdin; the arguments go to sh as "$@" (the service name has an apostrophe: "Ana's ...").
        let cGuest = try lab.start(host: "C", ["sh", "-c", "exec \"$@\" < \"$0\"", scratch.fifo]
                                       + (try LinkCutTests.command(scratch.guestHome, ["join", name, "--json", "--name", "Cy", "--grace", "60"])))
        // Ana 0, B 1, Cy 2, A's bot 3: the match waits for Cy after two moves or more.
        try await cGuest.waitForOutput(containing: "\"event\":\"turn\",\"seat\":2", timeout: 30)
        let cTurn = try #require(JSONLines.events("turn", in: cGuest.output()).first { $0["seat"] as? Int == 2 }?["sequence"] as? Int)
        let (hostFinal, bFinal) = try await whileCWaits(Sides(host: host, hostHome: scratch.hostHome, b: bGuest, bHome: bHome.path))
        scratch.type("/quit")

        let sides = [("A", hostFinal), ("B", bFinal), ("C", cGuest)]
        for (side, process) in sides {
            #expect(await process.wait(timeout: 120) == 0, "\(side): \(process.output())\(process.errors())")
        }
        let ends = try sides.map { ($0.0, try end($0.1, $0.0)) }
        let hostEnd = ends[0].1
        let names = (hostEnd["outcomes"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == ["Ana", "Easy bot", "Cy", "Easy bot"], "\(hostEnd)")
        #expect(hostEnd["moves"] as? Int == 40, "the three left drew every line: \(hostEnd)")
        let hostPlaces = places(hostEnd)
        #expect(hostPlaces.count == 4 && hostPlaces[2] == hostPlaces.max() && hostPlaces.filter { $0 == hostPlaces[2] }.count == 1,
                "Cy, who quit, is placed last alone: \(hostPlaces)")
        #expect(JSONLines.events("quit", in: hostFinal.output()).compactMap { $0["seat"] as? Int } == [2])
        for (side, end) in ends.dropFirst() {
            #expect(end["hash"] as? String == hostEnd["hash"] as? String, "\(side) ends with another state: \(end) vs \(hostEnd)")
            #expect(places(end) == hostPlaces, "\(side)'s places: \(end)")
        }
        // B (the process there at the end: resumed, if it was killed) played its seat after C left.
        #expect(JSONLines.events("move", in: bFinal.output()).contains { $0["seat"] as? Int == 1 && ($0["sequence"] as? Int ?? 0) > cTurn },
                "B: \(bFinal.output())")
        return ends
    }

    @Test func aFourSeatTableJoinedByNameFromBAndCPlaysOnAfterCQuits() async throws {
        try await Lab.with(hosts: 3) { lab in
            _ = try await Self.playTable(lab, port: "7620") { sides in (sides.host, sides.b) }
        }
    }

    @Test
    func aGuestKilledWithSIGKILLResumesItsSeatAndEverySideEndsWithOneHash() async throws {
        try await Lab.with(hosts: 3) { lab in
            _ = try await Self.playTable(lab, port: "7621") { sides in
                let (bGuest, bHome) = (sides.b, sides.bHome)
                // B dies with the match under way; the host keeps B's seat for the grace period.
                bGuest.send(SIGKILL)
                let killed = await bGuest.wait(timeout: 5)
                // Killed by the signal: 9 as Foundation reports it, 137 as the kernel's status does.
                #expect(killed == SIGKILL || killed == 128 + SIGKILL, "B's join: \(String(describing: killed)) \(bGuest.output())\(bGuest.errors())")
                let listed = await lab.run(host: "B", try LinkCutTests.command(bHome, ["matches", "--json"]))
                #expect(listed.standardOutput.contains("\"state\":\"interrupted\"") || listed.standardOutput.contains("\"state\":\"playing\""),
                        "B's match file: \(listed.standardOutput)")
                let resumed = try lab.start(host: "B", try LinkCutTests.command(bHome, ["resume", "--bot", "easy", "--json"]))
                try await resumed.waitForOutput("B back in its seat", timeout: 60) { output in
                    JSONLines.events("joined", in: output).contains { $0["resumed"] as? Bool == true }
                }
                // Ana's screen says B dropped and came back, in that order.
                try await sides.host.waitForOutput(containing: "Easy bot is back", timeout: 30)
                let notices = JSONLines.events("notice", in: sides.host.output()).compactMap { $0["text"] as? String }
                #expect(notices.firstIndex { $0.contains("Easy bot disconnected") } ?? .max < notices.firstIndex { $0 == "Easy bot is back" } ?? -1,
                        "host notices: \(notices)")
                return (sides.host, resumed)
            }
        }
    }

    @Test
    func theHostKilledWithSIGKILLResumesTheTableAndBothGuestsComeBack() async throws {
        try await Lab.with(hosts: 3) { lab in
            _ = try await Self.playTable(lab, port: "7622") { sides in
                // A dies while the table waits for C; both guests hold on for their grace period (60 s).
                sides.host.send(SIGKILL)
                let killed = await sides.host.wait(timeout: 5)
                #expect(killed == SIGKILL || killed == 128 + SIGKILL, "A: \(String(describing: killed))")
                let resumed = try lab.start(host: "A", try LinkCutTests.command(sides.hostHome, ["resume", "--bot", "easy", "--json"]))
                try await resumed.waitForOutput(containing: "\"port\":7622", timeout: 30)
                // Both guests come back to the resumed host by themselves: B's bot plays again once C has quit.
                try await resumed.waitForOutput("B and C back at the table", timeout: 60) { output in
                    JSONLines.events("joined", in: output).count >= 2
                }
                return (resumed, sides.b)
            }
        }
    }
}
