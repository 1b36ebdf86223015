@preconcurrency import Glibc
import Synchronization

/// Holds the terminating signals from the moment a match's frontend returns
/// until `release()` (after the last save), remembering the first one that
/// arrived in between, so that no signal kills the process by its default
/// action while the end is being written.
///
/// They are ignored from the start (so the frontend's watcher, when it stops,
/// puts back "ignored", not the default action that would kill the process),
/// watched again once the frontend has returned, and given their old actions
/// back by `release()`. Only one watcher per signal at a time: a second
/// dispatch source for the same signal would take deliveries from the first.
public final class LastSaveGuard: Sendable {
    private struct Held: @unchecked Sendable {
        var previous: [(Int32, sighandler_t?)] = []
        var watcher: SignalWatcher?
        var signal: Int32?
        var released = false
    }

    private let held = Mutex(Held())

    public init() {
        held.withLock { held in
            held.previous = SignalWatcher.terminating.map { ($0, signal($0, SIG_IGN)) }
        }
    }

    /// The frontend's own watcher has stopped: watch (and remember) from now on.
    public func frontendReturned() {
        let watcher = SignalWatcher(signals: SignalWatcher.terminating) { [weak self] number in self?.note(number) }
        held.withLock { $0.watcher = watcher }
    }

    private func note(_ number: Int32) {
        held.withLock { if $0.signal == nil { $0.signal = number } }
    }

    /// Restores the signals' actions (SIGHUP stays ignored once the terminal
    /// is gone); returns the signal that arrived meanwhile.
    @discardableResult
    public func release() -> Int32? {
        let (watcher, previous, signal) = held.withLock { held in
            defer { held.watcher = nil; held.previous = []; held.released = true }
            return (held.watcher, held.released ? [] : held.previous, held.signal)
        }
        watcher?.cancel()
        for (number, action) in previous where !(number == SIGHUP && SignalWatcher.hangUpsAreIgnored) {
            _ = Glibc.signal(number, action)
        }
        return signal
    }
}
