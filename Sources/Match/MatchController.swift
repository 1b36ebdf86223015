import Games
import Synchronization
// The one C call in Match is the wall clock; Games imports no C library at
// all, so a game's rules and its matches build wherever Swift does.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Milliseconds since 1970 UTC from the system clock.
@Sendable public func wallClockMilliseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
}

/// The one match state machine, shared by offline and LAN play.
///
/// It owns the committed `MatchState` and coordinates the participants:
/// - only the seat that the state says is active may move, and a participant
///   acts only for the seat whose player id it carries;
/// - every change is applied to a copy (the snapshot is kept), delivered to
///   the other participants, and committed only when all of them accept;
///   a failed delivery restores the snapshot;
/// - a confirmation timeout rolls back, and a confirmation arriving after it
///   is ignored; input is refused while a confirmation is awaited;
/// - quits in and out of turn, and the optional turn timeout (timeExpired).
///
/// Every one of those decisions is `MatchCore`'s, a value this object steps
/// under a lock, inline, on the caller's thread: no actor and no task sits
/// between a participant's call and the core. What the core asks for (telling
/// the participants and the event subscribers, the deliveries, the waits and
/// the timers) is performed outside the lock, in the core's order, by one
/// caller at a time: a call that arrives while another caller performs joins
/// the queue, and its `await` returns once its own actions are performed, so
/// every participant hears every change in commit order, as from one serial
/// owner. It knows nothing of sockets or terminals.
public final class MatchController: Sendable {
    /// Settings of one controller.
    public struct Configuration: Sendable {
        /// How long deliveries of one change may take before it is rolled back.
        public var confirmationTimeout: Duration
        /// The wall clock in milliseconds since 1970 (injected in tests).
        public var clock: @Sendable () -> Int64
        /// Where this side's lines of table talk go (set by the session for a
        /// LAN match); nil: no talk, and `say` is refused.
        public var talk: (any TalkOutlet)?

        /// Settings with `confirmationTimeout` (30 seconds unless given) and
        /// `clock` (the system's wall clock unless a test injects one); `talk`
        /// starts nil, so table talk is refused until it is set.
        public init(confirmationTimeout: Duration = .seconds(30),
                    clock: @escaping @Sendable () -> Int64 = wallClockMilliseconds) {
            self.confirmationTimeout = confirmationTimeout
            self.clock = clock
        }
    }

    /// One thing for the performing caller to do, in queue order.
    private enum Item: Sendable {
        /// An action of the core.
        case action(MatchCore.Action)
        /// Everything queued before this is performed: resume the caller that queued it.
        case release(UInt64)
    }

    /// Everything the lock guards.
    private struct Guarded: Sendable {
        /// Every decision of the match.
        var core: MatchCore
        /// Emptied when the match stops: participants hold the controller (to
        /// submit), so keeping them would make a reference cycle that outlives the match.
        var participants: [any Participant]
        /// What the core asked for and nobody has performed yet, in order.
        var queue: [Item] = []
        /// Whether a caller is performing the queue now (the others only add to it).
        var performing = false
        /// The submitters waiting for their change's answer, by its token.
        var answers: [UInt64: CheckedContinuation<SubmitResult, Never>] = [:]
        /// Pending changes whose submitter has not started waiting yet, and
        /// the answers that came first (performed before the wait began).
        var expected: [UInt64: SubmitResult?] = [:]
        /// Callers waiting for their `.release` to be performed, and releases performed before their caller waited.
        var releaseWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var released: Set<UInt64> = []
        var nextRelease: UInt64 = 1
        /// The task delivering the pending change, by its token.
        var deliveries: [UInt64: Task<Void, Never>] = [:]
        /// How to cancel the pending change's inline delivery (`DeliversInline`), by its token.
        var inlineDeliveries: [UInt64: @Sendable () -> Void] = [:]
        /// Waiting for the change awaiting confirmation to be settled (`untilNothingIsPending`).
        var settleWaiters: [CheckedContinuation<Void, Never>] = []
        var nextSubscriber: UInt64 = 1
        var subscribers: [UInt64: AsyncStream<MatchEvent>.Continuation] = [:]
        /// Listeners called inline with every event (`observe`), and what each calls at the end.
        var observers: [(event: @Sendable (MatchEvent) -> Void, ended: @Sendable () -> Void)] = []
        var finishWaiters: [CheckedContinuation<MatchState, Never>] = []
        var deadlineTimer: Task<Void, Never>?
        /// The one task that sleeps until the pending change's confirmation
        /// deadline; `number` tells a sleeper that was replaced from the current one.
        ///
        /// Not a sleep per change: every `Task.sleep` arms a timer on Dispatch's
        /// manager thread, a wake-up of that thread per change on each side. A
        /// turn is answered long before its deadline, so the sleeper, once set,
        /// simply finds the next change pending when it wakes and sleeps on to
        /// that change's deadline.
        var watchdog: (task: Task<Void, Never>, wakesAt: ContinuousClock.Instant, number: UInt64)?
    }

    private let guarded: Mutex<Guarded>
    /// The settings this controller was made with.
    public let configuration: Configuration

    /// Creates a controller for `state` with one participant per seat (matched by player id).
    public init(state: MatchState, participants: [any Participant], configuration: Configuration = Configuration()) {
        let core = MatchCore(state: state, members: participants.map {
            MatchCore.Member(id: ObjectIdentifier($0), playerID: $0.playerID, isAuthority: $0.isAuthority,
                             takesDeliveries: $0.takesDeliveries, readsTurnMessages: $0.readsTurnMessages)
        }, confirmationTimeout: configuration.confirmationTimeout)
        self.guarded = Mutex(Guarded(core: core, participants: participants))
        self.configuration = configuration
    }

    /// The committed state: what every participant has accepted.
    public var state: MatchState {
        get async { await read { $0.state } }
    }

    /// Confirmations that arrived after their change was settled (the timeout, a supersede), and were ignored.
    public var lateConfirmationsIgnored: Int {
        get async { await read { $0.lateConfirmationsIgnored } }
    }

    /// Whether a tentative change waits for confirmation.
    public var isAwaitingConfirmation: Bool {
        get async { await read { $0.isAwaitingConfirmation } }
    }

    /// Whether the match has stopped (ended or failed).
    public var isStopped: Bool {
        get async { await read { $0.isStopped } }
    }

    /// The failure that stopped the match, if any.
    public var stopFailure: MatchFailure? {
        get async { await read { $0.failure } }
    }

    /// A new stream of events from now on. Subscribe before `start()` to see everything.
    public func events() async -> AsyncStream<MatchEvent> {
        let (stream, continuation) = AsyncStream<MatchEvent>.makeStream(bufferingPolicy: .unbounded)
        let key: UInt64? = guarded.withLock { guarded in
            if guarded.core.isStopped { return nil }
            let key = guarded.nextSubscriber
            guarded.nextSubscriber += 1
            guarded.subscribers[key] = continuation
            return key
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.guarded.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Calls `listener` with every event from now on, in order, on the thread
    /// that performs the controller's step (no task, no stream between them),
    /// and `ended` once after the last event, when the match stops (at once if
    /// it has). Both must return at once: a recorder handing a save to its
    /// writer, not a screen.
    public func observe(_ listener: @escaping @Sendable (MatchEvent) -> Void,
                        ended: @escaping @Sendable () -> Void) async {
        let stopped = guarded.withLock { guarded in
            if guarded.core.isStopped { return true }
            guarded.observers.append((listener, ended))
            return false
        }
        if stopped { ended() }
    }

    /// Waits until the match has stopped and returns the final committed state.
    ///
    /// Like a read, it returns only once the stop's actions are performed: the
    /// participants have heard the end (a link has kept its connection for
    /// a rematch, say) before the caller goes on.
    public func finished() async -> MatchState {
        if guarded.withLock({ $0.core.isStopped }) { return await read { $0.state } }
        return await withCheckedContinuation { continuation in
            let stopped = guarded.withLock { guarded in
                if guarded.core.isStopped { return true }
                guarded.finishWaiters.append(continuation)
                return false
            }
            // Stopped between the two looks: wait for the stop's actions as above.
            if stopped { Task { continuation.resume(returning: await self.read { $0.state }) } }
        }
    }

    /// Checks that each seat has exactly one participant, attaches them and begins the first turn.
    public func start() async throws(SubmitRejection) {
        let now = configuration.clock()
        let result: Result<Void, SubmitRejection> = await step { core in
            do throws(SubmitRejection) {
                return (.success(()), try core.start(now: now))
            } catch {
                return (.failure(error), [])
            }
        }
        try result.get()
    }

    /// Proposes a change on behalf of `participant` and waits for its fate.
    ///
    /// Refused at once (nothing applied) when the participant has no seat,
    /// acts for another seat, a confirmation is pending, or the rules say no.
    /// Otherwise the change is applied to a copy, delivered to every other
    /// participant, and committed when all accept; rolled back on a delivery
    /// failure or the confirmation timeout.
    ///
    /// An authoritative participant may pass the exact `authoritative` state
    /// that its side committed; it must be our state plus `change` (its
    /// deadline is then taken as is). Its changes supersede a pending one.
    public func submit(_ change: MatchChange, from participant: any Participant,
                       authoritative: MatchState? = nil) async -> SubmitResult {
        let now = configuration.clock()
        let id = ObjectIdentifier(participant)
        return await settle { $0.submit(change, from: id, authoritative: authoritative, now: now) }
    }

    /// Proposes a change that was judged on our committed state already
    /// (a peer's blob read with `MatchState.successor(decoding:)`): it is
    /// committed as judged, not applied again. The same refusals as
    /// `submit(_:from:authoritative:)`; a change of the authority comes with
    /// its deadline, one of another participant gets ours. When our state has
    /// moved on since, the change is judged again on the state we have.
    public func submit(_ successor: MatchSuccessor, from participant: any Participant) async -> SubmitResult {
        let now = configuration.clock()
        let id = ObjectIdentifier(participant)
        let authoritative = participant.isAuthority ? successor.state : nil
        return await settle {
            $0.submit(successor.change, from: id, authoritative: authoritative, judged: successor, now: now)
        }
    }

    /// `submit(_:from:authoritative:)` without suspending when the answer
    /// is known at once: the core is stepped and its actions performed on
    /// this thread (when no other caller is performing them), and a change
    /// that needs no delivery, or whose one receiver takes it inline
    /// (`DeliversInline`), is answered here. Otherwise the answer is awaited
    /// with `SubmitProgress.result()`. For a shell that steps its link on
    /// the event loop's thread and goes on only if it need not wait.
    public func submitNow(_ change: MatchChange, from participant: any Participant,
                          authoritative: MatchState? = nil) -> SubmitProgress {
        let now = configuration.clock()
        let id = ObjectIdentifier(participant)
        return begin { $0.submit(change, from: id, authoritative: authoritative, now: now) }
    }

    /// `submit(_:from:)` of a judged change, as `submitNow(_:from:authoritative:)`.
    public func submitNow(_ successor: MatchSuccessor, from participant: any Participant) -> SubmitProgress {
        let now = configuration.clock()
        let id = ObjectIdentifier(participant)
        let authoritative = participant.isAuthority ? successor.state : nil
        return begin { $0.submit(successor.change, from: id, authoritative: authoritative, judged: successor, now: now) }
    }

    /// Proposes a change for `participant` without waiting for its fate: a
    /// bot's move, sent off from the thread its search ran on. The core is
    /// stepped and its actions performed on this thread (unless another
    /// caller is performing them: then by that caller, in order), and nobody
    /// is answered: the change's fate shows in the events and the
    /// participants' calls, as everybody's does.
    ///
    /// `sequence` is the committed state's the change was chosen on: once
    /// the match has moved on from it (a turn that timed out while the bot
    /// thought, say), the change is dropped and nothing happens. Refused
    /// changes are dropped too, as `submit` would have refused them.
    public func propose(_ change: MatchChange, from participant: any Participant, chosenAt sequence: UInt32) {
        let now = configuration.clock()
        let id = ObjectIdentifier(participant)
        fire { core in
            guard core.state.sequence == sequence else { return [] }
            switch core.submit(change, from: id, authoritative: nil, now: now) {
            case .answered(_, let actions), .pending(_, let actions): return actions
            }
        }
    }

    /// Replaces our committed state with the authority's, e.g. after a
    /// confirmation timeout, so the two sides cannot diverge.
    ///
    /// Refused unless `participant` is the authority and `newState` is this
    /// match and keeps every move we committed. A pending change is rolled back first.
    @discardableResult
    public func adopt(_ newState: MatchState, from participant: any Participant) async -> Bool {
        let now = configuration.clock()
        let id = ObjectIdentifier(participant)
        return await step { core in core.adopt(newState, from: id, now: now) }
    }

    /// Passes a message for the player to every event subscriber (e.g. "reconnecting…").
    public func report(_ notice: String) async {
        await step { core in ((), core.report(notice)) }
    }

    /// Tells every event subscriber and every participant that `seat`'s
    /// player went away (its link dropped; the seat is kept for `graceLeft`)
    /// or came back. Changes nothing in the match: an away seat's turn waits.
    public func reportPresence(seat: SeatIndex, away: Bool, graceLeft: Duration = .zero) async {
        await step { core in ((), core.reportPresence(seat: seat, away: away, graceLeft: graceLeft)) }
    }

    /// `seat`'s local player says `text` (a frontend calls this): it goes to
    /// the talk outlet, whose answer comes back as `.talk` or `.talkRefused`.
    public func say(_ text: String, seat: SeatIndex) async {
        guard let talkOutlet = configuration.talk else {
            let refusal = TalkRefusal(code: 0, name: "noTalk", sentence: "There is no table talk in this match.")
            await step { _ in ((), [.emit(.talkRefused(refusal))]) }
            return
        }
        await talkOutlet.say(text, seat: seat, in: self)
    }

    /// Relays a line of table talk to every event subscriber and every
    /// participant (the host's links to its guests), in the one order of
    /// this controller's events: after every change committed before it and
    /// before every change committed after it. Without an authority (on the
    /// host) the line is stamped with the committed sequence; a guest keeps
    /// the host's stamp. Changes nothing in the match.
    public func relayTalk(_ line: TalkLine) async {
        await step { core in ((), core.relayTalk(line)) }
    }

    /// Tells this side's frontends that a line its player said was not relayed.
    public func reportTalkRefused(_ refusal: TalkRefusal) async {
        await step { core in ((), core.reportTalkRefused(refusal)) }
    }

    /// Tells every event subscriber and participant that a bot named `bot` plays `seat` for its
    /// away player now, or (nil) that the player has it back. Changes nothing in the match.
    public func reportStandIn(seat: SeatIndex, bot: String?) async {
        // On a table's host, the other guests' links tell their guests (SEAT).
        await step { core in ((), core.reportStandIn(seat: seat, bot: bot)) }
    }

    /// Stops the match on this side because of `failure` (e.g. a desync).
    public func fail(_ failure: MatchFailure) async {
        let now = configuration.clock()
        await step { core in ((), core.fail(failure, now: now)) }
    }

    /// Returns once no change awaits confirmation (at once when none does, or
    /// the match has stopped): what a change refused as `awaitingConfirmation`
    /// waits for before it is proposed again.
    public func untilNothingIsPending() async {
        await withCheckedContinuation { continuation in
            let waits = guarded.withLock { guarded in
                guard guarded.core.isAwaitingConfirmation, !guarded.core.isStopped else { return false }
                guarded.settleWaiters.append(continuation)
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    // MARK: Stepping the core

    /// Reads the core once every action queued so far is performed, as an
    /// actor's property would be read after the work before it.
    private func read<Value: Sendable>(_ body: (MatchCore) -> Value) async -> Value {
        await step { core in (body(core), []) }
    }

    /// Steps the core under the lock, queues its actions, and returns `body`'s
    /// value once they are performed (by this caller, or by the one performing
    /// the queue now).
    private func step<Value: Sendable>(_ body: (inout MatchCore) -> (Value, [MatchCore.Action])) async -> Value {
        let (value, release) = guarded.withLock { guarded -> (Value, UInt64?) in
            let (value, actions) = body(&guarded.core)
            return (value, Self.enqueue(actions, in: &guarded))
        }
        if let release { await untilReleased(release) } else { performQueue() }
        return value
    }

    /// Steps the core with a submission and waits for its answer.
    private func settle(_ body: (inout MatchCore) -> MatchCore.Submission) async -> SubmitResult {
        switch begin(body) {
        case .answered(let result): result
        case .awaiting(let progress): await progress.result()
        }
    }

    /// Steps the core with a submission and performs its actions here unless
    /// another caller is performing the queue; the answer when it is known by then.
    private func begin(_ body: (inout MatchCore) -> MatchCore.Submission) -> SubmitProgress {
        let (answered, token, release) = guarded.withLock { guarded -> (SubmitResult?, UInt64?, UInt64?) in
            switch body(&guarded.core) {
            case .answered(let result, let actions):
                return (result, nil, Self.enqueue(actions, in: &guarded))
            case .pending(let token, let actions):
                guarded.expected[token] = .some(nil)
                return (nil, token, Self.enqueue(actions, in: &guarded))
            }
        }
        if let release { return .awaiting(SubmitProgress.Awaited(controller: self, token: token, release: release, answered: answered)) }
        performQueue()
        if let answered { return .answered(answered) }
        guard let token else { return .answered(.rejected(.matchOver)) }
        let early: SubmitResult? = guarded.withLock { guarded in
            guard case .some(.some(let result)) = guarded.expected[token] else { return nil }
            guarded.expected.removeValue(forKey: token)
            return result
        }
        if let early { return .answered(early) }
        return .awaiting(SubmitProgress.Awaited(controller: self, token: token, release: nil, answered: nil))
    }

    /// The rest of `begin`: waits for the caller's actions to be performed, then for the answer.
    fileprivate func finish(_ awaited: SubmitProgress.Awaited) async -> SubmitResult {
        if let release = awaited.release { await untilReleased(release) }
        if let answered = awaited.answered { return answered }
        guard let token = awaited.token else { return .rejected(.matchOver) }
        return await withCheckedContinuation { continuation in
            let early: SubmitResult? = guarded.withLock { guarded in
                if case .some(.some(let result)) = guarded.expected.removeValue(forKey: token) { return result }
                guarded.answers[token] = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    /// Steps the core for an event nobody waits on (a timer, a delivery's end).
    private func fire(_ body: (inout MatchCore) -> [MatchCore.Action]) {
        let performs = guarded.withLock { guarded in
            Self.enqueue(body(&guarded.core), in: &guarded, waits: false) == nil
        }
        if performs { performQueue() }
    }

    /// Queues `actions`. Returns nil when the caller is to perform the queue
    /// itself (nobody else is), else the release it waits for (0 when it
    /// does not wait: a timer's or a delivery's step).
    private static func enqueue(_ actions: [MatchCore.Action], in guarded: inout Guarded,
                                waits: Bool = true) -> UInt64? {
        guarded.queue.append(contentsOf: actions.map(Item.action))
        guard guarded.performing else {
            guarded.performing = true
            return nil
        }
        guard waits else { return 0 }
        let release = guarded.nextRelease
        guarded.nextRelease &+= 1
        guarded.queue.append(.release(release))
        return release
    }

    private func untilReleased(_ release: UInt64) async {
        await withCheckedContinuation { continuation in
            let done = guarded.withLock { guarded in
                if guarded.released.remove(release) != nil { return true }
                guarded.releaseWaiters[release] = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Performs the queue in order, outside the lock, until it is empty.
    private func performQueue() {
        while true {
            let batch: [Item] = guarded.withLock { guarded in
                if guarded.queue.isEmpty {
                    guarded.performing = false
                    return []
                }
                let batch = guarded.queue
                guarded.queue = []
                return batch
            }
            if batch.isEmpty { return }
            // A submitter is answered once everything its step queued is
            // performed (the turn that follows begun, the end told), as when
            // an actor's method returns.
            var answers: [(token: UInt64, result: SubmitResult)] = []
            for item in batch {
                switch item {
                case .action(.answer(let token, let result)):
                    answers.append((token, result))
                case .action(let action): perform(action)
                case .release(let release):
                    let waiter = guarded.withLock { guarded -> CheckedContinuation<Void, Never>? in
                        if let waiter = guarded.releaseWaiters.removeValue(forKey: release) { return waiter }
                        guarded.released.insert(release)
                        return nil
                    }
                    waiter?.resume()
                }
            }
            for (token, result) in answers { answer(token, result)?.resume(returning: result) }
        }
    }

    /// The waiter for change `token`'s answer; nil when it has not begun to
    /// wait (the answer is kept for it) or nobody submitted it to wait.
    private func answer(_ token: UInt64, _ result: SubmitResult) -> CheckedContinuation<SubmitResult, Never>? {
        guarded.withLock { guarded in
            if let waiter = guarded.answers.removeValue(forKey: token) { return waiter }
            // A change answered before its submitter began to wait; one
            // nobody submitted to wait for (committed at once) is dropped.
            if guarded.expected[token] != nil { guarded.expected[token] = .some(result) }
            return nil
        }
    }

    private func perform(_ action: MatchCore.Action) {
        switch action {
        case .attachAll:
            for participant in guarded.withLock({ $0.participants }) { participant.attach(to: self) }
        case .emit(let event):
            let (subscribers, observers) = guarded.withLock { (Array($0.subscribers.values), $0.observers) }
            for observer in observers { observer.event(event) }
            for continuation in subscribers { continuation.yield(event) }
        case .tellParticipants(let state, let event):
            for participant in guarded.withLock({ $0.participants }) { participant.stateChanged(state, event: event) }
        case .turnBegan(let seat, let state):
            for participant in guarded.withLock({ $0.participants }) where state.seat(of: participant.playerID) == seat {
                participant.turnBegan(state)
            }
        case .deliver(let token, let change, let next, let receiverIDs):
            let receivers = guarded.withLock { guarded in
                guarded.participants.filter { receiverIDs.contains(ObjectIdentifier($0)) }
            }
            if receivers.count == 1, let inline = receivers[0] as? any DeliversInline,
               let cancel = inline.startDelivery(change, resulting: next, finished: { [weak self] error in
                   self?.deliveriesFinished(token: token, error: error)
               }) {
                // One receiver that passes it on by itself: no task between the verdict and the commit.
                guarded.withLock { $0.inlineDeliveries[token] = cancel }
                break
            }
            guarded.withLock { guarded in
                // Made under the lock, so a delivery that finishes at once finds itself listed.
                guarded.deliveries[token] = Task { [weak self] in
                    let outcome: DeliveryError?
                    do {
                        if receivers.count == 1 {
                            // One receiver (a two-seat match): no group, no child task per turn.
                            try await receivers[0].deliver(change, resulting: next)
                        } else {
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                for receiver in receivers {
                                    group.addTask { try await receiver.deliver(change, resulting: next) }
                                }
                                try await group.waitForAll()
                            }
                        }
                        outcome = nil
                    } catch let failure as DeliveryError {
                        outcome = failure
                    } catch {
                        outcome = .transportFailed("\(error)")
                    }
                    self?.deliveriesFinished(token: token, error: outcome)
                }
            }
        case .cancelDeliveries(let token):
            let (task, cancel) = guarded.withLock {
                ($0.deliveries.removeValue(forKey: token), $0.inlineDeliveries.removeValue(forKey: token))
            }
            task?.cancel()
            cancel?()
        case .answer(let token, let result):
            answer(token, result)?.resume(returning: result)
        case .watchConfirmation(let deadline):
            watchConfirmation(until: deadline)
        case .armDeadline(let sequence, let seat, let milliseconds):
            let replaced = guarded.withLock { guarded in
                let replaced = guarded.deadlineTimer
                guarded.deadlineTimer = Task { [weak self] in
                    do { try await Task.sleep(for: .milliseconds(milliseconds)) } catch { return }
                    await self?.deadlinePassed(sequence: sequence, seat: seat)
                }
                return replaced
            }
            replaced?.cancel()
        case .disarmDeadline:
            guarded.withLock { $0.deadlineTimer }?.cancel()
        case .settled:
            let waiters = guarded.withLock { guarded in
                defer { guarded.settleWaiters = [] }
                return guarded.settleWaiters
            }
            for waiter in waiters { waiter.resume() }
        case .stop(let final, let failure):
            let taken = guarded.withLock { guarded in
                defer {
                    guarded.watchdog = nil
                    guarded.participants = []
                    guarded.subscribers = [:]
                    guarded.observers = []
                    guarded.finishWaiters = []
                    guarded.settleWaiters = []
                }
                return (guarded.watchdog?.task, guarded.participants, Array(guarded.subscribers.values),
                        guarded.observers.map(\.ended), guarded.finishWaiters, guarded.settleWaiters)
            }
            let (watchdog, participants, subscribers, observersEnded, finishWaiters, settleWaiters) = taken
            watchdog?.cancel()
            for participant in participants { participant.matchEnded(final, failure: failure) }
            for continuation in subscribers { continuation.finish() }
            for ended in observersEnded { ended() }
            for waiter in finishWaiters { waiter.resume(returning: final) }
            for waiter in settleWaiters { waiter.resume() }
        }
    }

    /// Makes sure the watchdog wakes by `deadline` (a sleeper already due
    /// by then is kept: it will see the change).
    private func watchConfirmation(until deadline: ContinuousClock.Instant) {
        let replaced = guarded.withLock { guarded -> Task<Void, Never>? in
            if let watchdog = guarded.watchdog, watchdog.wakesAt <= deadline { return nil }
            let replaced = guarded.watchdog?.task
            let number = (guarded.watchdog?.number ?? 0) &+ 1
            let task = Task { [weak self] in
                do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
                self?.watchdogWoke(number)
            }
            guarded.watchdog = (task, deadline, number)
            return replaced
        }
        replaced?.cancel()
    }

    /// Rolls back a pending change whose deadline has passed; sleeps on to a later one's.
    private func watchdogWoke(_ number: UInt64) {
        let now = configuration.clock()
        let due = guarded.withLock { guarded -> Bool in
            guard guarded.watchdog?.number == number else { return false }
            guarded.watchdog = nil
            return true
        }
        guard due else { return }
        fire { core in core.confirmationDeadline(instant: .now, now: now) }
    }

    private func deliveriesFinished(token: UInt64, error: DeliveryError?) {
        let now = configuration.clock()
        fire { core in core.deliveriesFinished(token: token, error: error, now: now) }
    }

    private func deadlinePassed(sequence: UInt32, seat: SeatIndex) async {
        let now = configuration.clock()
        _ = await settle { core in
            core.deadlinePassed(sequence: sequence, seat: seat, now: now) ?? .answered(.rejected(.matchOver), [])
        }
    }
}

/// How far a `MatchController.submitNow` got: answered already, or the answer to await.
public enum SubmitProgress: Sendable {
    /// The change was answered on the caller's thread.
    case answered(SubmitResult)
    /// The answer comes later: `result()` waits for it.
    case awaiting(Awaited)

    /// A submission whose answer is still to come.
    public struct Awaited: Sendable {
        fileprivate let controller: MatchController
        fileprivate let token: UInt64?
        fileprivate let release: UInt64?
        fileprivate let answered: SubmitResult?

        /// Waits for the answer.
        public func result() async -> SubmitResult { await controller.finish(self) }
    }

    /// The answer, waiting for it if it is not known yet.
    public func result() async -> SubmitResult {
        switch self {
        case .answered(let result): result
        case .awaiting(let awaited): await awaited.result()
        }
    }
}
