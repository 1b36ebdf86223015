#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
import Synchronization

/// Watches signals with dispatch sources, so the handler runs on a queue as
/// ordinary code (not in a raw signal handler, where only async-signal-safe
/// calls are allowed) and may restore the terminal and tell a frontend.
///
/// While watched, a signal's default action is disabled (set to SIG_IGN, as
/// dispatch sources require); `cancel()` puts the previous action back so a
/// second Ctrl-C after the frontend returned behaves as usual.
public final class SignalWatcher: Sendable {
    /// The signals that end a session: Ctrl-C, `kill`, and the SSH connection dropping.
    public static let terminating: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    // Dispatch sources are not Sendable; they are only touched under the lock.
    private struct Sources: @unchecked Sendable {
        var sources: [DispatchSourceSignal] = []
        var previous: [(Int32, sighandler_t?)] = []
    }

    private let sources = Mutex(Sources())
    private static let queue = DispatchQueue(label: "parlor.signals")

    /// Starts watching `signals`; `handler` runs on a private serial queue, once per delivery.
    /// Register before relying on it: a signal that arrives earlier gets its old action.
    public init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources.withLock { current in
            for number in signals {
                current.previous.append((number, signal(number, SIG_IGN)))
                let source = DispatchSource.makeSignalSource(signal: number, queue: Self.queue)
                source.setEventHandler { handler(number) }
                source.resume()
                current.sources.append(source)
            }
        }
    }

    /// Stops watching and restores each signal's previous action (SIGHUP stays
    /// ignored once `ignoreHangUpsFromNowOn()` was called).
    public func cancel() {
        sources.withLock { current in
            for source in current.sources { source.cancel() }
            let keepIgnoringHangUps = Self.hangUpsIgnored.load(ordering: .acquiring)
            for (number, action) in current.previous where !(number == SIGHUP && keepIgnoringHangUps) {
                signal(number, action)
            }
            current.sources = []
            current.previous = []
        }
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
        signal(SIGHUP, SIG_IGN)
    }
}
