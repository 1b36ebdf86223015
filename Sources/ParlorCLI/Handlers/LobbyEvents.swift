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
    private let keyReader = Mutex<InputReader?>(nil)

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
    func close() {
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

/// One line from standard input, read on a thread of its own; nil at end of input.
///
/// Used by the numbered join picker, which runs in the terminal's normal
/// (cooked) mode, so the kernel hands over one whole line per read.
func readLineOffPool() async -> String? {
    await LinePrompt.line()
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
    /// Any other key goes to `other` (a filling table's `b`).
    static func watch(onStop stop: @escaping @Sendable () async -> Void,
                      other: (@Sendable (Key) async -> Void)? = nil) -> WaitingKeys? {
        guard isInteractiveTerminal else { return nil }
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
