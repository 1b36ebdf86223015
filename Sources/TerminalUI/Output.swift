#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
import Synchronization

/// Draws frames on a terminal from a serial queue of its own, one write per
/// frame, so a slow or stuck SSH link never blocks the caller.
///
/// Frames are coalesced: if a newer frame arrives while one is being written,
/// only the newest is drawn next. The encoder diffs against what was actually
/// written, so skipping frames never leaves stale lines.
final class ScreenWriter: Sendable {
    private struct State: Sendable {
        var encoder: FrameEncoder
        var pending: (Frame, TerminalSize)?
        var busy = false
        var lastFrameBytes = 0
        var framesWritten = 0
    }

    private let terminal: Terminal
    private let state: Mutex<State>
    private let queue = DispatchQueue(label: "parlor.screen")
    private let onLost: @Sendable () -> Void

    /// A writer to `terminal`; `onLost` is called once if a write fails (the terminal vanished).
    init(terminal: Terminal, options: DisplayOptions, onLost: @escaping @Sendable () -> Void) {
        self.terminal = terminal
        self.state = Mutex(State(encoder: FrameEncoder(options: options)))
        self.onLost = onLost
    }

    /// Bytes of the last frame written, for diagnostics.
    var lastFrameBytes: Int { state.withLock { $0.lastFrameBytes } }

    /// Rings the terminal bell (BEL) after the frames queued so far.
    func ring() { send([0x07]) }

    /// Writes `bytes` as they are (the bell, a title) after the frames queued so far.
    func send(_ bytes: [UInt8]) {
        queue.async { if !self.terminal.write(bytes) { self.onLost() } }
    }

    /// Makes the next frame a full redraw (after a resize).
    func invalidate() { state.withLock { $0.encoder.invalidate() } }

    /// Queues `frame` for drawing; replaces a frame still waiting.
    func show(_ frame: Frame, size: TerminalSize) {
        let start = state.withLock { current -> Bool in
            current.pending = (frame, size)
            guard !current.busy else { return false }
            current.busy = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while true {
            let bytes = state.withLock { current -> [UInt8]? in
                guard let (frame, size) = current.pending else { current.busy = false; return nil }
                current.pending = nil
                let bytes = current.encoder.encode(frame, size: size)
                current.lastFrameBytes = bytes.count
                current.framesWritten += 1
                return bytes
            }
            guard let bytes else { return }
            if !bytes.isEmpty, !terminal.write(bytes) {
                onLost()
                state.withLock { $0.pending = nil; $0.busy = false }
                return
            }
        }
    }

    /// Waits until queued frames are written, at most `timeout`.
    func drained(timeout: Duration = .seconds(1)) async {
        await waitForQueue(queue, timeout: timeout)
    }
}

/// Writes lines of text (plain or JSON mode) to a descriptor in order, from a
/// serial queue, so a slow reader on a pipe never blocks the caller.
final class LineWriter: Sendable {
    private let fd: Int32
    private let queue = DispatchQueue(label: "parlor.lines")
    private let failed = Mutex(false)
    private let onLost: @Sendable () -> Void

    /// A writer to `fd`; `onLost` is called once if a write fails (EPIPE, EIO).
    init(fd: Int32, onLost: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.onLost = onLost
    }

    /// Queues `text` as is (include the newline).
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        queue.async {
            guard !self.failed.withLock({ $0 }) else { return }
            if !writeAll(fd: self.fd, bytes) {
                self.failed.withLock { $0 = true }
                self.onLost()
            }
        }
    }

    /// Waits until queued lines are written, at most `timeout`.
    func drained(timeout: Duration = .seconds(2)) async {
        await waitForQueue(queue, timeout: timeout)
    }
}

/// Resumes when everything queued on `queue` so far has run, or after `timeout`.
func waitForQueue(_ queue: DispatchQueue, timeout: Duration) async {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    queue.async { continuation.yield() }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        continuation.yield()
    }
    for await _ in stream { break }
    continuation.finish()
    timer.cancel()
}
