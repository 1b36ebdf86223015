// Outbound connections: resolve off the loop, then non-blocking connects with
// a per-attempt timeout, one address after another.
@preconcurrency import Glibc
import Foundation

extension TCPConnection {
    /// Resolves `host` (a name, `192.0.2.7`, `::1`, `[::1]` or
    /// `fe80::1%eth0`) and connects to the first address that answers.
    ///
    /// Resolution runs on a short-lived thread (getaddrinfo blocks) and is
    /// also bounded by `timeout`; each address then gets `timeout` to answer.
    /// - Throws: `NetError.unknownHost`, `NetError.connectFailed` (every
    ///   address tried, each with its `ConnectFailure`), or `CancellationError`.
    public static func connect(
        host: String,
        port: UInt16,
        timeout: Duration = .seconds(5),
        options: Options = .init(),
        loop: EventLoop? = nil
    ) async throws -> TCPConnection {
        let loop = try EventLoop.given(loop)
        let addresses = try await resolve(host: host, port: port, timeout: timeout, loop: loop)
        return try await connect(addresses: addresses, label: host, port: port, timeout: timeout, options: options, loop: loop)
    }

    /// Connects to the first of `addresses` that answers, in the order given
    /// (for callers that resolved already, e.g. DNS-SD with an interface index).
    ///
    /// - Throws: `NetError.connectFailed` or `CancellationError`.
    public static func connect(
        addresses: [SocketAddress],
        timeout: Duration = .seconds(5),
        options: Options = .init(),
        loop: EventLoop? = nil
    ) async throws -> TCPConnection {
        let loop = try EventLoop.given(loop)
        let label = addresses.first.map { $0.ipAddress } ?? "(no address)"
        return try await connect(addresses: addresses, label: label, port: addresses.first?.port ?? 0,
                                 timeout: timeout, options: options, loop: loop)
    }

    private static func connect(
        addresses: [SocketAddress], label: String, port: UInt16,
        timeout: Duration, options: Options, loop: EventLoop
    ) async throws -> TCPConnection {
        var attempts: [ConnectAttempt] = []
        for address in addresses {
            try Task.checkCancellation()
            let operation = ConnectOperation(address: address, timeout: timeout, loop: loop)
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { operation.start($0) }
            } onCancel: {
                operation.cancel()
            }
            switch outcome {
            case .connected(let fd):
                return try TCPConnection(connectedFD: fd, loop: loop, options: options)
            case .failed(let failure):
                attempts.append(ConnectAttempt(address: address, failure: failure))
            case .cancelled:
                throw CancellationError()
            }
        }
        throw NetError.connectFailed(host: label, port: port, attempts: attempts)
    }

    /// Host text to addresses: numeric forms directly, names through getaddrinfo.
    static func resolve(host: String, port: UInt16, timeout: Duration, loop: EventLoop) async throws -> [SocketAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if let numeric = try? SocketAddress(ipAddress: name, port: port) { return [numeric] }
        if name.contains("%") {
            // A scoped address whose interface does not exist: say so rather
            // than asking DNS about it.
            _ = try SocketAddress(ipAddress: name, port: port)
        }
        let lookup = Resolution(host: name, port: port)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lookup.start(continuation, timeout: timeout, loop: loop)
            }
        } onCancel: {
            lookup.finish(.failure(CancellationError()))
        }
    }
}

/// One getaddrinfo call on its own thread, finished by its result, a
/// timeout or cancellation, whichever comes first.
///
/// `@unchecked Sendable`: `continuation` and `done` are guarded by `lock`.
private final class Resolution: @unchecked Sendable {
    let host: String
    let port: UInt16
    private let lock = NSLock()
    private var continuation: CheckedContinuation<[SocketAddress], Error>?
    private var pending: Result<[SocketAddress], Error>?

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    func start(_ continuation: CheckedContinuation<[SocketAddress], Error>, timeout: Duration, loop: EventLoop) {
        lock.lock()
        if let pending {
            lock.unlock()
            continuation.resume(with: pending)
            return
        }
        self.continuation = continuation
        lock.unlock()
        loop.schedule(after: timeout) { [self] in
            finish(.failure(NetError.unknownHost(host: host, reason: "the name lookup took longer than \(timeout)")))
        }
        let thread = Thread { [self] in finish(Self.lookUp(host: host, port: port)) }
        thread.name = "parlor-resolve"
        thread.start()
    }

    /// Resumes the waiter once; later results are dropped.
    func finish(_ result: Result<[SocketAddress], Error>) {
        lock.lock()
        guard pending == nil else { lock.unlock(); return }
        pending = result
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(with: result)
    }

    private static func lookUp(host: String, port: UInt16) -> Result<[SocketAddress], Error> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else {
            let reason: String
            if code == EAI_SYSTEM {
                reason = errnoText(errno)
            } else if let text = gai_strerror(code) {
                reason = String(cString: text)
            } else {
                reason = "resolver error \(code)"
            }
            return .failure(NetError.unknownHost(host: host, reason: reason))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let raw = entry.pointee.ai_addr,
               let address = SocketAddress(UnsafeRawPointer(raw), length: Int(entry.pointee.ai_addrlen)),
               !addresses.contains(address) {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        if addresses.isEmpty {
            return .failure(NetError.unknownHost(host: host, reason: "the name has no IPv4 or IPv6 address"))
        }
        return .success(addresses)
    }
}

/// How one connection attempt ended.
enum ConnectOutcome: Sendable {
    case connected(Int32)
    case failed(ConnectFailure)
    case cancelled
}

/// One non-blocking connect to one address, with its timeout.
///
/// `@unchecked Sendable`: all mutable fields are guarded by `lock`; exactly
/// one of writability, the timer and cancellation wins and resumes.
private final class ConnectOperation: EventLoopHandler, @unchecked Sendable {
    let address: SocketAddress
    let timeout: Duration
    let loop: EventLoop
    private let lock = NSLock()
    private var fd: Int32 = -1
    private var registration: EventLoop.RegistrationID = 0
    private var registered = false
    private var timer: EventLoop.TimerID?
    private var continuation: CheckedContinuation<ConnectOutcome, Never>?
    private var cancelled = false
    private var finished = false

    init(address: SocketAddress, timeout: Duration, loop: EventLoop) {
        self.address = address
        self.timeout = timeout
        self.loop = loop
    }

    func start(_ continuation: CheckedContinuation<ConnectOutcome, Never>) {
        lock.lock()
        if cancelled {
            finished = true
            lock.unlock()
            continuation.resume(returning: .cancelled)
            return
        }
        self.continuation = continuation
        let socketFD = socket(address.cFamily, Int32(SOCK_STREAM.rawValue) | LinuxCalls.socketNonblock | LinuxCalls.socketCloexec, 0)
        guard socketFD >= 0 else {
            let code = errno
            lock.unlock()
            complete(.failed(ConnectFailure.classify(errno: code, call: "socket")))
            return
        }
        fd = socketFD
        let result = address.withSockAddr { Glibc.connect(socketFD, $0, $1) }
        let code = errno
        if result == 0 {
            lock.unlock()
            complete(.connected(socketFD))
            return
        }
        // EINTR: the connect goes on in the background, exactly like EINPROGRESS.
        guard code == EINPROGRESS || code == EINTR else {
            lock.unlock()
            complete(.failed(ConnectFailure.classify(errno: code, call: "connect")))
            return
        }
        do {
            registration = try loop.register(fd: socketFD, interest: Readiness.writable, handler: self)
            registered = true
        } catch {
            lock.unlock()
            complete(.failed(.failed(error)))
            return
        }
        let limit = timeout
        timer = loop.schedule(after: limit) { [weak self] in self?.complete(.failed(.timedOut(limit))) }
        lock.unlock()
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let started = continuation != nil
        lock.unlock()
        if started { complete(.cancelled) }
    }

    func handle(events: UInt32) {
        // Everything under the lock: once the timer has closed the socket,
        // its number may belong to someone else and must not be touched.
        lock.lock()
        let socketFD = fd
        guard socketFD >= 0, !finished else { lock.unlock(); return }
        let outcome: ConnectOutcome
        let code = pendingSocketError(socketFD)
        if code != 0 {
            outcome = .failed(ConnectFailure.classify(errno: code, call: "connect"))
        } else if SocketAddress.of(socketFD, peer: true) == nil {
            // Writable without an error but not connected: treat as a refusal.
            outcome = .failed(.refused)
        } else {
            outcome = .connected(socketFD)
        }
        let resume = finishLocked(outcome)
        lock.unlock()
        resume?()
    }

    /// Resumes the waiter exactly once; on anything but success the socket is closed.
    private func complete(_ outcome: ConnectOutcome) {
        lock.lock()
        let resume = finishLocked(outcome)
        lock.unlock()
        resume?()
    }

    /// Settles the attempt; returns the wake-up to run once the lock is released.
    private func finishLocked(_ outcome: ConnectOutcome) -> (() -> Void)? {
        guard !finished, let waiting = continuation else { return nil }
        finished = true
        continuation = nil
        if registered { loop.deregister(fd: fd, id: registration, inEpoll: true) }
        registered = false
        if let timer { loop.cancelTimer(timer) }
        var result = outcome
        // On success the descriptor now belongs to the TCPConnection.
        if case .connected = outcome {} else { closeDescriptor(fd) }
        // A kernel ETIMEDOUT carries no duration; report the one we allowed.
        if case .failed(.timedOut(.zero)) = outcome { result = .failed(.timedOut(timeout)) }
        fd = -1
        return { waiting.resume(returning: result) }
    }
}
