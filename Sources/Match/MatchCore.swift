import Games

/// The match controller's decisions as a value: who may change the match,
/// the rules' verdict, the change applied to a copy while its deliveries run
/// (the snapshot kept), commit or rollback, the turns, the turn deadline and
/// the end. No task, lock, clock or participant inside: each event comes in
/// with the time it happened, and what follows from it comes back as
/// `Action`s for the caller to perform in order (swift-nio's state machines).
///
/// `MatchController` is the async facade that performs the actions for
/// offline play, bots and the screens; a shell that owns its own timers and
/// participants (an event loop's) can step the core itself. Participants are
/// named by `MatchCore.Member.ID`, an `ObjectIdentifier` of the facade's object.
public struct MatchCore: Sendable {
    /// What the core knows of a participant: whose seat, and how it takes part.
    public struct Member: Sendable, Hashable {
        /// The participant, as the caller names it.
        public typealias ID = ObjectIdentifier
        /// The caller's name for this participant.
        public let id: ID
        /// The player id of the seat it plays.
        public let playerID: PlayerID
        /// Whether it speaks for the authoritative copy (`Participant.isAuthority`).
        public let isAuthority: Bool
        /// Whether a change must be delivered to it before it commits (`Participant.takesDeliveries`).
        public let takesDeliveries: Bool
        /// Whether its side reads a move's message (`Participant.readsTurnMessages`).
        public let readsTurnMessages: Bool

        /// A member named `id`.
        public init(id: ID, playerID: PlayerID, isAuthority: Bool, takesDeliveries: Bool, readsTurnMessages: Bool = true) {
            self.id = id
            self.playerID = playerID
            self.isAuthority = isAuthority
            self.takesDeliveries = takesDeliveries
            self.readsTurnMessages = readsTurnMessages
        }
    }

    /// What the caller does after an event, in the order given.
    public enum Action: Sendable {
        /// Attach every participant to the controller (`Participant.attach`); once, at the start.
        case attachAll
        /// Tell every event subscriber.
        case emit(MatchEvent)
        /// Tell every participant (`Participant.stateChanged`).
        case tellParticipants(MatchState, MatchEvent)
        /// Tell the participants seated at `seat` that their turn began (`Participant.turnBegan`).
        case turnBegan(seat: SeatIndex, MatchState)
        /// Deliver the tentative change `token` to `receivers`, then report with `deliveriesFinished`.
        case deliver(token: UInt64, MatchChange, resulting: MatchState, to: [Member.ID])
        /// Stop delivering change `token`: it was settled without them.
        case cancelDeliveries(token: UInt64)
        /// The submission of change `token` has its answer.
        case answer(token: UInt64, SubmitResult)
        /// Step `confirmationDeadline(now:)` no later than `until`.
        case watchConfirmation(until: ContinuousClock.Instant)
        /// Step `deadlinePassed(sequence:seat:now:)` after `milliseconds` (the turn timeout).
        case armDeadline(sequence: UInt32, seat: SeatIndex, milliseconds: Int64)
        /// The turn deadline no longer applies.
        case disarmDeadline
        /// No change awaits confirmation any more (wake whoever waits for that).
        case settled
        /// The match stopped at this state (with the failure, if one stopped it):
        /// tell every participant (`Participant.matchEnded`), then drop them, end
        /// every subscription, stop the watchers and the deadline, and wake every waiter.
        case stop(MatchState, MatchFailure?)
    }

    /// What became of a submitted change.
    public enum Submission: Sendable {
        /// Answered at once, after `actions`.
        case answered(SubmitResult, [Action])
        /// Applied tentatively as change `token`; its answer comes as `.answer(token:_:)` in a later step.
        case pending(token: UInt64, [Action])
    }

    /// A change applied tentatively, waiting for its deliveries.
    private struct Pending: Sendable {
        var token: UInt64
        var change: MatchChange
        var snapshot: MatchState
        var tentative: MatchState
        var origin: Member.ID?
        /// When it rolls back unconfirmed.
        var confirmBy: ContinuousClock.Instant
    }

    /// The committed state: what every participant has accepted.
    public private(set) var state: MatchState
    /// How long deliveries of one change may take before it is rolled back.
    public let confirmationTimeout: Duration
    /// Emptied when the match stops.
    private var members: [Member]
    private var pending: Pending?
    private var nextToken: UInt64 = 1
    private var started = false
    /// Whether the match has stopped (ended or failed).
    public private(set) var isStopped = false
    /// The failure that stopped the match, if any.
    public private(set) var failure: MatchFailure?
    /// Confirmations that arrived after their change was settled, and were ignored.
    public private(set) var lateConfirmationsIgnored = 0

    /// A core for `state` played by `members`, one per seat (matched by player id).
    public init(state: MatchState, members: [Member], confirmationTimeout: Duration) {
        self.state = state
        self.members = members
        self.confirmationTimeout = confirmationTimeout
    }

    /// Whether a tentative change waits for confirmation.
    public var isAwaitingConfirmation: Bool { pending != nil }

    private mutating func nextNumber() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    private var authority: Member? { members.first { $0.isAuthority } }

    private func seat(of id: Member.ID) -> SeatIndex? {
        guard let member = members.first(where: { $0.id == id }) else { return nil }
        return state.seat(of: member.playerID)
    }

    // MARK: Events

    /// Checks that each seat has exactly one member, and begins the first turn
    /// (or stops at once, for a match that is over). Nothing after the first call.
    public mutating func start(now: Int64) throws(SubmitRejection) -> [Action] {
        guard !started else { return [] }
        for seat in state.seats where members.filter({ $0.playerID == seat.playerID }).count != 1 {
            throw .notAParticipant
        }
        started = true
        var actions: [Action] = [.attachAll, .emit(.started(state))]
        if state.isEnded {
            actions += stop(failure: nil)
        } else {
            actions += beginTurn(now: now)
        }
        return actions
    }

    /// `from` proposes `change` (see `MatchController.submit`): refused at once,
    /// committed at once when nobody must take its delivery, or applied to a
    /// copy and delivered. `now` is the wall clock in ms, `instant` the same
    /// moment on the continuous clock (the confirmation deadline's).
    public mutating func submit(_ change: MatchChange, from id: Member.ID, authoritative: MatchState? = nil,
                                judged: MatchSuccessor? = nil, now: Int64,
                                instant: ContinuousClock.Instant = .now) -> Submission {
        guard started, !isStopped else { return .answered(.rejected(.matchOver), []) }
        guard let seat = seat(of: id), let member = members.first(where: { $0.id == id }) else {
            return .answered(.rejected(.notAParticipant), [])
        }
        let fromAuthority = member.isAuthority
        if !fromAuthority {
            guard change.seat == seat else { return .answered(.rejected(.notYourSeat), []) }
            if case .timeExpired = change { return .answered(.rejected(.notYourSeat), []) }
        }
        // A message goes only where every side reads it (the sender's too: a
        // peer whose parlor is older may not send one either).
        if case .move(_, _, _?) = change, members.contains(where: { !$0.readsTurnMessages }) {
            // At a LAN table no connection carries one, whatever the parlors (section 13): say so, not "older".
            return .answered(.rejected(state.seats.count > 2 ? .messagesNotAtTables : .messagesUnreadable), [])
        }
        var actions: [Action] = []
        if pending != nil {
            guard fromAuthority else { return .answered(.rejected(.awaitingConfirmation), []) }
            actions += resolvePending(.rolledBack(.superseded), now: now)
        }
        var now = now
        if fromAuthority, case .timeExpired = change {
            // The authority's clock decides when a turn expires.
            now = max(now, state.deadline)
        }
        var next: MatchState
        if let judged, judged.follows(state) {
            next = judged.state
            if !fromAuthority { next.startTurnClock(now: now) }
            return propose(change, resulting: next, origin: id, before: actions, now: now, instant: instant)
        }
        do { next = try state.applying(change, now: now) } catch {
            return .answered(.rejected(.rule(error)), actions)
        }
        if let authoritative {
            guard authoritative.stateHash == next.stateHash else {
                return .answered(.rejected(.authoritativeStateDisagrees), actions)
            }
            next = authoritative
        }
        return propose(change, resulting: next, origin: id, before: actions, now: now, instant: instant)
    }

    private mutating func propose(_ change: MatchChange, resulting next: MatchState, origin: Member.ID?, before: [Action],
                                  now: Int64, instant: ContinuousClock.Instant) -> Submission {
        let token = nextNumber()
        var actions = before + [.disarmDeadline]
        let receivers = members.filter { $0.id != origin && $0.takesDeliveries }.map(\.id)
        if receivers.isEmpty {
            // Nobody to confirm it (a guest's move at the host, with only the
            // host's own player to tell; the host's move at a guest): commit now.
            pending = Pending(token: token, change: change, snapshot: state, tentative: next, origin: origin, confirmBy: instant)
            actions.append(.emit(.awaitingConfirmation(change, tentative: next)))
            actions += resolvePending(.committed(next), now: now)
            return .answered(.committed(next), actions)
        }
        let confirmBy = instant + confirmationTimeout
        pending = Pending(token: token, change: change, snapshot: state, tentative: next, origin: origin, confirmBy: confirmBy)
        actions.append(.watchConfirmation(until: confirmBy))
        actions.append(.emit(.awaitingConfirmation(change, tentative: next)))
        actions.append(.deliver(token: token, change, resulting: next, to: receivers))
        return .pending(token: token, actions)
    }

    /// The deliveries of change `token` finished (`error` nil: all accepted).
    /// One that arrives after its change was settled is ignored and counted.
    public mutating func deliveriesFinished(token: UInt64, error: DeliveryError?, now: Int64) -> [Action] {
        guard let current = pending, current.token == token else {
            lateConfirmationsIgnored += 1
            return []
        }
        switch error {
        case nil: return resolvePending(.committed(current.tentative), now: now)
        case .rejected(let why)?: return resolvePending(.rolledBack(.rejected(why)), now: now)
        case .transportFailed(let why)?: return resolvePending(.rolledBack(.transportFailed(why)), now: now)
        }
    }

    /// The confirmation watch woke at `instant`: a pending change past its
    /// deadline rolls back; one not yet due is watched on.
    public mutating func confirmationDeadline(instant: ContinuousClock.Instant, now: Int64) -> [Action] {
        guard let current = pending, !isStopped else { return [] }
        if instant >= current.confirmBy { return resolvePending(.rolledBack(.confirmationTimeout), now: now) }
        return [.watchConfirmation(until: current.confirmBy)]
    }

    /// The turn deadline armed for `sequence` and `seat` passed: the seat's
    /// time expires, unless the turn moved on or a change is pending.
    public mutating func deadlinePassed(sequence: UInt32, seat: SeatIndex, now: Int64,
                                        instant: ContinuousClock.Instant = .now) -> Submission? {
        guard !isStopped, pending == nil, state.sequence == sequence, state.activeSeat == seat else { return nil }
        let change = MatchChange.timeExpired(seat)
        guard let next = try? state.applying(change, now: max(now, state.deadline)) else { return nil }
        return propose(change, resulting: next, origin: nil, before: [], now: now, instant: instant)
    }

    /// Commits or restores the snapshot, tells everyone, and moves on (see `MatchController`).
    private mutating func resolvePending(_ result: SubmitResult, beginsNextTurn: Bool = true, now: Int64) -> [Action] {
        guard let current = pending else { return [] }
        pending = nil
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
        var actions: [Action] = [.cancelDeliveries(token: current.token), .emit(event), .tellParticipants(state, event),
                                 .answer(token: current.token, result)]
        if beginsNextTurn { actions += afterStateChange(now: now) }
        actions.append(.settled)
        return actions
    }

    private mutating func afterStateChange(now: Int64) -> [Action] {
        if state.isEnded { return stop(failure: nil) }
        return isStopped ? [] : beginTurn(now: now)
    }

    /// The authority's whole state replaces ours (see `MatchController.adopt`):
    /// whether it was taken, and what follows.
    public mutating func adopt(_ newState: MatchState, from id: Member.ID, now: Int64) -> (taken: Bool, [Action]) {
        guard started, !isStopped, let member = members.first(where: { $0.id == id }), member.isAuthority,
              seat(of: id) != nil else { return (false, []) }
        guard newState.matchID == state.matchID, newState.gameID == state.gameID,
              newState.seats.map(\.playerID) == state.seats.map(\.playerID) else { return (false, []) }
        var actions: [Action] = []
        if pending != nil {
            // Settled without beginning the restored snapshot's turn: the adopted state replaces it at once.
            actions += resolvePending(.rolledBack(.superseded), beginsNextTurn: false, now: now)
        }
        guard newState.sequence >= state.sequence,
              Array(newState.moves.prefix(state.moves.count)) == state.moves else {
            actions += fail(.desync("the host's state drops moves it had confirmed"), now: now)
            return (false, actions)
        }
        state = newState
        actions += [.disarmDeadline, .emit(.adopted(newState)), .tellParticipants(newState, .adopted(newState))]
        actions += afterStateChange(now: now)
        return (true, actions)
    }

    /// A notice for the player's screens.
    public func report(_ notice: String) -> [Action] {
        isStopped ? [] : [.emit(.notice(notice))]
    }

    /// `seat`'s player went away (kept for `graceLeft`) or came back.
    public func reportPresence(seat: SeatIndex, away: Bool, graceLeft: Duration) -> [Action] {
        guard !isStopped, state.seats.indices.contains(seat) else { return [] }
        let event = MatchEvent.presence(seat: seat, away: away, graceLeft: away ? graceLeft : .zero)
        return [.emit(event), .tellParticipants(state, event)]
    }

    /// A line of table talk in the one order of this match's events; stamped
    /// with the committed sequence where there is no authority (the host).
    public func relayTalk(_ line: TalkLine) -> [Action] {
        guard !isStopped else { return [] }
        var line = line
        if authority == nil { line.afterSequence = state.sequence }
        let event = MatchEvent.talk(line)
        return [.emit(event), .tellParticipants(state, event)]
    }

    /// A line this side's player said was not relayed.
    public func reportTalkRefused(_ refusal: TalkRefusal) -> [Action] {
        isStopped ? [] : [.emit(.talkRefused(refusal))]
    }

    /// A bot named `bot` plays `seat` for its away player now, or (nil) the player has it back.
    public func reportStandIn(seat: SeatIndex, bot: String?) -> [Action] {
        guard !isStopped, state.seats.indices.contains(seat) else { return [] }
        let event = MatchEvent.standIn(seat: seat, bot: bot)
        return [.emit(event), .tellParticipants(state, event)]
    }

    /// Stops the match on this side because of `failure`, rolling back a pending change first.
    public mutating func fail(_ failure: MatchFailure, now: Int64) -> [Action] {
        guard !isStopped else { return [] }
        var actions: [Action] = []
        if pending != nil { actions += resolvePending(.rolledBack(.transportFailed(failure.description)), now: now) }
        guard !isStopped else { return actions }
        return actions + stop(failure: failure)
    }

    private mutating func stop(failure: MatchFailure?) -> [Action] {
        guard !isStopped else { return [] }
        isStopped = true
        self.failure = failure
        members = []
        let event: MatchEvent = failure.map { .failed($0, state) } ?? .ended(state)
        return [.disarmDeadline, .emit(event), .stop(state, failure)]
    }

    private func beginTurn(now: Int64) -> [Action] {
        guard let seat = state.activeSeat else { return [] }
        var actions: [Action] = [.emit(.turnBegan(seat: seat, state))]
        // The turn timeout is enforced here unless an authoritative participant does it.
        if authority == nil, state.deadline > 0 {
            actions.append(.armDeadline(sequence: state.sequence, seat: seat, milliseconds: max(0, state.deadline - now)))
        } else {
            actions.append(.disarmDeadline)
        }
        actions.append(.turnBegan(seat: seat, state))
        return actions
    }
}
