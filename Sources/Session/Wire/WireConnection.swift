import Match
import Synchronization

/// What the reader of a connection hands on, in arrival order.
enum Inbound: Sendable {
    case message(Message)
    case frameError(FrameError)
    case messageError(MessageError)
    /// The stream ended; `midFrame` when a partial frame was left over.
    case closed(String?, midFrame: Bool)
}

/// The thin shell around one `ByteStream`: it feeds what arrives to the pure
/// `FrameDecoder` and hands each message to the current handler, and `send`
/// encodes frames.
///
/// Where the stream can push (TCP), what arrives is decoded and handled on the
/// event loop's thread, inline, as it is read: a handler that does all its work
/// there returns nil, and the next frame is handled right after it, with no task
/// between the socket and the frames a frame causes. A handler that must wait
/// (for its controller, a save, a gate) returns the rest of its work as `Later`:
/// it runs in a task, and the frames after it wait for it, so frames are always
/// handled one at a time, in arrival order (docs/PROTOCOL.md section 8). A
/// stream that cannot push (the in-memory pairs of the tests) is read by a task
/// that does the same.
///
/// The handshake's handler hands the connection to the session by swapping the
/// handler before it (or its `Later`) returns, so no message can slip between
/// the two. After a framing error nothing more is read (the stream has no frame
/// boundary any more); after a GOODBYE nothing is handed on but the end of the stream.
///
/// A final class with a mutex rather than an actor: `send` and `lastHeard`
/// are called synchronously from participants' callbacks, which must not wait.
final class WireConnection: Sendable {
    /// What a handler leaves to do after it returns; the next frame waits for it.
    typealias Later = @Sendable () async -> Void
    /// Takes one inbound frame (or the end); nil when it is done with it.
    typealias Handler = @Sendable (Inbound) -> Later?

    /// One thing to hand on, in order.
    private enum Item {
        case inbound(Inbound)
        /// After a framing error has been handed on: close the stream.
        case closeStream
    }

    private struct State {
        var handler: Handler?
        var lastHeard: ContinuousClock.Instant = .now
        var open = true
        var decoder = FrameDecoder()
        /// GOODBYE is the peer's last word (docs/PROTOCOL.md, section 4): every
        /// frame after it, in the same segment or a later one, is not looked at.
        var heardGoodbye = false
        /// Nothing more is decoded: a framing error, or the end of the stream.
        var finished = false
        /// Decoded and not handed on yet.
        var items: [Item] = []
        /// Whether someone (the loop's thread, or a task running a `Later`) is handing `items` on.
        var handingOn = false
        /// Push mode: the stream was asked to stop reading until `items` are handed on.
        var pausedStream = false
    }

    /// Past this many frames waiting for a handler that waits, the stream stops reading.
    private static let backlogLimit = 64

    let stream: any ByteStream
    private let state = Mutex(State())

    init(stream: any ByteStream) {
        self.stream = stream
    }

    /// Who is at the other end, for logs.
    var peerDescription: String { stream.peerDescription }
    /// Whether the peer has ended the stream already (see `ByteStream.peerHasClosed`).
    var peerHasClosed: Bool { stream.peerHasClosed }
    /// Bytes sent and not yet written to the transport.
    var queuedByteCount: Int { stream.queuedByteCount }

    /// When bytes last arrived (any bytes count as a sign of life).
    var lastHeard: ContinuousClock.Instant { state.withLock { $0.lastHeard } }

    /// Counts the peer as heard now: the session's silence clock starts when
    /// the controller attaches, not at the handshake (the peer had nothing to say
    /// while its side was being set up).
    func markHeard() {
        state.withLock { $0.lastHeard = .now }
    }

    /// Whether the stream is still open.
    var isOpen: Bool { state.withLock { $0.open } }

    /// Replaces the handler that receives what arrives next.
    func setHandler(_ handler: @escaping Handler) {
        state.withLock { $0.handler = handler }
    }

    /// Drops the handler: nothing that arrives from now on is looked at
    /// (a connection replaced by a newer one of the same seat).
    func detach() {
        state.withLock { $0.handler = nil }
    }

    /// Starts reading; `handler` receives everything until it is replaced.
    func start(handler: @escaping Handler) {
        setHandler(handler)
        // The transport holds this connection until it has pushed the end, as a reading task would.
        let pushed = stream.push { [self] event in
            let rest = received(event)
            // Frames pile up only behind a handler that waits; past the limit the socket waits too.
            let pause = state.withLock { state -> Bool in
                if state.handingOn, state.items.count >= Self.backlogLimit { state.pausedStream = true }
                return state.pausedStream
            }
            if let rest { Task { await finish(rest) } }
            return !pause
        }
        guard !pushed else { return }
        Task { [self] in
            for await event in stream.events {
                if let rest = received(event) { await finish(rest) }
            }
            // The stream ended without a `.closed` event.
            if let rest = received(.closed(nil)) { await finish(rest) }
        }
    }

    /// Decodes what arrived and hands it on, inline, until a handler leaves
    /// something to wait for: that, with the frames after it, is returned.
    private func received(_ event: ByteStreamEvent) -> Later? {
        let handsOn = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            switch event {
            case .data(let bytes):
                state.lastHeard = .now
                guard !state.heardGoodbye else { return false }
                state.decoder.append(bytes)
                frames: while true {
                    let frame: Frame?
                    do throws(FrameError) { frame = try state.decoder.next() } catch {
                        state.items.append(.inbound(.frameError(error)))
                        state.items.append(.closeStream)
                        state.finished = true
                        break frames
                    }
                    guard let frame else { break }
                    let message: Message
                    do throws(MessageError) { message = try Message.decode(frame) } catch {
                        state.items.append(.inbound(.messageError(error)))
                        state.items.append(.closeStream)
                        state.finished = true
                        break frames
                    }
                    state.items.append(.inbound(.message(message)))
                    if case .goodbye = message {
                        state.heardGoodbye = true
                        break frames
                    }
                }
            case .closed(let why):
                state.open = false
                state.finished = true
                state.items.append(.inbound(.closed(why, midFrame: !state.heardGoodbye && state.decoder.bufferedByteCount > 0)))
            }
            guard !state.handingOn, !state.items.isEmpty else { return false }
            state.handingOn = true
            return true
        }
        return handsOn ? handOn() : nil
    }

    /// Hands the items on in order while each handler is done at once; the first
    /// `Later` is returned (the items after it wait), nil once all are handed on.
    private func handOn() -> Later? {
        while true {
            let next = state.withLock { state -> (Item, Handler?)? in
                guard !state.items.isEmpty else {
                    state.handingOn = false
                    return nil
                }
                return (state.items.removeFirst(), state.handler)
            }
            guard let (item, handler) = next else { return nil }
            switch item {
            case .closeStream:
                markClosed()
                stream.close()
            case .inbound(let inbound):
                if case .closed = inbound {
                    // Break the connection → handler → participant → connection cycle.
                    state.withLock { $0.handler = nil }
                }
                if let handler, let later = handler(inbound) { return later }
            }
        }
    }

    /// Runs a handler's `Later`, then hands on what waited for it, and lets a paused stream read again.
    private func finish(_ first: @escaping Later) async {
        var next: Later? = first
        while let work = next {
            await work()
            next = handOn()
        }
        let resume = state.withLock { state -> Bool in
            defer { state.pausedStream = false }
            return state.pausedStream
        }
        if resume { stream.resumeReading() }
    }

    private func markClosed() {
        state.withLock { $0.open = false }
    }

    /// Sends one message; ignored once closed.
    func send(_ message: Message) {
        guard isOpen else { return }
        stream.send(message.encoded)
    }

    /// Sends raw bytes (the plain-HTTP answer); ignored once closed.
    func sendRaw(_ bytes: [UInt8]) {
        guard isOpen else { return }
        stream.send(bytes)
    }

    /// Flushes and closes the stream; the reader then sees the end.
    func close() {
        markClosed()
        stream.close()
    }

    /// After `close`, waits until the peer has seen the end too, at most `limit` (`ByteStream.waitUntilClosed`).
    func waitUntilClosed(within limit: Duration) async {
        await stream.waitUntilClosed(within: limit)
    }

    /// Waits until what was sent has left this process, at most `limit` (`ByteStream.waitUntilSent`).
    func waitUntilSent(within limit: Duration) async {
        await stream.waitUntilSent(within: limit)
    }
}
