import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// `Liveness` with no grace, as the links that wait run it: a guest seated at
/// a filling table (both sides), a spectator on the host, a watcher's link.
@Suite struct LivenessWithoutGraceTests {
    let settings = Liveness.Settings(interval: .seconds(3), timeout: .seconds(15), grace: .zero)

    @Test func aSilentPeerIsGivenUpOnTheTickThatFindsItSilentWithNoHeartbeat() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        #expect(machine.tick(now: start + .seconds(12), lastHeard: start, open: true) == [.sendHeartbeat])
        #expect(machine.nextTick(lastHeard: start, open: true, now: start + .seconds(12)) == start + .seconds(15))
        #expect(machine.tick(now: start + .milliseconds(14_999), lastHeard: start, open: true) == [])
        #expect(machine.tick(now: start + .seconds(15), lastHeard: start, open: true) == [.peerSilent(wait: .zero), .graceExpired])
        #expect(!machine.isPeerPresent)
        #expect(machine.tick(now: start + .seconds(30), lastHeard: start + .seconds(29), open: true) == [], "gone for good")
    }

    @Test func aPeerHeardWithinTheTimeoutGetsAHeartbeatEveryIntervalAndIsNeverGivenUp() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        var heartbeats = 0
        for second in stride(from: 3, through: 60, by: 3) {
            let actions = machine.tick(now: start + .seconds(second), lastHeard: start + .seconds(second - 14), open: true)
            #expect(!actions.contains(.graceExpired))
            if actions == [.sendHeartbeat] { heartbeats += 1 }
        }
        #expect(heartbeats == 20)
        #expect(machine.isPeerPresent)
    }

    @Test func theFirstHeartbeatMayBeDueAtOnce() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start, heartbeatAtOnce: true)
        #expect(machine.nextTick(lastHeard: start, open: true, now: start) == start)
        #expect(machine.tick(now: start, lastHeard: start, open: true) == [.sendHeartbeat])
        #expect(machine.nextTick(lastHeard: start, open: true, now: start) == start + .seconds(3))
        var later = Liveness(settings: settings, now: start)
        #expect(later.tick(now: start, lastHeard: start, open: true) == [], "by default the first one is an interval away")
    }

    @Test func noGraceStillLetsTicksDueTogetherShareAWakeUp() {
        let machine = Liveness(settings: settings, now: .now)
        #expect(machine.tickInterval == .seconds(1))
        #expect(machine.tolerance == .milliseconds(100))
    }
}

/// The links that wait, over in-memory streams with a short heartbeat timeout:
/// what each side is told when the other falls silent, and when.
@Suite struct WaitingLinksLivenessTests {
    static let timeouts = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(100),
                                          heartbeatTimeout: .seconds(1), confirmation: .seconds(2), grace: .seconds(30))

    static func host(seats: Int) throws -> MatchHost {
        var configuration = HostConfiguration(gameID: "dots-and-boxes", hostName: "Hana", hostPlayerID: .random(),
                                              timeouts: timeouts, appVersion: "test")
        configuration.seats = seats
        return try MatchHost(configuration: configuration)
    }

    static func hello(_ name: String, watching: Bool = false) -> Hello {
        var hello = Hello(appVersion: "test", playerID: .random(), playerName: name,
                          games: [GameVersion.local("dots-and-boxes")].compactMap { $0 })
        hello.watching = watching
        return hello
    }

    /// Two peers connected to `host`, in that order.
    static func connect(two host: MatchHost) async -> (RawPeer, RawPeer) {
        let (firstEnd, firstHostEnd) = InMemoryByteStream.pair()
        let (secondEnd, secondHostEnd) = InMemoryByteStream.pair()
        await host.accept(firstHostEnd)
        await host.accept(secondHostEnd)
        return (RawPeer(stream: firstEnd), RawPeer(stream: secondEnd))
    }

    /// A hand-driven host for `dial` (a join or a watch on the other end of an in-memory pair), and `dial`'s first frame.
    static func rawHost<Dialled: Sendable>(for dial: @escaping @Sendable (any ByteStream) async throws -> Dialled)
        async -> (host: RawPeer, dialled: Task<Dialled, any Error>, first: Message?) {
        let (dialEnd, hostEnd) = InMemoryByteStream.pair()
        let host = RawPeer(stream: hostEnd)
        let dialled = Task { try await dial(dialEnd) }
        return (host, dialled, await host.nextMessage())
    }

    /// Reads `peer` until it closes: the heartbeats it got, the other messages, and how long after `start` the close came.
    static func untilClosed(_ peer: RawPeer, since start: ContinuousClock.Instant, keepAlive: RawPeer? = nil)
        async -> (heartbeats: Int, others: [Message], closedAfter: Duration?) {
        var heartbeats = 0
        var others: [Message] = []
        while let event = await peer.next(timeout: .seconds(4)) {
            switch event {
            case .message(.heartbeat):
                heartbeats += 1
                await keepAlive?.send(.heartbeat(senderTime: 1))
            case .message(let message): others.append(message)
            case .notFrames: break
            case .closed: return (heartbeats, others, ContinuousClock.now - start)
            }
        }
        return (heartbeats, others, nil)
    }

    /// Reads `peer` until the other side gives it up, and expects that a heartbeat timeout (1 s, less
    /// `early` for a `since` taken after the other side's clock started) after `since`, not before, with
    /// at least `heartbeats` HEARTBEATs before it. Returns the other messages it got.
    static func expectGivenUp(_ peer: RawPeer, since: ContinuousClock.Instant, early: Duration = .zero, heartbeats: Int,
                              _ who: Comment, sourceLocation: SourceLocation = #_sourceLocation) async -> [Message] {
        let ended = await untilClosed(peer, since: since)
        guard let closedAfter = ended.closedAfter else {
            Issue.record("\(who) never gave up", sourceLocation: sourceLocation)
            return ended.others
        }
        #expect(closedAfter >= .seconds(1) - early && closedAfter < .seconds(3), "\(who): \(closedAfter)", sourceLocation: sourceLocation)
        #expect(ended.heartbeats >= heartbeats, "\(who): \(ended.heartbeats) HEARTBEATs", sourceLocation: sourceLocation)
        return ended.others
    }

    @Test("a guest seated at a filling table that falls silent loses its seat after the heartbeat timeout, not before, and hears HEARTBEAT meanwhile")
    func aSilentSeatedGuestLosesItsSeat() async throws {
        let host = try Self.host(seats: 4)
        let (bo, cy) = await Self.connect(two: host)
        let start = ContinuousClock.now
        await bo.send(.hello(Self.hello("Bo")))
        await cy.send(.hello(Self.hello("Cy")))
        guard case .table? = await bo.nextMessage(), case .table? = await cy.nextMessage() else { Issue.record("expected TABLE"); return }
        // Cy answers every HEARTBEAT; Bo says nothing more.
        let cyWatch = Task { await Self.untilClosed(cy, since: start, keepAlive: cy) }
        try await Task.sleep(for: .milliseconds(700))
        #expect(await host.seatsTaken == 3, "nobody loses a seat before the timeout")
        _ = await Self.expectGivenUp(bo, since: start, heartbeats: 5, "the host heartbeats a seated guest every 100 ms, then its silence")
        try await Task.sleep(for: .milliseconds(100))
        #expect(await host.seatsTaken == 2, "Bo's seat is free again; Cy keeps hers")
        await host.shutdown()
        let cysEnd = await cyWatch.value
        let lastTable = cysEnd.others.compactMap { if case .table(let seating) = $0 { seating } else { nil } }.last
        #expect(lastTable?.seats.filter { $0.kind == .guest }.map(\.name) == ["Cy"], "Cy is told Bo's seat is free")
        var reports: [ConnectionReport] = []
        for await report in host.reports { reports.append(report) }
        #expect(reports.contains { $0.outcome == .dropped("left the table before it filled: silent for 1 s") }, "\(reports)")
    }

    @Test("a guest waiting at a filling table answers each TABLE with HEARTBEAT at once, then one every interval, and gives up on a silent host after its timeout")
    func aGuestGivesUpOnASilentHostAtTheTable() async throws {
        let (host, join, first) = await Self.rawHost { try await Guest.join(over: $0, hello: Self.hello("Bo")) }
        guard case .hello? = first else { Issue.record("expected HELLO"); return }
        let places: [TableSeating.Place] = [.init(kind: .host, name: "Hana"), .init(kind: .guest, name: "Bo"), .init(kind: .free, name: "")]
        let table = TableSeating(yourSeat: 1, heartbeatIntervalMilliseconds: 100, heartbeatTimeoutMilliseconds: 1000, seats: places)
        await host.send(.table(table))
        let told = ContinuousClock.now
        guard case .message(.heartbeat)? = await host.next(timeout: .milliseconds(80)) else {
            Issue.record("no HEARTBEAT right after TABLE"); return
        }
        // Heard from the host 500 ms on: its silence counts from there.
        try await Task.sleep(until: told + .milliseconds(500))
        await host.send(.table(table))
        let heard = ContinuousClock.now
        _ = await Self.expectGivenUp(host, since: heard, heartbeats: 6, "a HEARTBEAT at once after the second TABLE and every 100 ms, then the silent host")
        await #expect(throws: JoinError.timedOut) { try await join.value }
    }

    @Test("a spectator that falls silent is let go with GOODBYE silence after the heartbeat timeout; one that answers stays")
    func aSilentSpectatorIsLetGo() async throws {
        let host = try Self.host(seats: 3)
        let (quiet, keen) = await Self.connect(two: host)
        await quiet.send(.watch(Self.hello("Quinn", watching: true)))
        await keen.send(.watch(Self.hello("Kit", watching: true)))
        guard case .watching? = await quiet.nextMessage(), case .watching? = await keen.nextMessage() else {
            Issue.record("expected WATCHING"); return
        }
        let admitted = ContinuousClock.now
        let keenWatch = Task { await Self.untilClosed(keen, since: admitted, keepAlive: keen) }
        let quietGot = await Self.expectGivenUp(quiet, since: admitted, early: .milliseconds(50), heartbeats: 5,
                                                "HEARTBEAT every 100 ms, then the silent spectator")
        #expect(quietGot.last == .goodbye(.goodbyeSilence, sentence: "No word from you for 1 s.", finalBlob: []),
                "\(quietGot)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(host.spectators.count == 1, "the one that answers its heartbeats still watches")
        #expect(host.spectators.droppedReasons == ["Quinn: No word from you for 1 s."])
        await keen.close()
        _ = await keenWatch.value
    }

    @Test("a watcher heartbeats the host every interval and stops watching a host silent for its timeout, saying so")
    func aWatcherStopsWatchingASilentHost() async throws {
        let (host, watch, first) = await Self.rawHost { try await Spectator.watch(over: $0, hello: Self.hello("Wes")) }
        guard case .watch? = first else { Issue.record("expected WATCH"); return }
        await host.send(.watching(SpectatorWelcome(protocolVersion: FrameFormat.tableVersion, heartbeatIntervalMilliseconds: 100,
                                                   heartbeatTimeoutMilliseconds: 1000, hostAppVersion: "test", watching: 1, matchBlob: [])))
        let watched = try await watch.value
        let welcomed = ContinuousClock.now
        _ = await Self.expectGivenUp(host, since: welcomed, early: .milliseconds(50), heartbeats: 5,
                                     "HEARTBEAT every 100 ms, then the watcher of a silent host")
        #expect(await watched.firstState() == nil, "no match came: the wait for one ends")
        #expect(watched.feed.failure == "no word from the host for 1 s")
    }
}
