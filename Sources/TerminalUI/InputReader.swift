#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Synchronization

/// Something read from the input.
public enum InputEvent: Sendable, Hashable {
    /// A key (full-screen mode).
    case key(Key)
    /// One line without its line ending (plain and JSON modes).
    case line(String)
    /// End of input: a pipe or file ended, or Ctrl-D on a terminal in line mode.
    case endOfInput
    /// The terminal is gone (read failed with EIO, or hung up): an SSH disconnect.
    case lost
}

/// Reads a file descriptor on a dedicated thread, so blocking reads never
/// occupy Swift's cooperative pool, and hands decoded keys or lines to `deliver`.
///
/// It polls the input together with a wake-up pipe, so `stop()` ends the
/// thread promptly; a lone Escape is reported after `escapeDelay` without a
/// following byte. It stops by itself at end of input or when the terminal
/// vanishes, so it never spins on a dead descriptor.
///
/// The one reader of the terminal: the match frontends, the replay, the lobby
/// and the LAN screens all use it (the lobby had a copy of its own).
public final class InputReader: Sendable {
    /// Decoded keys (raw mode) or whole lines.
    public enum Mode: Sendable { case keys, lines }

    /// How long to wait for the rest of an escape sequence before reporting a lone Escape.
    static let escapeDelayMilliseconds: Int32 = 80
    /// Longest line kept; the rest of a longer line is dropped.
    static let maximumLineBytes = 4096

    private struct Wake: Sendable {
        var readFD: Int32 = -1
        var writeFD: Int32 = -1
        var closed = false
    }

    private let fd: Int32
    private let mode: Mode
    private let deliver: @Sendable (InputEvent) -> Void
    private let wake = Mutex(Wake())
    /// Signalled when the thread has returned.
    private let finished = DispatchSemaphore(value: 0)

    /// A reader of `fd`; nothing is read until `start()`.
    public init(fd: Int32, mode: Mode, deliver: @escaping @Sendable (InputEvent) -> Void) {
        self.fd = fd
        self.mode = mode
        self.deliver = deliver
    }

    /// Starts the reading thread. Returns false if the wake-up pipe could not be made.
    @discardableResult
    public func start() -> Bool {
        var fds: [Int32] = [-1, -1]
        guard makePipe(&fds) else { return false }
        let wakeFD = fds[0]
        wake.withLock { $0 = Wake(readFD: fds[0], writeFD: fds[1], closed: false) }
        let thread = Thread { [self] in self.loop(wakeFD: wakeFD) }
        thread.name = "parlor-input"
        thread.start()
        return true
    }

    /// Asks the thread to stop; returns at once.
    public func stop() {
        wake.withLock { current in
            guard !current.closed, current.writeFD >= 0 else { return }
            var byte: UInt8 = 1
            _ = Glibc.write(current.writeFD, &byte, 1)
        }
    }

    /// Stops the thread and waits (at most a second) until it no longer reads
    /// the descriptor: for a screen that hands the terminal to another reader.
    public func stopAndWait() {
        let running = wake.withLock { $0.writeFD >= 0 }
        stop()
        if running { _ = finished.wait(timeout: .now() + 1) }
    }

    private func finish(wakeFD: Int32) {
        wake.withLock { current in
            current.closed = true
            close(current.readFD)
            close(current.writeFD)
        }
        finished.signal()
    }

    private func loop(wakeFD: Int32) {
        defer { finish(wakeFD: wakeFD) }
        var decoder = KeyDecoder()
        var pendingLine: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            let timeout: Int32 = decoder.hasPendingBytes ? Self.escapeDelayMilliseconds : -1
            let ready = poll(&entries, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                deliver(.lost)
                return
            }
            if entries[1].revents != 0 { return }
            if ready == 0 {
                for key in decoder.flush() { deliver(.key(key)) }
                continue
            }
            let revents = Int32(entries[0].revents)
            if revents & Int32(POLLNVAL) != 0 { deliver(.lost); return }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                deliver(mode == .keys || errno == EIO ? .lost : .endOfInput)
                return
            }
            if count == 0 {
                // A terminal in raw mode reads 0 bytes only after a hang-up.
                if mode == .lines, !pendingLine.isEmpty {
                    deliver(.line(Self.text(of: pendingLine)))
                }
                deliver(mode == .keys ? .lost : .endOfInput)
                return
            }
            switch mode {
            case .keys:
                for key in decoder.feed(buffer[0..<count]) { deliver(.key(key)) }
            case .lines:
                for byte in buffer[0..<count] {
                    if byte == 0x0A {
                        deliver(.line(Self.text(of: pendingLine)))
                        pendingLine.removeAll(keepingCapacity: true)
                    } else if pendingLine.count < Self.maximumLineBytes {
                        pendingLine.append(byte)  // beyond the limit, the rest of the line is dropped
                    }
                }
            }
        }
    }

    /// A line's text without a trailing carriage return; invalid UTF-8 is replaced.
    private static func text(of bytes: [UInt8]) -> String {
        var bytes = bytes[...]
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `pipe` with both ends close-on-exec, so programs parlor starts do not inherit them
/// (a pipe held open by a child never reaches end of file).
func makePipe(_ fds: inout [Int32]) -> Bool {
    guard fds.count == 2, pipe(&fds) == 0 else { return false }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return true
}
