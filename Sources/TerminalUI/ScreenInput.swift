// Input for the screens outside a match (the lobby, `browse --watch`, the
// host's waiting line): one stream of keys, lines, a deadline and outside
// events, and q or Esc while waiting for a guest.

@preconcurrency import Glibc
import Synchronization

extension Terminal {
    /// Whether stdin and stdout are both terminals: the condition for pickers, the lobby and waiting keys.
    public static var isInteractive: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }
}

/// Something a screen outside a match reacts to: `Event` is what comes from
/// outside the terminal (a browse's events for the lobby and `browse --watch`).
public enum ScreenInput<Event: Sendable>: Sendable {
    /// An event from outside the terminal (a service appeared, changed, went away, or browsing failed).
    case event(Event)
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

/// Merges outside events, a deadline and keyboard input into one stream, so
/// that a screen is a single loop over one `AsyncStream`. Blocking reads of
/// the terminal run on a dedicated thread (`InputReader`), never on Swift's
/// cooperative pool.
///
/// `close()` (or dropping the merger) stops every source: the browse is
/// cancelled (a browse frees its DNS-SD refs), and the key reader's thread ends.
public final class InputMerger<Event: Sendable>: Sendable {
    /// Everything, in arrival order.
    public let stream: AsyncStream<ScreenInput<Event>>
    private let continuation: AsyncStream<ScreenInput<Event>>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let keyReader = Mutex<InputReader?>(nil)

    /// A merger with no sources yet: add outside events, a deadline or the keyboard, then read `stream`.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: ScreenInput<Event>.self, bufferingPolicy: .unbounded)
    }

    /// Forwards `events` until they end or the merger closes.
    public func forward(_ events: AsyncStream<Event>) {
        let continuation = self.continuation
        add(Task {
            for await event in events { continuation.yield(.event(event)) }
        })
    }

    /// Yields `.deadline` once, after `duration`.
    public func deadline(after duration: Duration) {
        let continuation = self.continuation
        add(Task {
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            continuation.yield(.deadline)
        })
    }

    /// Yields `.redraw`; safe from any thread (a signal handler's queue).
    public func redraw() {
        continuation.yield(.redraw)
    }

    /// Reads keys from standard input (which the caller has put in raw mode).
    public func readKeys() {
        let continuation = self.continuation
        let reader = InputReader(fd: STDIN_FILENO, mode: .keys) { event in
            switch event {
            case .key(let key): continuation.yield(.key(key))
            case .line(let line): continuation.yield(.line(line))
            case .endOfInput, .lost: continuation.yield(.endOfInput)
            }
        }
        keyReader.withLock { $0 = reader }
        if !reader.start() { continuation.yield(.endOfInput) }
    }

    /// Stops every source and ends the stream.
    public func close() {
        let running = tasks.withLock { current -> [Task<Void, Never>] in
            defer { current = [] }
            return current
        }
        for task in running { task.cancel() }
        keyReader.withLock { reader in
            // The next screen (a match) reads standard input: this reader must be gone first.
            reader?.stopAndWait()
            reader = nil
        }
        continuation.finish()
    }

    private func add(_ task: Task<Void, Never>) {
        tasks.withLock { $0.append(task) }
    }

    deinit { close() }
}

/// q or Esc on a waiting screen ("Waiting for a player to join…"): while it
/// watches, keys are read one at a time without echo (they used to echo as
/// `q^[` with only Ctrl-C working), and q or Esc calls `stop` once.
/// `finish()` gives the terminal back before anything else reads it.
public final class WaitingKeys: Sendable {
    private let terminal = Terminal()
    private let inputs = InputMerger<Never>()
    private let stopped = Mutex(false)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Watches the keys when stdin and stdout are a terminal; nil otherwise.
    /// Any other key goes to `other` (a filling table's `b`).
    public static func watch(onStop stop: @escaping @Sendable () async -> Void,
                      other: (@Sendable (Key) async -> Void)? = nil) -> WaitingKeys? {
        guard Terminal.isInteractive else { return nil }
        let keys = WaitingKeys()
        do { try keys.terminal.enterKeyReading() } catch { return nil }
        keys.inputs.readKeys()
        let inputs = keys.inputs
        keys.task.withLock { $0 = Task { [keys] in
            for await input in inputs.stream {
                guard case .key(let key) = input else { continue }
                guard WaitingKeys.stops(key) else {
                    await other?(key)
                    continue
                }
                keys.stopped.withLock { $0 = true }
                await stop()
                return
            }
        } }
        return keys
    }

    /// The keys that stop a wait.
    public static func stops(_ key: Key) -> Bool {
        switch key {
        case .character("q"), .character("Q"), .escape: true
        default: false
        }
    }

    /// Stops watching and restores the terminal; whether q or Esc stopped the wait.
    @discardableResult
    public func finish() -> Bool {
        inputs.close()
        task.withLock { $0?.cancel() }
        terminal.restore()
        return stopped.withLock { $0 }
    }
}
