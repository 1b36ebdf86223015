#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// Why the terminal could not be set up; the text says what to do.
public enum TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file descriptor is not a terminal (a pipe or a file): use plain mode.
    case notATerminal(fd: Int32)
    /// A system call failed.
    case systemCall(String, errno: Int32)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .notATerminal(let fd): "file descriptor \(fd) is not a terminal; use --plain"
        case .systemCall(let name, let code): "\(name) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Retries a system call interrupted by a signal (EINTR); returns the last result.
@discardableResult
func retryingEINTR(_ call: () -> Int) -> Int {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

/// The controlling terminal of this process: raw mode, the alternate screen,
/// the window size, and writes that notice the terminal going away.
///
/// The only type in parlor that touches termios. It remembers the original
/// settings and puts them back on every way out: `restore()` (idempotent,
/// safe from any thread), process exit (an `atexit` hook), and the signal
/// handlers of the frontends, which call `restore()` before anything else.
///
/// A class guarded by a lock (not an actor) because restoring must work
/// synchronously from a signal source's queue and from `atexit`.
public final class Terminal: Sendable {
    private struct State: @unchecked Sendable {  // termios is a plain C struct
        var original: termios?
        var fullScreen = false
        var lost = false
    }

    /// Where keys are read from (normally 0).
    public let inputFD: Int32
    /// Where frames are written (normally 1).
    public let outputFD: Int32
    private let state = Mutex(State())

    /// The terminal on `input` and `output`; nothing changes until `enterFullScreen()`.
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        inputFD = input
        outputFD = output
    }

    /// Whether `fd` is a terminal.
    public static func isTTY(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Whether `fd` can be seen, without reading from it, to hold no input at
    /// all: `/dev/null`, a closed descriptor, an empty file read to its end, or
    /// a pipe or socket whose writer is gone with nothing left in it. False
    /// for a terminal, and for a pipe that may still bring lines later.
    public static func hasNoInput(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return errno == EBADF }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return lseek(fd, 0, SEEK_CUR) >= info.st_size
        case S_IFCHR:
            guard isatty(fd) != 1 else { return false }
            var null = stat()
            return stat("/dev/null", &null) == 0 && null.st_rdev == info.st_rdev
        case S_IFIFO, S_IFSOCK:
            var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 0) == 1, poll.revents & Int16(POLLHUP) != 0 else { return false }
            var waiting: Int32 = 0
            return ioctl(fd, UInt(FIONREAD), &waiting) == 0 && waiting == 0
        default:
            return false
        }
    }

    /// Whether writes have failed because the terminal is gone (SSH disconnect, EIO).
    public var isLost: Bool { state.withLock { $0.lost } }

    /// Raw input (no echo, no line editing, no signals from keys), the
    /// alternate screen, hidden cursor. Throws if either side is not a terminal.
    public func enterFullScreen() throws(TerminalError) {
        guard Self.isTTY(inputFD) else { throw .notATerminal(fd: inputFD) }
        guard Self.isTTY(outputFD) else { throw .notATerminal(fd: outputFD) }
        var original = termios()
        guard tcgetattr(inputFD, &original) == 0 else { throw .systemCall("tcgetattr", errno: errno) }
        var raw = original
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR | ISTRIP | BRKINT | PARMRK)
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL | ISIG | IEXTEN)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        try apply(raw, original: original, fullScreen: true)
        _ = write(ScreenControl.enter)
    }

    /// Keys one at a time without echo, on the normal screen, for a waiting
    /// screen where q or Esc stops the wait; output and Ctrl-C (SIGINT) work
    /// as before. `restore()` puts the settings back. Throws if the input is not a terminal.
    public func enterKeyReading() throws(TerminalError) {
        guard Self.isTTY(inputFD) else { throw .notATerminal(fd: inputFD) }
        var original = termios()
        guard tcgetattr(inputFD, &original) == 0 else { throw .systemCall("tcgetattr", errno: errno) }
        var keys = original
        keys.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL)
        withUnsafeMutableBytes(of: &keys.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        try apply(keys, original: original, fullScreen: false)
    }

    /// Sets `settings`, remembering `original` for `restore()`.
    private func apply(_ settings: termios, original: termios, fullScreen: Bool) throws(TerminalError) {
        var settings = settings
        TerminalRegistry.register(self)
        state.withLock { $0.original = original; $0.fullScreen = fullScreen }
        guard retryingEINTR({ Int(tcsetattr(inputFD, TCSANOW, &settings)) }) == 0 else {
            let code = errno
            restore()
            throw .systemCall("tcsetattr", errno: code)
        }
    }

    /// Puts the original settings back and leaves the alternate screen. Safe to
    /// call more than once and from any thread; never blocks on a stuck terminal.
    public func restore() {
        let taken = state.withLock { current -> (termios?, Bool) in
            defer { current.original = nil; current.fullScreen = false }
            return (current.original, current.fullScreen)
        }
        TerminalRegistry.unregister(self)
        if taken.1 { writeWithoutBlocking(ScreenControl.leave) }
        if var original = taken.0 { _ = retryingEINTR { Int(tcsetattr(inputFD, TCSANOW, &original)) } }
    }

    /// The window size from TIOCGWINSZ; nil when the output is not a terminal.
    public func size() -> TerminalSize? {
        var size = winsize()
        guard ioctl(outputFD, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row))
    }

    /// Writes all of `bytes` (one `write` call unless the kernel takes less)
    /// while in full-screen mode; after `restore()` frames are dropped, so a
    /// late frame can never land on the normal screen.
    /// Returns false, and writes nothing more ever, once the terminal is gone
    /// (EIO, EPIPE, ENXIO: the SSH connection died).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let (fullScreen, lost) = state.withLock { ($0.fullScreen, $0.lost) }
        guard !lost else { return false }
        guard fullScreen else { return true }
        guard writeAll(fd: outputFD, bytes) else {
            state.withLock { $0.lost = true }
            return false
        }
        return true
    }

    /// A best-effort write for the restore path: the descriptor is made
    /// non-blocking for the duration, so a dead SSH link cannot hang the exit.
    private func writeWithoutBlocking(_ bytes: [UInt8]) {
        guard !isLost else { return }
        let flags = fcntl(outputFD, F_GETFL)
        if flags >= 0 { _ = fcntl(outputFD, F_SETFL, flags | O_NONBLOCK) }
        bytes.withUnsafeBytes { buffer in
            _ = retryingEINTR { Glibc.write(outputFD, buffer.baseAddress, buffer.count) }
        }
        if flags >= 0 { _ = fcntl(outputFD, F_SETFL, flags) }
    }
}

/// Writes every byte to `fd`, retrying EINTR and short writes, waiting for
/// EAGAIN; false on any other error (the reader or terminal is gone).
func writeAll(fd: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { buffer -> Bool in
        guard var next = buffer.baseAddress else { return true }
        var left = buffer.count
        while left > 0 {
            let written = Glibc.write(fd, next, left)
            if written > 0 {
                next += written
                left -= written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 1000)
            } else {
                return false
            }
        }
        return true
    }
}

/// Terminals in full-screen mode, restored by an `atexit` hook if the program
/// exits without restoring them (e.g. `exit()` from elsewhere).
enum TerminalRegistry {
    private static let active = Mutex<[ObjectIdentifier: Terminal]>([:])
    private static let hook: Void = { atexit { TerminalRegistry.restoreAll() } }()

    static func register(_ terminal: Terminal) {
        _ = hook
        active.withLock { $0[ObjectIdentifier(terminal)] = terminal }
    }

    static func unregister(_ terminal: Terminal) {
        _ = active.withLock { $0.removeValue(forKey: ObjectIdentifier(terminal)) }
    }

    /// Restores every terminal still in full-screen mode.
    static func restoreAll() {
        let terminals = active.withLock { Array($0.values) }
        for terminal in terminals { terminal.restore() }
    }
}
