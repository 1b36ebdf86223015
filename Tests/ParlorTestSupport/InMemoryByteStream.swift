// Moved from Sources/Session/Protocol/ByteStream.swift: a test double lives
// in the test support module, not in Session.
import Session
import Synchronization

/// Two connected in-memory streams, for tests and benchmarks: what one sends
/// the other receives, in order, optionally late, tampered with or lost.
public final class InMemoryByteStream: ByteStream {
    /// Faults applied to what this end sends, settable while running.
    public struct Faults: Sendable {
        /// Added to the delivery time of every chunk; order is kept.
        public var delay: Duration = .zero
        /// When true, every chunk sent is silently lost (a half-open link).
        public var dropEverything = false
        /// Rewrites each sent chunk; return nil to lose it. One `send` is one chunk.
        public var transform: (@Sendable ([UInt8]) -> [UInt8]?)?

        /// No faults.
        public init(delay: Duration = .zero, dropEverything: Bool = false,
                    transform: (@Sendable ([UInt8]) -> [UInt8]?)? = nil) {
            self.delay = delay
            self.dropEverything = dropEverything
            self.transform = transform
        }
    }

    private enum Item: Sendable {
        case data([UInt8])
        case close
    }

    private struct Shared: Sendable {
        var closed = false
        var faults = Faults()
    }

    public let events: AsyncStream<ByteStreamEvent>
    public let peerDescription: String
    private let inbox: AsyncStream<ByteStreamEvent>.Continuation
    /// Queue towards the peer; a pump task delivers each item at its due time.
    private let outbox: AsyncStream<(Item, ContinuousClock.Instant)>.Continuation
    private let shared = Mutex(Shared())
    /// Bytes the peer has not read yet are not limited: tests send little.
    private init(name: String, events: AsyncStream<ByteStreamEvent>, inbox: AsyncStream<ByteStreamEvent>.Continuation,
                 outbox: AsyncStream<(Item, ContinuousClock.Instant)>.Continuation) {
        self.peerDescription = name
        self.events = events
        self.inbox = inbox
        self.outbox = outbox
    }

    /// A connected pair; `first` is usually the connecting side, `second` the accepted one.
    public static func pair(firstName: String = "memory:guest", secondName: String = "memory:host")
        -> (first: InMemoryByteStream, second: InMemoryByteStream) {
        let (eventsA, inboxA) = AsyncStream<ByteStreamEvent>.makeStream(bufferingPolicy: .unbounded)
        let (eventsB, inboxB) = AsyncStream<ByteStreamEvent>.makeStream(bufferingPolicy: .unbounded)
        let (wireAB, outboxA) = AsyncStream<(Item, ContinuousClock.Instant)>.makeStream(bufferingPolicy: .unbounded)
        let (wireBA, outboxB) = AsyncStream<(Item, ContinuousClock.Instant)>.makeStream(bufferingPolicy: .unbounded)
        // `first` is seen by `second` under `firstName`, and the other way round.
        let a = InMemoryByteStream(name: secondName, events: eventsA, inbox: inboxA, outbox: outboxA)
        let b = InMemoryByteStream(name: firstName, events: eventsB, inbox: inboxB, outbox: outboxB)
        pump(wireAB, into: b)
        pump(wireBA, into: a)
        return (a, b)
    }

    /// Delivers queued items to `receiver` in order, each no earlier than its due time.
    private static func pump(_ wire: AsyncStream<(Item, ContinuousClock.Instant)>, into receiver: InMemoryByteStream) {
        Task {
            for await (item, due) in wire {
                if due > .now { try? await Task.sleep(until: due, clock: .continuous) }
                switch item {
                case .data(let bytes):
                    if !receiver.isClosed { receiver.inbox.yield(.data(bytes)) }
                case .close:
                    receiver.peerClosed()
                    return
                }
            }
        }
    }

    private var isClosed: Bool { shared.withLock { $0.closed } }

    private func peerClosed() {
        let wasOpen = shared.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard wasOpen else { return }
        inbox.yield(.closed(nil))
        inbox.finish()
        outbox.yield((.close, .now))
        outbox.finish()
    }

    /// Changes the faults applied to what this end sends from now on.
    public func setFaults(_ faults: Faults) {
        shared.withLock { $0.faults = faults }
    }

    public func send(_ bytes: [UInt8]) {
        let (closed, faults) = shared.withLock { ($0.closed, $0.faults) }
        guard !closed, !faults.dropEverything else { return }
        var chunk = bytes
        if let transform = faults.transform {
            guard let changed = transform(bytes) else { return }
            chunk = changed
        }
        outbox.yield((.data(chunk), .now + faults.delay))
    }

    public func close() {
        let (wasOpen, delay) = shared.withLock { state in
            defer { state.closed = true }
            return (!state.closed, state.faults.delay)
        }
        guard wasOpen else { return }
        outbox.yield((.close, .now + delay))
        outbox.finish()
        inbox.yield(.closed(nil))
        inbox.finish()
    }

    /// Ends the stream on this side as if the network failed: the local reader
    /// sees `.closed(reason)`, the peer sees an end of stream.
    public func fail(_ reason: String) {
        let wasOpen = shared.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard wasOpen else { return }
        outbox.yield((.close, .now))
        outbox.finish()
        inbox.yield(.closed(reason))
        inbox.finish()
    }
}
