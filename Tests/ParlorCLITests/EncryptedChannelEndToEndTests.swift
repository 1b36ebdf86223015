import Bots
import Foundation
import Games
import Match
import ParlorTestSupport
import Secure
import Session
import Synchronization
import Testing

/// Issue 38, items 2 and 7, with real `parlor` processes over loopback TCP:
/// what crosses the network is sealed, the fingerprints both sides print are
/// the players' keys, and a parlor that speaks clear frames is refused with a
/// sentence, or admitted only with `--allow-unencrypted`.
@Suite(.serialized) struct EncryptedChannelEndToEndTests {
    /// A TCP relay between a guest and a host that keeps every byte each way, as a listener on the path would.
    final class Relay: Sendable {
        /// What crossed, and the tasks that carry it.
        final class Tap: Sendable {
            /// One byte string per direction of each connection, in the order they started.
            let streams = Mutex<[[UInt8]]>([])
            let tasks = Mutex<[Task<Void, Never>]>([])
            /// Connections closed unanswered.
            let shed = Mutex(0)
        }

        let listener: TCPListener
        private let tap = Tap()

        /// `shedding`: the first that many connections are closed at once, unanswered, as a host at its open-files limit does.
        init(to port: UInt16, shedding: Int = 0) throws {
            listener = try TCPListener.listen(port: 0, on: .specific(SocketAddress(ipAddress: "127.0.0.1", port: 0)))
            let (listener, tap) = (listener, tap)
            let accepting = Task {
                var shed = 0
                for await incoming in listener.connections {
                    if shed < shedding {
                        shed += 1
                        tap.shed.withLock { $0 += 1 }
                        incoming.close()
                        continue
                    }
                    guard let outgoing = try? await TCPConnection.connect(host: "127.0.0.1", port: port) else {
                        incoming.close()
                        continue
                    }
                    let (a, b) = (incoming.byteStream(), outgoing.byteStream())
                    let first = tap.streams.withLock { streams in
                        streams += [[], []]
                        return streams.count - 2
                    }
                    tap.tasks.withLock { $0 += [Self.pump(a, b, tap, first), Self.pump(b, a, tap, first + 1)] }
                }
            }
            tap.tasks.withLock { $0.append(accepting) }
        }

        private static func pump(_ from: AdaptedByteStream, _ to: AdaptedByteStream, _ tap: Tap, _ stream: Int) -> Task<Void, Never> {
            Task {
                for await event in from.events {
                    switch event {
                    case .data(let bytes):
                        tap.streams.withLock { $0[stream] += bytes }
                        to.send(bytes)
                    case .closed:
                        to.close()
                    }
                }
            }
        }

        var port: UInt16 { listener.port }
        /// Every direction's bytes, one after the other.
        var bytes: [UInt8] { tap.streams.withLock { $0.flatMap { $0 } } }
        /// Each direction's bytes on its own, to read record by record.
        var streams: [[UInt8]] { tap.streams.withLock { $0 } }
        /// How many connections were closed unanswered.
        var shedCount: Int { tap.shed.withLock { $0 } }

        func stop() {
            listener.close()
            tap.tasks.withLock { $0.forEach { $0.cancel() } }
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    @Test("a whole match through a relay: the relay saw only sealed records, no name, no game id, no move; each side printed the other's fingerprint")
    func aRecordedMatchShowsNothingInClear() async throws {
        let hostHome = temporaryDataHome()
        let guestHome = temporaryDataHome()
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--json", "--port", "0", "--name", "Zanzibarina"],
                                     environment: ["XDG_DATA_HOME": hostHome, "NO_COLOR": "1"])
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        let relay = try Relay(to: UInt16(port))
        defer { relay.stop() }
        let join = try await ParlorProcess.run(["join", "127.0.0.1:\(relay.port)", "--bot", "easy", "--json", "--name", "Quixotical"],
                                               environment: ["XDG_DATA_HOME": guestHome, "NO_COLOR": "1"], timeout: .seconds(90))
        #expect(join.status == 0, Comment(rawValue: join.stderr))
        #expect(await host.wait(timeout: .seconds(30)) == 0, Comment(rawValue: host.transcript))

        let wire = relay.bytes
        #expect(wire.count > 1_000, "the relay carried the match")
        #expect(wire.starts(with: SecureChannel.magic + [SecureChannel.RecordType.handshake.rawValue]))
        for secret in ["Zanzibarina", "Quixotical", "connect4"] {
            #expect(!Self.contains(wire, secret), "\(secret) crossed the network in clear")
        }
        // Every byte each way lies in a handshake or sealed record: no clear parlor frame
        // (its "PL" header would break the record structure). Short needles such as "PL\u{01}"
        // are not searched for: sealed bytes contain any three bytes now and then.
        #expect(relay.streams.count == 2, "one connection, two directions")
        for stream in relay.streams {
            #expect(ChannelRecords.isSealedConversation(stream),
                    "a direction carried something other than handshake and sealed records: \(String(describing: ChannelRecords.types(stream)))")
        }

        // The fingerprints each side printed are the other's `parlor id`.
        let hostID = try await ParlorProcess.run(["id", "--json"], environment: ["XDG_DATA_HOME": hostHome])
        let guestID = try await ParlorProcess.run(["id", "--json"], environment: ["XDG_DATA_HOME": guestHome])
        let hostKey = try #require(jsonEvents(hostID.stdout).first?["fingerprint"] as? String)
        let guestKey = try #require(jsonEvents(guestID.stdout).first?["fingerprint"] as? String)
        #expect(hostKey != guestKey)
        let joined = jsonEvents(join.stdout).first { $0["event"] as? String == "joined" }
        #expect(joined?["key"] as? String == hostKey, Comment(rawValue: join.stdout))
        let guestJoined = jsonEvents(host.output).first { $0["event"] as? String == "joined" }
        #expect(guestJoined?["key"] as? String == guestKey, Comment(rawValue: host.output))
    }

    @Test("a wrong passcode costs one handshake and nothing more: the guest's offer, the host's answer, the last message with HELLO, then a rejection; no frame from the host, no CHALLENGE")
    func aWrongPasscodeIsOneRoundTrip() async throws {
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--json", "--port", "0", "--code", "K7M-Q4P"],
                                     environment: ["XDG_DATA_HOME": temporaryDataHome(), "NO_COLOR": "1"])
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        let relay = try Relay(to: UInt16(port))
        defer { relay.stop() }
        let wrong = try await ParlorProcess.run(["join", "127.0.0.1:\(relay.port)", "--code", "AAA-AAA", "--bot", "easy", "--json"],
                                                environment: ["XDG_DATA_HOME": temporaryDataHome(), "NO_COLOR": "1"], timeout: .seconds(30))
        #expect(wrong.status == 1, Comment(rawValue: wrong.stderr))
        #expect(wrong.stderr.contains("the host refused the passcode"), Comment(rawValue: wrong.stderr))
        #expect(await host.line(containing: "wrongPasscode") != nil, Comment(rawValue: host.transcript))

        let streams = relay.streams
        #expect(streams.count == 2, "one connection: \(streams.count / 2)")
        guard streams.count == 2 else { return }
        let handshake = SecureChannel.RecordType.handshake.rawValue, sealed = SecureChannel.RecordType.sealed.rawValue
        let rejection = SecureChannel.RecordType.rejection.rawValue
        // The guest: its offer (XXpsk3's first message, 81 bytes), then the last message and its sealed HELLO (which the
        // relay may not have read before the host's close ended the connection).
        let guestRecords = ChannelRecords.types(streams[0]) ?? []
        #expect(guestRecords == [handshake, handshake] || guestRecords == [handshake, handshake, sealed], "\(guestRecords)")
        #expect(streams[0].count > 5 && Int(streams[0][3]) << 8 | Int(streams[0][4]) == 81, "the first message carries the CPace share")
        // The host: its answer, then the rejection; nothing sealed (no REJECT frame, no CHALLENGE).
        #expect(ChannelRecords.types(streams[1]) == [handshake, rejection], "\(String(describing: ChannelRecords.types(streams[1])))")
    }

    @Test("a guest that speaks clear frames (protocol 2) is refused with a sentence that says to update, unless the host allows it and says so")
    func aClearGuestIsRefusedOrAnnounced() async throws {
        let strict = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--json", "--port", "0"],
                                       environment: LANTableEndToEndTests.environment())
        defer { strict.send(SIGKILL) }
        let strictPort = try await LANTableEndToEndTests.port(strict)
        let hello = Hello(protocolVersions: [2, 1], appVersion: "0.2.0", playerID: .random(), playerName: "Oldie")
        let refused = await Guest.joinOutcome(port: UInt16(strictPort), hello: hello)
        guard case .rejected(let code, let sentence)? = refused else {
            Issue.record("not refused: \(String(describing: refused))")
            return
        }
        #expect(code == .versionUnsupported)
        #expect(sentence.contains("protocol 3") && sentence.contains("update parlor"), Comment(rawValue: sentence))

        let lenient = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--json", "--port", "0", "--allow-unencrypted"],
                                        environment: LANTableEndToEndTests.environment())
        defer { lenient.send(SIGKILL) }
        let lenientPort = try await LANTableEndToEndTests.port(lenient)
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: UInt16(lenientPort))
        let joined = try await Guest.join(over: connection.byteStream(), hello: hello)
        #expect(joined.initialState.seats.count == 2, "the clear guest is seated")
        #expect(await lenient.line(containing: "not private") != nil, Comment(rawValue: lenient.transcript))
        connection.close()
    }

    @Test("join reaches a host that speaks only clear frames: refused with a sentence, or with --allow-unencrypted played in clear and said so")
    func joiningAnOlderHost() async throws {
        // An older host: this build's session layer serving clear frames, as protocol 2 did.
        let listener = try TCPListener.listen(port: 0, on: .specific(SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        defer { listener.close() }
        let host = try MatchHost(configuration: HostConfiguration(gameID: Connect4.id, hostName: "Elder", hostPlayerID: .random(),
                                                                  seatPreference: .first, appVersion: "0.2.0"))
        let acceptor = Task { await host.serve(listener, security: .clear) }
        defer { acceptor.cancel() }

        let refused = try await ParlorProcess.run(["join", "127.0.0.1:\(listener.port)", "--bot", "easy", "--plain"],
                                                  environment: LANTableEndToEndTests.environment(), timeout: .seconds(30))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("older than protocol 3") && refused.stderr.contains("--allow-unencrypted"),
                Comment(rawValue: refused.stderr))

        let playing = Task {
            let hosted = try await host.waitForGuest()
            let (controller, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.firstLegal) }
            try await controller.start()
            return await controller.finished()
        }
        let clear = try await ParlorProcess.run(["join", "127.0.0.1:\(listener.port)", "--bot", "easy", "--plain", "--allow-unencrypted"],
                                                environment: LANTableEndToEndTests.environment(), timeout: .seconds(90))
        #expect(clear.status == 0, Comment(rawValue: clear.stderr))
        #expect(clear.stdout.contains("This match is not private"), Comment(rawValue: clear.stdout))
        let final = try await playing.value
        #expect(final.isEnded)
    }

    /// One bot match: a host in `hostHome` called `hostName` and a guest in `guestHome` called `guestName`; the guest's result and the host.
    static func play(hostHome: String, hostName: String, guestHome: String, guestName: String) async throws -> (ProcessResult, SpawnedParlor) {
        let host = try SpawnedParlor(["host", "tictactoe", "--bot", "easy", "--plain", "--port", "0", "--name", hostName],
                                     environment: ["XDG_DATA_HOME": hostHome, "NO_COLOR": "1"])
        let line = try #require(await host.line(containing: " on port "), Comment(rawValue: host.transcript))
        let port = try #require(line.components(separatedBy: " on port ").last.flatMap { Int($0.prefix { $0.isNumber }) })
        let join = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--bot", "easy", "--plain", "--name", guestName],
                                               environment: ["XDG_DATA_HOME": guestHome, "NO_COLOR": "1"], timeout: .seconds(60))
        return (join, host)
    }

    @Test("known players: a first meeting is said and remembered; a known name with another key is refused on both sides, naming both fingerprints, until forget-player")
    func knownPlayers() async throws {
        let (ana, bo, impostor) = (temporaryDataHome(), temporaryDataHome(), temporaryDataHome())
        let (first, firstHost) = try await Self.play(hostHome: ana, hostName: "Ana", guestHome: bo, guestName: "Bo")
        #expect(first.status == 0, Comment(rawValue: first.stderr))
        #expect(first.stdout.contains("Ana's key: ") && first.stdout.contains("first meeting"), Comment(rawValue: first.stdout))
        #expect(await firstHost.wait(timeout: .seconds(20)) == 0)
        #expect(firstHost.output.contains("Bo's key: ") && firstHost.output.contains("first meeting"), Comment(rawValue: firstHost.output))

        let (again, againHost) = try await Self.play(hostHome: ana, hostName: "Ana", guestHome: bo, guestName: "Bo")
        #expect(again.status == 0, Comment(rawValue: again.stderr))
        #expect(again.stdout.contains("known since"), Comment(rawValue: again.stdout))
        #expect(await againHost.wait(timeout: .seconds(20)) == 0)

        // Someone else calling themselves Bo: the host refuses with 116 and both fingerprints.
        let (fake, fakeHost) = try await Self.play(hostHome: ana, hostName: "Ana", guestHome: impostor, guestName: "bo")
        defer { fakeHost.send(SIGKILL) }
        #expect(fake.status != 0)
        #expect(fake.stderr.contains("This host knows bo by another key") && fake.stderr.contains("parlor forget-player Bo"),
                Comment(rawValue: fake.stderr))
        fakeHost.send(SIGKILL)

        // Someone else calling themselves Ana: Bo's parlor refuses that host before the match.
        let (spoof, spoofHost) = try await Self.play(hostHome: impostor, hostName: "Ana", guestHome: bo, guestName: "Bo")
        defer { spoofHost.send(SIGKILL) }
        #expect(spoof.status == 1, Comment(rawValue: spoof.stderr))
        #expect(spoof.stderr.contains("refusing the host: it calls itself Ana") && spoof.stderr.contains("parlor forget-player Ana")
                    && spoof.stderr.contains("host with another --name"), Comment(rawValue: spoof.stderr))
        #expect(!spoof.stdout.contains("Result:"), "no match was played")
        spoofHost.send(SIGKILL)

        // Bo accepts the new Ana: forgotten, then met again as a first meeting.
        let forget = try await ParlorProcess.run(["forget-player", "ana"], environment: ["XDG_DATA_HOME": bo])
        #expect(forget.status == 0 && forget.stdout.contains("Forgot Ana's key"), Comment(rawValue: forget.stdout + forget.stderr))
        let unknown = try await ParlorProcess.run(["forget-player", "Nobody"], environment: ["XDG_DATA_HOME": bo])
        #expect(unknown.status == 1 && unknown.stderr.contains("no known player called 'Nobody'"))
        let (accepted, acceptedHost) = try await Self.play(hostHome: impostor, hostName: "Ana", guestHome: bo, guestName: "Bo")
        defer { acceptedHost.send(SIGKILL) }
        #expect(accepted.status == 0, Comment(rawValue: accepted.stderr))
        #expect(accepted.stdout.contains("first meeting"), Comment(rawValue: accepted.stdout))
    }

    /// Ana hosts (a person, second: the guest's bot moves and then waits for Ana, who never moves), Bo's bot
    /// joins and moves, then both are killed: each keeps an interrupted record. Returns the host's port.
    static func interruptedMatch(_ table: ResumeEndToEndTests.Table) async throws -> UInt16 {
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--seat", "second", "--name", "Ana"],
                                     environment: table.environment(.host), keepStdinOpen: true)
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening).flatMap { UInt16($0) })
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json", "--name", "Bo"],
                                      environment: table.environment(.guest))
        #expect(await guest.line(containing: "\"move\"") != nil, Comment(rawValue: guest.transcript))
        host.send(SIGKILL)
        _ = await host.wait(timeout: .seconds(10))
        guest.send(SIGKILL)
        _ = await guest.wait(timeout: .seconds(10))
        return port
    }

    @Test("an impostor at the address of the host a guest played, with another key, is refused in the handshake: no HELLO and no seat token reach it")
    func aResumingGuestRefusesAnImpostor() async throws {
        let table = ResumeEndToEndTests.Table()
        let port = try await Self.interruptedMatch(table)

        // Someone else takes the port, with a key of their own.
        let impostor = try TCPListener.listen(port: port, on: .specific(SocketAddress(ipAddress: "127.0.0.1", port: port)))
        defer { impostor.close() }
        let heard = Task { () -> (Message?, ChannelFailure?) in
            for await connection in impostor.connections {
                let stream = try sealedAsHost(connection.byteStream())
                let peer = RawPeer(stream: stream)
                let first = await peer.nextMessage(timeout: .seconds(10))
                return (first, (stream as? SecureByteStream)?.failure)
            }
            return (nil, nil)
        }
        let resumed = try await ParlorProcess.run(["resume", "--json", "--grace", "3"], environment: table.environment(.guest),
                                                  timeout: .seconds(60))
        let (first, failure) = try await heard.value
        #expect(first == nil, "the impostor read \(String(describing: first))")
        guard case .refusedByPeer(let sentence)? = failure else {
            Issue.record("the impostor's channel: \(String(describing: failure))")
            return
        }
        #expect(sentence.contains("refusing the host: this is not the Ana this match was played with"), Comment(rawValue: sentence))
        #expect(resumed.status != 0, Comment(rawValue: resumed.stdout + resumed.stderr))
        // The key it insists on is the one its match record keeps, and parlor matches shows it.
        let hostID = try await ParlorProcess.run(["id", "--json"], environment: table.environment(.host))
        let matches = try await ParlorProcess.run(["matches", "--json"], environment: table.environment(.guest))
        #expect(jsonEvents(matches.stdout).first?["peerKey"] as? String == jsonEvents(hostID.stdout).first?["fingerprint"] as? String,
                Comment(rawValue: matches.stdout))
    }

    /// Mallory has a copy of the saved matches in `home` (the guest's), seat token and all, but a key of
    /// her own: her `parlor resume` at the resumed host `host` is refused, saying only that player can come back.
    static func mallorysCopyIsRefused(of home: String, at host: SpawnedParlor) async throws {
        let mallory = temporaryDataHome()
        try FileManager.default.createDirectory(atPath: mallory + "/parlor", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: home + "/parlor/matches", toPath: mallory + "/parlor/matches")
        _ = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let stolen = try await ParlorProcess.run(["resume", "--bot", "easy", "--json", "--grace", "5"], environment: ["XDG_DATA_HOME": mallory],
                                                 timeout: .seconds(60))
        #expect(stolen.status != 0)
        #expect(stolen.stderr.contains("only that player can take the seat back"), Comment(rawValue: stolen.stdout + stolen.stderr))
    }

    @Test("a guest's seat token copied to another player's parlor does not take the seat back: the resumed host wants the key the guest played with")
    func aStolenSeatTokenIsNotEnough() async throws {
        let table = ResumeEndToEndTests.Table()
        _ = try await Self.interruptedMatch(table)

        let resumedHost = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "30"], environment: table.environment(.host))
        defer { resumedHost.send(SIGKILL) }
        try await Self.mallorysCopyIsRefused(of: table.guestHome, at: resumedHost)
        // Bo himself comes back and the match ends.
        let bo = try await ParlorProcess.run(["resume", "--bot", "easy", "--json", "--grace", "30"], environment: table.environment(.guest),
                                             timeout: .seconds(90))
        #expect(bo.status == 0, Comment(rawValue: bo.stderr))
        #expect(await resumedHost.wait(timeout: .seconds(30)) == 0, Comment(rawValue: resumedHost.transcript))
    }

    @Test("at a table of three, a seat token copied to another player's parlor does not take that seat back either: the resumed host keeps each seat's key (store format 6)")
    func aStolenTableSeatTokenIsNotEnough() async throws {
        let hostHome = LANTableEndToEndTests.environment()
        let host = try SpawnedParlor(["host", "dots-and-boxes", "--seats", "3", "--bots", "easy", "--bot", "easy", "--grace", "60",
                                      "--json", "--port", "0", "--name", "Hana", "--seat", "first"], environment: hostHome)
        defer { host.send(SIGKILL) }
        let port = try await LANTableEndToEndTests.port(host)
        let boHome = temporaryDataHome()
        let bo = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--name", "Bo", "--grace", "60"],
                                   environment: ["XDG_DATA_HOME": boHome, "NO_COLOR": "1"], keepStdinOpen: true)
        defer { bo.send(SIGKILL) }
        #expect(await FirstHourEndToEndTests.waitFor(bo, "turn") { $0["seat"] as? Int == 1 } != nil, Comment(rawValue: bo.transcript))
        host.send(SIGKILL)
        _ = await host.wait(timeout: .seconds(10))
        bo.send(SIGKILL)
        _ = await bo.wait(timeout: .seconds(10))

        let resumed = try SpawnedParlor(["resume", "--bot", "easy", "--json", "--grace", "60"], environment: hostHome)
        defer { resumed.send(SIGKILL) }
        try await Self.mallorysCopyIsRefused(of: boHome, at: resumed)
        #expect(FirstHourEndToEndTests.events(resumed, "joined").isEmpty, Comment(rawValue: resumed.transcript))
        // Bo himself comes back (a bot plays his seat now) and the table plays to its end.
        let back = try await ParlorProcess.run(["resume", "--bot", "easy", "--json", "--grace", "30"],
                                               environment: ["XDG_DATA_HOME": boHome, "NO_COLOR": "1"], timeout: .seconds(120))
        #expect(back.status == 0, Comment(rawValue: back.stderr))
        #expect(await resumed.wait(timeout: .seconds(60)) == 0, Comment(rawValue: resumed.transcript))
    }

    @Test("a player key that others can read stops join and host with exit 65 and says how to fix it; parlor id makes a key once and keeps it")
    func aPlayerKeyOthersCanReadIsRefused() async throws {
        let home = temporaryDataHome()
        let first = try await ParlorProcess.run(["id"], environment: ["XDG_DATA_HOME": home])
        let again = try await ParlorProcess.run(["id"], environment: ["XDG_DATA_HOME": home])
        #expect(first.status == 0 && first.stdout == again.stdout, "the key is made once, then read")
        let path = home + "/parlor/player.key"
        #expect(chmod(path, 0o644) == 0)
        let join = try await ParlorProcess.run(["join", "127.0.0.1:9", "--bot", "easy", "--plain"], environment: ["XDG_DATA_HOME": home])
        #expect(join.status == 65, Comment(rawValue: join.stderr))
        #expect(join.stderr.contains("chmod 600 \(path)"), Comment(rawValue: join.stderr))
        let host = try await ParlorProcess.run(["host", "connect4", "--bot", "easy", "--plain", "--port", "0"], environment: ["XDG_DATA_HOME": home])
        #expect(host.status == 65, Comment(rawValue: host.stderr))
    }
}

extension Guest {
    /// Joins 127.0.0.1:`port` in clear and returns how the host refused, or nil if it seated us.
    static func joinOutcome(port: UInt16, hello: Hello) async -> JoinError? {
        guard let connection = try? await TCPConnection.connect(host: "127.0.0.1", port: port) else { return nil }
        defer { connection.close() }
        do {
            _ = try await Guest.join(over: connection.byteStream(), hello: hello)
            return nil
        } catch {
            return error
        }
    }
}
