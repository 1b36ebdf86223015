import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// A stream that records what is sent to it and says how much is queued, as
/// a spectator's TCP connection does when the spectator stops reading.
private final class StalledStream: ByteStream {
    let events: AsyncStream<ByteStreamEvent>
    private let sink: AsyncStream<ByteStreamEvent>.Continuation
    let peerDescription = "memory:stalled"
    private let sent = Mutex<[UInt8]>([])
    private let queued = Mutex(0)
    private let closed = Mutex(false)
    /// Who waits for the queue to empty (`waitUntilSent`): woken by `pileUp(0)` alone, as TCP's flush wakes them.
    private let sentWaiters = Mutex<(next: Int, waiting: [Int: CheckedContinuation<Void, Never>])>((0, [:]))

    init() { (events, sink) = AsyncStream<ByteStreamEvent>.makeStream() }

    func send(_ bytes: [UInt8]) {
        sent.withLock { $0 += bytes }
        queued.withLock { $0 += bytes.count }
    }
    func close() {
        closed.withLock { $0 = true }
        sink.yield(.closed(nil))
        sink.finish()
    }
    var queuedByteCount: Int { queued.withLock { $0 } }
    var isClosed: Bool { closed.withLock { $0 } }

    /// Pretends the spectator stopped reading with `bytes` waiting (0: it read everything).
    func pileUp(_ bytes: Int) {
        queued.withLock { $0 = bytes }
        guard bytes == 0 else { return }
        let woken = sentWaiters.withLock { sent in
            defer { sent.waiting = [:] }
            return sent.waiting.values
        }
        for waiter in woken { waiter.resume() }
    }

    func waitUntilSent(within limit: Duration) async {
        let id = sentWaiters.withLock { sent in
            sent.next += 1
            return sent.next
        }
        let timer = Mutex<Task<Void, Never>?>(nil)
        await withCheckedContinuation { continuation in
            let now = queued.withLock { queued in
                sentWaiters.withLock { sent in
                    if queued == 0 { return true }
                    sent.waiting[id] = continuation
                    return false
                }
            }
            if now { return continuation.resume() }
            // Armed once the waiter is there: the limit releases it unless `pileUp(0)` did.
            timer.withLock {
                $0 = Task { [self] in
                    try? await Task.sleep(for: limit)
                    sentWaiters.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
                }
            }
        }
        timer.withLock { $0 }?.cancel()
    }

    var messages: [Message] {
        var decoder = FrameDecoder()
        decoder.append(sent.withLock { $0 })
        var result: [Message] = []
        while let frame = try? decoder.next(), let message = try? Message.decode(frame) { result.append(message) }
        return result
    }
}

@Suite("The host's spectators: what they get, and a slow one dropped")
struct SpectatorGalleryTests {
    static let start: MatchState = {
        MatchState(matchID: MatchID(hex: "00112233445566778899aabbccddeeff")!, game: Connect4(),
                   seats: [Seat(playerID: PlayerID.random(), name: "Ada"), Seat(playerID: PlayerID.random(), name: "Bo")],
                   turnTimeout: 0, now: 1_700_000_000_000)
    }()

    static func gallery(queueLimit: Int = SpectatorGallery.defaultQueueLimit) -> SpectatorGallery {
        SpectatorGallery(limit: 4, queueLimit: queueLimit, timeouts: SessionTimeouts(), appVersion: "0.2.0", clock: { 1_700_000_000_000 })
    }

    @Test("a spectator gets WATCHING with the state, then each committed change as the push a guest gets, then the end")
    func feedsEveryChange() throws {
        let gallery = Self.gallery()
        let stream = StalledStream()
        gallery.begin(Self.start)
        gallery.admit(WireConnection(stream: stream), name: "Wes")
        let one = try Self.start.applying(.move(Move(3), by: 0), now: 1_700_000_001_000)
        gallery.stateChanged(one, event: .committed(.move(Move(3), by: 0), one))
        let two = try one.applying(.quit(1), now: 1_700_000_002_000)
        gallery.stateChanged(two, event: .committed(.quit(1), two))
        gallery.matchEnded(two, failure: nil)
        gallery.drain()
        let messages = stream.messages
        guard messages.count == 4 else { Issue.record("\(messages)"); return }
        guard case .watching(let welcome) = messages[0] else { Issue.record("\(messages[0])"); return }
        #expect(try MatchBlob.decode(welcome.matchBlob).sequence == 0)
        #expect(welcome.watching == 1)
        #expect(messages[1] == .turn(sequence: 1, blob: MatchBlob.encode(one)))
        #expect(messages[2] == .quit(sequence: 2, blob: MatchBlob.encode(two)))
        #expect(messages[3] == .goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: MatchBlob.encode(two)))
        #expect(stream.isClosed && gallery.count == 0)
    }

    @Test("a spectator whose parlor cannot read a move's message gets every state without them (format 1, as before); one that can gets them")
    func anOlderSpectatorIsShownNoMessages() throws {
        let gallery = Self.gallery()
        let (old, new) = (StalledStream(), StalledStream())
        gallery.begin(Self.start)
        gallery.admit(WireConnection(stream: old), name: "Old", readsTurnMessages: false)
        gallery.admit(WireConnection(stream: new), name: "New")
        let change = MatchChange.move(Move(3), by: 0, message: try TurnMessage("Your move"))
        let one = try Self.start.applying(change, now: 1_700_000_001_000)
        gallery.stateChanged(one, event: .committed(change, one))
        gallery.matchEnded(one, failure: nil)
        gallery.drain()
        #expect(new.messages.contains(.turn(sequence: 1, blob: MatchBlob.encode(one))), "\(new.messages)")
        let plain = MatchBlob.encode(one.withoutMessages)
        #expect(plain[5] == 1)
        #expect(try MatchBlob.decode(plain).message == nil)
        #expect(old.messages.contains(.turn(sequence: 1, blob: plain)), "\(old.messages)")
        #expect(!old.messages.contains(.turn(sequence: 1, blob: MatchBlob.encode(one))))
    }

    @Test("the end waits for the spectators: endDelivered returns once their GOODBYE has left the process, not before")
    func endWaitsForTheSpectatorsGoodbye() async throws {
        let gallery = Self.gallery()
        let stream = StalledStream()
        gallery.begin(Self.start)
        gallery.admit(WireConnection(stream: stream), name: "Wes")
        let one = try Self.start.applying(.move(Move(3), by: 0), now: 1_700_000_001_000)
        let two = try one.applying(.quit(1), now: 1_700_000_002_000)
        gallery.stateChanged(one, event: .committed(.move(Move(3), by: 0), one))
        gallery.stateChanged(two, event: .committed(.quit(1), two))
        gallery.matchEnded(two, failure: nil)
        // The host's series returns next and the process may exit: nothing drained by hand here.
        let returned = Mutex(false)
        let waited = Task {
            await gallery.endDelivered(within: .seconds(20))
            returned.withLock { $0 = true }
        }
        // Written but still queued in this process (the kernel has not taken it): not delivered yet.
        let deadline = ContinuousClock.now + .seconds(10)
        while !stream.isClosed, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(stream.isClosed, "the gallery never said goodbye")
        try await Task.sleep(for: .milliseconds(100))
        #expect(stream.queuedByteCount > 0)
        #expect(!returned.withLock { $0 }, "endDelivered returned while the GOODBYE was still queued")
        stream.pileUp(0)
        let started = ContinuousClock.now
        await waited.value
        #expect(ContinuousClock.now - started < .seconds(10), "endDelivered waited its whole limit")
        #expect(stream.messages.last == .goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: MatchBlob.encode(two)))
        // With nobody watching it does not wait at all.
        let empty = Self.gallery()
        empty.begin(Self.start)
        empty.matchEnded(Self.start, failure: nil)
        let alone = ContinuousClock.now
        await empty.endDelivered(within: .seconds(20))
        #expect(ContinuousClock.now - alone < .seconds(10))
    }

    @Test("a spectator with more than the bound waiting is dropped with GOODBYE tooSlow; the others go on")
    func slowSpectatorDropped() throws {
        let gallery = Self.gallery(queueLimit: 64 << 10)
        let slow = StalledStream()
        let fine = StalledStream()
        gallery.begin(Self.start)
        gallery.admit(WireConnection(stream: slow), name: "Stan")
        gallery.admit(WireConnection(stream: fine), name: "Wes")
        slow.pileUp(32 << 10)  // half the bound waiting: kept
        let one = try Self.start.applying(.move(Move(3), by: 0), now: 1_700_000_001_000)
        gallery.stateChanged(one, event: .committed(.move(Move(3), by: 0), one))
        gallery.drain()
        #expect(gallery.count == 2 && !slow.isClosed)
        slow.pileUp(64 << 10)  // the next frame takes it past the bound
        let two = try one.applying(.move(Move(2), by: 1), now: 1_700_000_002_000)
        gallery.stateChanged(two, event: .committed(.move(Move(2), by: 1), two))
        gallery.drain()
        #expect(slow.isClosed)
        guard case .goodbye(.goodbyeTooSlow, _, _)? = slow.messages.last else { Issue.record("\(slow.messages)"); return }
        #expect(gallery.count == 1 && !fine.isClosed)
        #expect(fine.messages.last == .turn(sequence: 2, blob: MatchBlob.encode(two)))
        #expect(gallery.droppedReasons == ["Stan: fell too far behind"])
    }

    @Test("nothing a spectator sends reaches the match: TURN, QUIT and STATE get TURN_REJECTED 213")
    func refusesChanges() async throws {
        let gallery = Self.gallery()
        let (spectator, host) = InMemoryByteStream.pair()
        let peer = RawPeer(stream: spectator)
        gallery.begin(Self.start)
        let connection = WireConnection(stream: host)
        connection.start { _ in nil }
        gallery.admit(connection, name: "Mallory")
        guard case .watching? = await peer.nextMessage() else { Issue.record("no WATCHING"); return }
        let forged = try Self.start.applying(.move(Move(3), by: 0), now: 1_700_000_001_000)
        await peer.send(.turn(sequence: 1, blob: MatchBlob.encode(forged)))
        #expect(await peer.nextMessage() == .turnRejected(sequence: 1, reason: .spectatorCannotMove, sentence: SpectatorGallery.cannotMove))
        await peer.send(.state(blob: MatchBlob.encode(forged)))
        #expect(await peer.nextMessage() == .turnRejected(sequence: 0, reason: .spectatorCannotMove, sentence: SpectatorGallery.cannotMove))
        await peer.send(.stateRequest(knownSequence: 0))
        #expect(await peer.nextMessage() == .state(blob: MatchBlob.encode(Self.start)))
        await peer.send(.confirm(sequence: 1, stateHash: 0, deadline: 0))
        guard case .goodbye(.goodbyeProtocolError, _, _)? = await peer.nextMessage() else { Issue.record("no GOODBYE"); return }
        #expect(gallery.count == 0)
    }
}
