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

/// The thin shell around one `ByteStream`: a reader task that feeds the
/// pure `FrameDecoder` and passes each message to the current handler, and
/// a `send` that encodes frames.
///
/// One handler call at a time, in order: the handshake's handler hands the
/// connection to the session by swapping the handler before it returns, so
/// no message can slip between the two. After a framing error the reader
/// stops (the stream has no frame boundary any more); after a GOODBYE it
/// hands on nothing but the end of the stream.
///
/// A final class with a mutex rather than an actor: `send` and `lastHeard`
/// are called synchronously from participants' callbacks, which must not wait.
final class WireConnection: Sendable {
    typealias Handler = @Sendable (Inbound) async -> Void

    private struct State {
        var handler: Handler?
        var lastHeard: ContinuousClock.Instant = .now
        var open = true
        var reader: Task<Void, Never>?
    }

    let stream: any ByteStream
    private let state = Mutex(State())
    /// Whether the reader has no partial frame and has not heard GOODBYE: a
    /// chunk that arrives while it waits starts at a frame boundary.
    private let atFrameBoundary = Atomic<Bool>(false)

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

    /// From now on, chunks made only of whole HEARTBEAT frames that arrive while
    /// the reader waits are noted as heard by the transport and go no further
    /// (no task wakes for them): for an in-match link, where a heartbeat is
    /// only a sign of life. A thousand idle tables hear 200 a second.
    func absorbHeartbeats() {
        stream.setIdleAbsorber { [weak self] bytes in self?.absorbIfOnlyHeartbeats(bytes) ?? false }
    }

    private func absorbIfOnlyHeartbeats(_ bytes: [UInt8]) -> Bool {
        guard atFrameBoundary.load(ordering: .acquiring) else { return false }
        var decoder = FrameDecoder()
        decoder.append(bytes)
        var beats = 0
        while true {
            guard let frame = try? decoder.next() else { break }
            guard frame.type == .heartbeat, case .heartbeat? = try? Message.decode(frame) else { return false }
            beats += 1
        }
        guard beats > 0, decoder.bufferedByteCount == 0 else { return false }
        markHeard()
        return true
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
        let task = Task { [self] in await readLoop() }
        state.withLock { $0.reader = task }
    }

    private func dispatch(_ inbound: Inbound) async {
        guard let handler = state.withLock({ $0.handler }) else { return }
        await handler(inbound)
    }

    private func readLoop() async {
        var decoder = FrameDecoder()
        // GOODBYE is the peer's last word (docs/PROTOCOL.md, section 4): every
        // frame after it, in the same segment or a later one, is not looked at.
        var heardGoodbye = false
        for await event in stream.events {
            switch event {
            case .data(let bytes):
                state.withLock { $0.lastHeard = .now }
                guard !heardGoodbye else { continue }
                decoder.append(bytes)
                frames: while true {
                    let frame: Frame?
                    do { frame = try decoder.next() } catch {
                        await dispatch(.frameError(error))
                        markClosed()
                        stream.close()
                        return
                    }
                    guard let frame else { break }
                    let message: Message
                    do { message = try Message.decode(frame) } catch {
                        await dispatch(.messageError(error))
                        markClosed()
                        stream.close()
                        return
                    }
                    await dispatch(.message(message))
                    if case .goodbye = message {
                        heardGoodbye = true
                        break frames
                    }
                }
                atFrameBoundary.store(!heardGoodbye && decoder.bufferedByteCount == 0, ordering: .releasing)
            case .closed(let why):
                atFrameBoundary.store(false, ordering: .releasing)
                markClosed()
                await dispatch(.closed(why, midFrame: !heardGoodbye && decoder.bufferedByteCount > 0))
                // Break the connection → handler → participant → connection cycle.
                state.withLock { $0.handler = nil }
                return
            }
        }
        // The stream ended without a `.closed` event.
        markClosed()
        await dispatch(.closed(nil, midFrame: !heardGoodbye && decoder.bufferedByteCount > 0))
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
