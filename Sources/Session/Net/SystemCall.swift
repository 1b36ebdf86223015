// The one place where C return codes from socket calls become Swift errors.
@preconcurrency import Glibc

/// A system call failed; carries the call's name and `errno` so a log line
/// says exactly what the kernel refused.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name of the call, e.g. `"bind"` or `"epoll_ctl(ADD)"`.
    public let call: String
    /// The `errno` value the call left behind.
    public let errno: Int32

    /// Creates an error for `call` failing with `errno`.
    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// `"bind failed: Address already in use (errno 98)"`.
    public var description: String {
        "\(call) failed: \(errnoText(errno)) (errno \(errno))"
    }
}

/// The C library's sentence for an errno value.
func errnoText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "unknown error" }
    return String(cString: text)
}

/// Runs a system call, retrying on `EINTR`, and throws `SystemCallError`
/// with the call's name on any other failure (a result of -1).
///
/// Do not use for `close` (Linux frees the descriptor even on EINTR, so a
/// retry could close someone else's new descriptor) or for `connect` (after
/// EINTR the connect carries on in the background; retrying gives EALREADY).
@discardableResult
func syscall<Result: FixedWidthInteger>(_ name: String, _ body: () -> Result) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemCallError(call: name, errno: code)
    }
}

/// The outcome of a non-blocking read or write.
enum NonBlockingResult: Equatable {
    /// The call moved this many bytes (0 on read means end of stream).
    case transferred(Int)
    /// The socket has nothing to give or no room to take; wait for readiness.
    case wouldBlock
}

/// Like `syscall` but turns `EAGAIN`/`EWOULDBLOCK` into `.wouldBlock`.
func nonBlockingSyscall(_ name: String, _ body: () -> Int) throws(SystemCallError) -> NonBlockingResult {
    while true {
        let result = body()
        if result >= 0 { return .transferred(result) }
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
        throw SystemCallError(call: name, errno: code)
    }
}

/// Closes a descriptor exactly once, ignoring errors: there is nothing
/// useful to do about a failed close, and it must never be retried.
func closeDescriptor(_ fd: Int32) {
    if fd >= 0 { _ = Glibc.close(fd) }
}

/// Sets an integer socket option.
func setSocketOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ label: String) throws(SystemCallError) {
    var value = value
    try syscall("setsockopt(\(label))") {
        setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}

/// Reads and clears the pending error of a socket (`SO_ERROR`); 0 when none.
func pendingSocketError(_ fd: Int32) -> Int32 {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    if getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) != 0 { return errno }
    return value
}

/// Makes the next close send a reset instead of a graceful FIN, so an
/// aborted connection frees its buffers at once.
func setLingerZero(_ fd: Int32) {
    var option = linger(l_onoff: 1, l_linger: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
}

/// Nanoseconds on the monotonic clock.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

extension Duration {
    /// The duration in whole nanoseconds, clamped at zero and at `Int64.max`.
    var clampedNanoseconds: UInt64 { UInt64(max(0, wholeNanoseconds)) }

}
