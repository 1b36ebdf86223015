// One TCP connection on the event loop: bytes in as events, bytes out through
// a bounded queue. No knowledge of frames or messages.
@preconcurrency import Glibc
import Foundation

/// A non-blocking TCP connection served by an `EventLoop`.
///
/// - Inbound bytes arrive through `events` (one consumer at a time): any
///   number of `.data` events, then exactly one `.closed(reason)`, then the
///   sequence ends. At most `Options.readChunk` bytes are read per readiness;
///   when `Options.inboundBufferLimit` bytes wait unconsumed, reading pauses
///   (the kernel's window then slows the peer) until the consumer catches up.
/// - `send` never blocks: it writes what the socket takes at once and queues
///   the rest for the loop to flush. Past `Options.sendQueueLimit` queued bytes
///   the connection is aborted with `.sendQueueOverflow`, so a peer that never
///   reads cannot make us hold unbounded memory.
/// - `close()` is graceful (flush, then FIN, then wait for the peer's FIN,
///   at most `Options.closeTimeout`); `abort()` resets at once.
///
/// `@unchecked Sendable`: every mutable field is guarded by `lock`; socket
/// calls on the descriptor happen under that lock too, so the descriptor is
/// never closed (and its number reused) under a concurrent `send`.
public final class TCPConnection: @unchecked Sendable {
    /// Something that happened on the inbound side.
    public enum Event: Sendable, Hashable {
        /// Bytes from the peer, in order; chunk boundaries mean nothing.
        case data([UInt8])
        /// The connection is over; always the last event.
        case closed(CloseReason)
    }

    /// Why a connection ended.
    public enum CloseReason: Sendable, Hashable, CustomStringConvertible {
        /// The peer closed its side (end of stream).
        case peerClosed
        /// The peer reset the connection (`ECONNRESET` / `EPIPE`).
        case reset
        /// This side called `close()`.
        case closedLocally
        /// This side called `abort()`.
        case aborted
        /// The peer did not read and the send queue passed its limit (bytes).
        case sendQueueOverflow(limit: Int)
        /// A socket call failed, e.g. `ETIMEDOUT` after retransmissions.
        case failed(SystemCallError)

        /// A short phrase for logs and the terminal: "the peer closed the connection".
        public var description: String {
            switch self {
            case .peerClosed: return "the peer closed the connection"
            case .reset: return "the peer reset the connection"
            case .closedLocally: return "the connection was closed"
            case .aborted: return "the connection was aborted"
            case .sendQueueOverflow(let limit): return "the peer stopped reading (more than \(limit) bytes waited to be sent)"
            case .failed(let error): return "the connection failed: \(error)"
            }
        }
    }

    /// Limits for one connection.
    public struct Options: Sendable, Hashable {
        /// Queued outbound bytes beyond which the connection is aborted.
        public var sendQueueLimit: Int
        /// Largest read per readiness (capped at `EventLoop.maximumReadChunk`).
        public var readChunk: Int
        /// Unconsumed inbound bytes at which reading pauses.
        public var inboundBufferLimit: Int
        /// Longest a graceful close (or a flush after the peer closed) may take
        /// before the connection is reset.
        public var closeTimeout: Duration

        /// Defaults: 4 MiB send queue, 64 KiB reads, 1 MiB inbound buffer, 5 s close.
        public init(sendQueueLimit: Int = 4 << 20, readChunk: Int = 64 << 10,
                    inboundBufferLimit: Int = 1 << 20, closeTimeout: Duration = .seconds(5)) {
            self.sendQueueLimit = sendQueueLimit
            self.readChunk = readChunk
            self.inboundBufferLimit = inboundBufferLimit
            self.closeTimeout = closeTimeout
        }
    }

    private enum Phase {
        /// Reading and writing.
        case open
        /// The peer closed; flushing what we still owe it.
        case draining
        /// We closed; flushing, then FIN, then discarding input until the peer's FIN.
        case closing
        /// The descriptor is closed.
        case released
    }

    /// The peer's address (an IPv4 peer of a dual-stack listener shows as IPv4).
    public let remote: SocketAddress?
    /// This side's address.
    public let local: SocketAddress?
    /// The limits this connection was created with.
    public let options: Options
    /// The loop serving this connection.
    public let loop: EventLoop

    /// `"192.0.2.7:50123"` or `"[::1]:7777"`; `"?"` when the kernel would not say.
    public var remoteAddress: String { remote?.description ?? "?" }
    /// This side's address, in the same form as `remoteAddress`.
    public var localAddress: String { local?.description ?? "?" }

    private let lock = NSLock()
    private var fd: Int32
    private var registration: EventLoop.RegistrationID = 0
    /// The epoll interest now installed; 0 means not in the epoll set.
    private var registeredInterest: UInt32 = 0
    private var phase = Phase.open
    private var shutdownSent = false
    private var closeTimer: EventLoop.TimerID?

    private var writeQueue: [[UInt8]] = []
    private var writeHead = 0
    private var writeOffset = 0
    private var queuedBytes = 0

    private var inbound: [Event] = []
    private var inboundHead = 0
    private var inboundBytes = 0
    private var readPaused = false
    private var closedEmitted = false
    private var waiter: CheckedContinuation<Event?, Never>?
    /// A consumer to wake once `lock` is released.
    private var readyResume: (CheckedContinuation<Event?, Never>, Event?)?
    /// Push mode's receiver (`push(to:)`); nil while a reader pulls `events`.
    private var pusher: (@Sendable (Event) -> Bool)?
    /// Whether a thread is handing queued events to the receiver now (one at a time).
    private var pushing = false
    /// Whether a hand-over is queued on the loop already.
    private var pushScheduled = false
    /// The receiver asked that reading stop (it returned false) until `resumeReading`.
    private var pushPaused = false
    /// Tasks waiting for the send queue to empty (`waitUntilSent`) or for the
    /// socket to be released (`waitUntilClosed`), each with its limit's timer.
    private var settleWaiters: [UInt64: SettleWaiter] = [:]
    private var nextWaiterID: UInt64 = 0
    /// Waiters to resume once `lock` is released.
    private var readyWaiters: [CheckedContinuation<Void, Never>] = []

    /// What a settle waiter waits for.
    private enum Settled {
        /// Nothing queued for the socket any more (or the socket is gone).
        case sent
        /// The descriptor is released (the close has finished).
        case released
    }

    private struct SettleWaiter {
        var until: Settled
        var continuation: CheckedContinuation<Void, Never>
        var timer: EventLoop.TimerID
    }

    /// Adopts a connected, non-blocking socket and starts reading.
    ///
    /// On failure the descriptor is closed and the error thrown.
    init(connectedFD: Int32, loop: EventLoop, options: Options) throws(NetError) {
        fd = connectedFD
        self.loop = loop
        self.options = options
        remote = SocketAddress.of(connectedFD, peer: true)?.unmappingIPv4
        local = SocketAddress.of(connectedFD, peer: false)?.unmappingIPv4
        // Turns are small and latency matters more than packet count.
        try? setSocketOption(connectedFD, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "TCP_NODELAY")
        lock.lock()
        defer { lock.unlock() }
        do {
            registration = try loop.register(fd: connectedFD, interest: Readiness.readable, handler: self)
            registeredInterest = Readiness.readable
        } catch {
            closeDescriptor(connectedFD)
            fd = -1
            phase = .released
            throw NetError.systemCall(error)
        }
    }

    deinit {
        // Normally released already; a connection dropped while registered
        // stays alive through the loop's table, so this is a safety net.
        if fd >= 0 { closeDescriptor(fd) }
    }

    // MARK: Public surface

    /// The inbound events; iterate with `for await event in connection.events`.
    public var events: Events { Events(connection: self) }

    /// Inbound events as an `AsyncSequence` with back-pressure.
    ///
    /// One consumer at a time: a second concurrent `next()` returns nil.
    /// Cancelling the task waiting in `next()` makes it return nil without
    /// closing the connection.
    public struct Events: AsyncSequence, Sendable {
        /// Inbound events.
        public typealias Element = Event
        /// Never throws; failures arrive as `.closed(reason)`.
        public typealias Failure = Never
        let connection: TCPConnection

        /// The iterator; all state lives in the connection.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let connection: TCPConnection
            /// The next event, or nil after `.closed` has been returned.
            public mutating func next() async -> Event? { await connection.nextEvent() }
        }

        /// Makes an iterator over the connection's inbound events.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(connection: connection) }
    }

    /// Queues `bytes` for the peer without blocking; safe from any thread.
    ///
    /// Returns false when the bytes will not be sent: the connection is
    /// closing or closed, or this send pushed the queue past
    /// `Options.sendQueueLimit` (the connection is then aborted and the
    /// reader sees `.closed(.sendQueueOverflow)`).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        locked {
            guard phase == .open else { return false }
            if bytes.isEmpty { return true }
            let wasEmpty = writeHead == writeQueue.count
            writeQueue.append(bytes)
            queuedBytes += bytes.count
            // Write straight away from this thread: saves a hop through the
            // loop for the common case of a socket with room in its buffer.
            if wasEmpty { flush() }
            guard phase == .open else { return false }
            if queuedBytes > options.sendQueueLimit {
                emit(.closed(.sendQueueOverflow(limit: options.sendQueueLimit)))
                release(abortive: true)
                return false
            }
            updateInterest()
            return phase == .open
        }
    }

    /// Closes gracefully: no more sends, pending bytes are flushed, then a
    /// FIN, then the socket is released when the peer closes too or after
    /// `Options.closeTimeout`. Unread inbound data is discarded and the reader
    /// sees `.closed(.closedLocally)`. Idempotent; safe from any thread.
    public func close() {
        locked {
            guard phase == .open else { return }
            discardInbound()
            emit(.closed(.closedLocally))
            phase = .closing
            if writeHead == writeQueue.count { sendShutdown() }
            startCloseTimer()
            updateInterest()
        }
    }

    /// Resets the connection at once (RST), dropping queued and unread bytes.
    /// Idempotent; safe from any thread.
    public func abort() {
        locked {
            guard phase != .released else { return }
            if phase == .open {
                discardInbound()
                emit(.closed(.aborted))
            }
            release(abortive: true)
        }
    }

    /// True until `close`, `abort` or the peer ends the connection.
    public var isOpen: Bool { locked { phase == .open } }

    /// Waits while a graceful close is under way (flushing, FIN sent, the
    /// peer's FIN not seen yet), at most `limit`; at once when the connection
    /// is open or released. A process about to exit waits here, so that what
    /// the peer still sends is read (and dropped) by this socket instead of
    /// reaching a closed one, which the kernel answers with a reset that can
    /// overtake our last bytes and lose them.
    ///
    /// Woken by the release of the socket itself (or the limit, on the loop's
    /// timer heap); a cancelled task stops waiting.
    public func waitUntilClosed(within limit: Duration) async {
        await waitUntil(.released, within: limit)
    }

    /// Waits until every byte accepted by `send` has been taken by the kernel
    /// (or the connection is released), at most `limit`; at once when nothing
    /// is queued. A cancelled task stops waiting.
    public func waitUntilSent(within limit: Duration) async {
        await waitUntil(.sent, within: limit)
    }

    private func waitUntil(_ until: Settled, within limit: Duration) async {
        guard limit > .zero else { return }
        let id = locked { () -> UInt64 in
            nextWaiterID += 1
            return nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                locked {
                    if isSettled(until) || Task.isCancelled {
                        readyWaiters.append(continuation)
                        return
                    }
                    // The limit is a timer of this connection's loop, not a task.
                    let timer = loop.schedule(after: limit) { [weak self] in
                        guard let self else { return }
                        self.locked { self.wake(id) }
                    }
                    settleWaiters[id] = SettleWaiter(until: until, continuation: continuation, timer: timer)
                }
            }
        } onCancel: {
            locked { wake(id) }
        }
    }

    /// Whether what `until` waits for has happened. Lock held.
    private func isSettled(_ until: Settled) -> Bool {
        switch until {
        case .sent: phase == .released || writeHead == writeQueue.count
        case .released: phase != .closing && phase != .draining
        }
    }

    /// Resumes waiter `id` (its limit passed, or its task was cancelled) once the lock is released. Lock held.
    private func wake(_ id: UInt64) {
        guard let waiter = settleWaiters.removeValue(forKey: id) else { return }
        loop.cancelTimer(waiter.timer)
        readyWaiters.append(waiter.continuation)
    }

    /// Resumes the waiters whose wait is over. Lock held; called where the send
    /// queue empties and where the socket is released.
    private func wakeSettledWaiters() {
        guard !settleWaiters.isEmpty else { return }
        for (id, waiter) in settleWaiters where isSettled(waiter.until) { wake(id) }
    }

    /// True once the socket is closed (after a graceful close has finished).
    public var isReleased: Bool { locked { phase == .released } }

    /// True when TCP_NODELAY is on (it is set on every connection).
    public var hasNoDelay: Bool {
        locked {
            guard fd >= 0 else { return false }
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0 && value != 0
        }
    }

    /// Whether the connection has ended, or the peer has sent its FIN even if
    /// this side has not read up to it yet (TCP_INFO says CLOSE_WAIT).
    public var peerHasClosed: Bool {
        locked {
            guard phase == .open, fd >= 0 else { return true }
            // struct tcp_info starts with the one-byte tcpi_state.
            var info = [UInt8](repeating: 0, count: 8)
            var length = socklen_t(info.count)
            guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0, length >= 1 else { return false }
            let closeWait: UInt8 = 8, lastAck: UInt8 = 9, closed: UInt8 = 7
            return [closeWait, lastAck, closed].contains(info[0])
        }
    }

    /// Bytes accepted by `send` but not yet taken by the kernel.
    public var queuedByteCount: Int { locked { queuedBytes } }

    /// Push mode: every event from now on goes to `receiver` instead of
    /// `events`, on the loop's thread, one call at a time, in order, outside
    /// this connection's lock (what is queued already goes first). When the
    /// receiver returns false, reading stops until `resumeReading()`.
    /// False, changing nothing, when a reader is waiting in `events` or a
    /// receiver was given already.
    func push(to receiver: @escaping @Sendable (Event) -> Bool) -> Bool {
        locked {
            guard pusher == nil, waiter == nil else { return false }
            pusher = receiver
            return true
        }
    }

    /// In push mode, after the receiver returned false: reading goes on, and what is queued is handed on.
    func resumeReading() {
        locked {
            guard pushPaused else { return }
            pushPaused = false
            updateInterest()
        }
    }

    /// Hands the queued events to the receiver until none is left or it asks
    /// to pause. On the loop's thread: from its readiness handler, or as a task on the loop.
    private func handOnPushes() {
        while true {
            let next = locked { () -> (receiver: @Sendable (Event) -> Bool, event: Event)? in
                pushScheduled = false
                guard let pusher, !pushPaused, let event = popInbound() else {
                    pushing = false
                    return nil
                }
                pushing = true
                return (pusher, event)
            }
            guard let next else { return }
            if case .closed = next.event {
                // Nothing follows the end: the receiver (and what it holds) is let go.
                locked {
                    pusher = nil
                    pushing = false
                }
                _ = next.receiver(next.event)
                return
            }
            if !next.receiver(next.event) {
                locked {
                    pushPaused = true
                    updateInterest()
                }
            }
        }
    }

    /// Whether queued events wait for the receiver and nobody hands them on yet; marks a hand-over as coming. Lock held.
    private func takesPushTurn() -> Bool {
        guard pusher != nil, !pushing, !pushScheduled, !pushPaused, inboundHead < inbound.count else { return false }
        pushScheduled = true
        return true
    }

    // MARK: Loop side

    func nextEvent() async -> Event? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
                locked {
                    if let event = popInbound() {
                        readyResume = (continuation, event)
                    } else if closedEmitted || waiter != nil || Task.isCancelled {
                        readyResume = (continuation, nil)
                    } else {
                        waiter = continuation
                    }
                }
            }
        } onCancel: {
            locked {
                if let waiting = waiter {
                    waiter = nil
                    readyResume = (waiting, nil)
                }
            }
        }
    }

    /// Runs `body` under the lock, then wakes a consumer and the settle waiters
    /// if `body` made them ready. Events queued for a push receiver are handed
    /// on from the loop: here when `handingOn` (the readiness handler, on the
    /// loop's thread, holding no lock of anyone's), else in a task queued on
    /// the loop, since the caller may hold a lock the receiver takes.
    private func locked<Result>(handingOn: Bool = false, _ body: () -> Result) -> Result {
        lock.lock()
        let result = body()
        let resume = readyResume
        readyResume = nil
        let waiters = readyWaiters
        if !waiters.isEmpty { readyWaiters = [] }
        let pushes = takesPushTurn()
        lock.unlock()
        if let (continuation, event) = resume { continuation.resume(returning: event) }
        for waiter in waiters { waiter.resume() }
        if pushes {
            if handingOn { handOnPushes() } else { loop.execute { [self] in handOnPushes() } }
        }
        return result
    }

    /// Hands an event to the waiting consumer or queues it. Lock held.
    private func emit(_ event: Event) {
        if closedEmitted { return }
        if case .closed = event { closedEmitted = true }
        if let waiting = waiter, inboundHead == inbound.count {
            waiter = nil
            readyResume = (waiting, event)
            return
        }
        inbound.append(event)
        if case .data(let bytes) = event {
            inboundBytes += bytes.count
            if inboundBytes >= options.inboundBufferLimit { readPaused = true }
        }
    }

    /// Takes the oldest queued event, resuming reading when the buffer has
    /// drained to half its limit. Lock held.
    private func popInbound() -> Event? {
        guard inboundHead < inbound.count else { return nil }
        let event = inbound[inboundHead]
        inboundHead += 1
        if inboundHead == inbound.count {
            inbound.removeAll(keepingCapacity: inbound.count < 64)
            inboundHead = 0
        } else if inboundHead >= 64, inboundHead * 2 >= inbound.count {
            inbound.removeFirst(inboundHead)
            inboundHead = 0
        }
        if case .data(let bytes) = event {
            inboundBytes -= bytes.count
            if readPaused, inboundBytes <= options.inboundBufferLimit / 2 {
                readPaused = false
                updateInterest()
            }
        }
        return event
    }

    private func discardInbound() {
        inbound.removeAll()
        inboundHead = 0
        inboundBytes = 0
        readPaused = false
    }

    private var wantsRead: Bool { (phase == .open && !readPaused && !pushPaused) || phase == .closing }

    /// Installs the epoll interest the state calls for. Level-triggered, so
    /// interest we cannot act on must go; with none at all the socket leaves
    /// the epoll set, which would otherwise keep reporting a hang-up. Lock held.
    private func updateInterest() {
        guard fd >= 0 else { return }
        let wanted = (wantsRead ? Readiness.readable : 0) | (writeHead < writeQueue.count ? Readiness.writable : 0)
        guard wanted != registeredInterest else { return }
        let operation = registeredInterest == 0 ? LinuxCalls.epollCtlAdd
            : wanted == 0 ? LinuxCalls.epollCtlDel : LinuxCalls.epollCtlMod
        do {
            try loop.control(operation, fd: fd, interest: wanted, id: registration)
            registeredInterest = wanted
        } catch {
            fail(error)
        }
    }

    private func startCloseTimer() {
        guard closeTimer == nil else { return }
        closeTimer = loop.schedule(after: options.closeTimeout) { [weak self] in
            guard let self else { return }
            self.locked { self.release(abortive: true) }
        }
    }

    private func sendShutdown() {
        guard !shutdownSent, fd >= 0 else { return }
        shutdownSent = true
        // ENOTCONN after a reset is harmless: the next read reports the end.
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes the descriptor and leaves the loop. Lock held.
    private func release(abortive: Bool) {
        guard fd >= 0 else { phase = .released; return }
        if abortive { setLingerZero(fd) }
        loop.deregister(fd: fd, id: registration, inEpoll: registeredInterest != 0)
        closeDescriptor(fd)
        fd = -1
        registeredInterest = 0
        phase = .released
        if let timer = closeTimer { loop.cancelTimer(timer) }
        closeTimer = nil
        writeQueue.removeAll()
        writeHead = 0
        writeOffset = 0
        queuedBytes = 0
        wakeSettledWaiters()
    }

    /// Ends the connection after a failed socket call. Lock held.
    private func fail(_ error: SystemCallError) {
        let reason: CloseReason = (error.errno == ECONNRESET || error.errno == EPIPE) ? .reset : .failed(error)
        if phase == .open { emit(.closed(reason)) }
        release(abortive: true)
    }

    /// Reads one bounded chunk. Loop thread only (it uses the loop's buffer). Lock held.
    private func readOnce() {
        let chunk = max(1, min(options.readChunk, EventLoop.maximumReadChunk))
        let buffer = loop.readBuffer
        let result: NonBlockingResult
        do {
            result = try nonBlockingSyscall("read") { Glibc.read(fd, buffer.baseAddress, chunk) }
        } catch {
            fail(error)
            return
        }
        switch result {
        case .wouldBlock:
            return
        case .transferred(0):
            switch phase {
            case .open:
                emit(.closed(.peerClosed))
                if writeHead == writeQueue.count {
                    release(abortive: false)
                } else {
                    phase = .draining
                    startCloseTimer()
                }
            case .closing, .draining, .released:
                release(abortive: false)
            }
        case .transferred(let count):
            // While closing, input is read only to see the peer's FIN.
            if phase == .open {
                emit(.data(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))))
            }
        }
    }

    /// Writes queued chunks until the socket is full or the queue empty. Lock held.
    private func flush() {
        while fd >= 0, writeHead < writeQueue.count {
            let offset = writeOffset
            let socket = fd
            let outcome = writeQueue[writeHead].withUnsafeBytes { raw in
                Result { () throws(SystemCallError) -> NonBlockingResult in
                    try nonBlockingSyscall("send") {
                        Glibc.send(socket, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
                    }
                }
            }
            let result: NonBlockingResult
            switch outcome {
            case .success(let value): result = value
            case .failure(let error):
                fail(error)
                return
            }
            guard case .transferred(let count) = result else { break }
            writeOffset += count
            queuedBytes -= count
            if writeOffset == writeQueue[writeHead].count {
                writeHead += 1
                writeOffset = 0
            }
        }
        if writeHead == writeQueue.count {
            writeQueue.removeAll(keepingCapacity: writeQueue.count < 64)
            writeHead = 0
            switch phase {
            case .draining: release(abortive: false)
            case .closing: sendShutdown()
            case .open, .released: break
            }
            wakeSettledWaiters()
        } else if writeHead >= 64, writeHead * 2 >= writeQueue.count {
            writeQueue.removeFirst(writeHead)
            writeHead = 0
        }
    }
}

extension TCPConnection: EventLoopHandler {
    /// Reacts to readiness; called on the loop thread only.
    func handle(events bits: UInt32) {
        locked(handingOn: true) {
            guard fd >= 0 else { return }
            let trouble = Readiness.error | Readiness.hangUp
            if bits & (Readiness.readable | trouble) != 0, wantsRead { readOnce() }
            if fd >= 0, bits & (Readiness.writable | trouble) != 0, writeHead < writeQueue.count { flush() }
            if fd >= 0, bits & Readiness.error != 0 {
                let code = pendingSocketError(fd)
                if code != 0 { fail(SystemCallError(call: "SO_ERROR", errno: code)) }
            }
            if fd >= 0, bits & Readiness.hangUp != 0, !wantsRead {
                // Both directions are gone and we were not reading: nothing
                // more can happen on this socket.
                if phase == .open { emit(.closed(.reset)) }
                release(abortive: false)
            }
            updateInterest()
        }
    }
}
