// One stream of everything a LAN screen waits for (browse events, a
// deadline, keys, typed lines), so browse, the join picker and the lobby
// are each a single loop over one AsyncStream. Blocking reads of the
// terminal run on dedicated threads, never on Swift's cooperative pool.

@preconcurrency import Glibc
import Discovery
import Foundation
import Synchronization
import TerminalUI

/// Something a LAN screen reacts to.
enum LANInput: Sendable {
    /// A service appeared, changed, went away, or browsing failed.
    case browse(BrowseEvent)
    /// The time given to `InputMerger.deadline(after:)` passed.
    case deadline
    /// A key, in raw mode.
    case key(Key)
    /// A line typed in cooked mode, without its newline.
    case line(String)
    /// Standard input ended (or the terminal went away).
    case endOfInput
    /// The screen must be drawn again (the window was resized).
    case redraw
}

/// Merges browse events, a deadline and keyboard input into one stream.
///
/// `close()` (or dropping the merger) stops every source: the browse is
/// cancelled, which frees its DNS-SD refs, and the key reader's thread ends.
final class InputMerger: Sendable {
    /// Everything, in arrival order.
    let stream: AsyncStream<LANInput>
    private let continuation: AsyncStream<LANInput>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let keyReader = Mutex<KeyReader?>(nil)

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: LANInput.self, bufferingPolicy: .unbounded)
    }

    /// Forwards `events` until they end or the merger closes.
    func forward(_ events: AsyncStream<BrowseEvent>) {
        let continuation = self.continuation
        add(Task {
            for await event in events { continuation.yield(.browse(event)) }
        })
    }

    /// Yields `.deadline` once, after `duration`.
    func deadline(after duration: Duration) {
        let continuation = self.continuation
        add(Task {
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            continuation.yield(.deadline)
        })
    }

    /// Yields `.redraw`; safe from any thread (a signal handler's queue).
    func redraw() {
        continuation.yield(.redraw)
    }

    /// Reads keys from standard input (which the caller has put in raw mode).
    func readKeys() {
        let continuation = self.continuation
        let reader = KeyReader(fd: STDIN_FILENO) { continuation.yield($0) }
        keyReader.withLock { $0 = reader }
        reader.start()
    }

    /// Stops every source and ends the stream.
    func close() {
        let running = tasks.withLock { current -> [Task<Void, Never>] in
            defer { current = [] }
            return current
        }
        for task in running { task.cancel() }
        keyReader.withLock { reader in
            reader?.stop()
            reader = nil
        }
        continuation.finish()
    }

    private func add(_ task: Task<Void, Never>) {
        tasks.withLock { $0.append(task) }
    }

    deinit { close() }
}

/// Reads raw keys from a descriptor on its own thread until stopped.
///
/// Polls the descriptor together with a wake-up pipe so `stop()` ends the
/// thread at once: the lobby must release standard input before the match
/// frontend it hands over to starts reading it.
final class KeyReader: Sendable {
    private let fd: Int32
    private let deliver: @Sendable (LANInput) -> Void
    /// The pipe's write end while running; -1 before start and after stop.
    private let wakeFD = Mutex<Int32>(-1)
    /// Signalled when the thread has returned and closed the pipe.
    private let finished = DispatchSemaphore(value: 0)
    private let started = Mutex(false)

    init(fd: Int32, deliver: @escaping @Sendable (LANInput) -> Void) {
        self.fd = fd
        self.deliver = deliver
    }

    func start() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            deliver(.endOfInput)
            return
        }
        for descriptor in fds { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        wakeFD.withLock { $0 = fds[1] }
        started.withLock { $0 = true }
        let readFD = fds[0]
        let thread = Thread { [self] in
            loop(wakeRead: readFD)
            close(readFD)
            finished.signal()
        }
        thread.name = "parlor-lobby-keys"
        thread.start()
    }

    /// Ends the thread and waits (briefly) until it no longer reads the descriptor.
    func stop() {
        let writeFD = wakeFD.withLock { current -> Int32 in
            defer { current = -1 }
            return current
        }
        guard writeFD >= 0 else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(writeFD, &byte, 1)
        _ = finished.wait(timeout: .now() + 1)
        close(writeFD)
    }

    private func loop(wakeRead: Int32) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            // A lone Escape is told from the start of a sequence by a short pause.
            let ready = poll(&entries, 2, decoder.hasPendingBytes ? 80 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                deliver(.endOfInput)
                return
            }
            if entries[1].revents != 0 { return }
            if ready == 0 {
                for key in decoder.flush() { deliver(.key(key)) }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 {
                deliver(.endOfInput)
                return
            }
            for key in decoder.feed(buffer[0..<count]) { deliver(.key(key)) }
        }
    }
}

/// One line from standard input, read on a thread of its own; nil at end of input.
///
/// Used by the numbered join picker, which runs in the terminal's normal
/// (cooked) mode, so the kernel hands over one whole line per read.
func readLineOffPool() async -> String? {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: Swift.readLine(strippingNewline: true)) }
        thread.name = "parlor-picker-line"
        thread.start()
    }
}

/// Whether stdin and stdout are both terminals: the condition for pickers and the lobby.
var isInteractiveTerminal: Bool {
    isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
}

/// q or Esc on a waiting screen ("Waiting for a player to join…"): while it
/// watches, keys are read one at a time without echo (they used to echo as
/// `q^[` with only Ctrl-C working), and q or Esc calls `stop` once.
/// `finish()` gives the terminal back before anything else reads it.
final class WaitingKeys: Sendable {
    private let terminal = Terminal()
    private let inputs = InputMerger()
    private let stopped = Mutex(false)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Watches the keys when stdin and stdout are a terminal; nil otherwise.
    static func watch(onStop stop: @escaping @Sendable () async -> Void) -> WaitingKeys? {
        guard isInteractiveTerminal else { return nil }
        let keys = WaitingKeys()
        do { try keys.terminal.enterKeyReading() } catch { return nil }
        keys.inputs.readKeys()
        let inputs = keys.inputs
        keys.task.withLock { $0 = Task { [keys] in
            for await input in inputs.stream {
                guard case .key(let key) = input, WaitingKeys.stops(key) else { continue }
                keys.stopped.withLock { $0 = true }
                await stop()
                return
            }
        } }
        return keys
    }

    /// The keys that stop a wait.
    static func stops(_ key: Key) -> Bool {
        switch key {
        case .character("q"), .character("Q"), .escape: true
        default: false
        }
    }

    /// Stops watching and restores the terminal; whether q or Esc stopped the wait.
    @discardableResult
    func finish() -> Bool {
        inputs.close()
        task.withLock { $0?.cancel() }
        terminal.restore()
        return stopped.withLock { $0 }
    }
}
