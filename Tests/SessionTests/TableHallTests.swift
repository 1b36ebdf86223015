import Foundation
import Match
import ParlorTestSupport
import Synchronization
import Testing

@testable import Session

/// `TableHall` (docs/PROTOCOL.md, section 19) over in-memory streams: where
/// a connection goes by its first frame, and what a guest past the limit reads.
@Suite("Many tables behind one listener")
struct TableHallTests {
    static func configuration() -> HostConfiguration {
        HostConfiguration(gameID: "connect4", hostName: "Teach", hostPlayerID: .random(), seatPreference: .first, appVersion: "test")
    }

    static func hello(_ name: String, matchID: MatchID? = nil, token: SeatToken? = nil) -> Hello {
        Hello(appVersion: "test", playerID: .random(), playerName: name, matchID: matchID, seatToken: token)
    }

    /// A guest connected to `hall` under its own peer name.
    static func connect(_ hall: TableHall, _ number: Int) async -> RawPeer {
        let (guest, host) = InMemoryByteStream.pair(firstName: "memory:guest-\(number)")
        await hall.accept(host)
        return RawPeer(stream: guest)
    }

    @Test("each new guest gets a table of its own with its own match id; past the limit a REJECT matchFull names it")
    func tablesUpToTheLimit() async throws {
        let hall = try TableHall(configuration: Self.configuration(), limit: 2)
        var ids: [MatchID] = []
        for number in 0..<2 {
            let peer = await Self.connect(hall, number)
            let (_, state) = try #require(await peer.handshake(Self.hello("Guest \(number)")))
            ids.append(state.matchID)
        }
        #expect(Set(ids).count == 2)
        #expect(await hall.tableCount == 2)
        let third = await Self.connect(hall, 2)
        await third.send(.hello(Self.hello("Late")))
        let answer = await third.nextMessage()
        #expect(answer == .reject(.matchFull, sentence: TableHall.fullSentence(limit: 2)))
        #expect(TableHall.fullSentence(limit: 2).hasPrefix("All 2 tables on this host are in play (it serves at most 2 at once)"))
        // And its table is freed: the next guest gets one again.
        await hall.release(1)
        let next = await Self.connect(hall, 3)
        #expect(await next.handshake(Self.hello("Next")) != nil)
    }

    @Test("a HELLO naming a match goes to that match's table (its seat token then decides), an unknown match is refused")
    func routedByMatchID() async throws {
        let hall = try TableHall(configuration: Self.configuration(), limit: 3)
        var welcomes: [(Welcome, MatchState)] = []
        for number in 0..<3 {
            let peer = await Self.connect(hall, number)
            welcomes.append(try #require(await peer.handshake(Self.hello("Guest \(number)"))))
        }
        // The second table's guest comes back on a new connection with its token: WELCOME for its own match.
        let (welcome, state) = welcomes[1]
        let back = await Self.connect(hall, 10)
        let again = try #require(await back.handshake(Self.hello("Guest 1", matchID: state.matchID, token: welcome.seatToken)))
        #expect(again.1.matchID == state.matchID)
        // Another table's token at this match is refused by the table.
        let wrong = await Self.connect(hall, 11)
        await wrong.send(.hello(Self.hello("Guest 1", matchID: state.matchID, token: welcomes[0].0.seatToken)))
        if case .reject(let reason, _)? = await wrong.nextMessage() { #expect(reason == .badSeatToken) } else { Issue.record("no REJECT") }
        let unknown = await Self.connect(hall, 12)
        await unknown.send(.hello(Self.hello("Who", matchID: .random(), token: SeatToken.random())))
        if case .reject(let reason, _)? = await unknown.nextMessage() { #expect(reason == .matchNotFound) } else { Issue.record("no REJECT") }
    }

    @Test("a HELLO that arrives one byte at a time is read whole and handed to the table from its first byte")
    func firstFrameInPieces() async throws {
        let hall = try TableHall(configuration: Self.configuration(), limit: 1)
        let peer = await Self.connect(hall, 0)
        for byte in Message.hello(Self.hello("Slow")).encoded { await peer.send(bytes: [byte]) }
        guard case .welcome(let welcome)? = await peer.nextMessage() else {
            Issue.record("no WELCOME")
            return
        }
        #expect(try MatchBlob.decode(welcome.matchBlob).seats.map(\.name).contains("Slow"))
    }

    @Test("bytes that are no HELLO hold no table: the next guest still gets the only one")
    func junkHoldsNoTable() async throws {
        let hall = try TableHall(configuration: Self.configuration(), limit: 1)
        let junk = await Self.connect(hall, 0)
        await junk.send(bytes: Array(repeating: 0xA5, count: 64))
        #expect(await junk.waitForClose())
        let guest = await Self.connect(hall, 1)
        #expect(await guest.handshake(Self.hello("Real")) != nil)
    }

    @Test("docs/PROTOCOL.md, section 19, quotes the refusal this parlor sends")
    func documentedSentence() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        #expect(text.contains(TableHall.fullSentence(limit: 40)))
    }
}

/// A new table's host is made off the hall's actor: with a passcode its key
/// costs 100,000 PBKDF2 rounds, and no other connection waits for that.
@Suite("A hall opening a table keeps routing")
struct TableHallOpeningTests {
    /// Holds every host being made until `release` (a key derivation that takes as long as the test likes).
    final class SlowHosts: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        let started = Mutex(0)
        let released = Mutex(false)
        func make(_ configuration: HostConfiguration) -> MatchHost? {
            started.withLock { $0 += 1 }
            gate.wait()
            return try? MatchHost(configuration: configuration)
        }
        func release() {
            guard !released.withLock({ value in defer { value = true }; return value }) else { return }
            gate.signal()
        }
    }

    @Test("while the first guest's table derives its passcode key, a second guest past the limit is answered at once; then the first gets its challenge")
    func routingGoesOnWhileAKeyIsDerived() async throws {
        var configuration = TableHallTests.configuration()
        configuration.passcode = "4827"
        let slow = SlowHosts()
        let hall = try TableHall(configuration: configuration, limit: 1) { slow.make($0) }
        let first = await TableHallTests.connect(hall, 0)
        await first.send(.hello(TableHallTests.hello("First")))
        for _ in 0..<500 where slow.started.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(slow.started.withLock { $0 } == 1, "the first guest's table is being made")
        // The only table is being made: the next guest is told the hall is full, while the first still waits.
        // Should the hall wait for the key after all, it gets it after 3 s (and the test fails, not hangs).
        let giveUp = Task {
            try? await Task.sleep(for: .seconds(3))
            slow.release()
        }
        defer { giveUp.cancel() }
        let second = await TableHallTests.connect(hall, 1)
        await second.send(.hello(TableHallTests.hello("Second")))
        let answer = await second.nextMessage()
        #expect(answer == .reject(.matchFull, sentence: TableHall.fullSentence(limit: 1)))
        #expect(!slow.released.withLock { $0 }, "answered while the first table's key was still being derived")
        slow.release()
        guard case .challenge? = await first.nextMessage() else {
            Issue.record("the first guest got no CHALLENGE once its table was there")
            return
        }
        #expect(await hall.tableCount == 1)
    }
}
