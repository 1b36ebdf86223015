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

        public init(confirmationTimeout: Duration = .seconds(30),
                    clock: @escaping @Sendable () -> Int64 = wallClockMilliseconds) {
            self.confirmationTimeout = confirmationTimeout
            self.clock = clock
        }
    }

    /// A change applied tentatively, waiting for its deliveries.
    private struct Pending {
        var token: UInt64
        var change: MatchChange
        var snapshot: MatchState
        var tentative: MatchState
        var origin: ObjectIdentifier?
        var continuation: CheckedContinuation<SubmitResult, Never>?
        var deliveries: Task<Void, Never>?
        /// When it rolls back unconfirmed (`Configuration.confirmationTimeout` after it was proposed).
        var confirmBy: ContinuousClock.Instant
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

    /// The committed state: what every participant has accepted.
    public private(set) var state: MatchState
    public nonisolated let configuration: Configuration
    /// Emptied when the match stops: participants hold the controller (to
    /// submit), so keeping them would make a reference cycle that outlives the match.
    private var participants: [any Participant]
    private var pending: Pending?
    /// Waiting for the change awaiting confirmation to be settled (`untilNothingIsPending`).
    private var settleWaiters: [CheckedContinuation<Void, Never>] = []
    private var nextToken: UInt64 = 1
    private var started = false
    private var stopped = false
    private var failure: MatchFailure?
    private var deadlineTimer: Task<Void, Never>?
    private var subscribers: [UInt64: AsyncStream<MatchEvent>.Continuation] = [:]
    private var finishWaiters: [CheckedContinuation<MatchState, Never>] = []
    /// Tokens of changes whose confirmation timed out; kept to recognise late confirmations.
    public private(set) var lateConfirmationsIgnored = 0

    /// Creates a controller for `state` with one participant per seat (matched by player id).
    public init(state: MatchState, participants: [any Participant], configuration: Configuration = Configuration()) {
        self.state = state
        self.participants = participants
        self.configuration = configuration
    }

    /// Whether a tentative change waits for confirmation.
    public var isAwaitingConfirmation: Bool { pending != nil }

    /// Whether the match has stopped (ended or failed).
    public var isStopped: Bool { stopped }

    /// The failure that stopped the match, if any.
    public var stopFailure: MatchFailure? { failure }

    /// A new stream of events from now on. Subscribe before `start()` to see everything.
    public func events() -> AsyncStream<MatchEvent> {
        let (stream, continuation) = AsyncStream<MatchEvent>.makeStream(bufferingPolicy: .unbounded)
        if stopped { continuation.finish(); return stream }
        let key = nextToken
        nextToken += 1
        subscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    private func unsubscribe(_ key: UInt64) { subscribers[key] = nil }

    private func emit(_ event: MatchEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    /// Waits until the match has stopped and returns the final committed state.
    public func finished() async -> MatchState {
        if stopped { return state }
        return await withCheckedContinuation { finishWaiters.append($0) }
    }

    /// Checks that each seat has exactly one participant, attaches them and begins the first turn.
    public func start() throws(SubmitRejection) {
        guard !started else { return }
        for seat in state.seats where participants.filter({ $0.playerID == seat.playerID }).count != 1 {
            _ = seat
            throw .notAParticipant
        }
        started = true
        for participant in participants { participant.attach(to: self) }
        emit(.started(state))
        if state.isEnded { stop(failure: nil); return }
        beginTurn()
    }

    private var authority: (any Participant)? { participants.first { $0.isAuthority } }

    private func seat(of participant: any Participant) -> SeatIndex? {
        guard participants.contains(where: { $0 === participant }) else { return nil }
        return state.seat(of: participant.playerID)
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
        await submit(change, from: participant, authoritative: authoritative, judged: nil)
    }

    /// Proposes a change that was judged on our committed state already
    /// (a peer's blob read with `MatchState.successor(decoding:)`): it is
    /// committed as judged, not applied again. The same refusals as
    /// `submit(_:from:authoritative:)`; a change of the authority comes with
    /// its deadline, one of another participant gets ours. When our state has
    /// moved on since, the change is judged again on the state we have.
    public func submit(_ successor: MatchSuccessor, from participant: any Participant) async -> SubmitResult {
        await submit(successor.change, from: participant, authoritative: participant.isAuthority ? successor.state : nil,
                     judged: successor)
    }

    private func submit(_ change: MatchChange, from participant: any Participant, authoritative: MatchState?,
                        judged: MatchSuccessor?) async -> SubmitResult {
        guard started, !stopped else { return .rejected(.matchOver) }
        guard let seat = seat(of: participant) else { return .rejected(.notAParticipant) }
        let fromAuthority = participant.isAuthority
        if !fromAuthority {
            guard change.seat == seat else { return .rejected(.notYourSeat) }
            if case .timeExpired = change { return .rejected(.notYourSeat) }
        }
        if pending != nil {
            guard fromAuthority else { return .rejected(.awaitingConfirmation) }
            resolvePending(.rolledBack(.superseded))
        }
        var now = configuration.clock()
        if fromAuthority, case .timeExpired = change {
            // The authority's clock decides when a turn expires.
            now = max(now, state.deadline)
        }
        var next: MatchState
        if let judged, judged.follows(state) {
            next = judged.state
            if !fromAuthority { next.startTurnClock(now: now) }
            return await propose(change, resulting: next, origin: ObjectIdentifier(participant))
        }
        do { next = try state.applying(change, now: now) } catch { return .rejected(.rule(error)) }
        if let authoritative {
            guard authoritative.stateHash == next.stateHash else { return .rejected(.authoritativeStateDisagrees) }
            next = authoritative
        }
        return await propose(change, resulting: next, origin: ObjectIdentifier(participant))
    }

    /// Applies `change` tentatively and runs the deliveries with the confirmation timeout.
    private func propose(_ change: MatchChange, resulting next: MatchState, origin: ObjectIdentifier?) async -> SubmitResult {
        let token = nextToken
        nextToken += 1
        deadlineTimer?.cancel()
        let receivers = participants.filter { ObjectIdentifier($0) != origin && $0.takesDeliveries }
        if receivers.isEmpty {
            // Nobody to confirm it (a guest's move at the host, with only the
            // host's own player to tell; the host's move at a guest): commit
            // now, on this actor, without a task and its wake-up.
            pending = Pending(token: token, change: change, snapshot: state, tentative: next, origin: origin,
                              confirmBy: .now)
            emit(.awaitingConfirmation(change, tentative: next))
            resolvePending(.committed(next))
            return .committed(next)
        }
        let confirmBy = ContinuousClock.now + configuration.confirmationTimeout
        pending = Pending(token: token, change: change, snapshot: state, tentative: next, origin: origin, confirmBy: confirmBy)
        watchConfirmation(until: confirmBy)
        emit(.awaitingConfirmation(change, tentative: next))
        return await withCheckedContinuation { continuation in
            pending?.continuation = continuation
            pending?.deliveries = Task { [weak self] in
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
        guard let current = pending, !stopped else { return }
        if ContinuousClock.now >= current.confirmBy {
            resolvePending(.rolledBack(.confirmationTimeout))
        } else {
            watchConfirmation(until: current.confirmBy)
        }
    }

    private func deliveriesFinished(token: UInt64, error: DeliveryError?) {
        guard let current = pending, current.token == token else {
            // A confirmation after the timeout (or after a supersede): never commit it.
            lateConfirmationsIgnored += 1
            return
        }
        switch error {
        case nil:
            resolvePending(.committed(current.tentative))
        case .rejected(let why)?:
            resolvePending(.rolledBack(.rejected(why)))
        case .transportFailed(let why)?:
            resolvePending(.rolledBack(.transportFailed(why)))
        }
    }

    /// Commits or restores the snapshot, tells everyone, and moves on.
    ///
    /// `beginsNextTurn` is false when the caller replaces the state at once
    /// (adopting the authority's state): beginning a turn
    /// of the restored snapshot would ask a player, or a bot, for a move in
    /// a state that is gone a moment later, and a line typed for it would be
    /// played at a later turn.
    private func resolvePending(_ result: SubmitResult, beginsNextTurn: Bool = true) {
        guard let current = pending else { return }
        pending = nil
        defer {
            let waiters = settleWaiters
            settleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
        current.deliveries?.cancel()
        let event: MatchEvent
        switch result {
        case .committed(let next):
            state = next
            event = .committed(current.change, next)
        case .rolledBack(let reason):
            state = current.snapshot
            event = .rolledBack(current.change, reason: reason, current.snapshot)
        case .rejected:
            state = current.snapshot
            event = .rolledBack(current.change, reason: .rejected("refused"), current.snapshot)
        }
        emit(event)
        for participant in participants { participant.stateChanged(state, event: event) }
        current.continuation?.resume(returning: result)
        if beginsNextTurn { afterStateChange() }
    }

    private func afterStateChange() {
        if state.isEnded { stop(failure: nil) } else if !stopped { beginTurn() }
    }

    /// Replaces our committed state with the authority's, e.g. after a
    /// confirmation timeout, so the two sides cannot diverge.
    ///
    /// Refused unless `participant` is the authority and `newState` is this
    /// match and keeps every move we committed. A pending change is rolled back first.
    @discardableResult
    public func adopt(_ newState: MatchState, from participant: any Participant) -> Bool {
        guard started, !stopped, participant.isAuthority, seat(of: participant) != nil else { return false }
        guard newState.matchID == state.matchID, newState.gameID == state.gameID,
              newState.seats.map(\.playerID) == state.seats.map(\.playerID) else { return false }
        if pending != nil { resolvePending(.rolledBack(.superseded), beginsNextTurn: false) }
        guard newState.sequence >= state.sequence,
              Array(newState.moves.prefix(state.moves.count)) == state.moves else {
            fail(.desync("the host's state drops moves it had confirmed"))
            return false
        }
        state = newState
        deadlineTimer?.cancel()
        emit(.adopted(newState))
        for participant in participants { participant.stateChanged(newState, event: .adopted(newState)) }
        afterStateChange()
        return true
    }

    /// Passes a message for the player to every event subscriber (e.g. "reconnecting…").
    public func report(_ notice: String) {
        guard !stopped else { return }
        emit(.notice(notice))
    }

    /// Tells every event subscriber and every participant that `seat`'s
    /// player went away (its link dropped; the seat is kept for `graceLeft`)
    /// or came back. Changes nothing in the match: an away seat's turn waits.
    public func reportPresence(seat: SeatIndex, away: Bool, graceLeft: Duration = .zero) {
        guard !stopped, state.seats.indices.contains(seat) else { return }
        let event = MatchEvent.presence(seat: seat, away: away, graceLeft: away ? graceLeft : .zero)
        emit(event)
        for participant in participants { participant.stateChanged(state, event: event) }
    }

    /// `seat`'s local player says `text` (a frontend calls this): it goes to
    /// the talk outlet, whose answer comes back as `.talk` or `.talkRefused`.
    public func say(_ text: String, seat: SeatIndex) async {
        guard let talkOutlet = configuration.talk else {
            emit(.talkRefused(TalkRefusal(code: 0, name: "noTalk", sentence: "There is no table talk in this match.")))
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
        guard !stopped else { return }
        var line = line
        if authority == nil { line.afterSequence = state.sequence }
        let event = MatchEvent.talk(line)
        emit(event)
        for participant in participants { participant.stateChanged(state, event: event) }
    }

    /// Tells this side's frontends that a line its player said was not relayed.
    public func reportTalkRefused(_ refusal: TalkRefusal) {
        guard !stopped else { return }
        emit(.talkRefused(refusal))
    }

    /// Tells every event subscriber and participant that a bot named `bot` plays `seat` for its
    /// away player now, or (nil) that the player has it back. Changes nothing in the match.
    public func reportStandIn(seat: SeatIndex, bot: String?) {
        guard !stopped, state.seats.indices.contains(seat) else { return }
        let event = MatchEvent.standIn(seat: seat, bot: bot)
        emit(event)
        // On a table's host, the other guests' links tell their guests (SEAT).
        for participant in participants { participant.stateChanged(state, event: event) }
    }

    /// Stops the match on this side because of `failure` (e.g. a desync).
    public func fail(_ failure: MatchFailure) {
        guard !stopped else { return }
        if pending != nil { resolvePending(.rolledBack(.transportFailed(failure.description))) }
        guard !stopped else { return }
        stop(failure: failure)
    }

    private func stop(failure: MatchFailure?) {
        guard !stopped else { return }
        stopped = true
        self.failure = failure
        deadlineTimer?.cancel()
        watchdog?.task.cancel()
        watchdog = nil
        if let failure { emit(.failed(failure, state)) } else { emit(.ended(state)) }
        for participant in participants { participant.matchEnded(state, failure: failure) }
        participants = []
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
        for waiter in finishWaiters { waiter.resume(returning: state) }
        finishWaiters = []
        for waiter in settleWaiters { waiter.resume() }
        settleWaiters = []
    }

    /// Returns once no change awaits confirmation (at once when none does, or
    /// the match has stopped): what a change refused as `awaitingConfirmation`
    /// waits for before it is proposed again.
    public func untilNothingIsPending() async {
        guard pending != nil, !stopped else { return }
        await withCheckedContinuation { settleWaiters.append($0) }
    }

    private func beginTurn() {
        guard let seat = state.activeSeat else { return }
        emit(.turnBegan(seat: seat, state))
        scheduleDeadline()
        for participant in participants where state.seat(of: participant.playerID) == seat {
            participant.turnBegan(state)
        }
    }

    /// Enforces the turn timeout unless an authoritative participant does.
    private func scheduleDeadline() {
        deadlineTimer?.cancel()
        guard authority == nil, state.deadline > 0, let seat = state.activeSeat else { return }
        let sequence = state.sequence
        let wait = max(0, state.deadline - configuration.clock())
        deadlineTimer = Task { [weak self] in
            do { try await Task.sleep(for: .milliseconds(wait)) } catch { return }
            await self?.deadlinePassed(sequence: sequence, seat: seat)
        }
    }

    private func deadlinePassed(sequence: UInt32, seat: SeatIndex) async {
        guard !stopped, pending == nil, state.sequence == sequence, state.activeSeat == seat else { return }
        let change = MatchChange.timeExpired(seat)
        guard let next = try? state.applying(change, now: max(configuration.clock(), state.deadline)) else { return }
        _ = await propose(change, resulting: next, origin: nil)
    }
}
