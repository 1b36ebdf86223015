import Synchronization

/// A one-way gate: tasks wait until it is opened once; afterwards waits return at once.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

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
final class SettleSignal: Sendable {
    private struct Waiter {
        var id: UInt64
        var beyond: UInt64
        var continuation: CheckedContinuation<Void, Never>
    }
    private let state = Mutex<(count: UInt64, nextID: UInt64, waiters: [Waiter], expired: Set<UInt64>)>((0, 0, [], []))

    /// The current count.
    var count: UInt64 { state.withLock { $0.count } }

    /// Counts one event and releases the waiters it satisfies.
    func bump() {
        let ready = state.withLock { state -> [Waiter] in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.beyond < count }
            state.waiters.removeAll { $0.beyond < count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Waits until the count exceeds `beyond`, or `limit` passes (a safety net:
    /// the event is expected to follow promptly).
    func wait(beyond: UInt64, limit: Duration) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: limit)
            release(id)
        }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.count > beyond || state.expired.remove(id) != nil { return true }
                state.waiters.append(Waiter(id: id, beyond: beyond, continuation: continuation))
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
        _ = state.withLock { $0.expired.remove(id) }
    }

    private func release(_ id: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expired.insert(id)  // fired before the waiter was registered
                return nil
            }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume()
    }
}
