import Games
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
/// Every one of those decisions is `MatchCore`'s, a value this actor steps;
/// the actor performs what the core asks (the participants, the event
/// subscribers, the deliveries, the waits and the timers).
/// It knows nothing of sockets or terminals.
public actor MatchController {
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

    /// The one task that sleeps until the pending change's confirmation
    /// deadline; `number` tells a sleeper that was replaced from the current one.
    ///
    /// Not a sleep per change: every `Task.sleep` arms a timer on Dispatch's
    /// manager thread, a wake-up of that thread per change on each side, two
    /// in every round trip (39% of all wake-ups of `bench turns`'s protocol
    /// turn). A turn is answered long before its deadline, so the sleeper,
    /// once set, simply finds the next change pending when it wakes and
    /// sleeps on to that change's deadline.
    private var watchdog: (task: Task<Void, Never>, wakesAt: ContinuousClock.Instant, number: UInt64)?

    /// Every decision of the match.
    private var core: MatchCore
    /// The committed state: what every participant has accepted.
    public var state: MatchState { core.state }
    /// The settings this controller was made with; readable without awaiting the actor.
    public nonisolated let configuration: Configuration
    /// Emptied when the match stops: participants hold the controller (to
    /// submit), so keeping them would make a reference cycle that outlives the match.
    private var participants: [any Participant]
    /// The submitters waiting for their change's answer, by its token.
    private var answers: [UInt64: CheckedContinuation<SubmitResult, Never>] = [:]
    /// The task delivering the pending change, by its token.
    private var deliveries: [UInt64: Task<Void, Never>] = [:]
    /// Waiting for the change awaiting confirmation to be settled (`untilNothingIsPending`).
    private var settleWaiters: [CheckedContinuation<Void, Never>] = []
    private var nextSubscriber: UInt64 = 1
    private var deadlineTimer: Task<Void, Never>?
    private var subscribers: [UInt64: AsyncStream<MatchEvent>.Continuation] = [:]
    private var finishWaiters: [CheckedContinuation<MatchState, Never>] = []
    /// Confirmations that arrived after their change was settled (the timeout, a supersede), and were ignored.
    public var lateConfirmationsIgnored: Int { core.lateConfirmationsIgnored }

    /// Creates a controller for `state` with one participant per seat (matched by player id).
    public init(state: MatchState, participants: [any Participant], configuration: Configuration = Configuration()) {
        self.core = MatchCore(state: state, members: participants.map {
            MatchCore.Member(id: ObjectIdentifier($0), playerID: $0.playerID, isAuthority: $0.isAuthority,
                             takesDeliveries: $0.takesDeliveries, readsTurnMessages: $0.readsTurnMessages)
        }, confirmationTimeout: configuration.confirmationTimeout)
        self.participants = participants
        self.configuration = configuration
    }

    /// Whether a tentative change waits for confirmation.
    public var isAwaitingConfirmation: Bool { core.isAwaitingConfirmation }

    /// Whether the match has stopped (ended or failed).
    public var isStopped: Bool { core.isStopped }

    /// The failure that stopped the match, if any.
    public var stopFailure: MatchFailure? { core.failure }

    /// A new stream of events from now on. Subscribe before `start()` to see everything.
    public func events() -> AsyncStream<MatchEvent> {
        let (stream, continuation) = AsyncStream<MatchEvent>.makeStream(bufferingPolicy: .unbounded)
        if core.isStopped { continuation.finish(); return stream }
        let key = nextSubscriber
        nextSubscriber += 1
        subscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    private func unsubscribe(_ key: UInt64) { subscribers[key] = nil }

    /// Waits until the match has stopped and returns the final committed state.
    public func finished() async -> MatchState {
        if core.isStopped { return core.state }
        return await withCheckedContinuation { finishWaiters.append($0) }
    }

    /// Checks that each seat has exactly one participant, attaches them and begins the first turn.
    public func start() throws(SubmitRejection) {
        perform(try core.start(now: configuration.clock()))
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
        await settle(core.submit(change, from: ObjectIdentifier(participant), authoritative: authoritative,
                                 now: configuration.clock()))
    }

    /// Proposes a change that was judged on our committed state already
    /// (a peer's blob read with `MatchState.successor(decoding:)`): it is
    /// committed as judged, not applied again. The same refusals as
    /// `submit(_:from:authoritative:)`; a change of the authority comes with
    /// its deadline, one of another participant gets ours. When our state has
    /// moved on since, the change is judged again on the state we have.
    public func submit(_ successor: MatchSuccessor, from participant: any Participant) async -> SubmitResult {
        await settle(core.submit(successor.change, from: ObjectIdentifier(participant),
                                 authoritative: participant.isAuthority ? successor.state : nil, judged: successor,
                                 now: configuration.clock()))
    }

    /// Performs a submission's actions and waits for its answer.
    private func settle(_ submission: MatchCore.Submission) async -> SubmitResult {
        switch submission {
        case .answered(let result, let actions):
            perform(actions)
            return result
        case .pending(let token, let actions):
            return await withCheckedContinuation { continuation in
                answers[token] = continuation
                perform(actions)
            }
        }
    }

    /// Performs the core's actions, in order.
    private func perform(_ actions: [MatchCore.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: MatchCore.Action) {
        switch action {
        case .attachAll:
            for participant in participants { participant.attach(to: self) }
        case .emit(let event):
            for continuation in subscribers.values { continuation.yield(event) }
        case .tellParticipants(let state, let event):
            for participant in participants { participant.stateChanged(state, event: event) }
        case .turnBegan(let seat, let state):
            for participant in participants where state.seat(of: participant.playerID) == seat {
                participant.turnBegan(state)
            }
        case .deliver(let token, let change, let next, let receiverIDs):
            let receivers = participants.filter { receiverIDs.contains(ObjectIdentifier($0)) }
            deliveries[token] = Task { [weak self] in
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
                    await self?.deliveriesFinished(token: token, error: nil)
                } catch let error as DeliveryError {
                    await self?.deliveriesFinished(token: token, error: error)
                } catch {
                    await self?.deliveriesFinished(token: token, error: .transportFailed("\(error)"))
                }
            }
        case .cancelDeliveries(let token):
            deliveries.removeValue(forKey: token)?.cancel()
        case .answer(let token, let result):
            answers.removeValue(forKey: token)?.resume(returning: result)
        case .watchConfirmation(let deadline):
            watchConfirmation(until: deadline)
        case .armDeadline(let sequence, let seat, let milliseconds):
            deadlineTimer?.cancel()
            deadlineTimer = Task { [weak self] in
                do { try await Task.sleep(for: .milliseconds(milliseconds)) } catch { return }
                await self?.deadlinePassed(sequence: sequence, seat: seat)
            }
        case .disarmDeadline:
            deadlineTimer?.cancel()
        case .settled:
            let waiters = settleWaiters
            settleWaiters = []
            for waiter in waiters { waiter.resume() }
        case .stop(let final, let failure):
            watchdog?.task.cancel()
            watchdog = nil
            for participant in participants { participant.matchEnded(final, failure: failure) }
            participants = []
            for continuation in subscribers.values { continuation.finish() }
            subscribers = [:]
            for waiter in finishWaiters { waiter.resume(returning: final) }
            finishWaiters = []
            for waiter in settleWaiters { waiter.resume() }
            settleWaiters = []
        }
    }

    /// Makes sure the watchdog wakes by `deadline` (a sleeper already due
    /// by then is kept: it will see the change).
    private func watchConfirmation(until deadline: ContinuousClock.Instant) {
        if let watchdog, watchdog.wakesAt <= deadline { return }
        watchdog?.task.cancel()
        let number = (watchdog?.number ?? 0) &+ 1
        let task = Task { [weak self] in
            do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
            await self?.watchdogWoke(number)
        }
        watchdog = (task, deadline, number)
    }

    /// Rolls back a pending change whose deadline has passed; sleeps on to a later one's.
    private func watchdogWoke(_ number: UInt64) {
        guard watchdog?.number == number else { return }
        watchdog = nil
        perform(core.confirmationDeadline(instant: .now, now: configuration.clock()))
    }

    private func deliveriesFinished(token: UInt64, error: DeliveryError?) {
        deliveries[token] = nil
        perform(core.deliveriesFinished(token: token, error: error, now: configuration.clock()))
    }

    /// Replaces our committed state with the authority's, e.g. after a
    /// confirmation timeout, so the two sides cannot diverge.
    ///
    /// Refused unless `participant` is the authority and `newState` is this
    /// match and keeps every move we committed. A pending change is rolled back first.
    @discardableResult
    public func adopt(_ newState: MatchState, from participant: any Participant) -> Bool {
        let (taken, actions) = core.adopt(newState, from: ObjectIdentifier(participant), now: configuration.clock())
        perform(actions)
        return taken
    }

    /// Passes a message for the player to every event subscriber (e.g. "reconnecting…").
    public func report(_ notice: String) {
        perform(core.report(notice))
    }

    /// Tells every event subscriber and every participant that `seat`'s
    /// player went away (its link dropped; the seat is kept for `graceLeft`)
    /// or came back. Changes nothing in the match: an away seat's turn waits.
    public func reportPresence(seat: SeatIndex, away: Bool, graceLeft: Duration = .zero) {
        perform(core.reportPresence(seat: seat, away: away, graceLeft: graceLeft))
    }

    /// `seat`'s local player says `text` (a frontend calls this): it goes to
    /// the talk outlet, whose answer comes back as `.talk` or `.talkRefused`.
    public func say(_ text: String, seat: SeatIndex) async {
        guard let talkOutlet = configuration.talk else {
            perform(.emit(.talkRefused(TalkRefusal(code: 0, name: "noTalk", sentence: "There is no table talk in this match."))))
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
    public func relayTalk(_ line: TalkLine) {
        perform(core.relayTalk(line))
    }

    /// Tells this side's frontends that a line its player said was not relayed.
    public func reportTalkRefused(_ refusal: TalkRefusal) {
        perform(core.reportTalkRefused(refusal))
    }

    /// Tells every event subscriber and participant that a bot named `bot` plays `seat` for its
    /// away player now, or (nil) that the player has it back. Changes nothing in the match.
    public func reportStandIn(seat: SeatIndex, bot: String?) {
        // On a table's host, the other guests' links tell their guests (SEAT).
        perform(core.reportStandIn(seat: seat, bot: bot))
    }

    /// Stops the match on this side because of `failure` (e.g. a desync).
    public func fail(_ failure: MatchFailure) {
        perform(core.fail(failure, now: configuration.clock()))
    }

    /// Returns once no change awaits confirmation (at once when none does, or
    /// the match has stopped): what a change refused as `awaitingConfirmation`
    /// waits for before it is proposed again.
    public func untilNothingIsPending() async {
        guard core.isAwaitingConfirmation, !core.isStopped else { return }
        await withCheckedContinuation { settleWaiters.append($0) }
    }

    private func deadlinePassed(sequence: UInt32, seat: SeatIndex) async {
        guard let submission = core.deadlinePassed(sequence: sequence, seat: seat, now: configuration.clock()) else { return }
        _ = await settle(submission)
    }
}
