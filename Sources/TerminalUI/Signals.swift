#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
import Synchronization

/// Watches signals, so the handler runs on a queue as ordinary code (not in a
/// raw signal handler, where only async-signal-safe calls are allowed) and may
/// restore the terminal and tell a frontend.
///
/// Watchers come and go over the process's one dispatch source per signal
/// (`SignalHub`). The newest watcher of a signal hears it; when its watchers
/// are all cancelled, the signal does what it would have done without parlor
/// (the default action, or nothing for a signal that was ignored), so a second
/// Ctrl-C after the frontend returned behaves as usual.
public final class SignalWatcher: Sendable {
    /// The signals that end a session: Ctrl-C, `kill`, and the SSH connection dropping.
    public static let terminating: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let id: UInt64
    private let cancelled = Atomic<Bool>(false)

    /// Starts watching `signals`; `handler` runs on a private serial queue, once per delivery.
    /// Register before relying on it: a signal that arrives earlier gets its old action.
    public init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        id = SignalHub.shared.watch(signals, handler: handler)
    }

    /// Stops watching: the signals go to the watcher before this one, or to their own action.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        SignalHub.shared.stopWatching(id)
    }

    deinit { cancel() }

    private static let hangUpsIgnored = Atomic<Bool>(false)

    /// Whether `ignoreHangUpsFromNowOn()` was called.
    public static var hangUpsAreIgnored: Bool { hangUpsIgnored.load(ordering: .acquiring) }

    /// Once the terminal is gone (an SSH disconnect), this process ignores
    /// SIGHUP until it exits, as `nohup` would: the kernel and the terminal's
    /// owner (sshd, tmux) may send more than one, and a late one with its
    /// default action would kill parlor while it still tells the peer it is
    /// leaving and saves the match.
    public static func ignoreHangUpsFromNowOn() {
        hangUpsIgnored.store(true, ordering: .releasing)
        SignalHub.shared.ignoreForGood(SIGHUP)
    }
}

/// The process's one dispatch source per watched signal, made on first use
/// and never cancelled, and what a signal that no watcher hears does.
///
/// Why never cancelled: swift-corelibs-libdispatch on Linux installs its own
/// handler when a signal's first source registers, and a source made after
/// the last one of its signal was cancelled is never told of the signal
/// (measured with a small program: the second source hears nothing). A
/// watcher made and cancelled while a host waited for its guest thus left
/// that host deaf to SIGHUP, SIGINT and SIGTERM for the whole match.
/// Nothing else in parlor may change these signals' actions (`signal`,
/// `sigaction`): that would take libdispatch's handler away.
final class SignalHub: Sendable {
    static let shared = SignalHub()

    private struct Watcher {
        let id: UInt64
        let signals: Set<Int32>
        let handler: @Sendable (Int32) -> Void
    }

    // Dispatch sources are not Sendable; they are only touched under the lock.
    private struct State: @unchecked Sendable {
        var sources: [Int32: DispatchSourceSignal] = [:]
        /// Oldest first; the newest of a signal hears it.
        var watchers: [Watcher] = []
        var nextID: UInt64 = 1
        /// Signals that were ignored before the hub took them, or are ignored for good now.
        var ignored: Set<Int32> = []
        /// Holds (`hold`) in force: while one is, a signal no watcher hears is ignored.
        var holds: [Int32: Int] = [:]
        /// How many deliveries the hub has handled, heard or not (tests wait on it).
        var deliveries = 0
    }

    private let state = Mutex(State())
    private static let queue = DispatchQueue(label: "parlor.signals")

    /// Adds a watcher of `signals`; its id for `stopWatching`.
    func watch(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) -> UInt64 {
        state.withLock { state in
            for number in signals { source(for: number, in: &state) }
            let id = state.nextID
            state.nextID += 1
            state.watchers.append(Watcher(id: id, signals: Set(signals), handler: handler))
            return id
        }
    }

    /// Removes watcher `id`.
    func stopWatching(_ id: UInt64) {
        state.withLock { $0.watchers.removeAll { $0.id == id } }
    }

    /// While held, `signals` that no watcher hears are ignored instead of
    /// taking their default action (the last save of a match); holds nest.
    func hold(_ signals: [Int32]) {
        state.withLock { state in
            for number in signals {
                source(for: number, in: &state)
                state.holds[number, default: 0] += 1
            }
        }
    }

    /// Ends one `hold` of `signals`.
    func release(_ signals: [Int32]) {
        state.withLock { state in
            for number in signals where (state.holds[number] ?? 0) > 0 { state.holds[number]! -= 1 }
        }
    }

    /// `number`, when no watcher hears it, is ignored until the process exits.
    func ignoreForGood(_ number: Int32) {
        state.withLock { state in
            source(for: number, in: &state)
            state.ignored.insert(number)
        }
    }

    /// Makes `number`'s source once. The signal is ignored first (its old action
    /// remembered) so that one arriving while dispatch arms the source, off this
    /// thread, does not kill the process.
    private func source(for number: Int32, in state: inout State) {
        guard state.sources[number] == nil else { return }
        let previous = signal(number, SIG_IGN)
        if let previous, unsafeBitCast(previous, to: Int.self) == 1 { state.ignored.insert(number) }  // SIG_IGN is 1
        let source = DispatchSource.makeSignalSource(signal: number, queue: Self.queue)
        source.setEventHandler { [weak self] in self?.deliver(number) }
        source.resume()
        state.sources[number] = source
    }

    /// How many signal deliveries the hub has handled so far.
    var deliveries: Int { state.withLock { $0.deliveries } }

    private func deliver(_ number: Int32) {
        let (handler, ignored) = state.withLock { state in
            state.deliveries += 1
            return (state.watchers.last { $0.signals.contains(number) }?.handler,
             state.ignored.contains(number) || (state.holds[number] ?? 0) > 0)
        }
        if let handler { return handler(number) }
        if ignored { return }
        // What the default action of the signal would have done.
        switch number {
        case SIGWINCH, SIGCHLD, SIGURG, SIGCONT: return
        default:
            signal(number, SIG_DFL)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, number)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(number)
        }
    }
}
