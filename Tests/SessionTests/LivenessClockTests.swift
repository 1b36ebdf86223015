import Synchronization
import Testing
@testable import Session

/// A clock whose time moves only when the test says: sleepers wake when it passes their instant.
private final class ManualTime: Sendable {
    private struct Sleeper {
        var until: ContinuousClock.Instant
        var continuation: CheckedContinuation<Void, any Error>
    }
    private let state: Mutex<(now: ContinuousClock.Instant, sleepers: [UInt64: Sleeper], next: UInt64)>
    let start: ContinuousClock.Instant

    init() {
        start = .now
        state = Mutex((start, [:], 0))
    }

    var now: ContinuousClock.Instant { state.withLock { $0.now } }
    var sleeping: Int { state.withLock { $0.sleepers.count } }

    func sleep(until instant: ContinuousClock.Instant) async throws {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let wakeNow = state.withLock { state -> Bool in
                    if Task.isCancelled || state.now >= instant { return true }
                    state.sleepers[id] = Sleeper(until: instant, continuation: continuation)
                    return false
                }
                if wakeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the time to `start + offset` and wakes whoever sleeps until then.
    func set(_ offset: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = start + offset
            let now = state.now
            let due = state.sleepers.filter { $0.value.until <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}

/// Counts a timer's firings and the fake instant of each.
private final class Firings: Sendable {
    private let times = Mutex<[Duration]>([])
    var all: [Duration] { times.withLock { $0 } }
    func record(_ offset: Duration) { times.withLock { $0.append(offset) } }

    /// Waits (real time, briefly) until `count` firings came.
    func wait(for count: Int) async -> Bool {
        for _ in 0..<500 {
            if all.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return all.count >= count
    }
}

/// The process's one liveness timer: deadlines with a tolerance, shared wake-ups, weak timers.
@Suite struct LivenessClockTests {
    @Test func aTimerFiresAtItsDeadlineNotBeforeAndOnlyOnce() async throws {
        let time = ManualTime()
        let clock = LivenessClock(now: { time.now }, sleep: { try await time.sleep(until: $0) })
        let firings = Firings()
        let timer = clock.timer { firings.record(time.now - time.start) }
        timer.schedule(at: time.start + .seconds(3), tolerance: .milliseconds(100))
        try await Task.sleep(for: .milliseconds(20))
        time.set(.seconds(2))
        try await Task.sleep(for: .milliseconds(20))
        #expect(firings.all.isEmpty, "nothing before the deadline")
        time.set(.milliseconds(3100))
        #expect(await firings.wait(for: 1))
        #expect(firings.all == [.milliseconds(3100)])
        time.set(.seconds(10))
        try await Task.sleep(for: .milliseconds(20))
        #expect(firings.all.count == 1, "a fired timer waits to be armed again")
        #expect(clock.armedCount == 0)
    }

    @Test func timersDueCloseTogetherShareOneWakeUp() async throws {
        let time = ManualTime()
        let clock = LivenessClock(now: { time.now }, sleep: { try await time.sleep(until: $0) })
        let firings = Firings()
        // A thousand links whose heartbeats fall due within 100 ms, each tolerating 100 ms.
        let timers = (0..<1000).map { _ in clock.timer { firings.record(time.now - time.start) } }
        for (index, timer) in timers.enumerated() {
            timer.schedule(at: time.start + .seconds(3) + .microseconds(index * 100), tolerance: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(20))
        time.set(.milliseconds(3100))
        #expect(await firings.wait(for: 1000))
        #expect(clock.wakeUps == 1)
        #expect(firings.all.allSatisfy { $0 == .milliseconds(3100) })
    }

    @Test func aWakeUpForOneTimerLeavesTimersNotYetDueAlone() async throws {
        let time = ManualTime()
        let clock = LivenessClock(now: { time.now }, sleep: { try await time.sleep(until: $0) })
        let first = Firings(), second = Firings()
        let soon = clock.timer { first.record(time.now - time.start) }
        let later = clock.timer { second.record(time.now - time.start) }
        soon.schedule(at: time.start + .seconds(1), tolerance: .zero)
        later.schedule(at: time.start + .milliseconds(1500), tolerance: .seconds(1))
        try await Task.sleep(for: .milliseconds(20))
        time.set(.seconds(1))
        #expect(await first.wait(for: 1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(second.all.isEmpty, "not due yet at the first timer's wake-up")
        time.set(.milliseconds(2500))
        #expect(await second.wait(for: 1))
        #expect(first.all == [.seconds(1)] && second.all == [.milliseconds(2500)])
    }

    @Test func anEarlierDeadlineWakesTheClockSooner() async throws {
        let time = ManualTime()
        let clock = LivenessClock(now: { time.now }, sleep: { try await time.sleep(until: $0) })
        let late = Firings(), soon = Firings()
        let lateTimer = clock.timer { late.record(time.now - time.start) }
        lateTimer.schedule(at: time.start + .seconds(15), tolerance: .zero)
        try await Task.sleep(for: .milliseconds(20))
        let soonTimer = clock.timer { soon.record(time.now - time.start) }
        soonTimer.schedule(at: time.start + .seconds(1), tolerance: .zero)
        try await Task.sleep(for: .milliseconds(20))
        time.set(.seconds(1))
        #expect(await soon.wait(for: 1))
        #expect(late.all.isEmpty)
        time.set(.seconds(15))
        #expect(await late.wait(for: 1))
        #expect(soon.all == [.seconds(1)] && late.all == [.seconds(15)])
    }

    @Test func aCancelledOrDroppedTimerNeverFires() async throws {
        let time = ManualTime()
        let clock = LivenessClock(now: { time.now }, sleep: { try await time.sleep(until: $0) })
        let firings = Firings()
        let cancelled = clock.timer { firings.record(.seconds(1)) }
        cancelled.schedule(at: time.start + .seconds(1), tolerance: .zero)
        cancelled.cancel()
        var dropped: LivenessClock.Timer? = clock.timer { firings.record(.seconds(2)) }
        dropped?.schedule(at: time.start + .seconds(2), tolerance: .zero)
        dropped = nil
        let kept = clock.timer { firings.record(.seconds(3)) }
        kept.schedule(at: time.start + .seconds(3), tolerance: .zero)
        try await Task.sleep(for: .milliseconds(20))
        time.set(.seconds(3))
        #expect(await firings.wait(for: 1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(firings.all == [.seconds(3)])
        _ = dropped
    }

    @Test func theRealClockFiresOnTime() async throws {
        let clock = LivenessClock()
        let firings = Firings()
        let start = ContinuousClock.now
        let timer = clock.timer { firings.record(ContinuousClock.now - start) }
        timer.schedule(at: start + .milliseconds(50), tolerance: .milliseconds(10))
        #expect(await firings.wait(for: 1))
        #expect(firings.all.first.map { $0 >= .milliseconds(50) } == true)
    }

    /// The process's clock waits on the event loop and fires there: not early, and an earlier timer armed later still comes first.
    @Test func theProcessClockFiresOnTheEventLoopInDeadlineOrder() async throws {
        let loop = try EventLoop.shared()
        let firings = Firings()
        let onLoop = Firings()
        let start = ContinuousClock.now
        let late = LivenessClock.shared.timer {
            firings.record(ContinuousClock.now - start)
            if loop.inEventLoop { onLoop.record(.seconds(2)) }
        }
        let soon = LivenessClock.shared.timer {
            firings.record(ContinuousClock.now - start)
            if loop.inEventLoop { onLoop.record(.seconds(1)) }
        }
        late.schedule(at: start + .milliseconds(300), tolerance: .milliseconds(10))
        soon.schedule(at: start + .milliseconds(60), tolerance: .milliseconds(10))
        #expect(await firings.wait(for: 2))
        let times = firings.all
        #expect(times.count == 2 && times[0] >= .milliseconds(60) && times[1] >= .milliseconds(300))
        #expect(onLoop.all == [.seconds(1), .seconds(2)], "both fired on the loop's thread, the sooner first")
    }
}

/// When a link's liveness next needs a tick, so an idle link sleeps until then.
@Suite struct LivenessDeadlineTests {
    let settings = Liveness.Settings(interval: .seconds(3), timeout: .seconds(15), grace: .seconds(120))

    @Test func aPresentPeerIsTickedAtTheNextHeartbeatOrItsSilence() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        #expect(machine.nextTick(lastHeard: start, open: true, now: start) == start + .seconds(3))
        // Ticked at that instant, it sends the heartbeat; the next is three seconds on.
        #expect(machine.tick(now: start + .seconds(3), lastHeard: start, open: true) == [.sendHeartbeat])
        #expect(machine.nextTick(lastHeard: start, open: true, now: start + .seconds(3)) == start + .seconds(6))
        // Heard from long ago with the heartbeat further off than the silence: the silence first.
        for second in [6, 9, 12] {
            _ = machine.tick(now: start + .seconds(second), lastHeard: start, open: true)
        }
        #expect(machine.nextTick(lastHeard: start, open: true, now: start + .seconds(12)) == start + .seconds(15))
        #expect(machine.tick(now: start + .seconds(15), lastHeard: start, open: true).contains(.peerSilent(wait: .seconds(120))))
    }

    @Test func anAwayPeerOrAClosedConnectionIsTickedAsBefore() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        #expect(machine.nextTick(lastHeard: start, open: false, now: start + .seconds(1)) == start + .seconds(1))
        _ = machine.tick(now: start + .seconds(16), lastHeard: start, open: true)
        #expect(!machine.isPeerPresent)
        #expect(machine.nextTick(lastHeard: start, open: true, now: start + .seconds(16)) == start + .seconds(17))
        #expect(machine.tolerance == .milliseconds(100))
    }
}

/// The clock's pure schedule, against a plain list of what is armed.
@Suite struct TickScheduleTests {
    let start = ContinuousClock.now

    @Test func reArmingReplacesTheEarlierDeadlineAndDisarmingForgetsIt() {
        var schedule = TickSchedule()
        schedule.arm(1, at: start + .seconds(1), tolerance: .zero)
        schedule.arm(1, at: start + .seconds(5), tolerance: .milliseconds(100))
        schedule.arm(2, at: start + .seconds(2), tolerance: .zero)
        schedule.disarm(2)
        #expect(schedule.count == 1)
        #expect(schedule.wakeAt == start + .milliseconds(5100))
        #expect(schedule.takeDue(now: start + .seconds(3)).isEmpty, "the first arming of 1 and the disarmed 2 never fire")
        #expect(schedule.takeDue(now: start + .seconds(5)) == [1])
        #expect(schedule.count == 0 && schedule.wakeAt == nil)
    }

    @Test func theWakeUpIsTheEarliestLatestInstantEvenWhenToleranceDiffers() {
        var schedule = TickSchedule()
        schedule.arm(1, at: start + .seconds(1), tolerance: .seconds(10))
        schedule.arm(2, at: start + .seconds(4), tolerance: .zero)
        #expect(schedule.wakeAt == start + .seconds(4))
        // At 4 s both are due, earliest deadline first.
        #expect(schedule.takeDue(now: start + .seconds(4)) == [1, 2])
    }

    /// Thousands of random arms, re-arms, disarms and takes, each step checked against a dictionary.
    @Test func agreesWithAPlainListOverManyRandomSteps() {
        var schedule = TickSchedule()
        var model: [UInt64: (deadline: ContinuousClock.Instant, latest: ContinuousClock.Instant)] = [:]
        var random = SystemRandomNumberGenerator()
        var now = start
        for _ in 0..<20_000 {
            let id = UInt64.random(in: 0..<300, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                let deadline = now + .milliseconds(Int.random(in: 0..<3000, using: &random))
                let tolerance = Duration.milliseconds([0, 100, 250].randomElement(using: &random)!)
                schedule.arm(id, at: deadline, tolerance: tolerance)
                model[id] = (deadline, deadline + tolerance)
            case 6:
                schedule.disarm(id)
                model[id] = nil
            default:
                now += .milliseconds(Int.random(in: 0..<200, using: &random))
                let due = model.filter { $0.value.deadline <= now }
                let taken = schedule.takeDue(now: now)
                #expect(Set(taken) == Set(due.keys) && taken.count == due.count)
                let deadlines = taken.map { due[$0]!.deadline }
                #expect(deadlines == deadlines.sorted(), "earliest deadline first")
                for id in due.keys { model[id] = nil }
            }
            #expect(schedule.count == model.count)
            #expect(schedule.wakeAt == model.values.map(\.latest).min())
        }
    }
}

/// Durations as whole nanoseconds, for the timers' heaps and the event loop's deadlines.
@Suite struct DurationNanosecondsTests {
    @Test func signedSaturatingAndClampedAtZero() {
        #expect(Duration.milliseconds(1500).wholeNanoseconds == 1_500_000_000)
        #expect(Duration.milliseconds(-1500).wholeNanoseconds == -1_500_000_000)
        #expect(Duration.seconds(Int64.max).wholeNanoseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeNanoseconds == .min)
        // A past deadline is due now, never a trap.
        #expect(Duration.milliseconds(-500).clampedNanoseconds == 0)
        #expect(Duration.milliseconds(250).clampedNanoseconds == 250_000_000)
    }
}
