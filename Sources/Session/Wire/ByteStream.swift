/// What a byte stream reports to its one reader.
public enum ByteStreamEvent: Hashable, Sendable {
    /// Bytes arrived, in order; chunk boundaries mean nothing.
    case data([UInt8])
    /// The stream ended; the text says why when it was not an orderly close
    /// (nil for a clean end of stream). Nothing follows.
    case closed(String?)
}

/// A reliable, ordered, bidirectional byte stream: a TCP connection, or an
/// in-memory pair in tests (ParlorTestSupport's `InMemoryByteStream`). The protocol layer needs nothing more.
///
/// Contract for implementers (the TCP shell adapts `TCPConnection` to it):
/// - `events` is one stream, the same on every access, read by one task;
///   it ends after `.closed`. Or, where the transport can, `push(to:)`
///   hands the same events to a receiver on the transport's own thread
///   (push mode: no task between the socket and the code that reads it).
/// - `send` never blocks; bytes are queued and written in call order.
/// - `close()` writes what is queued, then closes; sends after it are
///   ignored. The local `events` then yields `.closed(nil)` if it has not
///   ended already. Idempotent.
public protocol ByteStream: Sendable {
    /// Queues bytes for the peer.
    func send(_ bytes: [UInt8])
    /// Flushes queued bytes, then closes both directions.
    func close()
    /// Received bytes and the end of the stream, for a single reader.
    var events: AsyncStream<ByteStreamEvent> { get }
    /// Who is at the other end, for log lines (e.g. "192.0.2.7:51234").
    var peerDescription: String { get }
    /// Whether the peer has already ended the stream, even if its end has
    /// not been read yet (the host asks before it seats a guest).
    var peerHasClosed: Bool { get }
    /// Bytes sent but not yet handed to the peer's transport (a spectator's
    /// link is dropped when this passes its bound, section 17).
    var queuedByteCount: Int { get }
    /// After `close`, waits until the close has finished (the peer's end seen)
    /// or `limit` has passed; at once when it is not closing.
    func waitUntilClosed(within limit: Duration) async
    /// Push mode: from now on every event goes to `receiver` instead of
    /// `events` (which must not be read any more; it must not be being read
    /// now). The receiver is called on the transport's own thread (the event
    /// loop's), one call at a time, in order, never under a lock of the
    /// caller's; it always takes the event, and returns false to ask that
    /// reading stop until `resumeReading()` (back-pressure). Returns false,
    /// having changed nothing, when this transport cannot push: read `events`.
    func push(to receiver: @escaping @Sendable (ByteStreamEvent) -> Bool) -> Bool
    /// In push mode, after the receiver returned false: reading goes on.
    func resumeReading()
    /// Waits until `queuedByteCount` is 0 (every byte sent so far handed to the
    /// peer's transport), or `limit` has passed; at once when nothing is queued.
    func waitUntilSent(within limit: Duration) async
}

extension ByteStream {
    /// False unless the transport can tell.
    public var peerHasClosed: Bool { false }
    /// 0 unless the transport can tell.
    public var queuedByteCount: Int { 0 }
    /// At once: a transport that cannot tell has nothing to wait for.
    public func waitUntilClosed(within limit: Duration) async {}
    /// At once: a transport that cannot tell queues nothing (`queuedByteCount` 0).
    public func waitUntilSent(within limit: Duration) async {}
    /// False: the reader pulls `events`.
    public func push(to receiver: @escaping @Sendable (ByteStreamEvent) -> Bool) -> Bool { false }
    /// Nothing: a stream that cannot push never paused.
    public func resumeReading() {}
}

/// A `ByteStream` made of closures, to adapt a transport without a new type
/// (e.g. the TCP shell's connection: map its events into `events`, pass its
/// send and close).
public struct AdaptedByteStream: ByteStream {
    /// The stream given to the init, for its one reader.
    public let events: AsyncStream<ByteStreamEvent>
    /// Who is at the other end, as given to the init.
    public let peerDescription: String
    private let sendBytes: @Sendable ([UInt8]) -> Void
    private let closeStream: @Sendable () -> Void
    private let peerClosed: @Sendable () -> Bool
    private let queued: @Sendable () -> Int
    private let closing: @Sendable (Duration) async -> Void
    private let sending: @Sendable (Duration) async -> Void
    private let pushing: @Sendable (@escaping @Sendable (ByteStreamEvent) -> Bool) -> Bool
    private let resuming: @Sendable () -> Void

    /// A stream whose `send` and `close` call the given closures; they must
    /// not block. `peerHasClosed` answers `ByteStream.peerHasClosed`.
    public init(peerDescription: String, events: AsyncStream<ByteStreamEvent>,
                send: @escaping @Sendable ([UInt8]) -> Void, close: @escaping @Sendable () -> Void,
                peerHasClosed: @escaping @Sendable () -> Bool = { false }, queuedByteCount: @escaping @Sendable () -> Int = { 0 },
                waitUntilClosed: @escaping @Sendable (Duration) async -> Void = { _ in },
                waitUntilSent: @escaping @Sendable (Duration) async -> Void = { _ in },
                push: @escaping @Sendable (@escaping @Sendable (ByteStreamEvent) -> Bool) -> Bool = { _ in false },
                resumeReading: @escaping @Sendable () -> Void = {}) {
        self.peerDescription = peerDescription
        self.events = events
        self.sendBytes = send
        self.closeStream = close
        self.peerClosed = peerHasClosed
        self.queued = queuedByteCount
        self.closing = waitUntilClosed
        self.sending = waitUntilSent
        self.pushing = push
        self.resuming = resumeReading
    }

    /// What the init's `peerHasClosed` closure says (false when none was given).
    public var peerHasClosed: Bool { peerClosed() }
    /// What the init's `queuedByteCount` closure says (0 when none was given).
    public var queuedByteCount: Int { queued() }

    /// Calls the init's `send` closure.
    public func send(_ bytes: [UInt8]) { sendBytes(bytes) }
    /// Calls the init's `close` closure.
    public func close() { closeStream() }
    /// Calls the init's `waitUntilClosed` closure (at once when none was given).
    public func waitUntilClosed(within limit: Duration) async { await closing(limit) }
    /// Calls the init's `waitUntilSent` closure (at once when none was given).
    public func waitUntilSent(within limit: Duration) async { await sending(limit) }
    /// Calls the init's `push` closure (false when none was given: read `events`).
    public func push(to receiver: @escaping @Sendable (ByteStreamEvent) -> Bool) -> Bool { pushing(receiver) }
    /// Calls the init's `resumeReading` closure.
    public func resumeReading() { resuming() }
}
