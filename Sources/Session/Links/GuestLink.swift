import Games
import Match

/// The guest's side of a match in progress, as a pure state machine: every
/// rule `RemoteHost` follows between the handshake and the end, with no
/// lock, no clock and no I/O inside (docs/ARCHITECTURE.md, "In-match links").
///
/// The shell (`RemoteHost`) feeds it what happens (`Event`: a frame from the
/// host, our player's change, the controller committing, a timer, the link
/// closing or coming back) and performs what it returns (`Action`: send,
/// close, settle a delivery, submit or adopt the host's state, save, fail,
/// report), in order. What only the shell can know (whether the link is open
/// now, the time, what the controller holds) comes in with the event.
///
/// The rules (docs/PROTOCOL.md, sections 6-8 and "Reconnecting"):
/// - Our change goes out as TURN or QUIT and waits for the host's CONFIRM
///   with the same state hash; TURN_REJECTED refuses it. A CONFIRM for a
///   change we never sent is a protocol violation; one for a change we rolled
///   back is late: it is counted and the host's state is asked for.
/// - After a rollback for a confirmation timeout or a rejection, STATE_REQUEST
///   goes out and the STATE answer is adopted; pushes that arrive meanwhile
///   are skipped (the answer contains them).
/// - The host's pushes are judged once by `GuestPushValidator`, every whole
///   state it sends by `GuestRecordCheck`: a host that puts words in our
///   seat's mouth is a desync.
/// - Heartbeats both ways (`Liveness`). A closed link, a silent host or its
///   GOODBYE(leaving) starts getting back to it when the guest can redial,
///   and fails the match (`connectionLost`) otherwise.
/// - Every state committed or adopted is saved; the end's acknowledgement
///   (GOODBYE(matchOver)) waits until the end is on disk.
struct GuestLink: Sendable {
    /// What the machine is told once, at the start.
    struct Setup: Sendable {
        /// The guest's own seat.
        var guestSeat: SeatIndex
        /// The host's seat.
        var hostSeat: SeatIndex
        /// The host's player name, for notices.
        var hostName: String
        /// Whether the link speaks protocol 2 (table talk).
        var speaksTalk: Bool
        /// Whether the guest gets back to the host by itself (it has a dialer).
        var reconnects: Bool
        /// The timing of heartbeats, silence and grace.
        var settings: Liveness.Settings
    }

    /// How a delivery of our own change ends.
    enum DeliveryOutcome: Hashable, Sendable {
        /// The host's CONFIRM carried our state hash.
        case confirmed
        /// TURN_REJECTED; the sentence is shown.
        case rejected(String)
        /// It cannot be delivered (or the copies disagree); the text says why.
        case failed(String)
        /// The controller cancelled it.
        case cancelled
    }

    /// What happened, as the shell tells it.
    enum Event: Sendable {
        /// The controller attached: the silence clock starts `now`.
        case attached(now: ContinuousClock.Instant)
        /// Our player's change, delivered under `token` (the shell's name for its waiter).
        case ownChange(MatchChange, resulting: MatchState, token: UInt64, linkOpen: Bool, cancelled: Bool)
        /// The controller cancelled the delivery under `token`.
        case ownChangeCancelled(token: UInt64)
        /// The controller's `stateChanged` (committed, adopted, rolled back, …).
        case controller(MatchEvent)
        /// The controller's `matchEnded`.
        case matchEnded(MatchState, failure: MatchFailure?, linkOpen: Bool)
        /// States are saved from now on (`persistBeforeAcknowledging`).
        case savingEnabled
        /// The save of the end called back: it is on disk.
        case endSaved
        /// What arrived from the host on the current link, in order.
        case inbound(Inbound)
        /// The controller's answer to a push we submitted (`Action.submitPush`).
        case pushAnswered(sequence: UInt32, SubmitResult)
        /// The periodic timer fired; `lastHeard` and `linkOpen` describe the current link.
        case timerFired(now: ContinuousClock.Instant, lastHeard: ContinuousClock.Instant, linkOpen: Bool)
        /// Our player says a line of table talk.
        case say(String, linkOpen: Bool)
        /// Keep the link open after a normal end, for a rematch.
        case keepForRematch
        /// Leave for now (the terminal went away): the host keeps the seat.
        case leaveForNow(String, linkOpen: Bool)
        /// The rejoin loop started (`Action.startReconnecting`).
        case rejoinStarted(now: ContinuousClock.Instant)
        /// One attempt to get back failed; `left` of the grace period remains.
        case rejoinAttemptFailed(left: Duration, now: ContinuousClock.Instant)
        /// Getting back failed for good.
        case rejoinFailed(RejoinFailure)
        /// A handshake with the host got through on a new link.
        case rejoined(now: ContinuousClock.Instant)
        /// On the new link (`Action.useRejoinedLink`): the host's state from the
        /// WELCOME, the controller's, and whether ours waits for a confirmation.
        case reconciling(host: MatchState, ours: MatchState, awaitingConfirmation: Bool)
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
        /// End the delivery under `token`.
        case settleDelivery(token: UInt64, DeliveryOutcome)
        /// Let the controller act on a settled delivery before the next frame
        /// is looked at, so what follows is judged against the committed change.
        case waitForController
        /// Submit the host's change as judged (`judged`) or as `change` with the host's `received` state.
        case submitPush(sequence: UInt32, change: MatchChange, received: MatchState, judged: MatchSuccessor?)
        /// Adopt the host's whole state; when the controller refuses it, fail with `otherwise`.
        case adopt(MatchState, otherwise: MatchFailure?)
        /// Stop the match here (ignored by a controller that has stopped).
        case fail(MatchFailure)
        /// A notice for the player.
        case report(String)
        /// Another guest's seat went away or came back (SEAT).
        case reportPresence(seat: SeatIndex, away: Bool, graceLeft: Duration)
        /// A bot plays another guest's seat now (`bot`), or the player has it back (nil).
        case reportStandIn(seat: SeatIndex, bot: String?)
        /// A line of table talk the host relayed.
        case relayTalk(TalkLine)
        /// The host refused a line our player said.
        case reportTalkRefused(TalkRefusal)
        /// Our player's line cannot be sent (the answer to `Event.say`).
        case refuseTalk(TalkCheck.Refusal)
        /// Save `state`; with `acknowledges`, the end waits for it and the
        /// save calls back (`Event.endSaved`).
        case save(MatchState, acknowledges: Bool)
        /// The end is on disk here (or there is none to save): what waits for it may go on.
        case endIsSaved
        /// Stop the timer and any rejoin loop.
        case stopTimers
        /// Fire `Event.timerFired` at `at`, within `tolerance` (the process's shared `LivenessClock`).
        case scheduleTicker(at: ContinuousClock.Instant, tolerance: Duration)
        /// Hand the link and the final state to the after-match conversation
        /// (under the shell's lock: what arrives next goes to it).
        case keepForAfterMatch(MatchState)
        /// Hand this to the after-match conversation, if there is one.
        case toAfterMatch(Inbound)
        /// Detach and close the current link and run the rejoin loop.
        case startReconnecting
        /// The rejoined link replaces the old one (under the shell's lock).
        case useRejoinedLink
        /// Nobody wants the rejoined link any more: close it.
        case dropRejoinedLink
        /// Wait, at most a moment (`Farewell.linger`), for the close after a GOODBYE to finish before returning.
        case linger
    }

    /// Our change that waits for the host's verdict.
    private struct Awaiting: Sendable {
        var token: UInt64
        var sequence: UInt32
        var stateHash: UInt64
        /// Whether the TURN or QUIT went out; a change held back during a
        /// resync must never be taken as confirmed by an older CONFIRM.
        var sent: Bool
    }

    let setup: Setup
    /// The latest state the host is known to have committed.
    private(set) var known: MatchState
    /// Other guests' seats a bot of the host's plays while they are away (SEAT presence 2).
    private var standIns: Set<SeatIndex> = []
    private var awaiting: Awaiting?
    /// Our own change that went out and is not settled: the only change of
    /// our seat that a state from the host may hold beyond `known`.
    private var proposal: OwnProposal?
    /// A STATE_REQUEST is outstanding.
    private(set) var resyncing = false
    private(set) var ended = false
    /// Getting back to the host is under way (the old link is closed).
    private(set) var reconnecting = false
    /// `leaveForNow` was called: this side is going away on purpose.
    private(set) var left = false
    private(set) var keepForRematch = false
    /// Confirmations that arrived after their change had been rolled back (and were ignored).
    private(set) var lateConfirmations = 0
    private var liveness: Liveness
    private var saves = false
    /// The end is being saved (its save has not called back): its acknowledgement waits.
    private(set) var savingTheEnd = false
    /// The test hook `at-end` fires when the end's save calls back.
    private var crashAtEndOnSave = false
    /// The GOODBYE(matchOver) that answers the end, held until the end's save calls back.
    private var goodbyeAfterSave: Message?
    /// When the player was last reminded, while getting back to the host.
    private var lastRejoinNotice: ContinuousClock.Instant?
    /// Why getting back to the host started, for the first notice.
    private var rejoinReason: String?

    /// A link to the host, admitted to `initial`, at `now`.
    init(_ setup: Setup, initial: MatchState, now: ContinuousClock.Instant) {
        self.setup = setup
        self.known = initial
        self.liveness = Liveness(settings: setup.settings, now: now)
    }

    private var name: String { setup.hostName }

    /// Feeds one event; returns what the shell must do, in order.
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .attached(let now):
            liveness = Liveness(settings: setup.settings, now: now)
            // A guest killed a moment after joining still has the match it was admitted to.
            return [.save(known, acknowledges: false)] + schedule(now: now, lastHeard: now, linkOpen: true)
        case .ownChange(let change, let resulting, let token, let linkOpen, let cancelled):
            return ownChange(change, resulting: resulting, token: token, linkOpen: linkOpen, cancelled: cancelled)
        case .ownChangeCancelled(let token):
            guard let waiting = awaiting, waiting.token == token else { return [] }
            awaiting = nil
            return [.settleDelivery(token: token, .cancelled)]
        case .controller(let event):
            return controllerChanged(event)
        case .matchEnded(let final, let failure, let linkOpen):
            return matchEnded(final, failure: failure, linkOpen: linkOpen)
        case .savingEnabled:
            saves = true
            return []
        case .endSaved:
            savingTheEnd = false
            var actions: [Action] = crashAtEndOnSave ? [.reachCrashPoint(.atEnd)] : []
            actions.append(.endIsSaved)
            if let goodbye = goodbyeAfterSave { actions += [.send(goodbye), .close] }
            crashAtEndOnSave = false
            goodbyeAfterSave = nil
            return actions
        case .inbound(let inbound):
            if ended { return [.toAfterMatch(inbound)] }
            return received(inbound)
        case .pushAnswered(let sequence, let result):
            switch result {
            case .committed: return []
            case .rejected(let why): return [.fail(.desync("our copy refused the host's change \(sequence): \(why)"))]
            case .rolledBack(let why): return [.fail(.desync("our copy could not take the host's change \(sequence): \(why)"))]
            }
        case .timerFired(let now, let lastHeard, let linkOpen):
            return timerFired(now: now, lastHeard: lastHeard, linkOpen: linkOpen)
        case .say(let text, let linkOpen):
            guard setup.speaksTalk else {
                return [.refuseTalk(TalkCheck.Refusal(reason: .talkOff, sentence: "\(name)'s parlor speaks protocol 1, which has no table talk."))]
            }
            guard !ended, !reconnecting, linkOpen else {
                return [.refuseTalk(TalkCheck.Refusal(reason: .talkOff, sentence: "Not connected to \(name) right now; the line was not sent."))]
            }
            return [.send(.talk(.say(Array(text.utf8))))]
        case .keepForRematch:
            keepForRematch = true
            return []
        case .leaveForNow(let sentence, let linkOpen):
            left = true
            guard !ended, linkOpen else { return [.stopTimers] }
            return [.stopTimers, .send(Farewell.leaving(sentence)), .close, .linger]
        case .rejoinStarted(let now):
            lastRejoinNotice = now
            let why = rejoinReason ?? "\(name) is away"
            return hostPresence(away: true, graceLeft: setup.settings.grace)
                + [.report("\(why) — \(LinkNotice.waiting(for: name, left: setup.settings.grace))\(hostMustResume)")]
        case .rejoinAttemptFailed(let left, let now):
            if let last = lastRejoinNotice, now - last < setup.settings.noticeInterval { return [] }
            lastRejoinNotice = now
            return [.report("\(LinkNotice.waiting(for: name, left: left))\(hostMustResume)")]
        case .rejoinFailed(let failure):
            reconnecting = false
            guard !ended, !left else { return [] }
            switch failure {
            case .refused(let why):
                return [.fail(.connectionLost("\(name) would not take this seat back: \(why)"))]
            case .gaveUp:
                return [.fail(.connectionLost("\(name) did not come back within \(setup.settings.grace.roundedUpSeconds) s (\(failure))"))]
            }
        case .rejoined(let now):
            guard !ended, !left else { return [.dropRejoinedLink] }
            reconnecting = false
            resyncing = false
            liveness = Liveness(settings: setup.settings, now: now)
            return [.useRejoinedLink] + schedule(now: now, lastHeard: now, linkOpen: true)
        case .reconciling(let host, let ours, let awaitingConfirmation):
            // The host's state (in WELCOME) wins. A change of ours that waited
            // for a CONFIRM is dropped; if the host had committed it, it is in
            // the host's state, so it is applied once either way.
            var actions: [Action] = []
            if awaitingConfirmation || host.sequence != ours.sequence || host.stateHash != ours.stateHash {
                if case .failure(let desync) = checkAdoption(host) { return [.fail(.desync(desync.description))] }
                actions.append(.adopt(host, otherwise: .desync("the host's state does not continue ours")))
            }
            return actions + hostPresence(away: false) + [.report(LinkNotice.back(name))]
        }
    }

    /// A match of two seats: the controller hears that the host went away or
    /// came back (the player reads the notice beside it; at a table the host
    /// going away is only the notice).
    private func hostPresence(away: Bool, graceLeft: Duration = .zero) -> [Action] {
        known.seats.count == 2 ? [.reportPresence(seat: setup.hostSeat, away: away, graceLeft: graceLeft)] : []
    }

    // MARK: Our own change

    private mutating func ownChange(_ change: MatchChange, resulting: MatchState, token: UInt64, linkOpen: Bool,
                                    cancelled: Bool) -> [Action] {
        // Only our seat's changes go to the host; the others reach us from it.
        guard change.seat == setup.guestSeat else { return [.settleDelivery(token: token, .confirmed)] }
        if ended { return [.settleDelivery(token: token, .failed("the match has stopped"))] }
        if cancelled { return [.settleDelivery(token: token, .cancelled)] }
        if !linkOpen, !setup.reconnects || left {
            return [.settleDelivery(token: token, .failed("the connection to \(name) is closed"))]
        }
        // While a resync is outstanding, or while getting back to the host,
        // nothing is sent: the adopted state supersedes this change, and the
        // player moves again on it.
        let send = linkOpen && !resyncing && !reconnecting
        awaiting = Awaiting(token: token, sequence: resulting.sequence, stateHash: resulting.stateHash, sent: send)
        guard send else { return [] }
        proposal = OwnProposal(base: known.sequence, change: change, resultingHash: resulting.stateHash)
        let message = ChangeMessageKind(change).message(sequence: resulting.sequence, blob: MatchBlob.encode(resulting))
        return [.reachCrashPoint(.beforeSend), .send(message)]
    }

    // MARK: The controller

    private mutating func controllerChanged(_ event: MatchEvent) -> [Action] {
        switch event {
        case .committed(_, let committed):
            known = committed
            proposal = nil
            if committed.isEnded { savingTheEnd = saves }
            return [.save(committed, acknowledges: committed.isEnded)]
        case .adopted(let adopted):
            if adopted.isEnded { savingTheEnd = saves }
            known = adopted
            resyncing = false
            proposal = nil
            return [.save(adopted, acknowledges: adopted.isEnded)]
        case .rolledBack(_, let reason, let restored):
            known = restored
            // Refused by the host: it is not in the host's state.
            if case .rejected = reason { proposal = nil }
            switch reason {
            case .confirmationTimeout, .rejected: return askForTheState(after: restored.sequence)
            case .superseded, .transportFailed: return []
            }
        default:
            return []
        }
    }

    /// STATE_REQUEST, once: until its answer, pushes are skipped.
    private mutating func askForTheState(after sequence: UInt32) -> [Action] {
        guard !resyncing, !ended else { return [] }
        resyncing = true
        return [.send(.stateRequest(knownSequence: sequence))]
    }

    private mutating func matchEnded(_ final: MatchState, failure: MatchFailure?, linkOpen: Bool) -> [Action] {
        ended = true
        let kept = failure == nil && keepForRematch && linkOpen && !reconnecting
        var actions: [Action] = kept ? [.keepForAfterMatch(final)] : []
        actions.append(.stopTimers)
        if let waiting = awaiting { actions.append(.settleDelivery(token: waiting.token, .failed("the match has stopped"))) }
        awaiting = nil
        // The final state's save began when it was committed or adopted: the
        // test hook `at-end` fires once it is on disk, here or when the save returns.
        if failure == nil {
            if savingTheEnd { crashAtEndOnSave = true } else { actions.append(.reachCrashPoint(.atEnd)) }
        }
        // Kept: the after-match conversation says GOODBYE when it is over.
        if kept { return actions }
        guard let failure else {
            let goodbye = Farewell.matchOver(final)
            // Our answer to the end acknowledges it: it leaves once the end is on disk here.
            if savingTheEnd {
                goodbyeAfterSave = goodbye
                return actions
            }
            return actions + [.send(goodbye), .close]
        }
        return actions + [.send(Farewell.stopped(failure)), .close]
    }

    // MARK: What the host sends

    private mutating func received(_ inbound: Inbound) -> [Action] {
        switch inbound {
        case .message(.confirm(let sequence, let hash, _)):
            return confirmed(sequence: sequence, hash: hash)
        case .message(.turnRejected(let sequence, let reason, let sentence)):
            // Late: its change was already rolled back.
            guard let waiting = awaiting, waiting.sent, waiting.sequence == sequence else { return [] }
            awaiting = nil
            return [.settleDelivery(token: waiting.token, .rejected(reason.shown(with: sentence))), .waitForController]
        case .message(.turn(let sequence, let blob)):
            return pushed(.turn, sequence: sequence, blob: blob)
        case .message(.quit(let sequence, let blob)):
            return pushed(.quit, sequence: sequence, blob: blob)
        case .message(.state(let blob)):
            guard resyncing else { return [] }  // unrequested: nothing to do
            let adopted: MatchState
            do { adopted = try MatchBlob.decode(blob) } catch {
                return [.fail(.desync("the host's state is invalid: \(error)"))]
            }
            if case .failure(let desync) = checkAdoption(adopted) { return [.fail(.desync(desync.description))] }
            return [.adopt(adopted, otherwise: .desync("the host's state does not continue ours"))]
        case .message(.heartbeat):
            return []
        case .message(.seat(let presence)):
            return seatPresence(presence)
        case .message(.goodbye(let reason, let sentence, let blob)):
            return goodbye(reason, sentence: sentence, blob: blob)
        case .message(.talk(.relayed(let line))) where setup.speaksTalk:
            return [.relayTalk(line)]
        case .message(.talk(.refused(let reason, let sentence))) where setup.speaksTalk:
            return [.reportTalkRefused(TalkRefusal(code: reason.rawValue, name: reason.description, sentence: reason.shown(with: sentence)))]
        case .message(let other):
            return violation("\(other.type) is not a message a host sends during a match")
        case .frameError(let error):
            return violation("\(error)")
        case .messageError(let error):
            return violation("\(error)")
        case .closed(let why, _):
            return linkLost("the connection to \(name) closed" + (why.map { " (\($0))" } ?? ""))
        }
    }

    private mutating func confirmed(sequence: UInt32, hash: UInt64) -> [Action] {
        var actions: [Action] = awaiting?.sent == true ? [.reachCrashPoint(.afterSend)] : []
        guard let waiting = awaiting, waiting.sent, waiting.sequence == sequence else {
            // A CONFIRM answers a change we sent; one for anything else would
            // have us ask for, and adopt, a state holding words we never said.
            guard proposal?.isConfirmed(by: sequence, hash: hash) == true else {
                return actions + violation("CONFIRM for change \(sequence), which we never sent")
            }
            lateConfirmations += 1
            // The host committed a change we rolled back (or are rolling back:
            // the controller cancels the delivery just before it reports the
            // rollback). Pushes that follow build on it, so they must wait for the host's state.
            guard sequence == known.sequence &+ 1 else { return actions }
            return actions + askForTheState(after: known.sequence)
        }
        awaiting = nil
        guard waiting.stateHash == hash else {
            return actions + [.settleDelivery(token: waiting.token, .failed("desync")),
                              .fail(.desync("the host committed change \(sequence) with a different state hash"))]
        }
        // The controller commits before the next message is looked at, so a
        // push that follows is checked against the committed change.
        actions += [.settleDelivery(token: waiting.token, .confirmed), .waitForController, .reachCrashPoint(.afterConfirm)]
        return actions
    }

    private func pushed(_ kind: ChangeMessageKind, sequence: UInt32, blob: [UInt8]) -> [Action] {
        // The STATE answer was sent after this push and includes it.
        guard !resyncing else { return [] }
        switch GuestPushValidator.validate(kind, sequence: sequence, blob: blob, known: known, guestSeat: setup.guestSeat) {
        case .failure(let desync):
            return [.fail(.desync(desync.description))]
        case .success(let (change, received, judged)):
            // Judged once, by the validator: the controller commits the host's state as judged.
            return [.submitPush(sequence: sequence, change: change, received: received, judged: judged)]
        }
    }

    private mutating func seatPresence(_ presence: SeatPresence) -> [Action] {
        // Only at a table, and only about another guest's seat: the host never goes away in its own match.
        let seats = known.seats.count
        guard seats > 2, presence.seat < seats, presence.seat != setup.guestSeat, presence.seat != setup.hostSeat else {
            return violation("SEAT names seat \(presence.seat), which is not another guest's seat at this table")
        }
        var actions: [Action] = [.reportPresence(seat: presence.seat, away: presence.away,
                                                 graceLeft: .milliseconds(Int64(presence.graceLeftMilliseconds)))]
        // A bot the host put in that seat (presence 2), until the player is back; the host does not say which bot.
        if presence.botStandsIn {
            if standIns.insert(presence.seat).inserted { actions.append(.reportStandIn(seat: presence.seat, bot: "A bot")) }
        } else if !presence.away, standIns.remove(presence.seat) != nil {
            actions.append(.reportStandIn(seat: presence.seat, bot: nil))
        }
        return actions
    }

    private mutating func goodbye(_ reason: ReasonCode, sentence: String, blob: [UInt8]) -> [Action] {
        let aside = sentence.isEmpty ? "" : " (\(sentence))"
        switch reason {
        case .goodbyeMatchOver:
            var actions: [Action] = []
            if !blob.isEmpty, let final = try? MatchBlob.decode(blob) {
                if case .failure(let desync) = checkAdoption(final) { return [.fail(.desync(desync.description))] }
                actions.append(.adopt(final, otherwise: nil))
            }
            // Ignored when the adopted end stopped the match.
            return actions + [.fail(.desync("the host says the match is over, but it is not over here"))]
        case .goodbyeDesync:
            return [.fail(.desync("the host found that the two copies of the match disagree: \(sentence)"))]
        case .goodbyeLeaving:
            // The host is going away for now (its terminal went away); it may come back with `parlor resume`.
            return [.close] + linkLost("\(name) disconnected" + aside)
        case .goodbyeCannotSave:
            // The host pauses until it can save; it takes the seat back once it can.
            return [.close] + linkLost("\(name) cannot save the match and paused it" + aside)
        default:
            return [.fail(.connectionLost("\(name) left: " + reason.shown(with: sentence)))]
        }
    }

    /// Whether a whole state from the host keeps our seat's words ours (`GuestRecordCheck`).
    private func checkAdoption(_ adopted: MatchState) -> Result<Void, PushDesync> {
        GuestRecordCheck.adoption(adopted, known: known, guestSeat: setup.guestSeat, proposal: proposal)
    }

    private func violation(_ why: String) -> [Action] {
        [.send(Farewell.protocolViolation(why)), .close, .fail(.connectionLost("\(name) broke the protocol: \(why)"))]
    }

    // MARK: The link

    /// The link is gone: get back to the host if we can, else the match is lost here.
    private mutating func linkLost(_ why: String) -> [Action] {
        guard setup.reconnects, !left else { return [.fail(.connectionLost(why))] }
        return startReconnecting(why)
    }

    /// Once: the rejoin loop's first notice says `why`.
    private mutating func startReconnecting(_ why: String) -> [Action] {
        guard setup.reconnects, !ended, !left, !reconnecting else { return [] }
        reconnecting = true
        rejoinReason = why
        return [.startReconnecting]
    }

    /// What the guest's player reads while the host is away: only the host's
    /// own `parlor resume` brings back a host whose parlor stopped.
    private var hostMustResume: String {
        "; if \(name)'s parlor stopped, \(name) must run 'parlor resume \(known.matchID.short)' there"
    }

    /// The next instant liveness may act at; none while getting back to the
    /// host (the rejoin loop keeps time then, and `rejoined` schedules again) or after the end.
    private func schedule(now: ContinuousClock.Instant, lastHeard: ContinuousClock.Instant, linkOpen: Bool) -> [Action] {
        guard !ended, !reconnecting, !left else { return [] }
        return [.scheduleTicker(at: liveness.nextTick(lastHeard: lastHeard, open: linkOpen, now: now), tolerance: liveness.tolerance)]
    }

    private mutating func timerFired(now: ContinuousClock.Instant, lastHeard: ContinuousClock.Instant, linkOpen: Bool) -> [Action] {
        guard !ended, !reconnecting, !left else { return [] }
        var actions: [Action] = []
        for tick in liveness.tick(now: now, lastHeard: lastHeard, open: linkOpen) {
            switch tick {
            case .sendHeartbeat:
                actions.append(.sendHeartbeat)
            case .peerSilent(let wait):
                // A half-open link looks like this; a fresh connection tells.
                if setup.reconnects { return actions + startReconnecting("\(name) is not responding") }
                actions += hostPresence(away: true, graceLeft: wait) + [.report(LinkNotice.notResponding(name, left: wait))]
            case .stillWaiting(let left):
                actions.append(.report(LinkNotice.waiting(for: name, left: left)))
            case .peerBack:
                actions += hostPresence(away: false) + [.report(LinkNotice.back(name))]
            case .peerDisconnected:
                return actions + linkLost("the connection to \(name) closed")
            case .graceExpired:
                let silence = setup.settings.timeout.roundedUpSeconds + setup.settings.grace.roundedUpSeconds
                actions.append(.fail(.connectionLost("no word from \(name) for \(silence) s")))
            }
        }
        return actions + schedule(now: now, lastHeard: lastHeard, linkOpen: linkOpen)
    }
}
