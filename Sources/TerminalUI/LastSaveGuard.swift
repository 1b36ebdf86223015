@preconcurrency import Glibc
import Synchronization

/// Holds the terminating signals from the moment a match's frontend returns
/// until `release()` (after the last save), remembering the first one that
/// arrived in between, so that no signal kills the process by its default
/// action while the end is being written.
///
/// They are held from the start (`SignalHub.hold`: a signal no watcher hears
/// is ignored, not given the default action that would kill the process),
/// watched again once the frontend has returned, and given their own actions
/// back by `release()`.
public final class LastSaveGuard: Sendable {
    private struct Held: Sendable {
        var watcher: SignalWatcher?
        var signal: Int32?
        var released = false
    }

    private let held = Mutex(Held())

    /// Starts holding the terminating signals (SIGINT, SIGTERM, SIGHUP) at once:
    /// make it before the match's frontend runs, and call `release()` after the last save.
    public init() {
        SignalHub.shared.hold(SignalWatcher.terminating)
    }

    /// The frontend's own watcher has stopped: watch (and remember) from now on.
    public func frontendReturned() {
        let watcher = SignalWatcher(signals: SignalWatcher.terminating) { [weak self] number in self?.note(number) }
        held.withLock { $0.watcher = watcher }
    }

    private func note(_ number: Int32) {
        held.withLock { if $0.signal == nil { $0.signal = number } }
    }

    /// Gives the signals back their own actions (SIGHUP stays ignored once the
    /// terminal is gone); returns the signal that arrived meanwhile.
    @discardableResult
    public func release() -> Int32? {
        let (watcher, releasing, signal) = held.withLock { held in
            defer { held.watcher = nil; held.released = true }
            return (held.watcher, !held.released, held.signal)
        }
        watcher?.cancel()
        if releasing { SignalHub.shared.release(SignalWatcher.terminating) }
        return signal
    }
}
