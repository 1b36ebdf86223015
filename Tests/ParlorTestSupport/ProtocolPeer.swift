import Bots
import Games
import Match
import Secure
import Session

/// What a `RawPeer` saw arrive.
public enum RawPeerEvent: Sendable, Equatable {
    case message(Message)
    /// Bytes that are not a parlor frame stream (e.g. the host's plain-HTTP answer).
    case notFrames([UInt8])
    case closed
}

/// A hand-driven protocol client for tests: it speaks frames and messages
/// directly over a byte stream (one end of an in-memory pair, or a real TCP
/// connection), so a test can send exactly the bytes a malicious or broken
/// peer would.
public actor RawPeer {
    public let stream: any ByteStream
    private var events: [RawPeerEvent] = []
    private var rawBytes: [UInt8] = []
    private var reader: Task<Void, Never>?

    /// A peer on `stream`; starts reading at once.
    public init(stream: any ByteStream) {
        self.stream = stream
        Task { await self.startReading() }
    }

    private func startReading() {
        let stream = self.stream
        reader = Task { [weak self] in
            var decoder = FrameDecoder()
            var failed = false
            for await event in stream.events {
                switch event {
                case .data(let bytes):
                    await self?.appendRaw(bytes)
                    guard !failed else { continue }
                    decoder.append(bytes)
                    do {
                        while let frame = try decoder.next() {
                            if let message = try? Message.decode(frame) { await self?.append(.message(message)) }
                        }
                    } catch {
                        failed = true
                    }
                case .closed:
                    if failed, let raw = await self?.rawBytes { await self?.append(.notFrames(raw)) }
                    await self?.append(.closed)
                    return
                }
            }
        }
    }

    private func append(_ event: RawPeerEvent) { events.append(event) }
    private func appendRaw(_ bytes: [UInt8]) { rawBytes += bytes }

    /// Everything received so far, as raw bytes.
    public var received: [UInt8] { rawBytes }

    /// Sends raw bytes.
    public func send(bytes: [UInt8]) { stream.send(bytes) }

    /// Sends one message.
    public func send(_ message: Message) { stream.send(message.encoded) }

    /// Closes our end.
    public func close() { stream.close() }

    /// Waits for the next event (removing it), or nil after `timeout`.
    public func next(timeout: Duration = .seconds(5)) async -> RawPeerEvent? {
        let deadline = ContinuousClock.now + timeout
        while events.isEmpty {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return events.removeFirst()
    }

    /// Waits for the next message, skipping heartbeats; nil on close or timeout.
    public func nextMessage(timeout: Duration = .seconds(5)) async -> Message? {
        while let event = await next(timeout: timeout) {
            switch event {
            case .message(.heartbeat): continue
            case .message(let message): return message
            case .notFrames, .closed: return nil
            }
        }
        return nil
    }

    /// Waits until the stream closes; false after `timeout`.
    public func waitForClose(timeout: Duration = .seconds(5)) async -> Bool {
        while let event = await next(timeout: timeout) {
            if event == .closed { return true }
        }
        return false
    }

    /// Performs a HELLO and returns the WELCOME's decoded match, or the first other message.
    public func handshake(_ hello: Hello) async -> (Welcome, MatchState)? {
        send(.hello(hello))
        guard case .welcome(let welcome)? = await nextMessage(), let state = try? MatchBlob.decode(welcome.matchBlob) else {
            return nil
        }
        return (welcome, state)
    }
}

/// Byte surgery on match blobs, for forging states a real peer would never
/// send (the encoder only writes valid ones).
public enum BlobForge {
    /// Offset of the deadline field (i64) in a well-formed blob.
    public static func deadlineOffset(in blob: [UInt8]) -> Int? {
        var offset = 4 + 2 + 16
        guard blob.count > offset else { return nil }
        let format = Int(blob[4]) << 8 | Int(blob[5])
        offset += 1 + Int(blob[offset])                          // game id
        offset += 2                                              // rules version
        offset = afterSeed(in: blob, format: format, at: offset)
        guard blob.count > offset else { return nil }
        let seats = Int(blob[offset]); offset += 1
        for _ in 0..<seats {
            offset += 16
            guard blob.count > offset else { return nil }
            offset += 1 + Int(blob[offset]) + 2
            if format >= 2 { offset += 2 }                      // left after (format 2)
        }
        offset += 4 + 4                                          // sequence, turn timeout
        return offset + 8 <= blob.count ? offset : nil
    }

    /// Offset of the seed field (u64) in a blob of a game with chance (format 3, or 4 with its seed flag 1), nil in any other.
    public static func seedOffset(in blob: [UInt8]) -> Int? {
        guard blob.count > 4 + 2 + 16 else { return nil }
        let format = Int(blob[4]) << 8 | Int(blob[5])
        let rulesEnd = 4 + 2 + 16 + 1 + Int(blob[4 + 2 + 16]) + 2   // magic, format, match id, game id, rules version
        let end = afterSeed(in: blob, format: format, at: rulesEnd)
        guard end - rulesEnd >= 8 else { return nil }
        return end <= blob.count ? end - 8 : nil
    }

    /// Where the fields after the seed start: format 3 has the seed, format 4 a seed flag and the seed when it is 1.
    private static func afterSeed(in blob: [UInt8], format: Int, at offset: Int) -> Int {
        switch format {
        case 3: offset + 8
        case 4...: offset + 1 + (offset < blob.count && blob[offset] == 1 ? 8 : 0)
        default: offset
        }
    }

    /// `blob` (format 4) with its last message's text, `old`, replaced by `new`'s bytes (and length byte), its hash fixed.
    public static func replacingLastMessage(in blob: [UInt8], old: String, with new: [UInt8]) -> [UInt8] {
        let old = Array(old.utf8)
        let end = blob.count - 8
        guard end - old.count - 1 >= 0, Array(blob[(end - old.count - 1)..<end]) == [UInt8(old.count)] + old else { return blob }
        return rehash(Array(blob[..<(end - old.count - 1)]) + [UInt8(clamping: new.count)] + new + Array(blob[end...]))
    }

    /// Offsets of each seat's outcome byte (u8) in a well-formed blob, in seat order.
    public static func outcomeOffsets(in blob: [UInt8]) -> [Int] {
        guard blob.count > 4 + 2 + 16 else { return [] }
        let format = Int(blob[4]) << 8 | Int(blob[5])
        var offset = 4 + 2 + 16
        offset += 1 + Int(blob[offset]) + 2                      // game id, rules version
        offset = afterSeed(in: blob, format: format, at: offset)
        guard blob.count > offset else { return [] }
        let seats = Int(blob[offset]); offset += 1
        var offsets: [Int] = []
        for _ in 0..<seats {
            offset += 16                                         // player id
            guard blob.count > offset else { return [] }
            offset += 1 + Int(blob[offset]) + 1                  // name, status
            offsets.append(offset)
            offset += 1 + (format >= 2 ? 2 : 0)                  // outcome, left after (formats 2 to 4)
        }
        return offsets.allSatisfy { $0 < blob.count } ? offsets : []
    }

    /// `blob` with each seat's outcome byte set to `outcomes` (raw values) and its hash fixed.
    public static func claimingOutcomes(_ blob: [UInt8], _ outcomes: [UInt8]) -> [UInt8] {
        forge(blob) { bytes in
            for (offset, outcome) in zip(outcomeOffsets(in: bytes), outcomes) { bytes[offset] = outcome }
        }
    }

    /// Recomputes the trailing state hash so the blob passes the hash check.
    public static func rehash(_ blob: [UInt8]) -> [UInt8] {
        guard blob.count > 8, let deadline = deadlineOffset(in: blob) else { return blob }
        var body = Array(blob.dropLast(8))
        for index in deadline..<(deadline + 8) { body[index] = 0 }
        var writer = ByteWriter()
        writer.write(fnv1a64(body))
        return Array(blob.dropLast(8)) + writer.bytes
    }

    /// Applies `edit` to the bytes and fixes the hash.
    public static func forge(_ blob: [UInt8], _ edit: (inout [UInt8]) -> Void) -> [UInt8] {
        var copy = blob
        edit(&copy)
        return rehash(copy)
    }

    /// `count` copies of `blob`, each with one byte changed, removed or inserted at a place drawn from `seed`.
    public static func mutations(of blob: [UInt8], count: Int, seed: UInt64) -> [[UInt8]] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            var bytes = blob
            let index = Int(generator.next() % UInt64(bytes.count))
            switch generator.next() % 3 {
            case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            case 1: bytes.remove(at: index)
            default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
            }
            return bytes
        }
    }

    /// Offset of the last move's seat byte (its u16 move follows), in a blob without messages (formats 1 to 3).
    public static func lastMoveOffset(in blob: [UInt8]) -> Int { blob.count - 8 - 3 }
}

/// Bot strategies for tests: deterministic, instant.
public enum TestStrategies {
    /// Always the lowest legal move.
    public static let firstLegal: BotParticipant.Strategy = { game, _ in game.legalMoves.first }

    /// A legal move chosen by a generator seeded with `seed` and the position's move count,
    /// so both runs of a match choose alike.
    public static func seeded(_ seed: UInt64) -> BotParticipant.Strategy {
        { game, _ in
            let moves = game.legalMoves
            guard !moves.isEmpty else { return nil }
            var generator = SplitMix64(seed: seed &+ UInt64(game.moveCount) &* 0x9E37)
            return moves[Int(generator.next() % UInt64(moves.count))]
        }
    }
}

/// Records a controller's events for assertions.
public actor EventRecorder {
    public private(set) var events: [MatchEvent] = []
    private var task: Task<Void, Never>?

    public init() {}

    /// Starts recording `controller`'s events (call before `start()`).
    public func record(_ controller: MatchController) async {
        let stream = await controller.events()
        task = Task { [weak self] in
            for await event in stream { await self?.append(event) }
        }
    }

    private func append(_ event: MatchEvent) { events.append(event) }

    /// The texts of every notice so far.
    public var notices: [String] {
        events.compactMap { if case .notice(let text) = $0 { text } else { nil } }
    }

    /// Waits until `predicate` holds for the events, or `timeout` passes.
    public func waitUntil(timeout: Duration = .seconds(5), _ predicate: @Sendable ([MatchEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !predicate(events) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// `stream` behind protocol 3's channel as a guest: how a test's raw peer
/// reaches a real `parlor host`, which seals every connection. One key for
/// every raw guest of this process unless `identity` says otherwise, as one
/// player's parlor has one: a host remembers the key a name came with and
/// refuses that name (or a seat taken back) with another.
public func sealedAsGuest(_ stream: any ByteStream, identity: IdentityKeyPair? = nil) throws -> any ByteStream {
    ChannelSecurity.encrypted(SecureChannelOptions(identity: identity ?? rawGuestKey)).connecting(stream)
}

/// The key of this test process's raw guests.
public let rawGuestKey: IdentityKeyPair = {
    do { return try IdentityKeyPair.generate() } catch { fatalError("no player key for the raw test guests: \(error)") }
}()

/// `stream` behind protocol 3's channel as a host with a fresh identity key: a
/// test's raw host that a real `parlor join` reaches.
public func sealedAsHost(_ stream: any ByteStream, identity: IdentityKeyPair? = nil) throws -> any ByteStream {
    ChannelSecurity.encrypted(SecureChannelOptions(identity: try identity ?? IdentityKeyPair.generate())).accepting(stream)
}
