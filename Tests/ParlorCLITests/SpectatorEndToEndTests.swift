import Foundation
import Games
import Match
import ParlorTestSupport
import Session
import Testing

/// `parlor watch` against a real `parlor host` over loopback (docs/PROTOCOL.md, section 17).
@Suite("Spectators watching real processes over loopback", .serialized)
struct SpectatorEndToEndTests {
    static func environment() -> [String: String] { ["XDG_DATA_HOME": temporaryDataHome(), "NO_COLOR": "1"] }

    /// A host whose own seat (first) is played by lines typed on its stdin, and an easy bot that joins.
    static func hostAndBot(_ extra: [String] = [], guest guestExtra: [String] = []) async throws
        -> (host: SpawnedParlor, guest: SpawnedParlor, port: Int) {
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--name", "Hana", "--seat", "first"] + extra,
                                     environment: environment(), keepStdinOpen: true)
        let port = try await LANTableEndToEndTests.port(host)
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"] + guestExtra, environment: environment())
        _ = try #require(await host.line(containing: "\"turn\"", timeout: .seconds(20)), Comment(rawValue: host.transcript))
        return (host, guest, port)
    }

    /// The host types a column each 50 ms, round and round, until the match is over
    /// (a column typed out of turn, or into a full column, is refused and changes nothing).
    static func playToTheEnd(_ host: SpawnedParlor) async {
        var column = 0
        while await host.wait(timeout: .milliseconds(50)) == nil {
            host.type("\(column % 7 + 1)\n")
            column += 1
            if column > 4000 { return }
        }
    }

    static func moves(_ process: SpawnedParlor) -> Int {
        jsonEvents(process.output).filter { $0["event"] as? String == "move" }.count
    }

    /// The host plays its first move; two moves in (the host's and the bot's answer), a spectator arrives and is admitted.
    static func watcherTwoMovesIn(_ host: SpawnedParlor, port: Int) async throws -> SpawnedParlor {
        host.type("4\n")
        let deadline = ContinuousClock.now + .seconds(20)
        while moves(host) < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let watcher = try SpawnedParlor(["watch", "127.0.0.1:\(port)", "--json", "--name", "Wes"], environment: environment())
        _ = try #require(await watcher.line(containing: "\"watching\"", timeout: .seconds(20)), Comment(rawValue: watcher.transcript))
        return watcher
    }

    @Test("a spectator that comes in mid-match sees the rest and ends with the players' state hash")
    func midMatchSpectator() async throws {
        let (host, guest, port) = try await Self.hostAndBot()
        let watcher = try await Self.watcherTwoMovesIn(host, port: port)
        await Self.playToTheEnd(host)
        for process in [host, guest, watcher] {
            #expect(await process.wait(timeout: .seconds(60)) == 0, Comment(rawValue: process.transcript))
        }
        let hostEnd = try LANTableEndToEndTests.end(host)
        let watcherEnd = try LANTableEndToEndTests.end(watcher)
        #expect(watcherEnd["hash"] as? String == hostEnd["hash"] as? String, Comment(rawValue: watcher.transcript))
        #expect(try LANTableEndToEndTests.end(guest)["hash"] as? String == hostEnd["hash"] as? String)
        #expect(watcherEnd["moves"] as? Int == hostEnd["moves"] as? Int)
        // It came in after the start: its first board already had moves on it.
        let started = try #require(jsonEvents(watcher.output).first { $0["event"] as? String == "started" })
        #expect((started["moves"] as? Int ?? 0) >= 2, "\(started)")
    }

    @Test("a spectator is shown the host's key, as parlor id prints it there: in the watching event and, in plain mode, as a line")
    func spectatorSeesTheHostsKey() async throws {
        let hostHome = temporaryDataHome()
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--name", "Hana", "--bot", "easy"],
                                     environment: ["XDG_DATA_HOME": hostHome, "NO_COLOR": "1"])
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        let id = try await ParlorProcess.run(["id", "--json"], environment: ["XDG_DATA_HOME": hostHome])
        let fingerprint = try #require(jsonEvents(id.stdout).first?["fingerprint"] as? String)

        let json = try SpawnedParlor(["watch", "127.0.0.1:\(port)", "--json", "--name", "Wes"], environment: Self.environment())
        defer { json.send(SIGKILL) }
        let watching = try #require(await json.line(containing: "\"watching\"", timeout: .seconds(20)), Comment(rawValue: json.transcript))
        #expect(jsonEvents(watching).first?["key"] as? String == fingerprint, "\(watching)")

        let plain = try SpawnedParlor(["watch", "127.0.0.1:\(port)", "--plain", "--name", "Pia"], environment: Self.environment())
        defer { plain.send(SIGKILL) }
        let line = await plain.line(containing: "The host's key:", timeout: .seconds(20))
        #expect(line?.contains(fingerprint) == true && line?.contains("not met before") == true, Comment(rawValue: plain.transcript))
    }

    @Test("a spectator stays for the players' rematch: it sees the next match begin, then its moves, and leaves when the series is over")
    func spectatorStaysForTheRematch() async throws {
        let (host, guest, port) = try await Self.hostAndBot(["--rematch", "1"], guest: ["--rematch", "1"])
        let watcher = try await Self.watcherTwoMovesIn(host, port: port)
        await Self.playToTheEnd(host)
        for process in [host, guest, watcher] {
            #expect(await process.wait(timeout: .seconds(60)) == 0, Comment(rawValue: process.transcript))
        }
        let hostEvents = jsonEvents(host.output), watched = jsonEvents(watcher.output)
        let second = try #require(hostEvents.last { $0["event"] as? String == "rematch" }?["match"] as? String, Comment(rawValue: host.transcript))
        // The spectator was told of the rematch, with the host's new match id, and saw both ends.
        let told = try #require(watched.first { $0["event"] as? String == "rematch" }, Comment(rawValue: watcher.transcript))
        #expect(told["match"] as? String == second)
        #expect(watched.filter { $0["event"] as? String == "end" }.count == 2, Comment(rawValue: watcher.transcript))
        // Its last board is the host's last board, move for move.
        let hostEnd = try LANTableEndToEndTests.end(host), watcherEnd = try LANTableEndToEndTests.end(watcher)
        #expect(watcherEnd["hash"] as? String == hostEnd["hash"] as? String, Comment(rawValue: watcher.transcript))
        #expect(watcherEnd["moves"] as? Int == hostEnd["moves"] as? Int)
        #expect(!watcher.errors.contains("stopped watching"), Comment(rawValue: watcher.transcript))
    }

    @Test("talk reaches both spectators between the same moves as the players, and a spectator's own line reaches everyone as a spectator's")
    func spectatorsHearAndSayTalk() async throws {
        let (host, guest, port) = try await Self.hostAndBot()
        var watchers: [SpawnedParlor] = []
        for name in ["Wes", "Vi"] {
            let watcher = try SpawnedParlor(["watch", "127.0.0.1:\(port)", "--json", "--name", name], environment: Self.environment(),
                                            keepStdinOpen: true)
            _ = try #require(await watcher.line(containing: "\"watching\"", timeout: .seconds(20)), Comment(rawValue: watcher.transcript))
            watchers.append(watcher)
        }
        host.type("4\n")
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.moves(host) < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        host.type("/say well met, watchers\n")
        for watcher in watchers {
            let line = try #require(await watcher.line(containing: "well met", timeout: .seconds(20)), Comment(rawValue: watcher.transcript))
            #expect(line.contains(#""role":"player","seat":0,"name":"Hana""#), "\(line)")
            #expect(line.contains(#""after":2"#), "\(line)")
        }
        watchers[0].type("/say nice opening\n")
        for process in [host, watchers[1], watchers[0]] {
            let line = try #require(await process.line(containing: "nice opening", timeout: .seconds(20)), Comment(rawValue: process.transcript))
            #expect(line.contains(#""role":"spectator","seat":null,"name":"Wes""#), "\(line)")
        }
        // A spectator's bad line is refused to it alone, as a player's is.
        watchers[1].type("/say \u{1B}[2J\n")
        _ = try #require(await watchers[1].line(containing: "talk-refused", timeout: .seconds(20)), Comment(rawValue: watchers[1].transcript))
        await Self.playToTheEnd(host)
        for process in [host, guest] + watchers {
            #expect(await process.wait(timeout: .seconds(60)) == 0, Comment(rawValue: process.transcript))
        }
        // Each spectator showed Hana's line after the same two moves as the host did, and ends with its hash.
        let hostEnd = try LANTableEndToEndTests.end(host)
        for watcher in watchers {
            let events = jsonEvents(watcher.output)
            let said = try #require(events.firstIndex { ($0["text"] as? String) == "well met, watchers" })
            #expect(events[..<said].filter { $0["event"] as? String == "move" }.count == 2, Comment(rawValue: watcher.transcript))
            #expect(try LANTableEndToEndTests.end(watcher)["hash"] as? String == hostEnd["hash"] as? String)
        }
        // The refused line's escape code ("[2J"), not any "2J": a player key may hold those two letters.
        #expect(!host.output.contains("[2J"), Comment(rawValue: host.transcript))
    }

    @Test("a spectator's TURN, QUIT and STATE are refused (213) and the host's match does not change")
    func spectatorCannotMove() async throws {
        let (host, guest, port) = try await Self.hostAndBot()
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port), timeout: .seconds(5))
        let peer = RawPeer(stream: try sealedAsGuest(connection.byteStream()))
        var watch = Hello(appVersion: "0.2.0", playerID: PlayerID.random(), playerName: "Mallory")
        watch.watching = true
        await peer.send(.watch(watch))
        guard case .watching(let welcome)? = await peer.nextMessage() else { Issue.record("no WATCHING"); return }
        let shown = try MatchBlob.decode(welcome.matchBlob)
        #expect(shown.sequence == 0, "the host has not moved yet")
        // The host's own first move, well formed and legal: still not the spectator's to make.
        let forged = try shown.applying(.move(Move(3), by: 0), now: wallClockMilliseconds())
        await peer.send(.turn(sequence: 1, blob: MatchBlob.encode(forged)))
        guard case .turnRejected(1, let reason, _)? = await peer.nextMessage() else { Issue.record("no TURN_REJECTED"); return }
        #expect(reason == .spectatorCannotMove)
        await peer.send(.quit(sequence: 1, blob: MatchBlob.encode(try shown.applying(.quit(1), now: wallClockMilliseconds()))))
        guard case .turnRejected(1, .spectatorCannotMove, _)? = await peer.nextMessage() else { Issue.record("QUIT not refused"); return }
        await peer.send(.state(blob: MatchBlob.encode(forged)))
        guard case .turnRejected(0, .spectatorCannotMove, _)? = await peer.nextMessage() else { Issue.record("STATE not refused"); return }
        await peer.send(.stateRequest(knownSequence: 0))
        guard case .state(let blob)? = await peer.nextMessage() else { Issue.record("no STATE"); return }
        #expect(try MatchBlob.decode(blob).sequence == 0, "nothing changed")
        #expect(Self.moves(host) == 0 && Self.moves(guest) == 0, Comment(rawValue: host.transcript))
        // The host then plays: the spectator sees its real first move, not the forged one's blob.
        host.type("1\n")
        guard case .turn(1, let pushed)? = await peer.nextMessage() else { Issue.record("no push"); return }
        #expect(try MatchBlob.decode(pushed).moves.first?.move == Move(0))
        await peer.close()
        host.send(SIGTERM)
        _ = await host.wait(timeout: .seconds(20))
        guest.send(SIGTERM)
    }

    @Test("a spectator that never reads does not hold up the match, and --spectators 0 refuses watching")
    func stalledSpectator() async throws {
        let (host, guest, port) = try await Self.hostAndBot()
        // Says WATCH, then never reads a byte.
        let stalled = try await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port), timeout: .seconds(5))
        var watch = Hello(appVersion: "0.2.0", playerID: PlayerID.random(), playerName: "Stan")
        watch.watching = true
        _ = stalled.send(Message.watch(watch).encoded)
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        await Self.playToTheEnd(host)
        let took = ContinuousClock.now - started
        for process in [host, guest] {
            #expect(await process.wait(timeout: .seconds(60)) == 0, Comment(rawValue: process.transcript))
        }
        #expect(took < .seconds(30), "the match took \(took) with a stalled spectator")
        #expect(try LANTableEndToEndTests.end(guest)["hash"] as? String == LANTableEndToEndTests.end(host)["hash"] as? String)
        stalled.close()

        let closed = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--spectators", "0"], environment: Self.environment())
        let closedPort = try await LANTableEndToEndTests.port(closed)
        let refused = try await ParlorProcess.run(["watch", "127.0.0.1:\(closedPort)", "--plain"], environment: Self.environment(),
                                                  timeout: .seconds(30))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("takes no spectators"), "\(refused.stderr)")
        closed.send(SIGTERM)
    }

    /// `parlor watch` at `port` with `extra`, to its end (it has no input; a refused one ends at once).
    static func watchOnce(_ port: Int, _ extra: [String]) async throws -> (status: Int32, stderr: String) {
        let result = try await ParlorProcess.run(["watch", "127.0.0.1:\(port)", "--plain", "--name", "Wes"] + extra,
                                                 environment: environment(), timeout: .seconds(30))
        return (result.status, result.stderr)
    }

    /// A spectator admitted: it says it watches, and waits for the match to begin.
    static func admitted(_ port: Int, _ extra: [String]) async throws {
        let watcher = try SpawnedParlor(["watch", "127.0.0.1:\(port)", "--json", "--name", "Wes"] + extra, environment: environment())
        let line = await watcher.line(containing: "\"watching\"", timeout: .seconds(20))
        #expect(line != nil, "not admitted with \(extra): \(watcher.transcript)")
        watcher.send(SIGTERM)
        _ = await watcher.wait(timeout: .seconds(20))
    }

    @Test("--code asks spectators for the players' code; --watch-code none lets anyone watch while players still need it; --watch-code Y asks for Y")
    func watchCodes() async throws {
        // --code X: no code and a wrong code are refused (passcodeRequired, passcodeWrong), X is admitted.
        let coded = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--code", "ABCD1234"], environment: Self.environment())
        let codedPort = try await LANTableEndToEndTests.port(coded)
        let none = try await Self.watchOnce(codedPort, [])
        #expect(none.status == 64, "\(none)")
        #expect(none.stderr.contains("needs a passcode") && none.stderr.contains("watch with --code CODE"), "\(none.stderr)")
        let wrong = try await Self.watchOnce(codedPort, ["--code", "WRONG123"])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.stderr.contains("could not watch: the host refused the passcode; check the code with the host and watch again"),
                "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("join"), "a spectator is not told to join: \(wrong.stderr)")
        try await Self.admitted(codedPort, ["--code", "ABCD1234"])
        coded.send(SIGTERM)
        _ = await coded.wait(timeout: .seconds(20))

        // --watch-code none: a spectator needs no code, a player still does.
        let open = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--code", "ABCD1234", "--watch-code", "none"],
                                     environment: Self.environment())
        let openPort = try await LANTableEndToEndTests.port(open)
        try await Self.admitted(openPort, [])
        let player = try await ParlorProcess.run(["join", "127.0.0.1:\(openPort)", "--bot", "easy", "--plain"], environment: Self.environment(),
                                                 timeout: .seconds(30))
        #expect(player.status == 64 && player.stderr.contains("needs a passcode"), "\(player)")
        open.send(SIGTERM)
        _ = await open.wait(timeout: .seconds(20))

        // --watch-code Y: spectators prove Y, and the players' X does not let them in.
        let own = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--code", "ABCD1234", "--watch-code", "WXYZ5678"],
                                    environment: Self.environment())
        let ownPort = try await LANTableEndToEndTests.port(own)
        let players = try await Self.watchOnce(ownPort, ["--code", "ABCD1234"])
        #expect(players.status == 1 && players.stderr.contains("refused the passcode"), "\(players)")
        try await Self.admitted(ownPort, ["--code", "WXYZ5678"])
        own.send(SIGTERM)
        _ = await own.wait(timeout: .seconds(20))
    }

    @Test("a spectator at a table that fills sees the seat list fill as a seated guest does, then the match begin")
    func spectatorSeesTableFill() async throws {
        let host = try SpawnedParlor(["host", "chinese-checkers", "--seats", "3", "--bot", "easy", "--json", "--port", "0", "--name", "Hana"],
                                     environment: Self.environment())
        let port = try await LANTableEndToEndTests.port(host)
        let gil = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--name", "Gil"], environment: Self.environment())
        _ = try #require(await gil.line(containing: "\"table\"", timeout: .seconds(20)), Comment(rawValue: gil.transcript))
        // Comes in with one seat free: told who sits where at once, as Gil was.
        let watcher = try SpawnedParlor(["watch", "127.0.0.1:\(port)", "--json", "--name", "Wes"], environment: Self.environment())
        let first = try #require(await watcher.line(containing: "\"table\"", timeout: .seconds(20)), Comment(rawValue: watcher.transcript))
        #expect(first.contains(#""taken":2,"total":3"#) && first.contains(#"{"kind":"guest","name":"Gil"}"#)
                && first.contains(#"{"kind":"free","name":""}"#), "\(first)")
        let ivy = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--name", "Ivy"], environment: Self.environment())
        _ = try #require(await watcher.line(containing: "\"started\"", timeout: .seconds(30)), Comment(rawValue: watcher.transcript))
        let tables = jsonEvents(watcher.output).filter { $0["event"] as? String == "table" }
        #expect(tables.map { $0["taken"] as? Int } == [2, 3], Comment(rawValue: watcher.transcript))
        let full = try #require(tables.last?["seats"] as? [[String: Any]])
        #expect(Set(full.compactMap { $0["name"] as? String }) == ["Hana", "Gil", "Ivy"], "\(full)")
        #expect(full.contains { $0["kind"] as? String == "host" && $0["name"] as? String == "Hana" }, "\(full)")
        for process in [watcher, gil, ivy, host] {
            process.send(SIGTERM)
            _ = await process.wait(timeout: .seconds(20))
        }
    }
}

/// Issue 36 item 2: a spectator who arrives while nobody moves is shown the match at once.
@Suite("A late spectator sees the match at once", .serialized)
struct LateSpectatorTests {
    @Test("a spectator who comes in mid-match while the player to move thinks gets started (the board and seats) at once, not at the next move")
    func lateSpectatorGetsTheBoardBeforeTheNextMove() async throws {
        let (host, guest, port) = try await SpectatorEndToEndTests.hostAndBot()
        defer { host.send(SIGKILL); guest.send(SIGKILL) }
        let watcher = try await SpectatorEndToEndTests.watcherTwoMovesIn(host, port: port)
        defer { watcher.send(SIGKILL) }
        // The host does not type its next move: only the state WATCHING carried can show the board.
        let started = try #require(await watcher.line(containing: "\"started\"", timeout: .seconds(5)), Comment(rawValue: watcher.transcript))
        let event = try #require(jsonEvents(started).first)
        #expect(event["moves"] as? Int == 2, "\(event)")
        #expect((event["seats"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Hana", "Easy bot"], "\(event)")
        #expect(SpectatorEndToEndTests.moves(host) == 2, "nobody moved meanwhile")
        // Leaving: a spectator has no seat to leave for now and nothing to resume.
        watcher.send(SIGTERM)
        _ = await watcher.wait(timeout: .seconds(10))
        #expect(!watcher.output.contains("leftForNow") && !watcher.output.contains("parlor resume"), Comment(rawValue: watcher.transcript))
    }
}

extension LateSpectatorTests {
    @Test("a spectator who arrives while a guest of a table is away sees that seat away at once")
    func lateSpectatorSeesAnAwaySeat() async throws {
        let host = try SpawnedParlor(["host", "dots-and-boxes", "--seats", "3", "--bots", "easy", "--bot", "easy", "--grace", "60",
                                      "--json", "--port", "0", "--name", "Hana", "--seat", "first"], environment: LANTableEndToEndTests.environment())
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        let friend = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--name", "Bo", "--grace", "60"],
                                       environment: LANTableEndToEndTests.environment(), keepStdinOpen: true)
        #expect(await FirstHourEndToEndTests.waitFor(friend, "turn") { $0["seat"] as? Int == 1 } != nil, Comment(rawValue: friend.transcript))
        friend.send(SIGKILL)
        _ = await friend.wait(timeout: .seconds(10))
        #expect(await FirstHourEndToEndTests.waitFor(host, "away") { $0["seat"] as? Int == 1 } != nil, Comment(rawValue: host.transcript))

        let watcher = try SpawnedParlor(["watch", "127.0.0.1:\(port)", "--json"], environment: LANTableEndToEndTests.environment())
        defer { watcher.send(SIGKILL) }
        let away = await FirstHourEndToEndTests.waitFor(watcher, "away", timeout: .seconds(5)) { $0["seat"] as? Int == 1 }
        #expect(away != nil, Comment(rawValue: watcher.transcript))
    }
}
