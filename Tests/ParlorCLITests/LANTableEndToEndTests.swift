import Foundation
import ParlorTestSupport
import Testing

/// Tables of three or more seats over loopback between real `parlor`
/// processes (protocol 2): `parlor host GAME --seats N`, guests that each take
/// a free seat with `parlor join`, and every side at the same end.
@Suite("LAN tables played by real processes over loopback", .serialized)
struct LANTableEndToEndTests {
    /// Each process with a data home of its own (its own player id).
    static func environment() -> [String: String] {
        ["XDG_DATA_HOME": temporaryDataHome(), "NO_COLOR": "1"]
    }

    static func port(_ host: SpawnedParlor) async throws -> Int {
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let event = try #require(jsonEvents(listening).first)
        return try #require(event["port"] as? Int)
    }

    static func end(_ process: SpawnedParlor) throws -> [String: Any] {
        try #require(jsonEvents(process.output).last { $0["event"] as? String == "end" }, Comment(rawValue: process.transcript))
    }

    /// Runs a host with `hostArguments` and `guests` bot guests joining one after another; returns every side's end event.
    static func playTable(_ hostArguments: [String], guests: Int, seat: String = "first")
        async throws -> (host: [String: Any], guests: [[String: Any]], processes: [SpawnedParlor]) {
        let host = try SpawnedParlor(["host"] + hostArguments + ["--json", "--port", "0", "--name", "Hana", "--seat", seat], environment: environment())
        let port = try await port(host)
        var joined: [SpawnedParlor] = []
        for _ in 0..<guests {
            let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"],
                                          environment: environment())
            // Seated before the next one comes, so the seats go out in order.
            _ = try #require(await guest.line(containing: "\"table\"", timeout: .seconds(20)), Comment(rawValue: guest.transcript))
            joined.append(guest)
        }
        for process in [host] + joined {
            let status = await process.wait(timeout: .seconds(120))
            #expect(status == 0, Comment(rawValue: process.transcript))
        }
        return (try end(host), try joined.map(end), [host] + joined)
    }

    @Test("a three-seat dots-and-boxes table: the host's bot and two joined bots end with one state hash and one set of places")
    func threeSeatDotsAndBoxes() async throws {
        let (host, guests, processes) = try await Self.playTable(["dots-and-boxes", "--seats", "3", "--bot", "easy"], guests: 2)
        #expect(host["moves"] as? Int == 40)
        let hash = try #require(host["hash"] as? String)
        let places = try #require(host["outcomes"] as? [[String: Any]]).compactMap { $0["place"] as? Int }
        #expect(places.count == 3)
        for guest in guests {
            #expect(guest["hash"] as? String == hash)
            #expect(try #require(guest["outcomes"] as? [[String: Any]]).compactMap { $0["place"] as? Int } == places)
        }
        let names = try #require(host["outcomes"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names == ["Hana", "Easy bot", "Easy bot"])
        // The first guest saw the table fill: 2 of 3, then 3 of 3.
        let seatings = jsonEvents(processes[1].output).filter { $0["event"] as? String == "table" }.compactMap { $0["taken"] as? Int }
        #expect(seatings == [2, 3], Comment(rawValue: processes[1].transcript))
    }

    @Test("a four-seat table with --bots: one host bot seat from the start, two guests fill the rest")
    func fourSeatsWithBots() async throws {
        let (host, guests, _) = try await Self.playTable(["dots-and-boxes", "--seats", "4", "--bot", "easy", "--bots", "easy"], guests: 2)
        let names = try #require(host["outcomes"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names == ["Hana", "Easy bot", "Easy bot", "Easy bot"])
        for guest in guests { #expect(guest["hash"] as? String == host["hash"] as? String) }
    }

    /// The table most people try first: the host, one friend and the host's
    /// bots, so the first guest takes the last free seat. Every side must see
    /// the full table, then the match, to one end (it once killed the host).
    @Test("me, a friend and a bot: one guest fills a table whose other seats are the host's bots, at every --seat",
          arguments: [
            (["dots-and-boxes", "--seats", "3", "--bots", "easy"], "first"),
            (["dots-and-boxes", "--seats", "3", "--bots", "easy"], "second"),
            (["dots-and-boxes", "--seats", "3", "--bots", "easy"], "random"),
            (["dots-and-boxes", "--seats", "4", "--bots", "easy,medium"], "random"),
            (["chinese-checkers", "--seats", "3", "--bots", "easy"], "first"),
          ])
    func oneFriendAndBots(table: [String], seat: String) async throws {
        let (host, guests, processes) = try await Self.playTable(table + ["--bot", "easy"], guests: 1, seat: seat)
        let seats = Int(table[2])!
        let outcomes = try #require(host["outcomes"] as? [[String: Any]])
        #expect(outcomes.count == seats)
        #expect(outcomes.compactMap { $0["name"] as? String }.filter { $0 == "Hana" }.count == 1)
        let guest = try #require(guests.first)
        #expect(guest["hash"] as? String == host["hash"] as? String, Comment(rawValue: processes[1].transcript))
        // The guest saw the whole table once, already full.
        let seatings = jsonEvents(processes[1].output).filter { $0["event"] as? String == "table" }.compactMap { $0["taken"] as? Int }
        #expect(seatings == [seats], Comment(rawValue: processes[1].transcript))
    }

    /// `--fill-with-bots 1`: the guest sits down within the wait, and the wait's end starts the table;
    /// `--fill-with-bots 0`: the wait is over before anyone sits down, and the first guest to sit starts it.
    @Test("--fill-with-bots starts a table of four with one guest: the empty seats go to bots", arguments: ["1", "0"])
    func fillWithBots(wait: String) async throws {
        let (host, guests, _) = try await Self.playTable(["dots-and-boxes", "--seats", "4", "--bot", "easy", "--fill-with-bots", wait],
                                                          guests: 1)
        let names = try #require(host["outcomes"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names == ["Hana", "Easy bot", "Medium bot 1", "Medium bot 2"])
        #expect(guests.first?["hash"] as? String == host["hash"] as? String)
    }

    /// A three-seat dots-and-boxes table: the host's bot at seat index 0, a
    /// joined bot at 1, and at 2 a person who never types, killed with SIGKILL
    /// while it is asked for its move (once its side of the match is saved).
    /// Returns the host, the joined bot, the person's data home and the port.
    static func killedAtATable(grace: Int, hostFlags: [String] = []) async throws -> (SpawnedParlor, SpawnedParlor, [String: String], Int) {
        let host = try SpawnedParlor(["host", "dots-and-boxes", "--seats", "3", "--bot", "easy", "--grace", "\(grace)", "--json", "--port", "0",
                                      "--name", "Hana", "--seat", "first"] + hostFlags, environment: environment())
        let port = try await port(host)
        let bot = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"], environment: environment())
        _ = try #require(await bot.line(containing: "\"table\"", timeout: .seconds(20)), Comment(rawValue: bot.transcript))
        let personHome = environment()
        let person = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json"], environment: personHome, keepStdinOpen: true)
        var asked = false
        for _ in 0..<200 where !asked {
            asked = jsonEvents(person.output).contains { $0["event"] as? String == "turn" && $0["seat"] as? Int == 2 }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(asked, Comment(rawValue: person.transcript))
        try await Task.sleep(for: .milliseconds(300))
        person.send(SIGKILL)
        _ = await person.wait(timeout: .seconds(10))
        return (host, bot, personHome, port)
    }

    @Test("a guest killed with SIGKILL at a three-seat table is away on the host's and the other guest's JSON; when its grace runs out it counts as quit and the two others play to one end")
    func killedGuestIsAwayThenQuits() async throws {
        let (host, bot, _, _) = try await Self.killedAtATable(grace: 2)
        let hostAway = try #require(await host.line(containing: "\"away\"", timeout: .seconds(20)), Comment(rawValue: host.transcript))
        let away = try #require(jsonEvents(hostAway).first)
        #expect(away["seat"] as? Int == 2)
        #expect((away["graceLeft"] as? Int).map { $0 >= 1 && $0 <= 2 } == true, "\(away)")
        let botAway = try #require(await bot.line(containing: "\"away\"", timeout: .seconds(20)), Comment(rawValue: bot.transcript))
        #expect(jsonEvents(botAway).first?["seat"] as? Int == 2)

        for process in [host, bot] {
            let status = await process.wait(timeout: .seconds(120))
            #expect(status == 0, Comment(rawValue: process.transcript))
        }
        let hostEnd = try Self.end(host)
        let botEnd = try Self.end(bot)
        #expect(hostEnd["moves"] as? Int == 40, "the two others drew every line")
        #expect(botEnd["hash"] as? String == hostEnd["hash"] as? String)
        let outcomes = try #require(hostEnd["outcomes"] as? [[String: Any]])
        #expect(outcomes.count == 3)
        #expect(outcomes.last?["outcome"] as? String == "quit", "\(outcomes)")
    }

    @Test("a guest killed with SIGKILL at a three-seat table takes its seat back with parlor resume while the host holds it: back on every side, one end")
    func killedGuestResumesItsSeat() async throws {
        let (host, bot, personHome, port) = try await Self.killedAtATable(grace: 60)
        _ = try #require(await host.line(containing: "\"away\"", timeout: .seconds(20)), Comment(rawValue: host.transcript))

        // The same player (its data home, its seat token) comes back; a bot plays its moves from here.
        let back = try SpawnedParlor(["resume", "127.0.0.1:\(port)", "--bot", "easy", "--json"], environment: personHome)
        let joined = try #require(await back.line(containing: "\"joined\"", timeout: .seconds(30)), Comment(rawValue: back.transcript))
        #expect(jsonEvents(joined).first?["seat"] as? Int == 2)
        _ = try #require(await host.line(containing: "\"back\"", timeout: .seconds(20)), Comment(rawValue: host.transcript))
        _ = try #require(await bot.line(containing: "\"back\"", timeout: .seconds(20)), Comment(rawValue: bot.transcript))
        for process in [host, bot, back] {
            let status = await process.wait(timeout: .seconds(120))
            #expect(status == 0, Comment(rawValue: process.transcript))
        }
        let hostEnd = try Self.end(host)
        #expect(hostEnd["moves"] as? Int == 40)
        #expect(try Self.end(bot)["hash"] as? String == hostEnd["hash"] as? String)
        #expect(try Self.end(back)["hash"] as? String == hostEnd["hash"] as? String)
        let outcomes = try #require(hostEnd["outcomes"] as? [[String: Any]])
        #expect(outcomes.last?["outcome"] as? String != "quit", "the resumed seat played on: \(outcomes)")
    }

    @Test("a guest who leaves a table of three for now reads who was told, by name, never 'The other player'")
    func leavingATableNamesTheOthers() async throws {
        let host = try SpawnedParlor(["host", "dots-and-boxes", "--seats", "3", "--bots", "easy", "--bot", "easy", "--json",
                                      "--port", "0", "--name", "Hana", "--seat", "first"], environment: Self.environment())
        defer { host.send(SIGKILL) }
        let port = try await Self.port(host)
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--plain", "--name", "Bo"], environment: Self.environment(),
                                      keepStdinOpen: true)
        defer { guest.send(SIGKILL) }
        _ = try #require(await guest.line(containing: "Hana", timeout: .seconds(20)), Comment(rawValue: guest.transcript))
        guest.closeStdin()
        _ = await guest.wait(timeout: .seconds(20))
        #expect(guest.output.contains("Hana and Easy bot were told you may come back, and wait for you."), Comment(rawValue: guest.transcript))
        #expect(!guest.output.contains("The other player"), Comment(rawValue: guest.transcript))
    }

    @Test("a guest who leaves for now after its host stopped is not told the host was told: it says how to continue, nothing more")
    func leavingAStoppedHostClaimsNoGoodbye() async throws {
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--json", "--port", "0", "--name", "Hana"],
                                     environment: Self.environment())
        defer { host.send(SIGKILL) }
        let port = try await Self.port(host)
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--plain", "--name", "Bo", "--grace", "60"], environment: Self.environment(),
                                      keepStdinOpen: true)
        defer { guest.send(SIGKILL) }
        _ = try #require(await guest.line(containing: "Hana", timeout: .seconds(20)), Comment(rawValue: guest.transcript))
        host.send(SIGINT)
        #expect(await host.wait(timeout: .seconds(20)) != nil, Comment(rawValue: host.transcript))
        _ = try #require(await guest.line(containing: "waiting for Hana", timeout: .seconds(20)), Comment(rawValue: guest.transcript))
        guest.closeStdin()
        #expect(await guest.wait(timeout: .seconds(20)) == 75, Comment(rawValue: guest.transcript))
        #expect(guest.output.contains("for now (end of input); nothing was quit and it is saved here."), Comment(rawValue: guest.transcript))
        #expect(guest.output.contains("To continue it, run: parlor resume"), Comment(rawValue: guest.transcript))
        #expect(!guest.output.contains("was told"), Comment(rawValue: guest.transcript))
    }

    @Test("--seats outside the game's counts is a usage error naming them")
    func seatsOutOfRange() async throws {
        let result = try await ParlorProcess.run(["host", "reversi", "--seats", "3"], environment: scratchDataHome(), timeout: .seconds(20))
        #expect(result.status == 64)
        #expect(result.stderr.contains("reversi is played by 2 players"), Comment(rawValue: result.stderr))
        let bots = try await ParlorProcess.run(["host", "dots-and-boxes", "--seats", "3", "--bots", "easy,easy"],
                                               environment: scratchDataHome(), timeout: .seconds(20))
        #expect(bots.status == 64)
        #expect(bots.stderr.contains("at most 1"), Comment(rawValue: bots.stderr))
    }
}
