import Synchronization

/// One timer for the liveness of every link in the process (heartbeats,
/// silence, grace), instead of a task per link waking every second: with a
/// thousand tables that was a thousand wake-ups a second while nothing
/// happened.
///
/// Each link holds a `Timer`: a one-shot alarm it arms for the next instant
/// its `Liveness` can act (`Liveness.nextTick`), with a tolerance. The clock
/// sleeps until the earliest *latest* instant (deadline plus tolerance) of
/// any armed timer, then fires every timer whose deadline has come: timers
/// due close together share one wake-up, and none fires before its deadline
/// or later than its tolerance allows (unless the process is starved). A
/// fired timer is disarmed until its owner arms it again. An idle link costs
/// nothing between its deadlines.
///
/// The clock holds its timers weakly: a timer that is cancelled or let go
/// is forgotten. The schedule itself is the pure `TickSchedule`; the clock
/// only waits and calls back.
///
/// The process's clock waits on the event loop's own timer and fires its
/// timers on the loop's thread (a heartbeat is one non-blocking write): a
/// `Task.sleep` per wake-up went through Dispatch's timer thread and woke a
/// pool thread each time, about a fifth of an idle 1,000-table host's CPU.
public final class LivenessClock: Sendable {
    /// The process's clock, for every session: on the shared event loop (on
    /// Swift's clock if the loop cannot start).
    public static let shared: LivenessClock = {
        guard let loop = try? EventLoop.shared() else { return LivenessClock() }
        return LivenessClock(alarm: Alarm { instant, fire in
            let id = loop.schedule(after: instant - .now, fire)
            return { loop.cancelTimer(id) }
        })
    }()

    /// How the clock waits: `set(instant, fire)` calls `fire` once at or
    /// after `instant`, unless the returned cancel is called first.
    struct Alarm: Sendable {
        let set: @Sendable (ContinuousClock.Instant, @escaping @Sendable () -> Void) -> @Sendable () -> Void

        init(set: @escaping @Sendable (ContinuousClock.Instant, @escaping @Sendable () -> Void) -> @Sendable () -> Void) {
            self.set = set
        }

        /// An alarm that sleeps in a task with `sleep`.
        static func sleeping(_ sleep: @escaping @Sendable (ContinuousClock.Instant) async throws -> Void) -> Alarm {
            Alarm { instant, fire in
                let task = Task {
                    do { try await sleep(instant) } catch { return }
                    fire()
                }
                return { task.cancel() }
            }
        }
    }

    /// An alarm of one link: armed with `schedule(at:tolerance:)`, fires `fire` once on the clock's thread.
    public final class Timer: Sendable {
        fileprivate let id: UInt64
        fileprivate let fire: @Sendable () -> Void
        private weak let clock: LivenessClock?

        fileprivate init(id: UInt64, clock: LivenessClock, fire: @escaping @Sendable () -> Void) {
            self.id = id
            self.clock = clock
            self.fire = fire
        }

        /// Fires once at `deadline` (not before it, at most `tolerance` after it); replaces any earlier arming.
        public func schedule(at deadline: ContinuousClock.Instant, tolerance: Duration) {
            clock?.arm(self, at: deadline, tolerance: tolerance)
        }

        /// Disarms it for good (until armed again).
        public func cancel() {
            clock?.disarm(id)
        }

        deinit { clock?.disarm(id) }
    }

    private struct Weak {
        weak var timer: Timer?
    }

    private struct State {
        var schedule = TickSchedule()
        var timers: [UInt64: Weak] = [:]
        var nextID: UInt64 = 0
        /// The alarm set, the instant it wakes at, and its number (a cancelled one that woke anyway is not it).
        var sleeper: (cancel: @Sendable () -> Void, wakesAt: ContinuousClock.Instant, number: UInt64)?
        var sleepers: UInt64 = 0
    }

    private let state = Mutex(State())
    private let now: @Sendable () -> ContinuousClock.Instant
    private let alarm: Alarm
    /// Wake-ups so far, for tests and the bench.
    private let wakes = Atomic<Int>(0)

    /// A clock reading `now` and sleeping with `sleep` (a test's fake clock); by default the continuous clock.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
                sleep: @escaping @Sendable (ContinuousClock.Instant) async throws -> Void = {
                    try await Task.sleep(until: $0, clock: .continuous)
                }) {
        self.now = now
        self.alarm = .sleeping(sleep)
    }

    /// A clock on the continuous clock that waits with `alarm`.
    init(alarm: Alarm) {
        self.now = { .now }
        self.alarm = alarm
    }

    /// A new, unarmed timer that calls `fire` (on the clock's thread, the event loop's for the
    /// process's clock: it should return at once).
    public func timer(_ fire: @escaping @Sendable () -> Void) -> Timer {
        state.withLock { state in
            state.nextID += 1
            let timer = Timer(id: state.nextID, clock: self, fire: fire)
            state.timers[timer.id] = Weak(timer: timer)
            return timer
        }
    }

    /// Times the clock woke up so far.
    public var wakeUps: Int { wakes.load(ordering: .relaxed) }

    /// Timers armed now.
    public var armedCount: Int { state.withLock { $0.schedule.count } }

    fileprivate func arm(_ timer: Timer, at deadline: ContinuousClock.Instant, tolerance: Duration) {
        state.withLock { state in
            state.timers[timer.id] = Weak(timer: timer)
            state.schedule.arm(timer.id, at: deadline, tolerance: tolerance)
            // A sleeper that wakes no later than this timer allows will see it.
            if let sleeper = state.sleeper, sleeper.wakesAt <= deadline + tolerance { return }
            wakeEarlierIfNeeded(&state)
        }
    }

    fileprivate func disarm(_ id: UInt64) {
        state.withLock { state in
            state.schedule.disarm(id)
            state.timers[id] = nil
        }
    }

    /// Makes sure a task sleeps until the schedule's wake-up instant (a new one when it is earlier than the current's).
    private func wakeEarlierIfNeeded(_ state: inout State) {
        guard let wake = state.schedule.wakeAt else { return }
        if let sleeper = state.sleeper {
            if sleeper.wakesAt <= wake { return }
            sleeper.cancel()
        }
        state.sleepers += 1
        let number = state.sleepers
        let cancel = alarm.set(wake) { [weak self] in self?.wokeUp(number) }
        state.sleeper = (cancel, wake, number)
    }

    private func wokeUp(_ number: UInt64) {
        wakes.add(1, ordering: .relaxed)
        let due = state.withLock { state -> [Timer] in
            if state.sleeper?.number == number { state.sleeper = nil }
            let ids = state.schedule.takeDue(now: now())
            let due = ids.compactMap { state.timers[$0]?.timer }
            wakeEarlierIfNeeded(&state)
            return due
        }
        for timer in due { timer.fire() }
    }
}

/// The pure schedule of `LivenessClock`: armed deadlines with tolerances,
/// when to wake, and which are due.
///
/// Two heaps, one by deadline (what is due) and one by latest instant (when
/// to wake), so arming, the wake-up instant and taking what is due cost
/// O(log n) each rather than a pass over every armed timer: a thousand
/// tables re-arm about 330 times a second. A disarmed or re-armed timer's
/// old entries stay in the heaps, marked stale by their arming number, and
/// are dropped when they reach the top (and all at once when they outnumber
/// the live ones); each heap's top is always live.
public struct TickSchedule: Sendable {
    /// A heap entry. Its instant is kept as nanoseconds from `origin`:
    /// comparing two `ContinuousClock.Instant`s costs about ten times more
    /// than comparing two integers, and a heap compares a lot.
    private struct Entry: Comparable, Sendable {
        var at: Int64
        var id: UInt64
        var arming: UInt64
        static func < (a: Entry, b: Entry) -> Bool { a.at < b.at }
    }

    private var armed: [UInt64: (deadline: ContinuousClock.Instant, latest: ContinuousClock.Instant, arming: UInt64)] = [:]
    private var byDeadline = MinHeap<Entry>()
    private var byLatest = MinHeap<Entry>()
    private var armings: UInt64 = 0
    /// The instant the heaps' integers count from: the first one armed.
    private var origin: ContinuousClock.Instant?

    /// A schedule with nothing armed.
    public init() {}

    private mutating func key(_ instant: ContinuousClock.Instant) -> Int64 {
        let origin = self.origin ?? instant
        self.origin = origin
        return (instant - origin).wholeNanoseconds
    }

    /// Arms `id` for `deadline`, to fire at most `tolerance` later; replaces its earlier arming.
    public mutating func arm(_ id: UInt64, at deadline: ContinuousClock.Instant, tolerance: Duration) {
        armings += 1
        let latest = deadline + max(.zero, tolerance)
        armed[id] = (deadline, latest, armings)
        byDeadline.push(Entry(at: key(deadline), id: id, arming: armings))
        byLatest.push(Entry(at: key(latest), id: id, arming: armings))
        tidy()
    }

    /// Disarms `id`; nothing happens when it is not armed.
    public mutating func disarm(_ id: UInt64) {
        guard armed.removeValue(forKey: id) != nil else { return }
        tidy()
    }

    /// How many are armed.
    public var count: Int { armed.count }

    /// When to wake: the earliest latest instant of any armed timer (nil: none armed).
    public var wakeAt: ContinuousClock.Instant? { byLatest.peek().flatMap { armed[$0.id]?.latest } }

    /// Disarms and returns every timer whose deadline is at or before `now`, earliest deadline first.
    public mutating func takeDue(now: ContinuousClock.Instant) -> [UInt64] {
        var due: [UInt64] = []
        while let top = byDeadline.peek() {
            if isLive(top) {
                guard armed[top.id]!.deadline <= now else { break }
                armed[top.id] = nil
                due.append(top.id)
            }
            byDeadline.pop()
        }
        tidy()
        return due
    }

    private func isLive(_ entry: Entry) -> Bool { armed[entry.id]?.arming == entry.arming }

    /// Drops stale entries from both tops, and rebuilds the heaps when stale entries outnumber live ones.
    private mutating func tidy() {
        if max(byDeadline.count, byLatest.count) > 2 * armed.count + 64 {
            var deadlines: [Entry] = [], latests: [Entry] = []
            for (id, timer) in armed {
                deadlines.append(Entry(at: key(timer.deadline), id: id, arming: timer.arming))
                latests.append(Entry(at: key(timer.latest), id: id, arming: timer.arming))
            }
            byDeadline.rebuild(deadlines)
            byLatest.rebuild(latests)
        }
        while let top = byDeadline.peek(), !isLive(top) { byDeadline.pop() }
        while let top = byLatest.peek(), !isLive(top) { byLatest.pop() }
    }
}
