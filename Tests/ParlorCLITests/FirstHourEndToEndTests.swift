import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Games
import Match
import Session
import Testing

/// Issue 36 with real processes over loopback: the combinations a newcomer
/// tries first (a resumed table, a bot playing a seat from the command line).
@Suite("The first hour: resumed tables and --bot seats (real processes)", .serialized)
struct FirstHourEndToEndTests {
    static func events(_ process: SpawnedParlor, _ name: String) -> [[String: Any]] {
        jsonEvents(process.output).filter { $0["event"] as? String == name }
    }

    /// Waits until `process` has printed an event `name` that `matches`.
    static func waitFor(_ process: SpawnedParlor, _ name: String, timeout: Duration = .seconds(20),
                        _ matches: ([String: Any]) -> Bool = { _ in true }) async -> [String: Any]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = events(process, name).first(where: matches) { return found }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return nil
    }

    /// Me, a friend and a bot at dots-and-boxes; the host is killed at the friend's turn and resumed.
    /// The resumed table keeps its settings: talk relayed (or still off with --no-talk), nobody thrown out.
    @Test("a table the host resumed keeps its settings: a guest's talk is relayed (or refused as off, with --no-talk), never a protocol error",
          arguments: [false, true])
    func resumedTableKeepsTalk(noTalk: Bool) async throws {
        let hostHome = LANTableEndToEndTests.environment()
        let host = try SpawnedParlor(["host", "dots-and-boxes", "--seats", "3", "--bots", "easy", "--bot", "easy", "--grace", "60",
                                      "--json", "--port", "0", "--name", "Hana", "--seat", "first"] + (noTalk ? ["--no-talk"] : []),
                                     environment: hostHome)
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        let friend = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--name", "Bo", "--grace", "60"],
                                       environment: LANTableEndToEndTests.environment(), keepStdinOpen: true)
        defer { friend.send(SIGKILL) }
        // The friend's seat is 1 (host first, the bot in the last seat); the host waits for the friend's move.
        #expect(await Self.waitFor(friend, "turn") { $0["seat"] as? Int == 1 } != nil, Comment(rawValue: friend.transcript))
        host.send(SIGKILL)
        _ = await host.wait(timeout: .seconds(10))

        let resumed = try SpawnedParlor(["resume", "--bot", "easy", "--json"], environment: hostHome)
        defer { resumed.send(SIGKILL) }
        #expect(await Self.waitFor(resumed, "joined", timeout: .seconds(40)) { $0["seat"] as? Int == 1 } != nil,
                Comment(rawValue: resumed.transcript + "\n" + friend.transcript))
        friend.type("/say hello again\n")
        if noTalk {
            let refused = await Self.waitFor(friend, "talk-refused")
            #expect(refused?["reason"] as? String == "talkOff", Comment(rawValue: friend.transcript))
            #expect(Self.events(resumed, "talk").isEmpty, Comment(rawValue: resumed.transcript))
        } else {
            let heard = await Self.waitFor(resumed, "talk") { $0["text"] as? String == "hello again" }
            #expect(heard?["name"] as? String == "Bo", Comment(rawValue: resumed.transcript + "\n" + friend.transcript))
        }
        // Still seated: the friend quits on purpose, and the host and its bot play to one end.
        friend.type("/quit\n")
        for process in [resumed, friend] {
            #expect(await process.wait(timeout: .seconds(60)) == 0, Comment(rawValue: process.transcript))
        }
        #expect(!friend.output.contains("not a message a guest sends"), Comment(rawValue: friend.transcript))
        let end = try LANTableEndToEndTests.end(resumed)
        #expect(try LANTableEndToEndTests.end(friend)["hash"] as? String == end["hash"] as? String)
        let outcomes = try #require(end["outcomes"] as? [[String: Any]])
        #expect(outcomes.count == 3 && outcomes[1]["outcome"] as? String == "quit", "\(outcomes)")
    }

    /// A host at its turn that never moves, and a guest whose seat a bot plays (`join --bot`).
    @Test("/say and /quit mean the same on the standard input of a --bot guest: the line is said, and the seat quits at once",
          arguments: ["--json", "--plain"])
    func botGuestSaysAndQuits(mode: String) async throws {
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--name", "Hana", "--seat", "first"],
                                     environment: LANTableEndToEndTests.environment(), keepStdinOpen: true)
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", mode],
                                      environment: LANTableEndToEndTests.environment(), keepStdinOpen: true)
        defer { guest.send(SIGKILL) }
        #expect(await Self.waitFor(host, "turn") { $0["seat"] as? Int == 0 } != nil, Comment(rawValue: host.transcript))
        guest.type("/say good luck\n")
        let heard = await Self.waitFor(host, "talk") { $0["text"] as? String == "good luck" }
        #expect(heard?["name"] as? String == "Easy bot", Comment(rawValue: host.transcript + "\n" + guest.transcript))
        guest.type("/quit\n")
        let quit = await Self.waitFor(host, "quit")
        #expect(quit?["seat"] as? Int == 1, Comment(rawValue: host.transcript + "\n" + guest.transcript))
        #expect(await guest.wait(timeout: .seconds(30)) == 0, Comment(rawValue: guest.transcript))
        #expect(await host.wait(timeout: .seconds(30)) == 0, Comment(rawValue: host.transcript))
        let end = try LANTableEndToEndTests.end(host)
        let outcomes = try #require(end["outcomes"] as? [[String: Any]])
        #expect(outcomes[1]["outcome"] as? String == "quit", "\(outcomes)")
    }
}

/// Issue 36 item 11 against a host written here from docs/PROTOCOL.md alone.
@Suite("Protocol conformance of the guest against a hand-made host", .serialized)
struct GuestConformanceEndToEndTests {
    @Test("a REJECT with a reason code this parlor does not know is shown by its number, with the host's sentence (section 6)")
    func unknownRejectIsShownByNumber() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        defer { listener.close() }
        let host = Task { () -> Bool in
            for await connection in listener.connections {
                let peer = RawPeer(stream: try sealedAsHost(connection.byteStream()))
                guard case .hello? = await peer.nextMessage(timeout: .seconds(10)) else { return false }
                await peer.send(.reject(ReasonCode(rawValue: 150), sentence: "Closed for cleaning."))
                await peer.close()
                return true
            }
            return false
        }
        let join = try await ParlorProcess.run(["join", "127.0.0.1:\(listener.port)", "--bot", "easy", "--plain"],
                                               environment: LANTableEndToEndTests.environment(), timeout: .seconds(30))
        #expect(try await host.value, "the guest sent HELLO")
        #expect(join.status == 1, Comment(rawValue: join.stderr))
        #expect(join.stderr.contains("reason 150: Closed for cleaning."), Comment(rawValue: join.stderr))
    }
}

/// Section 19 at a real many-table host: the end of a match reaches a guest whose link dropped at the end.
@Suite("A many-table host holds an ended table for its guest", .serialized)
struct HallEndHeldEndToEndTests {
    @Test("a guest whose link drops right after the match's last change comes back with its token and is given the end, not REJECT matchNotFound")
    func aGuestGoneAtTheEndLearnsIt() async throws {
        // The guest moves first, so nothing the host plays crosses our QUIT.
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--tables", "2", "--json", "--port", "0", "--seat", "second"],
                                     environment: LANTableEndToEndTests.environment())
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port))
        let peer = RawPeer(stream: try sealedAsGuest(connection.byteStream()))
        let hello = Hello(appVersion: "test", playerID: .random(), playerName: "Gone")
        let (welcome, state) = try #require(await peer.handshake(hello))
        // Our own QUIT is the match's last change; the link drops as soon as it is confirmed.
        let ended = try state.applying(.quit(welcome.seat), now: wallClockMilliseconds())
        await peer.send(.quit(sequence: ended.sequence, blob: MatchBlob.encode(ended)))
        var confirmed = false
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, let message = await peer.nextMessage(timeout: .seconds(10)) {
            if case .confirm = message { confirmed = true; break }
        }
        #expect(confirmed, "the host confirmed the quit")
        await peer.close()
        try await Task.sleep(for: .milliseconds(500))

        // Back with the seat token: the host still has the table, and gives the end.
        let back = RawPeer(stream: try sealedAsGuest(try await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port)).byteStream()))
        var again = hello
        again.matchID = state.matchID
        again.seatToken = welcome.seatToken
        await back.send(.hello(again))
        let answer = await back.nextMessage(timeout: .seconds(10))
        guard case .welcome(let final)? = answer else {
            Issue.record("expected WELCOME with the end, got \(String(describing: answer))")
            return
        }
        let finalState = try MatchBlob.decode(final.matchBlob)
        #expect(finalState.isEnded && finalState.seats[welcome.seat].outcome == .quit)
    }
}

/// Section 19: a table whose guest never came back after a hall's resume is interrupted again, and resumable alone.
@Suite("A hall's resumed table given up is resumable alone", .serialized)
struct HallGivenUpEndToEndTests {
    @Test("after a hall's parlor resume, a table whose guest did not come back within the grace stays interrupted, and parlor resume ID takes it")
    func aGivenUpTableIsInterruptedAndResumable() async throws {
        let home = LANTableEndToEndTests.environment()
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--tables", "2", "--json", "--port", "0", "--seat", "second"],
                                     environment: home)
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        var sessions: [(hello: Hello, welcome: Welcome, id: MatchID)] = []
        var peers: [RawPeer] = []
        for name in ["Ann", "Ben"] {
            let peer = RawPeer(stream: try sealedAsGuest(try await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port)).byteStream()))
            let hello = Hello(appVersion: "test", playerID: .random(), playerName: name)
            let (welcome, state) = try #require(await peer.handshake(hello))
            sessions.append((hello, welcome, state.matchID))
            peers.append(peer)
        }
        // Both tables saved (each guest's move is first and nobody moves): then the host dies.
        let deadline = ContinuousClock.now + .seconds(20)
        while try await HallMatchesEndToEndTests.states(home).count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        host.send(SIGKILL)
        _ = await host.wait(timeout: .seconds(10))
        for peer in peers { await peer.close() }

        let resumed = try SpawnedParlor(["resume", sessions[0].id.hex, "--json", "--grace", "3"], environment: home)
        defer { resumed.send(SIGKILL) }
        _ = try #require(await resumed.line(containing: "\"listening\"", timeout: .seconds(20)), Comment(rawValue: resumed.transcript))
        // Ann comes back; Ben never does.
        let back = RawPeer(stream: try sealedAsGuest(try await TCPConnection.connect(host: "127.0.0.1", port: UInt16(port)).byteStream()))
        var again = sessions[0].hello
        again.matchID = sessions[0].id
        again.seatToken = sessions[0].welcome.seatToken
        await back.send(.hello(again))
        guard case .welcome? = await back.nextMessage(timeout: .seconds(10)) else {
            Issue.record("Ann was not taken back: \(resumed.transcript)")
            return
        }
        _ = try #require(await resumed.line(containing: "did not come back", timeout: .seconds(20)), Comment(rawValue: resumed.transcript))
        let states = try await HallMatchesEndToEndTests.states(home)
        #expect(states[sessions[1].id.hex] == "interrupted", "\(states)")
        #expect(states[sessions[0].id.hex] == "playing", "\(states)")
        // Ben's match alone: resume takes it (it waits for Ben, who does not come, and says so).
        let alone = try await ParlorProcess.run(["resume", sessions[1].id.hex, "--json", "--grace", "1"], environment: home,
                                                timeout: .seconds(30))
        #expect(!alone.stderr.contains("being played"), Comment(rawValue: alone.stderr))
        #expect(alone.stdout.contains("\"listening\""), Comment(rawValue: alone.stdout + alone.stderr))
        await back.close()
    }
}
