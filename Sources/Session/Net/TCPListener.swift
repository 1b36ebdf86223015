// A listening socket on the event loop; accepted connections come out of an AsyncStream.
@preconcurrency import Glibc
import Foundation

/// A TCP listening socket on IPv4 and IPv6, served by an `EventLoop`.
///
/// With `.allInterfaces` it is one `AF_INET6` socket with `IPV6_V6ONLY` off,
/// so one port serves both families; where IPv6 is unavailable it falls back
/// to an IPv4-only socket (`servesIPv6` then says false).
///
/// Accepted connections are delivered on `connections`, already reading.
/// Capping connections that were accepted but not yet claimed is the
/// caller's business. When the process runs out of descriptors (`EMFILE`)
/// the listener stops accepting for `acceptBackoff` instead of spinning. It
/// never takes the last `descriptorHeadroom` descriptors below the soft
/// limit: a connection accepted into them is closed at once and accepting
/// pauses the same way, so a flood of connections cannot leave the process
/// at its limit, where libdispatch traps (its thread-pool monitor opens
/// files under /proc and crashes when it cannot) and a save cannot open its file.
///
/// `@unchecked Sendable`: mutable fields are guarded by `lock`.
public final class TCPListener: @unchecked Sendable {
    /// Where to listen.
    public enum Address: Sendable, Hashable {
        /// Every interface, IPv6 and IPv4 (`::` dual-stack, or `0.0.0.0`).
        case allInterfaces
        /// One address, e.g. 127.0.0.1 or ::1 (its port is ignored).
        case specific(SocketAddress)
    }

    /// The bound address with the real port (the system's choice for port 0).
    public let localAddress: SocketAddress
    /// True when IPv6 clients can connect.
    public let servesIPv6: Bool
    /// True when IPv4 clients can connect.
    public let servesIPv4: Bool
    /// Accepted connections, in order. Cancelling the task that iterates it
    /// closes the listener (nothing could receive further connections);
    /// otherwise call `close()`, which also ends this stream.
    public let connections: AsyncStream<TCPConnection>
    /// The loop serving this listener and its accepted connections.
    public let loop: EventLoop
    /// How long accepting pauses after the process ran out of descriptors or memory.
    public let acceptBackoff: Duration
    /// Descriptors below the soft limit that accepting leaves free for the rest of the process.
    public static let descriptorHeadroom: Int32 = 16

    /// The TCP port clients connect to.
    public var port: UInt16 { localAddress.port }

    private let connectionOptions: TCPConnection.Options
    private let continuation: AsyncStream<TCPConnection>.Continuation
    private let lock = NSLock()
    private var fd: Int32
    private var registration: EventLoop.RegistrationID = 0
    private var inEpoll = false
    private var backoffs = 0
    private var accepted = 0

    /// Listens on `port` (0 lets the system choose) and starts accepting.
    ///
    /// - Throws: `NetError.addressInUse` when the port is taken (see
    ///   `listen(preferredPort:)` for the fallback), or `NetError.systemCall`.
    public static func listen(
        port: UInt16,
        on address: Address = .allInterfaces,
        backlog: Int32 = 128,
        connectionOptions: TCPConnection.Options = .init(),
        acceptBackoff: Duration = .milliseconds(100),
        loop: EventLoop? = nil
    ) throws(NetError) -> TCPListener {
        let loop = try EventLoop.given(loop)
        let bound = try bindSocket(port: port, address: address, backlog: backlog)
        return try TCPListener(fd: bound.fd, servesIPv4: bound.v4, servesIPv6: bound.v6, loop: loop,
                               connectionOptions: connectionOptions, acceptBackoff: acceptBackoff)
    }

    /// Listens on `preferredPort`, or on a port the system chooses if that
    /// one is taken.
    ///
    /// Returns the listener and whether it got the preferred port; the
    /// listener's `port` is the one to print. Throws only when listening
    /// fails for another reason.
    public static func listen(
        preferredPort: UInt16,
        on address: Address = .allInterfaces,
        backlog: Int32 = 128,
        connectionOptions: TCPConnection.Options = .init(),
        loop: EventLoop? = nil
    ) throws(NetError) -> (listener: TCPListener, gotPreferredPort: Bool) {
        do {
            let listener = try listen(port: preferredPort, on: address, backlog: backlog,
                                      connectionOptions: connectionOptions, loop: loop)
            return (listener, true)
        } catch .addressInUse {
            let listener = try listen(port: 0, on: address, backlog: backlog,
                                      connectionOptions: connectionOptions, loop: loop)
            return (listener, false)
        }
    }

    private init(fd: Int32, servesIPv4: Bool, servesIPv6: Bool, loop: EventLoop,
                 connectionOptions: TCPConnection.Options, acceptBackoff: Duration) throws(NetError) {
        self.fd = fd
        self.loop = loop
        self.servesIPv4 = servesIPv4
        self.servesIPv6 = servesIPv6
        self.connectionOptions = connectionOptions
        self.acceptBackoff = acceptBackoff
        guard let bound = SocketAddress.of(fd, peer: false) else {
            let code = errno
            closeDescriptor(fd)
            throw NetError.systemCall(SystemCallError(call: "getsockname", errno: code))
        }
        localAddress = bound
        (connections, continuation) = AsyncStream.makeStream(of: TCPConnection.self)
        // Locked so the loop cannot accept before `registration` is stored.
        lock.lock()
        do {
            registration = try loop.register(fd: fd, interest: Readiness.readable, handler: self)
            inEpoll = true
            lock.unlock()
        } catch {
            closeDescriptor(fd)
            self.fd = -1
            lock.unlock()
            continuation.finish()
            throw NetError.systemCall(error)
        }
        continuation.onTermination = { [weak self] _ in self?.close() }
    }

    deinit {
        if fd >= 0 { closeDescriptor(fd) }
        continuation.finish()
    }

    /// Stops listening and ends `connections`. Connections already accepted
    /// stay open. Idempotent; safe from any thread.
    public func close() {
        lock.lock()
        if fd >= 0 {
            loop.deregister(fd: fd, id: registration, inEpoll: inEpoll)
            closeDescriptor(fd)
            fd = -1
            inEpoll = false
        }
        lock.unlock()
        continuation.finish()
    }

    /// How many times accepting paused for lack of descriptors or memory.
    public var acceptBackoffCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return backoffs
    }

    /// Connections accepted so far.
    public var acceptedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    /// Creates, configures, binds and listens; returns the descriptor and the
    /// families it serves.
    private static func bindSocket(port: UInt16, address: Address, backlog: Int32) throws(NetError) -> (fd: Int32, v4: Bool, v6: Bool) {
        switch address {
        case .specific(let socketAddress):
            let fd = try openListeningSocket(socketAddress.withPort(port), dualStack: false, backlog: backlog)
            return (fd, socketAddress.family == .ipv4, socketAddress.family == .ipv6)
        case .allInterfaces:
            let any6 = (try? SocketAddress(ipAddress: "::", port: port))
            if let any6 {
                do {
                    let fd = try openListeningSocket(any6, dualStack: true, backlog: backlog)
                    return (fd, true, true)
                } catch .addressInUse {
                    throw NetError.addressInUse(port: port)
                } catch {
                    // IPv6 missing or disabled: fall through to IPv4 only.
                }
            }
            let any4 = try SocketAddress(ipAddress: "0.0.0.0", port: port)
            let fd = try openListeningSocket(any4, dualStack: false, backlog: backlog)
            return (fd, true, false)
        }
    }

    private static func openListeningSocket(_ address: SocketAddress, dualStack: Bool, backlog: Int32) throws(NetError) -> Int32 {
        let fd: Int32
        do {
            fd = try syscall("socket") {
                socket(address.cFamily, Int32(SOCK_STREAM.rawValue) | LinuxCalls.socketNonblock | LinuxCalls.socketCloexec, 0)
            }
        } catch { throw NetError.systemCall(error) }
        do {
            // Lets a restarted host take its port back while old connections linger in TIME_WAIT.
            try setSocketOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR")
            if address.family == .ipv6 {
                try setSocketOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, dualStack ? 0 : 1, "IPV6_V6ONLY")
            }
            try syscall("bind") { address.withSockAddr { bind(fd, $0, $1) } }
            try syscall("listen") { Glibc.listen(fd, backlog) }
            return fd
        } catch {
            closeDescriptor(fd)
            if error.errno == EADDRINUSE { throw NetError.addressInUse(port: address.port) }
            throw NetError.systemCall(error)
        }
    }

    /// Stops watching the socket for `acceptBackoff`; level-triggered epoll
    /// would otherwise report the waiting connection again at once. Lock held.
    private func pauseAccepting() {
        backoffs += 1
        if inEpoll {
            try? loop.control(LinuxCalls.epollCtlDel, fd: fd, interest: 0, id: registration)
            inEpoll = false
        }
        loop.schedule(after: acceptBackoff) { [weak self] in self?.resumeAccepting() }
    }

    private func resumeAccepting() {
        lock.lock()
        defer { lock.unlock() }
        guard fd >= 0, !inEpoll else { return }
        do {
            try loop.control(LinuxCalls.epollCtlAdd, fd: fd, interest: Readiness.readable, id: registration)
            inEpoll = true
        } catch {
            pauseAccepting()
        }
    }
}

extension TCPListener: EventLoopHandler {
    /// Accepts up to a batch of waiting connections; loop thread only.
    func handle(events: UInt32) {
        guard let calls = LinuxCalls.table else { return }
        var fresh: [TCPConnection] = []
        // Descriptors are numbered lowest-free first: one numbered this high
        // means nearly all below it are open.
        let ceiling = (try? DescriptorLimit.current().soft).map { Int32(clamping: $0) - Self.descriptorHeadroom } ?? .max
        lock.lock()
        acceptLoop: for _ in 0..<64 {
            guard fd >= 0 else { break }
            let client = calls.accept4(fd, nil, nil, LinuxCalls.socketNonblock | LinuxCalls.socketCloexec)
            if client >= ceiling {
                closeDescriptor(client)
                pauseAccepting()
                break acceptLoop
            }
            if client >= 0 {
                do {
                    fresh.append(try TCPConnection(connectedFD: client, loop: loop, options: connectionOptions))
                    accepted += 1
                } catch {
                    // The loop could not take the socket (e.g. out of memory); it is closed.
                    pauseAccepting()
                    break acceptLoop
                }
                continue
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK:
                break acceptLoop
            case EINTR, ECONNABORTED, EPROTO, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH, EPERM:
                // The connection died before we took it, or a firewall said
                // no: the next one may be fine (accept(2), "Error handling").
                continue
            default:
                // EMFILE, ENFILE, ENOBUFS, ENOMEM and anything unexpected:
                // retrying at once would spin, so pause.
                pauseAccepting()
                break acceptLoop
            }
        }
        lock.unlock()
        for connection in fresh {
            if case .terminated = continuation.yield(connection) { connection.abort() }
        }
    }
}
