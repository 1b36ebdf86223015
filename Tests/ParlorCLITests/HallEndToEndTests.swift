import Foundation
import Match
import ParlorTestSupport
import Session
import Testing

/// `parlor host GAME --bot LEVEL --tables N` with real processes over
/// loopback: one host process serving many guests, each at a table of its own.
@Suite("A host of many tables, played by real processes", .serialized)
struct HallEndToEndTests {
    static func environment() -> [String: String] {
        ["XDG_DATA_HOME": temporaryDataHome(), "NO_COLOR": "1"]
    }

    static func port(_ host: SpawnedParlor) async throws -> Int {
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        return try #require(jsonEvents(listening).first?["port"] as? Int)
    }

    /// The host's end events by match id.
    static func hostEnds(_ host: SpawnedParlor) -> [String: [String: Any]] {
        var ends: [String: [String: Any]] = [:]
        for event in jsonEvents(host.output) where event["event"] as? String == "end" {
            if let id = event["match"] as? String { ends[id] = event }
        }
        return ends
    }

    /// `parlor matches --json` in a data home: hash by match id.
    static func storedHashes(_ environment: [String: String]) async throws -> [String: String] {
        let list = try SpawnedParlor(["matches", "--json"], environment: environment)
        #expect(await list.wait(timeout: .seconds(20)) == 0, Comment(rawValue: list.transcript))
        var hashes: [String: String] = [:]
        let lines = jsonEvents(list.output)
        let records = lines.count == 1 && lines[0]["matches"] != nil ? (lines[0]["matches"] as? [[String: Any]] ?? []) : lines
        for record in records {
            if let id = record["id"] as? String, let hash = record["hash"] as? String, record["state"] as? String == "ended" {
                hashes[id] = hash
            }
        }
        if hashes.isEmpty, let array = try? JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]] {
            for record in array {
                if let id = record["id"] as? String, let hash = record["hash"] as? String { hashes[id] = hash }
            }
        }
        return hashes
    }

    /// `parlor matches --json` in a data home: moves by match id, every record.
    static func storedMoves(_ environment: [String: String]) async throws -> [String: Int] {
        let list = try SpawnedParlor(["matches", "--json"], environment: environment)
        #expect(await list.wait(timeout: .seconds(20)) == 0, Comment(rawValue: list.transcript))
        var moves: [String: Int] = [:]
        for record in jsonEvents(list.output) {
            if let id = record["id"] as? String, let count = record["moves"] as? Int { moves[id] = count }
        }
        return moves
    }

    /// A guest that joins with a bot and plays to the end.
    static func botGuest(port: Int) throws -> (SpawnedParlor, [String: String]) {
        let environment = environment()
        return (try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--name", "Gus"], environment: environment),
                environment)
    }

    /// Waits for every guest, then checks each against the host's end event and both stores.
    static func expectAgreement(host: SpawnedParlor, hostEnvironment: [String: String],
                                guests: [(SpawnedParlor, [String: String])]) async throws {
        for (guest, _) in guests {
            #expect(await guest.wait(timeout: .seconds(90)) == 0, Comment(rawValue: guest.transcript))
        }
        // The host saves each end before its guest sees it, and prints it after (its lines are gathered
        // for up to 10 ms): wait for the end of every guest's own match, not for as many ends as guests
        // (a table that ended before, a holder's that quit, counts too).
        let ids = guests.compactMap { guest, _ in
            jsonEvents(guest.output).first { $0["event"] as? String == "started" }?["match"] as? String
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !ids.allSatisfy({ hostEnds(host)[$0] != nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let ends = hostEnds(host)
        #expect(ends.count >= guests.count, Comment(rawValue: host.transcript))
        let hostStore = try await storedHashes(hostEnvironment)
        var seen = Set<String>()
        for (guest, environment) in guests {
            let end = try #require(jsonEvents(guest.output).last { $0["event"] as? String == "end" }, Comment(rawValue: guest.transcript))
            let started = try #require(jsonEvents(guest.output).first { $0["event"] as? String == "started" })
            let id = try #require(started["match"] as? String)
            seen.insert(id)
            let hash = try #require(end["hash"] as? String)
            #expect(ends[id]?["hash"] as? String == hash, "table of match \(id): the host's end differs from the guest's")
            #expect(hostStore[id] == hash, "the host's store has another end for \(id)")
            #expect(try await storedHashes(environment)[id] == hash, "the guest's store has another end for \(id)")
        }
        #expect(seen.count == guests.count, "every guest had a match of its own")
    }

    @Test("20 guest processes at 20 tables of one host process all play to the end, and every pair of stores agrees")
    func twentyTables() async throws {
        let hostEnvironment = Self.environment()
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--tables", "20", "--json", "--port", "0", "--name", "Teach"],
                                     environment: hostEnvironment)
        defer { host.send(SIGKILL) }
        let port = try await Self.port(host)
        let guests = try (0..<20).map { _ in try Self.botGuest(port: port) }
        try await Self.expectAgreement(host: host, hostEnvironment: hostEnvironment, guests: guests)
        let tables = Set(jsonEvents(host.output).filter { $0["event"] as? String == "joined" }.compactMap { $0["table"] as? Int })
        #expect(!tables.isEmpty && tables.isSubset(of: Set(1...20)), Comment(rawValue: host.transcript))
        host.send(SIGTERM)
        #expect(await host.wait(timeout: .seconds(20)) != nil, Comment(rawValue: host.transcript))
    }

    @Test("with every table in play the next guest is refused with a sentence naming the limit, and gets a table once one frees up")
    func refusedPastTheLimit() async throws {
        let hostEnvironment = Self.environment()
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--tables", "2", "--json", "--port", "0"],
                                     environment: hostEnvironment)
        defer { host.send(SIGKILL) }
        let port = try await Self.port(host)
        // Two people who never move hold both tables.
        var holders: [SpawnedParlor] = []
        for _ in 0..<2 {
            let holder = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--name", "Slow"], environment: Self.environment(),
                                           keepStdinOpen: true)
            _ = try #require(await holder.line(containing: "\"started\""), Comment(rawValue: holder.transcript))
            holders.append(holder)
        }
        let refused = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"], environment: Self.environment())
        let status = await refused.wait(timeout: .seconds(20))
        #expect(status != nil && status != 0, Comment(rawValue: refused.transcript))
        #expect(refused.errors.contains("All 2 tables on this host are in play (it serves at most 2 at once)"),
                Comment(rawValue: refused.transcript))
        let event = try #require(await host.line(containing: "\"refused\""), Comment(rawValue: host.transcript))
        #expect(jsonEvents(event).first?["reason"] as? String == "matchFull")
        // One holder quits: its table frees up and the next guest plays there to the end.
        holders[0].type("/quit\n")
        #expect(await holders[0].wait(timeout: .seconds(20)) != nil, Comment(rawValue: holders[0].transcript))
        let (next, environment) = try Self.botGuest(port: port)
        try await Self.expectAgreement(host: host, hostEnvironment: hostEnvironment, guests: [(next, environment)])
        for holder in holders { holder.send(SIGKILL) }
    }

    @Test("with few open files allowed, --tables past them is refused at start saying how many fit, and at the limit a flood of connections is refused, never a crash")
    func descriptorLimit() async throws {
        let prlimit = URL(fileURLWithPath: "/usr/bin/prlimit")
        guard FileManager.default.isExecutableFile(atPath: prlimit.path) else { return }
        let tooMany = try SpawnedParlor(["--nofile=160:160", ParlorBinary.url.path, "host", "connect4", "--bot", "easy", "--tables", "100",
                                         "--port", "0", "--plain"], environment: Self.environment(), executable: prlimit)
        #expect(await tooMany.wait(timeout: .seconds(20)) == 64, Comment(rawValue: tooMany.transcript))
        #expect(tooMany.errors.contains("this process may open 160"), Comment(rawValue: tooMany.transcript))
        #expect(tooMany.errors.contains("ask for at most 8 tables"), Comment(rawValue: tooMany.transcript))
        #expect(tooMany.errors.contains("'ulimit -n 528'"), Comment(rawValue: tooMany.transcript))
        // So few that not one table fits: said so, with the limit it needs, never "at most 0 tables".
        let noTable = try SpawnedParlor(["--nofile=64:64", ParlorBinary.url.path, "host", "connect4", "--bot", "easy", "--tables", "20",
                                         "--port", "0", "--plain"], environment: Self.environment(), executable: prlimit)
        #expect(await noTable.wait(timeout: .seconds(20)) == 64, Comment(rawValue: noTable.transcript))
        #expect(noTable.errors.contains("may open only 64, too few for even one table"), Comment(rawValue: noTable.transcript))
        #expect(noTable.errors.contains("'ulimit -n 208'"), Comment(rawValue: noTable.transcript))
        #expect(!noTable.errors.contains("at most 0"), Comment(rawValue: noTable.transcript))

        let hostEnvironment = Self.environment()
        let host = try SpawnedParlor(["--nofile=160:160", ParlorBinary.url.path, "host", "connect4", "--bot", "easy", "--tables", "8",
                                      "--json", "--port", "0"], environment: hostEnvironment, executable: prlimit)
        defer { host.send(SIGKILL) }
        let port = try await Self.port(host)
        // 300 connections that say nothing: far more than the host may hold open.
        var idle: [TCPConnection] = []
        for _ in 0..<300 {
            if let connection = try? await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port), timeout: .milliseconds(300)) {
                idle.append(connection)
            }
        }
        try await Task.sleep(for: .seconds(1))
        for connection in idle { connection.close() }
        idle = []
        // The host is still there, and a guest plays to the end.
        let (guest, environment) = try Self.botGuest(port: port)
        try await Self.expectAgreement(host: host, hostEnvironment: hostEnvironment, guests: [(guest, environment)])
        #expect(kill(host.pid, 0) == 0, Comment(rawValue: host.transcript))
    }

    @Test("a guest whose first connections the host closes unanswered (as at its open-files limit) tries again and plays; one that is always shed gives up within seconds, saying why")
    func shedConnectionsAreTriedAgain() async throws {
        let hostEnvironment = Self.environment()
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--tables", "2", "--json", "--port", "0"],
                                     environment: hostEnvironment)
        defer { host.send(SIGKILL) }
        let port = try await Self.port(host)
        let relay = try EncryptedChannelEndToEndTests.Relay(to: UInt16(port), shedding: 2)
        defer { relay.stop() }
        let (guest, environment) = try Self.botGuest(port: Int(relay.port))
        try await Self.expectAgreement(host: host, hostEnvironment: hostEnvironment, guests: [(guest, environment)])
        #expect(relay.shedCount == 2)

        let wall = try EncryptedChannelEndToEndTests.Relay(to: UInt16(port), shedding: 1_000)
        defer { wall.stop() }
        let began = ContinuousClock.now
        let refused = try await ParlorProcess.run(["join", "127.0.0.1:\(wall.port)", "--bot", "easy", "--plain"],
                                                  environment: Self.environment(), timeout: .seconds(30))
        let took = ContinuousClock.now - began
        #expect(refused.status == 75, Comment(rawValue: refused.stderr))
        #expect(refused.stderr.contains("the host closed the connection"), Comment(rawValue: refused.stderr))
        #expect(wall.shedCount == 4, "the first try and three more")
        #expect(took < .seconds(10), "gave up in \(took)")
    }

    @Test("a hostile peer flooding one table does not disturb the others: all 50 other tables end with matching hashes")
    func floodOnOneTable() async throws {
        let hostEnvironment = Self.environment()
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--tables", "60", "--json", "--port", "0"],
                                     environment: hostEnvironment)
        defer { host.send(SIGKILL) }
        let port = try await Self.port(host)
        // The hostile peer takes a table with a proper HELLO, then floods it with heartbeats and junk.
        let stream = try await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port), timeout: .seconds(5)).byteStream()
        let hostile = RawPeer(stream: try sealedAsGuest(stream))
        var hello = Hello(appVersion: "flood", playerID: PlayerID.random(), playerName: "Flood")
        hello.protocolVersions = [1]
        _ = try #require(await hostile.handshake(hello))
        let flooding = Task {
            let beat = Message.heartbeat(senderTime: 1).encoded
            let burst = Array(repeating: beat, count: 512).flatMap { $0 }
            while !Task.isCancelled {
                await hostile.send(bytes: burst)
                await Task.yield()
            }
        }
        // And a stream of connections that send bytes that are no HELLO at all.
        let junk = Task {
            while !Task.isCancelled {
                if let connection = try? await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port), timeout: .seconds(2)) {
                    let stream = connection.byteStream()
                    stream.send(Array(repeating: 0xA5, count: 2048))
                    stream.close()
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let guests = try (0..<50).map { _ in try Self.botGuest(port: port) }
        try await Self.expectAgreement(host: host, hostEnvironment: hostEnvironment, guests: guests)
        flooding.cancel()
        junk.cancel()
    }
}

@Suite("A many-table host killed mid-play comes back with parlor resume", .serialized)
struct HallResumeEndToEndTests {
    @Test("kill -9 of a host of three tables mid-play, then parlor resume: every table comes back and no move is lost")
    func killedAndResumed() async throws {
        let hostEnvironment = HallEndToEndTests.environment()
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--tables", "3", "--json", "--port", "0", "--seat", "second",
                                      "--grace", "60"], environment: hostEnvironment)
        let port = try await HallEndToEndTests.port(host)
        var guests: [SpawnedParlor] = []
        for _ in 0..<3 {
            let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--grace", "60"], environment: HallEndToEndTests.environment(),
                                          keepStdinOpen: true)
            _ = try #require(await guest.line(containing: "\"started\""), Comment(rawValue: guest.transcript))
            guests.append(guest)
        }
        // Each guest plays two moves and sees the bot's two answers.
        func moves(_ guest: SpawnedParlor) -> Int { jsonEvents(guest.output).filter { $0["event"] as? String == "move" }.count }
        for column in ["4", "3"] {
            for guest in guests { guest.type(column + "\n") }
            for guest in guests {
                let deadline = ContinuousClock.now + .seconds(20)
                while moves(guest) < (column == "4" ? 2 : 4), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
                #expect(moves(guest) == (column == "4" ? 2 : 4), Comment(rawValue: guest.transcript))
            }
        }
        let before = try await HallEndToEndTests.storedMoves(hostEnvironment)
        #expect(before.count == 3 && before.values.allSatisfy { $0 == 4 }, "the host saved four moves at each table: \(before)")
        host.send(SIGKILL)
        _ = await host.wait(timeout: .seconds(10))

        let resumed = try SpawnedParlor(["resume", "--json", "--grace", "60"], environment: hostEnvironment)
        defer { resumed.send(SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(40)
        func back() -> [String] {
            jsonEvents(resumed.output).filter { $0["event"] as? String == "joined" && $0["resumed"] as? Bool == true }
                .compactMap { $0["match"] as? String }
        }
        while back().count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(Set(back()) == Set(before.keys), Comment(rawValue: resumed.transcript))
        // Play on: one more move each, then quit; every side ends with one hash, six moves played.
        for guest in guests { guest.type("5\n") }
        for guest in guests {
            let until = ContinuousClock.now + .seconds(20)
            while moves(guest) < 6, ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(50)) }
            guest.type("/quit\n")
            #expect(await guest.wait(timeout: .seconds(30)) == 0, Comment(rawValue: guest.transcript))
        }
        let until = ContinuousClock.now + .seconds(10)
        while HallEndToEndTests.hostEnds(resumed).count < 3, ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(100)) }
        let ends = HallEndToEndTests.hostEnds(resumed)
        for guest in guests {
            let end = try #require(jsonEvents(guest.output).last { $0["event"] as? String == "end" }, Comment(rawValue: guest.transcript))
            let started = try #require(jsonEvents(guest.output).first { $0["event"] as? String == "started" })
            let id = try #require(started["match"] as? String)
            #expect(end["moves"] as? Int == 6, Comment(rawValue: guest.transcript))
            #expect(ends[id]?["hash"] as? String == end["hash"] as? String, Comment(rawValue: resumed.transcript))
        }
    }
}
