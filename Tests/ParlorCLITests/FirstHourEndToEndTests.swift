import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
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
                let peer = RawPeer(stream: connection.byteStream())
                guard case .hello? = await peer.nextMessage(timeout: .seconds(10)) else { return false }
                await peer.send(.reject(ReasonCode(rawValue: 150), sentence: "Closed for cleaning."))
                await peer.close()
                return true
            }
            return false
        }
        let join = try await ParlorProcess.run(["join", "127.0.0.1:\(listener.port)", "--bot", "easy", "--plain"],
                                               environment: LANTableEndToEndTests.environment(), timeout: .seconds(30))
        #expect(await host.value, "the guest sent HELLO")
        #expect(join.status == 1, Comment(rawValue: join.stderr))
        #expect(join.stderr.contains("reason 150: Closed for cleaning."), Comment(rawValue: join.stderr))
    }
}
