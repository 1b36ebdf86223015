import Games
import Match

/// The host's side of one guest's link during a match, as a pure state
/// machine: every rule `RemoteGuest` follows between the handshake and the
/// end, with no lock, no clock, no task and no I/O inside
/// (docs/ARCHITECTURE.md, "In-match links").
///
/// The shell (`RemoteGuest`) feeds it what happens (`Event`: a frame from
/// the guest, the controller committing, a save calling back, the timer, the
/// guest coming back on a new link, leave-for-now) and performs what it
/// returns (`Action`: send, close, submit the guest's change as judged,
/// save, report, settle the end's delivery), in order. What only the shell
/// can know (whether the link is open now, when bytes last arrived, the
/// time, whether the confirmation timeout has passed) comes in with the event.
///
/// The rules (docs/PROTOCOL.md, sections 6-8, 16, 18 and "Reconnecting"):
/// - A guest's TURN or QUIT is judged once by `HostTurnValidator`; a change
///   it refuses is answered TURN_REJECTED and never reaches the controller.
///   The controller commits what the validator judged, and the commit is
///   answered CONFIRM; every other commit is pushed as TURN or QUIT.
/// - With saving on, nothing reveals a committed state before its save calls
///   back (write-ahead): CONFIRM, pushes, STATE, relayed talk and the end's
///   GOODBYE wait for it. A failed save pauses the match: the guest is told
///   with GOODBYE(cannotSave) and refused (busy) until a save succeeds.
/// - No GOODBYE from the guest ends the match or changes a result here: it
///   is the guest going away for now, and its seat is kept for the grace
///   period (`Liveness`). After grace the seat is quit at a table where three
///   or more still play, else the match stops as `connectionLost`.
/// - The end is delivered once the guest answers it (GOODBYE(matchOver) or
///   REMATCH), stays connected through the after-match window when a rematch
///   is possible, or comes back and is given it.
struct HostLink: Sendable {
    /// What the machine is told once, at the start.
    struct Setup: Sendable {
        /// The guest's seat.
        var seat: SeatIndex
        /// The guest's name, for notices.
        var name: String
        /// Whether the link speaks protocol 2 (table talk).
        var speaksTalk: Bool
        /// Whether the host has table talk to judge the guest's lines (nil `TableTalk`: no).
        var hearsTalk: Bool
        /// The timing of heartbeats, silence and grace.
        var settings: Liveness.Settings
        /// How long the guest has to acknowledge the end (without a rematch).
        var confirmationTimeout: Duration
    }

    /// What happened, as the shell tells it.
    enum Event: Sendable {
        /// The controller attached: the silence clock starts `now`.
        case attached(now: ContinuousClock.Instant, lastHeard: ContinuousClock.Instant, linkOpen: Bool)
        /// What arrived from the guest on the current link, in order.
        case inbound(Inbound)
        /// The controller's answer to the guest's change (`Action.submit`);
        /// `mayRetry`: the confirmation timeout has not passed since the frame arrived.
        case submitted(sequence: UInt32, SubmitResult, mayRetry: Bool)
        /// The controller's `stateChanged`.
        case controller(MatchEvent)
        /// The controller's `matchEnded`.
        case matchEnded(MatchState, failure: MatchFailure?, linkOpen: Bool)
        /// Committed states are saved before anything reveals them (`persistBeforeSending`).
        case savingEnabled
        /// The save of `state` (`Action.save`) called back: nil, it is on disk; else why not.
        case saved(MatchState, frames: [Message], error: String?)
        /// The save-retry timer fired (`Action.startSaveRetry`).
        case saveRetryDue
        /// The retried save of `state` (`Action.saveAgain`) called back.
        case savedAgain(MatchState, error: String?)
        /// The ticker fired; `lastHeard` and `linkOpen` describe the current link.
        case timerFired(now: ContinuousClock.Instant, lastHeard: ContinuousClock.Instant, linkOpen: Bool)
        /// The end's acknowledgement timer ran out (`Action.startAckTimer`).
        case ackTimeElapsed(linkOpen: Bool)
        /// The guest came back on a new link with its seat token, at `now`.
        case rejoined(now: ContinuousClock.Instant)
        /// Keep the link open after a normal end, for a rematch.
        case keepForRematch
        /// Leave for now (the terminal went away): the guest keeps its way back.
        case leaveForNow(String, linkOpen: Bool)
    }

    /// What the shell must do, in order.
    enum Action: Sendable {
        /// Send on the current link.
        case send(Message)
        /// Send HEARTBEAT with the wall clock's time.
        case sendHeartbeat
        /// Close the current link.
        case close
        /// Reach a crash-test point (`CrashHook`).
        case reachCrashPoint(CrashHook.Phase)
        /// Submit the guest's change to the controller: as judged by the validator, or as `change`.
        case submit(sequence: UInt32, change: MatchChange, judged: MatchSuccessor?)
        /// The host's own change is settling: wait a moment and judge the same frame again.
        case retryProposal
        /// Have the host's table talk judge a line the guest said (the refusal goes back as TALK).
        case hearTalk([UInt8])
        /// Save `state`; the `frames` that reveal it wait for the save to call back (`Event.saved`).
        case save(MatchState, frames: [Message])
        /// Try the failed save of `state` again (`Event.savedAgain`).
        case saveAgain(MatchState)
        /// Fire `Event.saveRetryDue` every second until `stopSaveRetry`.
        case startSaveRetry
        case stopSaveRetry
        /// Fire `Event.timerFired` at `at`.
        case scheduleTicker(at: ContinuousClock.Instant, tolerance: Duration)
        case stopTicker
        /// Run the liveness timer now (`Event.timerFired`), after this step.
        case tick
        /// Fire `Event.ackTimeElapsed` after `after` (cancelled when the delivery settles).
        case startAckTimer(after: Duration)
        /// The end's delivery moved on (`delivery`): wake whoever waits, stop the ack timer.
        case deliveryChanged
        /// A notice for the host's player.
        case report(String)
        /// At a table: this guest's seat went away or came back (for every frontend and other guest).
        case reportPresence(away: Bool, graceLeft: Duration)
        /// The guest went away: a bot may stand in once it has been away long enough.
        case standInAway
        /// The guest is back: a bot standing in gives the seat back.
        case standInEnds
        /// The grace period ran out: unless a bot stands in, quit the seat (`atTable`) so the
        /// others play on, reporting `gone` + that; when that is not possible, fail with `otherwise`.
        case seatGone(gone: String, atTable: Bool, otherwise: MatchFailure)
        /// Stop the match here.
        case fail(MatchFailure)
        /// Hand the link and the final state to the after-match conversation (under the shell's lock).
        case keepForAfterMatch(MatchState)
        /// Hand this to the after-match conversation, if there is one.
        case toAfterMatch(Inbound)
        /// The new link replaces the old one (under the shell's lock); the old one is closed.
        case useRejoinedLink
        /// The guest came back while a change it sent on the old link is being settled: the old
        /// link is closed, the new one waits (no frame goes on it) until `useRejoinedLink` and
        /// `welcome`, which carry how that change went.
        case holdRejoinedLink
        /// WELCOME on the new link, with `state` (the newest state on disk).
        case welcome(MatchState)
        /// The guest may not come back now: REJECT(busy) with the sentence on the new link, close it.
        case refuseRejoin(String)
        /// Wait, at most a moment (`Farewell.linger`), for the close after a GOODBYE to finish before returning.
        case linger
    }

    /// How far the end of the match got to the guest (`RemoteGuest.FinalDelivery`).
    typealias Delivery = RemoteGuest.FinalDelivery

    /// How the end's GOODBYE(matchOver) goes once the end is saved.
    private enum GoodbyeAfterSave: Sendable {
        /// At the end: kept open until the guest's own GOODBYE(matchOver) acknowledges it.
        case keepOpen
        /// To a guest that came back after the end: it has the end once this is sent.
        case closeAsDelivered
    }

    let setup: Setup
    /// The controller's committed state.
    private(set) var committed: MatchState
    /// The newest committed state known to be on disk (or the initial one): all a frame may reveal.
    private(set) var revealed: MatchState
    /// State hash of every committed sequence, to recognise replays.
    private var hashes: [UInt32: UInt64]
    /// The guest change being submitted (its sequence, and the link it came on), to answer it
    /// with CONFIRM on that link.
    private var inflight: (sequence: UInt32, change: MatchChange, link: Int)?
    /// How many times the guest has come back on a new link: the link frames now come on.
    private var link = 0
    /// A CONFIRM waiting for its save: the committed sequence it answers.
    private var confirmUnsaved: UInt32?
    /// What the WELCOME of a guest that came back waits for (`holdRejoinedLink`), or nil when none waits.
    private var welcomeWaits: WelcomeWait?

    /// A guest came back while the change it sent on the old link was being
    /// settled. A CONFIRM on the new link would answer a change the guest has
    /// already dropped (its WELCOME rolled it back), and a push of it would be
    /// the host putting words in its mouth; so the WELCOME waits until the
    /// change is settled and carries its outcome (docs/PROTOCOL.md section 10).
    private enum WelcomeWait: Equatable, Sendable {
        /// The controller's answer to the change.
        case controller
        /// The save of the committed state with this sequence.
        case save(UInt32)
    }
    private var liveness: Liveness
    private var attached = false
    private var saves = false
    /// Why the last committed state could not be saved, while the match is paused.
    private(set) var unsaved: String?
    /// The end came before its save did: GOODBYE(matchOver) follows that save.
    private var goodbyeAfterSave: GoodbyeAfterSave?
    /// How far the end of the match got to the guest.
    private(set) var delivery = Delivery.pending
    /// `leaveForNow` was called.
    private(set) var left = false
    /// What the guest said in GOODBYE(leaving), for the "waiting" notice.
    private var departure: String?
    private(set) var keepForRematch = false
    /// The end was kept open for the after-match conversation.
    private var keptForAfterMatch = false
    private(set) var ended = false
    /// Relayed talk waiting for the save of the change it follows (section 18).
    private var heldTalk: [(after: UInt32, message: Message)] = []

    /// How long a guest has to acknowledge the end before it counts as gone,
    /// when a rematch is possible: a connection still open this long carries the end.
    static let afterMatchWindow: Duration = .seconds(2)

    /// A link to the guest of `setup.seat`, admitted to `initial`, at `now`.
    init(_ setup: Setup, initial: MatchState, now: ContinuousClock.Instant) {
        self.setup = setup
        self.committed = initial
        self.revealed = initial
        self.hashes = [initial.sequence: initial.stateHash]
        self.liveness = Liveness(settings: setup.settings, now: now)
    }

    /// Why a guest coming back must try again later (REJECT busy), or nil when it may.
    var unavailable: String? {
        if left { return "This host is going away for now; try again in a moment." }
        if unsaved != nil { return Self.cannotSaveNow }
        return nil
    }

    private static let cannotSaveNow = "This host cannot save the match right now; try again in a moment."

    private var name: String { setup.name }

    /// GOODBYE(matchOver) and REMATCH: what only a guest whose match has ended sends.
    static func answersTheEnd(_ inbound: Inbound) -> Bool {
        switch inbound {
        case .message(.goodbye(.goodbyeMatchOver, _, _)), .message(.rematch): true
        default: false
        }
    }

    /// Whether a guest whose grace period ran out counts as quit so the match
    /// goes on (three or more seats still play), rather than interrupting it.
    static func leavesTheTable(_ state: MatchState) -> Bool {
        state.seats.filter { $0.status == .playing }.count > 2
    }

    /// Feeds one event; returns what the shell must do, in order.
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .attached(let now, let lastHeard, let linkOpen):
            attached = true
            liveness = Liveness(settings: setup.settings, now: now)
            return schedule(now: now, lastHeard: lastHeard, linkOpen: linkOpen)
        case .inbound(let inbound):
            if ended { return afterTheEnd(inbound) }
            return received(inbound)
        case .submitted(let sequence, let result, let mayRetry):
            let fromAnOldLink = inflight.map { $0.link != link } ?? false
            inflight = nil
            // The guest has come back since: no answer goes on the new link, its WELCOME says
            // how the change went (after its save, when it was committed).
            if fromAnOldLink { return welcomeWaits == .controller ? welcome() : [] }
            switch result {
            case .committed:
                return []  // CONFIRM went out from the commit, in commit order.
            case .rejected(.awaitingConfirmation) where mayRetry:
                // The host's own change is settling; it never waits on the network.
                return [.retryProposal]
            case .rejected(let why):
                return [reject(sequence, Self.rejection(for: why))]
            case .rolledBack(let why):
                return [reject(sequence, TurnRejection(.outOfSequence, "The host's match moved on (\(why))."))]
            }
        case .controller(let event):
            return controllerChanged(event)
        case .matchEnded(let final, let failure, let linkOpen):
            return matchEnded(final, failure: failure, linkOpen: linkOpen)
        case .savingEnabled:
            saves = true
            return []
        case .saved(let state, let frames, let error):
            if let error { return pause(because: error) }
            var actions = unsaved != nil ? resumeAfterSave() : []
            actions += reveal(state, frames: frames)
            return actions
        case .saveRetryDue:
            guard unsaved != nil, saves else { return [.stopSaveRetry] }
            return [.saveAgain(committed)]
        case .savedAgain(let state, let error):
            if let error {
                unsaved = error
                return []
            }
            if state.sequence >= revealed.sequence { revealed = state }
            return resumeAfterSave()
        case .timerFired(let now, let lastHeard, let linkOpen):
            return timerFired(now: now, lastHeard: lastHeard, linkOpen: linkOpen)
        case .ackTimeElapsed(let linkOpen):
            guard delivery == .pending else { return [] }
            if keptForAfterMatch, linkOpen { return settle(.delivered) }
            return settle(.lost) + (keptForAfterMatch ? [] : [.close])
        case .rejoined(let now):
            return rejoined(now: now)
        case .keepForRematch:
            keepForRematch = true
            return []
        case .leaveForNow(let sentence, let linkOpen):
            left = true
            guard !ended, linkOpen else { return [.stopTicker] }
            return [.stopTicker, .send(Farewell.leaving(sentence)), .close, .linger]
        }
    }

    // MARK: What the guest sends

    private mutating func received(_ inbound: Inbound) -> [Action] {
        switch inbound {
        case .message(.turn(let sequence, let blob)):
            return proposal(.turn, sequence: sequence, blob: blob)
        case .message(.quit(let sequence, let blob)):
            return proposal(.quit, sequence: sequence, blob: blob)
        case .message(.stateRequest):
            return [.send(.state(blob: MatchBlob.encode(revealed)))]
        case .message(.heartbeat):
            return []
        case .message(.talk(.say(let bytes))) where setup.speaksTalk:
            guard setup.hearsTalk else {
                return [.send(.talk(.refused(.talkOff, sentence: TableTalk.turnedOff)))]
            }
            return [.hearTalk(bytes)]
        case .message(.goodbye(let reason, let sentence, _)):
            // This host's copy is the match, so no GOODBYE from the guest ends
            // it or changes a result: each one (leaving, desync, a matchOver
            // while the match is not over here, a code from a newer parlor) is
            // the guest going away for now. Its seat is kept for the grace
            // period, the turn timeout keeps running, and a guest that comes
            // back gets this host's state (docs/PROTOCOL.md, section 6).
            departure = switch reason {
            case .goodbyeLeaving where sentence.isEmpty: "leaving"
            case .goodbyeDesync: "its copy of the match disagrees with this one: " + reason.shown(with: sentence)
            case .goodbyeMatchOver: "it says the match is over, but it is not over here"
            default: reason.shown(with: sentence)
            }
            return [.close, .tick]
        case .message(let other):
            return violation("\(other.type) is not a message a guest sends")
        case .frameError(let error):
            return violation("\(error)")
        case .messageError(let error):
            return violation("\(error)")
        case .closed:
            return [.tick]
        }
    }

    /// Judges one guest change, once: TURN_REJECTED, or submitted as judged.
    private mutating func proposal(_ kind: ChangeMessageKind, sequence: UInt32, blob: [UInt8]) -> [Action] {
        switch HostTurnValidator.validate(kind, sequence: sequence, blob: blob, committed: committed,
                                          guestSeat: setup.seat, committedHashes: hashes) {
        case .failure(let rejection):
            return [reject(sequence, rejection)]
        case .success(let (change, judged)):
            inflight = (sequence, change, link)
            // Judged once, by the validator: the controller commits what it judged.
            return [.reachCrashPoint(.beforeConfirm), .submit(sequence: sequence, change: change, judged: judged)]
        }
    }

    private func reject(_ sequence: UInt32, _ rejection: TurnRejection) -> Action {
        .send(.turnRejected(sequence: sequence, reason: rejection.reason, sentence: rejection.sentence))
    }

    static func rejection(for refusal: SubmitRejection) -> TurnRejection {
        switch refusal {
        case .rule(.notYourTurn): TurnRejection(.notYourTurn, "It is not your turn.")
        case .rule(.illegalMove): TurnRejection(.illegalMove, "That move is not allowed by the rules.")
        case .rule(.matchEnded), .matchOver: TurnRejection(.matchOver, "The match is over.")
        case .authoritativeStateDisagrees: TurnRejection(.hashMismatch, "The state does not match the change.")
        case .awaitingConfirmation: TurnRejection(.outOfSequence, "The host is busy with another change; ask for the state.")
        case .messagesUnreadable, .messagesNotAtTables:
            TurnRejection(.badBlob, "This match's connection is below protocol \(FrameFormat.messagesVersion): a move cannot carry a message.")
        default: TurnRejection(.notYourSeat, "That change is not yours to make (\(refusal)).")
        }
    }

    private func violation(_ why: String) -> [Action] {
        [.send(Farewell.protocolViolation(why)), .close,
         .report("\(name) sent something invalid (\(why)); the connection was closed"), .tick]
    }

    /// After the end, what the guest sends says whether the end reached it:
    /// GOODBYE(matchOver) or REMATCH only come from a guest whose match ended
    /// too; a close or anything else before that means it went away first.
    private mutating func afterTheEnd(_ inbound: Inbound) -> [Action] {
        var actions: [Action] = []
        if delivery == .pending {
            switch inbound {
            case .message(.heartbeat), .message(.talk):
                // Talk that crossed the end is dropped: it says nothing about the end.
                break
            case _ where Self.answersTheEnd(inbound):
                actions = settle(.delivered) + (keptForAfterMatch ? [] : [.close])
            default:
                actions = settle(.lost) + (keptForAfterMatch ? [] : [.close])
            }
        }
        return actions + [.toAfterMatch(inbound)]
    }

    // MARK: The controller

    private mutating func controllerChanged(_ event: MatchEvent) -> [Action] {
        switch event {
        case .committed(let change, let state):
            committed = state
            hashes[state.sequence] = state.stateHash
            var frames: [Message]
            if let inflight, inflight.sequence == state.sequence, inflight.change == change {
                if inflight.link == link {
                    frames = [.confirm(sequence: state.sequence, stateHash: state.stateHash, deadline: state.deadline)]
                    if saves { confirmUnsaved = state.sequence }
                } else {
                    // Sent on a link the guest has left: the held WELCOME carries it, once it is saved.
                    frames = []
                    if welcomeWaits != nil { welcomeWaits = .save(state.sequence) }
                }
            } else {
                frames = [ChangeMessageKind(change).message(sequence: state.sequence, blob: MatchBlob.encode(state))]
            }
            // Nothing reveals a state before it is saved; the save calls back (`Event.saved`).
            guard saves else { return reveal(state, frames: frames) }
            return [.save(state, frames: frames)]
        case .rolledBack(_, _, let restored), .adopted(let restored):
            committed = restored
            if !saves { revealed = restored }
            return []
        case .presence, .standIn(_, _?):
            // Another guest at this table went away, came back, or a bot plays its seat: this
            // guest is told (SEAT, protocol 2; a match of two seats never has one on its wire).
            guard let presence = SeatPresence.told(by: event, in: committed), presence.seat != setup.seat, !ended else { return [] }
            return [.send(.seat(presence))]
        case .talk(let line):
            // After every change committed before it, and so after the save that reveals that change.
            guard setup.speaksTalk, !ended else { return [] }
            let message = Message.talk(.relayed(line))
            if revealed.sequence >= line.afterSequence && heldTalk.isEmpty { return [.send(message)] }
            heldTalk.append((line.afterSequence, message))
            return []
        default:
            return []
        }
    }

    /// `state` is on disk: what reveals it goes out, and the end's GOODBYE when it waited for this save.
    private mutating func reveal(_ state: MatchState, frames: [Message]) -> [Action] {
        var actions: [Action] = []
        if state.sequence >= revealed.sequence { revealed = state }
        if let confirm = confirmUnsaved, confirm <= revealed.sequence { confirmUnsaved = nil }
        if state.isEnded { actions.append(.reachCrashPoint(.atEnd)) }
        for frame in frames {
            actions.append(.send(frame))
            if case .confirm = frame { actions.append(.reachCrashPoint(.afterConfirm)) } else { actions.append(.reachCrashPoint(.afterSend)) }
        }
        while let first = heldTalk.first, first.after <= revealed.sequence {
            heldTalk.removeFirst()
            actions.append(.send(first.message))
        }
        if let goodbye = goodbyeAfterSave, ended, revealed.sequence == committed.sequence {
            goodbyeAfterSave = nil
            actions.append(.send(Farewell.matchOver(committed)))
            if goodbye == .closeAsDelivered { actions += [.close] + settle(.delivered) }
        }
        // A held WELCOME goes once what it waits for is on disk (what went before it went on the old link).
        if case .save(let sequence) = welcomeWaits, sequence <= revealed.sequence { actions += welcome() }
        return actions
    }

    // MARK: Saving

    /// A failed save: the guest is told why and let go the first time (it
    /// keeps trying to come back), the player is told, and the save is tried
    /// again every second.
    private mutating func pause(because why: String) -> [Action] {
        let first = unsaved == nil
        unsaved = why
        // The guest is let go: the talk held for it is not sent later on another connection,
        // and a guest that came back is turned away with it (the `close`).
        heldTalk = []
        confirmUnsaved = nil
        welcomeWaits = nil
        guard first else { return [] }
        departure = "the match is paused: it cannot be saved here"
        return [.send(.goodbye(.goodbyeCannotSave, sentence: "The host cannot save the match (\(why.prefix(300))); it pauses until it can.",
                               finalBlob: [])),
                .close,
                .report("could not save the match: \(why) — paused until it can be saved; \(name) was told"),
                .startSaveRetry]
    }

    private mutating func resumeAfterSave() -> [Action] {
        unsaved = nil
        departure = nil
        return [.stopSaveRetry, .report("the match is saved again; \(name) can come back")]
    }

    // MARK: The end

    private mutating func matchEnded(_ final: MatchState, failure: MatchFailure?, linkOpen: Bool) -> [Action] {
        ended = true
        committed = final
        // An open link that is not known to be silent may carry the end to the guest.
        let present = linkOpen && liveness.isPeerPresent
        let kept = failure == nil && present && keepForRematch
        keptForAfterMatch = kept
        var actions: [Action] = kept ? [.keepForAfterMatch(final)] : []
        if failure != nil || !present {
            actions += settle(.lost)
        } else {
            // A write that succeeded proves nothing: a guest killed a moment
            // ago still accepts bytes. The end has reached it only when it
            // answers (or, with a rematch possible, stays connected a while).
            actions.append(.startAckTimer(after: kept ? min(Self.afterMatchWindow, setup.confirmationTimeout)
                                                      : setup.confirmationTimeout))
        }
        actions.append(.stopTicker)
        // Away at a normal end: its way back stays open, and it learns the end by coming back.
        if failure == nil, !present { return actions }
        // Kept: the after-match conversation says GOODBYE when it is over.
        if kept { return actions }
        guard let failure else {
            // Kept open until the guest's own GOODBYE(matchOver) acknowledges it;
            // sent once the end is on disk (when its save calls back if it is not yet).
            if revealed.sequence == final.sequence { return actions + [.send(Farewell.matchOver(final))] }
            goodbyeAfterSave = .keepOpen
            return actions
        }
        // Desync, or this side stopped waiting (the match is interrupted, not over).
        return actions + [.send(Farewell.stopped(failure)), .close]
    }

    /// Moves the delivery on (only from `.pending`, except that a guest coming
    /// back always gets the end).
    private mutating func settle(_ new: Delivery) -> [Action] {
        guard delivery == .pending || new == .delivered, delivery != new else { return [] }
        delivery = new
        return [.deliveryChanged]
    }

    // MARK: The link

    private mutating func rejoined(now: ContinuousClock.Instant) -> [Action] {
        // Its WELCOME would reveal a state that is not on disk.
        guard unsaved == nil else { return [.refuseRejoin(Self.cannotSaveNow)] }
        departure = nil
        liveness = Liveness(settings: setup.settings, now: now)
        link += 1
        let back: [Action] = attached ? presence(away: false) + [.report(LinkNotice.back(name)), .standInEnds] : []
        // Back again while an earlier comeback's WELCOME waits: this link waits for the same.
        if welcomeWaits != nil { return [.holdRejoinedLink] + back }
        // A change it sent on the old link is with the controller, or its CONFIRM waits for a save.
        if let inflight, inflight.link != link {
            welcomeWaits = .controller
            return [.holdRejoinedLink] + back
        }
        if let confirm = confirmUnsaved {
            welcomeWaits = .save(confirm)
            return [.holdRejoinedLink] + back
        }
        return welcome() + back
    }

    /// The new link replaces the old one and is welcomed with what is on disk
    /// (and, after the end, given it).
    private mutating func welcome() -> [Action] {
        welcomeWaits = nil
        var actions: [Action] = [.useRejoinedLink, .welcome(revealed)]
        if ended {
            if revealed.sequence == committed.sequence {
                actions += [.send(Farewell.matchOver(committed)), .close] + settle(.delivered)
            } else {
                // The end is being saved: it reaches this link once it is on disk.
                goodbyeAfterSave = .closeAsDelivered
            }
        }
        return actions
    }

    /// The controller hears that this guest is away or back: at a table every
    /// frontend and every other guest link (SEAT), at two seats the front door's
    /// `away`/`back` (the player reads the notice beside it).
    private func presence(away: Bool, graceLeft: Duration = .zero) -> [Action] {
        [.reportPresence(away: away, graceLeft: graceLeft)]
    }

    /// The next instant liveness may act at.
    private func schedule(now: ContinuousClock.Instant, lastHeard: ContinuousClock.Instant, linkOpen: Bool) -> [Action] {
        guard !ended, !left else { return [] }
        return [.scheduleTicker(at: liveness.nextTick(lastHeard: lastHeard, open: linkOpen, now: now), tolerance: liveness.tolerance)]
    }

    private mutating func timerFired(now: ContinuousClock.Instant, lastHeard: ContinuousClock.Instant, linkOpen: Bool) -> [Action] {
        guard !ended, !left else { return [] }
        let ticks = liveness.tick(now: now, lastHeard: lastHeard, open: linkOpen)
        var actions = schedule(now: now, lastHeard: lastHeard, linkOpen: linkOpen)
        for tick in ticks {
            switch tick {
            case .sendHeartbeat:
                actions.append(.sendHeartbeat)
            case .peerSilent(let wait):
                // The seat list first, then the notice with the reason, which the screen keeps.
                actions += [.standInAway] + presence(away: true, graceLeft: wait) + [.report(LinkNotice.notResponding(name, left: wait))]
            case .peerDisconnected(let wait):
                let how = departure.map { "disconnected (\($0))" } ?? "disconnected"
                actions += [.standInAway] + presence(away: true, graceLeft: wait)
                    + [.report("\(name) \(how) — " + LinkNotice.waiting(for: name, left: wait))]
            case .stillWaiting(let left):
                actions.append(.report(LinkNotice.waiting(for: name, left: left)))
            case .peerBack:
                actions += presence(away: false) + [.report(LinkNotice.back(name)), .standInEnds]
            case .graceExpired:
                let gone = "\(name) did not come back within \(setup.settings.grace.roundedUpSeconds) s"
                // At a table where three or more seats still play, the seat counts as
                // quit and the others play on (docs/PROTOCOL.md section 16); else the
                // match is interrupted, not quit: both sides keep it for `parlor resume`.
                actions.append(.seatGone(gone: gone, atTable: Self.leavesTheTable(committed), otherwise: .connectionLost(gone)))
            }
        }
        return actions
    }
}
