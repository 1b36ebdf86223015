import Synchronization

/// A one-way gate: tasks wait until it is opened once; afterwards waits return at once.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Whether `open()` was called.
    var isOpen: Bool { state.withLock { $0.open } }

    /// Waits until `open()` was called.
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Opens the gate and releases every waiter.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A counter of "something settled" events that a task can wait on: it
/// waits until the count passes a value it read earlier, or a time limit.
///
/// The limit is a timer on the process's event loop (its one timer heap),
/// not a sleeping task per wait: a wait that the event ends, as nearly every
/// one is, costs no task, no thread and no wake-up of Dispatch's timer thread.
/// A waiter's cancellation does not end its wait: the callers loop until their
/// condition holds or their own deadline passes, and the limit bounds each wait.
final class SettleSignal: Sendable {
    private struct Waiter {
        var beyond: UInt64
        var continuation: CheckedContinuation<Void, Never>
        /// Disarms the limit's timer.
        var disarm: @Sendable () -> Void
    }
    private let state = Mutex<(count: UInt64, nextID: UInt64, waiters: [UInt64: Waiter])>((0, 0, [:]))

    /// The current count.
    var count: UInt64 { state.withLock { $0.count } }

    /// Counts one event and releases the waiters it satisfies.
    func bump() {
        let ready = state.withLock { state -> [Waiter] in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.value.beyond < count }
            for id in ready.keys { state.waiters[id] = nil }
            return Array(ready.values)
        }
        for waiter in ready {
            waiter.disarm()
            waiter.continuation.resume()
        }
    }

    /// Waits until the count exceeds `beyond`, or `limit` passes (a safety net:
    /// the event is expected to follow promptly).
    func wait(beyond: UInt64, limit: Duration) async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.count > beyond || limit <= .zero { return true }
                state.nextID += 1
                let id = state.nextID
                // Armed under the lock, so it cannot fire before the waiter it releases is there.
                let disarm = LoopAlarm.after(limit) { [weak self] in self?.release(id) }
                state.waiters[id] = Waiter(beyond: beyond, continuation: continuation, disarm: disarm)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// The limit of waiter `id` passed: it goes, unless the event released it first.
    private func release(_ id: UInt64) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }
}

/// One-shot timers on the process's event loop: `after(delay, fire)` calls
/// `fire` once, on the loop's thread, after `delay`, unless the returned
/// disarm is called first. Where the loop cannot start, a sleeping task does it.
enum LoopAlarm {
    private static let loop = try? EventLoop.shared()

    static func after(_ delay: Duration, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        guard let loop else {
            let task = Task {
                do { try await Task.sleep(for: delay) } catch { return }
                fire()
            }
            return { task.cancel() }
        }
        let id = loop.schedule(after: delay, fire)
        return { loop.cancelTimer(id) }
    }

    /// Waits `delay` on the loop's timer heap, or until the waiting task is
    /// cancelled, whichever comes first: a pause (a backoff, a deadline) that
    /// costs no sleeping task and no wake-up of Dispatch's timer thread.
    static func sleep(for delay: Duration) async {
        guard delay > .zero, !Task.isCancelled else { return }
        let woken = Gate()
        let disarm = after(delay) { woken.open() }
        await withTaskCancellationHandler { await woken.wait() } onCancel: { woken.open() }
        disarm()
    }
}
