import Synchronization

/// The stop of a many-table host (a hall): the first terminating signal
/// (or the quit key), the tables' handlers that leave each match for now
/// when it comes, and every table's play that must finish its leaving
/// before the process exits. Fires once; later fires are ignored.
public final class HallStop: Sendable {
    private struct State {
        var signal: Int32?
        var waiters: [CheckedContinuation<Int32?, Never>] = []
        var handlers: [UInt64: @Sendable () -> Void] = [:]
        var nextHandler: UInt64 = 0
        var tables: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A stop that has not fired, with no handlers or tables yet.
    public init() {}

    /// Whether the stop has fired.
    public var fired: Bool { state.withLock { $0.signal != nil } }

    /// Fires the stop with signal `number` (the first fire wins): runs every handler, releases every waiter.
    public func fire(_ number: Int32) {
        let (waiters, handlers) = state.withLock { state -> ([CheckedContinuation<Int32?, Never>], [@Sendable () -> Void]) in
            guard state.signal == nil else { return ([], []) }
            state.signal = number
            defer { state.waiters = [] }
            return (state.waiters, Array(state.handlers.values))
        }
        for handler in handlers { handler() }
        for waiter in waiters { waiter.resume(returning: number) }
    }

    /// Waits for the stop; returns the signal it fired with.
    public func wait() async -> Int32? {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Int32? in
                if state.signal == nil { state.waiters.append(continuation) }
                return state.signal
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Runs `handler` when the stop fires (at once if it has); cancel the result to forget it.
    public func onStop(_ handler: @escaping @Sendable () -> Void) -> StopHandler {
        let (id, firedAlready) = state.withLock { state -> (UInt64, Bool) in
            state.nextHandler += 1
            if state.signal == nil { state.handlers[state.nextHandler] = handler }
            return (state.nextHandler, state.signal != nil)
        }
        if firedAlready { handler() }
        return StopHandler { [self] in _ = state.withLock { $0.handlers.removeValue(forKey: id) } }
    }

    /// Counts `task` (a table's play) among those `waitForTables` waits for.
    public func track(_ task: Task<Void, Never>) {
        state.withLock { state in
            state.tables.removeAll { $0.isCancelled }
            state.tables.append(task)
        }
    }

    /// Waits (at most 10 s) for every table's play to finish its leaving.
    public func waitForTables() async {
        let tables = state.withLock { $0.tables }
        let deadline = ContinuousClock.now + .seconds(10)
        for table in tables {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await table.value }
                group.addTask { await LoopAlarm.sleep(for: left) }
                await group.next()
                group.cancelAll()
            }
        }
    }
}

/// A handler given to `HallStop.onStop`; cancel it to forget it.
public struct StopHandler: Sendable {
    let cancelling: @Sendable () -> Void
    /// Forgets the handler (harmless after the stop fired).
    public func cancel() { cancelling() }
}
