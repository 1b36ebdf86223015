import Games
import Match
import Secure
import Synchronization

/// The host's seat as the guest's match controller sees it: the guest side
/// of a LAN session. It speaks for the authoritative copy (`isAuthority`).
///
/// A thin shell around `GuestLink`, the pure machine that decides every
/// rule of the guest's side of a match (read it for what happens when):
/// this class feeds it what arrives, what the controller does and the
/// timer, and performs what it returns: sends, closes, settles `deliver`,
/// submits and adopts the host's states, saves, reports, and runs the loop
/// that gets back to the host.
///
/// - `deliver` (the guest's own move or quit) sends TURN or QUIT and
///   returns when the host's CONFIRM arrives with the same state hash; it
///   throws `DeliveryError.rejected` on TURN_REJECTED.
/// - When the connection closes, the host goes silent for the heartbeat
///   timeout, or says GOODBYE(leaving), the guest gets back to it by itself
///   (when built with a `Dialer`): it redials with backoff for the grace
///   period and sends HELLO with the match id and seat token; on WELCOME it
///   adopts the host's state (docs/PROTOCOL.md, "Reconnecting"). A fatal
///   refusal, or no success within grace, fails the match with
///   `MatchFailure.connectionLost` (saved as interrupted, for `parlor resume`).
///   Without a `Dialer` a dropped connection fails the match at once.
public final class RemoteHost: DeliversInline {
    /// The player id of the host's seat.
    public let playerID: PlayerID
    /// The host's player name, for notices.
    public let name: String
    /// The guest's own seat.
    public let guestSeat: SeatIndex
    /// The host's own seat (at a table, named by its last TABLE).
    public let hostSeat: SeatIndex
    /// True: the host's copy is the match; the controller takes its states and leaves turn deadlines to it.
    public var isAuthority: Bool { true }

    /// How to get back to the host: built by `Guest` from `GuestOptions.redial`.
    struct Reconnect: Sendable {
        var dial: Dialer
        /// HELLO with the match id and seat token.
        var hello: Hello
        var policy: ReconnectPolicy
        var handshakeTimeout: Duration
    }

    private struct State {
        /// Every decision.
        var link: GuestLink
        var controller: MatchController?
        /// The connection in use; replaced when the guest gets back to the host.
        var connection: WireConnection
        /// The connection a rejoin brought, until the machine takes it (`useRejoinedLink`).
        var rejoinedConnection: WireConnection?
        /// Our deliveries waiting for the host's verdict, by token.
        var waiters: [UInt64: Verdict] = [:]
        var nextToken: UInt64 = 0
        /// Ticks the machine at its next deadline (the process's shared `LivenessClock`).
        var ticker: LivenessClock.Timer?
        var reconnectLoop: Task<Void, Never>?
        /// The after-match conversation, once the match ended with the connection kept.
        var afterMatch: AfterMatch?
        /// Writes a state this side committed to disk, calling back once it is there;
        /// nothing that acknowledges the state leaves before that.
        var persist: Persist?
    }

    /// One machine step's actions, with what performing them needs from that moment.
    private struct Step {
        var actions: [GuestLink.Action]
        var connection: WireConnection
        var controller: MatchController?
        /// The settle count when the step ran: `waitForController` waits beyond it.
        var mark: UInt64
        var waiters: [UInt64: Verdict] = [:]
        /// The ticker and the rejoin loop, to stop (`stopTimers`).
        var ticker: LivenessClock.Timer?
        var reconnectLoop: Task<Void, Never>?
        var afterMatch: AfterMatch?
    }

    /// Where the host's verdict on one of our changes goes: a waiting `deliver`,
    /// or the controller's inline delivery (`startDelivery`).
    private typealias Verdict = @Sendable (DeliveryError?) -> Void

    /// Saves a state and calls `done` once it is on disk (or failed: the record keeps the problem).
    public typealias Persist = @Sendable (MatchState, _ done: @escaping @Sendable () -> Void) -> Void

    private let reconnect: Reconnect?
    private let settings: Liveness.Settings
    private let clock: @Sendable () -> Int64
    private let attached = Gate()
    /// Open once the end is saved (or there was no end to save): what answers the end waits for it.
    private let endSaved = Gate()
    /// Bumped after every controller callback: a frame waits on it for the controller to act.
    private let settled = SettleSignal()
    /// The saves asked for: a change of ours leaves only once the save of our previous one is on disk.
    private let saves = SaveBarrier()
    /// The after-match conversation's news, for whoever follows it (`rematchNews`).
    private let news = RematchNewsFeed()
    private let state: Mutex<State>

    /// Whether the connection speaks protocol 2, which has table talk (TALK).
    let speaksTalk: Bool
    /// Whether the host reads a move's message: its WELCOME chose protocol 4 (section 13).
    public let readsTurnMessages: Bool

    init(connection: WireConnection, guestSeat: SeatIndex, hostSeat: SeatIndex, initial: MatchState, settings: Liveness.Settings,
         clock: @escaping @Sendable () -> Int64, reconnect: Reconnect? = nil, protocolVersion: UInt8 = 1) {
        self.reconnect = reconnect
        self.speaksTalk = protocolVersion >= 2
        self.readsTurnMessages = protocolVersion >= FrameFormat.messagesVersion
        self.guestSeat = guestSeat
        self.hostSeat = hostSeat
        self.playerID = initial.seats[hostSeat].playerID
        self.name = initial.seats[hostSeat].name
        self.settings = settings
        self.clock = clock
        let setup = GuestLink.Setup(guestSeat: guestSeat, hostSeat: hostSeat, hostName: initial.seats[hostSeat].name,
                                    speaksTalk: protocolVersion >= 2, reconnects: reconnect != nil, settings: settings)
        self.state = Mutex(State(link: GuestLink(setup, initial: initial, now: .now), connection: connection))
    }

    /// Has `save` write every state this side commits or adopts, synchronously,
    /// before anything that acknowledges it (its GOODBYE(matchOver) answer to
    /// the end, a REMATCH) can leave: the host takes the end as delivered only
    /// once the guest has saved it. Call before the controller starts.
    public func persistBeforeAcknowledging(_ save: @escaping @Sendable (MatchState) -> Void) {
        persistBeforeAcknowledging(asynchronously: { state, done in
            save(state)
            done()
        })
    }

    /// As `persistBeforeAcknowledging(_:)` with a save that returns at once and
    /// calls back from its own thread when the state is on disk: the end's
    /// acknowledgement (GOODBYE(matchOver), the rematch answer) is sent from
    /// that callback, so the save of the end never holds a thread of the
    /// cooperative pool (docs/STORE.md "No stall while it syncs").
    public func persistBeforeAcknowledging(asynchronously save: @escaping Persist) {
        performNow(step { state in
            state.persist = save
            return .savingEnabled
        })
    }

    /// Waits until the end of the match is on disk here (at once when nothing is being saved).
    func waitForTheEndToBeSaved() async {
        let saving = state.withLock { $0.link.savingTheEnd }
        if saving { await endSaved.wait() }
    }

    /// Waits until the connection this side closed has been closed by the host
    /// too, at most `limit`: the host's last frames (its GOODBYE) are then
    /// read here, not answered with a reset after this process exits.
    func waitForTheLinkToClose(within limit: Duration) async {
        await connection.waitUntilClosed(within: limit)
    }

    /// Whether this side gets back to the host by itself when the connection drops.
    public var reconnects: Bool { reconnect != nil }

    /// Whether the guest is trying to get back to the host right now.
    public var isReconnecting: Bool { state.withLock { $0.link.reconnecting } }

    private var connection: WireConnection { state.withLock { $0.connection } }

    /// The host's proved identity key on the current connection (protocol 3); nil in clear.
    public var peerKey: PlayerPublicKey? { (connection.stream as? SecureByteStream)?.peer }

    /// Confirmations that arrived after their change had been rolled back (and were ignored).
    public var lateConfirmationsIgnored: Int { state.withLock { $0.link.lateConfirmations } }

    /// Takes the connection over from the handshake; what arrives waits for `attach`.
    func takeOver() {
        let connection = self.connection
        connection.setHandler { [self] inbound in receiveNow(inbound, from: connection) }
    }

    /// Keeps the connection open when the match ends normally, so the two
    /// sides can agree on a rematch (`MatchHost.rematch` / `Guest.rematch`)
    /// instead of saying GOODBYE at once. Call before the match ends.
    public func keepConnectionForRematch() {
        performNow(step(.keepForRematch))
    }

    /// Whether the other side has offered a rematch that this side has not answered yet.
    public var peerOfferedRematch: Bool { afterMatch.peerOfferedRematch }

    /// After the end: why a rematch is already impossible, or nil while one can still be agreed.
    public var rematchRuledOut: RematchEnd? { afterMatch.rematchRuledOut }

    /// What the other side says about a rematch after the end, as it comes.
    public var rematchNews: AsyncStream<RematchNews> { news.follow() }

    /// The after-match conversation, when the connection was kept past the end.
    var afterMatch: AfterMatch? { state.withLock { $0.afterMatch } }

    // MARK: Participant

    /// Starts the link: the heartbeats and the liveness timer begin, and what the
    /// host sent before the controller started is handled from now on.
    public func attach(to controller: MatchController) {
        connection.markHeard()
        let attaching = step { state in
            state.controller = controller
            state.ticker = LivenessClock.shared.timer { [weak self] in self?.tickerFired() }
            return .attached(now: .now)
        }
        performNow(attaching)
        attached.open()
    }

    /// Nothing: the host's seat moves on the host, and its move arrives as a push.
    public func turnBegan(_ state: MatchState) {}

    /// Sends the guest's own change and waits for the host's verdict. The
    /// change leaves only once the save of our previous change is on disk,
    /// so this side's file never lacks more than this one change of ours,
    /// which `parlor resume` requires (`GuestRecordCheck`, `SaveBarrier`).
    public func deliver(_ change: MatchChange, resulting: MatchState) async throws {
        await saves.waitForOurLastChange()
        let token = newToken()
        try await withTaskCancellationHandler {
            let verdict: DeliveryError? = await withCheckedContinuation { continuation in
                performNow(step { state in
                    state.waiters[token] = { continuation.resume(returning: $0) }
                    return .ownChange(change, resulting: resulting, token: token, linkOpen: state.connection.isOpen,
                                      cancelled: Task.isCancelled)
                })
            }
            if let verdict { throw verdict }
        } onCancel: {
            performNow(step(.ownChangeCancelled(token: token)))
        }
    }

    /// The same as `deliver`, from the controller's own step, with no task:
    /// TURN or QUIT leaves at once, and the reader that sees the host's
    /// CONFIRM hands the verdict straight back to the controller. Nil (the
    /// controller then calls `deliver` in a task) while the save of our
    /// previous change is not on disk yet.
    public func startDelivery(_ change: MatchChange, resulting: MatchState,
                              finished: @escaping @Sendable (DeliveryError?) -> Void) -> (@Sendable () -> Void)? {
        guard saves.ourLastChangeIsSaved else { return nil }
        let token = newToken()
        performNow(step { state in
            state.waiters[token] = finished
            return .ownChange(change, resulting: resulting, token: token, linkOpen: state.connection.isOpen, cancelled: false)
        })
        return { [weak self] in
            guard let self else { return }
            performNow(step(.ownChangeCancelled(token: token)))
        }
    }

    private func newToken() -> UInt64 {
        state.withLock { state -> UInt64 in
            state.nextToken += 1
            return state.nextToken
        }
    }

    /// A commit or adoption here is saved, in commit order (when saving is on); a
    /// rollback for a confirmation timeout or a rejection asks the host for its state (STATE_REQUEST).
    public func stateChanged(_ newState: MatchState, event: MatchEvent) {
        // Saved in the order the controller committed (its calls come one at a time).
        performNow(step(.controller(event)))
        settled.bump()
    }

    /// The match ended (or stopped on `failure`): timers stop, an unsettled `deliver`
    /// fails; at a normal end the guest's GOODBYE(matchOver) acknowledges it once the
    /// end is on disk here; after a failure the host is told why and the link closes.
    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {
        performNow(step { .matchEnded(final, failure: failure, linkOpen: $0.connection.isOpen) })
        settled.bump()
    }

    /// Leaves the match for now without quitting it (the terminal went away,
    /// SIGHUP): tells the host with GOODBYE(leaving), closes, and stops
    /// reconnecting. The host keeps the seat for its grace period and saves
    /// the match as interrupted after it; `parlor resume` continues it.
    /// Returns once the GOODBYE has had a moment to leave: true when it was
    /// sent, false when the host could not be told (the link was down, or the match over).
    @discardableResult
    public func leaveForNow(_ sentence: String = "leaving, may resume") async -> Bool {
        let leaving = step { .leaveForNow(sentence, linkOpen: $0.connection.isOpen) }
        await perform(leaving)
        return leaving.actions.contains { if case .send = $0 { true } else { false } }
    }

    /// Sends a line of table talk to the host (TALK kind 1); the host judges
    /// it. Refused here only when it cannot be sent: a protocol-1 host, or no
    /// connection right now.
    func say(_ text: String) -> TalkCheck.Refusal? {
        let saying = step { .say(text, linkOpen: $0.connection.isOpen) }
        for case .refuseTalk(let refusal) in saying.actions { return refusal }
        performNow(saying)
        return nil
    }

    // MARK: Inbound

    private var controller: MatchController? { state.withLock { $0.controller } }

    /// A frame from the host, on the event loop's thread: handled there,
    /// inline, when nothing has to be waited for (the common case: a push
    /// checked, committed and its save asked for, with no task started);
    /// otherwise what is left comes back to run in a task, and the host's next
    /// frame waits for it (frames are handled in arrival order).
    private func receiveNow(_ inbound: Inbound, from source: WireConnection) -> WireConnection.Later? {
        guard attached.isOpen else { return { [self] in await receive(inbound, from: source) } }
        return handle(inbound, from: source)
    }

    /// `receiveNow` for a frame that came before the controller attached.
    private func receive(_ inbound: Inbound, from source: WireConnection) async {
        await attached.wait()
        if let rest = handle(inbound, from: source) { await rest() }
    }

    private func handle(_ inbound: Inbound, from source: WireConnection) -> WireConnection.Later? {
        // Whatever still trickles in on a replaced connection is not looked at.
        let receiving = step { state -> GuestLink.Event? in
            guard state.controller != nil, state.connection === source else { return nil }
            return .inbound(inbound)
        }
        guard let receiving else { return nil }
        return performSync(receiving)
    }

    // MARK: Reconnecting

    private func reconnectLoop(_ reconnect: Reconnect) async {
        await perform(step(.rejoinStarted(now: .now)))
        let gate = Gate()
        let result = await Rejoin.run(
            dial: reconnect.dial, hello: reconnect.hello, policy: reconnect.policy,
            handshakeTimeout: reconnect.handshakeTimeout, until: .now + settings.grace, clock: clock,
            onWelcome: { [weak self] connection, _, _ in
                // Held until the WELCOME is reconciled, so pushes are checked against the adopted state.
                connection.setHandler { [weak self] inbound in
                    guard let self else { return nil }
                    guard gate.isOpen else {
                        return { [self] in
                            await gate.wait()
                            await receive(inbound, from: connection)
                        }
                    }
                    return receiveNow(inbound, from: connection)
                }
            },
            onFailure: { [weak self] _, _, left in
                guard let self else { return }
                await self.perform(self.step(.rejoinAttemptFailed(left: left, now: .now)))
            })
        switch result {
        case .success(let rejoined):
            await reconnected(rejoined)
            gate.open()
        case .failure(let failure):
            await perform(step(.rejoinFailed(failure)))
        }
    }

    /// Back with the host: the new connection replaces the old (when the
    /// match still wants it), and the host's state in WELCOME is reconciled with ours.
    private func reconnected(_ rejoined: Rejoined) async {
        let taking = step { state in
            state.rejoinedConnection = rejoined.connection
            return .rejoined(now: .now)
        }
        guard taking.actions.contains(where: { if case .useRejoinedLink = $0 { true } else { false } }),
              let controller = taking.controller else {
            rejoined.connection.close()
            return
        }
        rejoined.connection.markHeard()
        let ours = await controller.state
        let awaitingConfirmation = await controller.isAwaitingConfirmation
        await perform(step(.reconciling(host: rejoined.match, ours: ours, awaitingConfirmation: awaitingConfirmation)))
    }

    // MARK: Liveness

    /// The ticker fired, on the clock's thread (the event loop's): the common
    /// case (a heartbeat due, or nothing) is done there; anything else goes on in a task.
    private func tickerFired() {
        performNow(step { .timerFired(now: .now, lastHeard: $0.connection.lastHeard, linkOpen: $0.connection.isOpen) })
    }

    // MARK: Performing

    private func step(_ event: GuestLink.Event) -> Step {
        step { _ in event }
    }

    /// Runs the machine on one event under the lock, with `makeEvent` reading
    /// or setting what only the shell holds. The actions that change what the
    /// shell holds (the connection, the after-match conversation, the
    /// waiters) take effect here, so nothing that arrives next sees a half-done step.
    private func step(_ makeEvent: (inout State) -> GuestLink.Event) -> Step {
        step { state -> GuestLink.Event? in makeEvent(&state) }!
    }

    private func step(_ makeEvent: (inout State) -> GuestLink.Event?) -> Step? {
        state.withLock { state -> Step? in
            guard let event = makeEvent(&state) else { return nil }
            let actions = state.link.handle(event)
            var step = Step(actions: actions, connection: state.connection, controller: state.controller, mark: settled.count)
            for action in actions {
                switch action {
                case .settleDelivery(let token, _):
                    step.waiters[token] = state.waiters.removeValue(forKey: token)
                case .stopTimers:
                    step.ticker = state.ticker
                    step.reconnectLoop = state.reconnectLoop
                case .scheduleTicker(let at, let tolerance):
                    state.ticker?.schedule(at: at, tolerance: tolerance)
                case .keepForAfterMatch(let final):
                    state.afterMatch = AfterMatch(connection: state.connection, finalState: final, news: news)
                case .toAfterMatch:
                    step.afterMatch = state.afterMatch
                case .useRejoinedLink:
                    if let rejoined = state.rejoinedConnection { state.connection = rejoined }
                    state.rejoinedConnection = nil
                    state.reconnectLoop = nil
                    step.connection = state.connection
                case .dropRejoinedLink:
                    state.rejoinedConnection = nil
                default:
                    break
                }
            }
            return step
        }
    }

    /// Performs a step from a synchronous caller (the controller's callbacks,
    /// a save's callback): the machine only asks for actions that do not wait
    /// there; anything else would go on in a task, in order.
    private func performNow(_ step: Step) {
        if let rest = performSync(step) { Task { await rest() } }
    }

    /// Performs a step's actions here while none has to wait; a push is
    /// submitted here too, and its answer stepped, when the controller answers
    /// at once. The rest (from the first action that waits) comes back, to run in order.
    private func performSync(_ step: Step) -> WireConnection.Later? {
        for (index, action) in step.actions.enumerated() where !performAtOnce(action, of: step) {
            guard case .submitPush(let sequence, let change, let received, let judged) = action,
                  let controller = step.controller else {
                var waiting = step
                waiting.actions = Array(step.actions[index...])
                return { [self, waiting] in await perform(waiting) }
            }
            var rest = step
            rest.actions = Array(step.actions[(index + 1)...])
            let after = rest
            let progress = if let judged {
                controller.submitNow(judged, from: self)
            } else {
                controller.submitNow(change, from: self, authoritative: received)
            }
            guard case .answered(let result) = progress else {
                return { [self] in
                    await perform(self.step(.pushAnswered(sequence: sequence, await progress.result())))
                    await perform(after)
                }
            }
            guard let answering = performSync(self.step(.pushAnswered(sequence: sequence, result))) else {
                return performSync(after)
            }
            return { [self] in
                await answering()
                await perform(after)
            }
        }
        return nil
    }

    /// Performs a step's actions in order.
    private func perform(_ step: Step) async {
        for action in step.actions where !performAtOnce(action, of: step) {
            if case .linger = action {
                await step.connection.waitUntilClosed(within: Farewell.linger)
                continue
            }
            guard let controller = step.controller else { continue }
            switch action {
            case .waitForController:
                await settled.wait(beyond: step.mark, limit: .seconds(5))
            case .submitPush(let sequence, let change, let received, let judged):
                let result = if let judged {
                    await controller.submit(judged, from: self)
                } else {
                    await controller.submit(change, from: self, authoritative: received)
                }
                await perform(self.step(.pushAnswered(sequence: sequence, result)))
            case .adopt(let adopted, let otherwise):
                if !(await controller.adopt(adopted, from: self)), let otherwise { await controller.fail(otherwise) }
            case .fail(let failure):
                await controller.fail(failure)
            case .report(let notice):
                await controller.report(notice)
            case .reportPresence(let seat, let away, let graceLeft):
                await controller.reportPresence(seat: seat, away: away, graceLeft: graceLeft)
            case .reportStandIn(let seat, let bot):
                await controller.reportStandIn(seat: seat, bot: bot)
            case .relayTalk(let line):
                await controller.relayTalk(line)
            case .reportTalkRefused(let refusal):
                await controller.reportTalkRefused(refusal)
            default:
                break
            }
        }
    }

    /// Performs `action` if it needs no waiting; false if it does.
    private func performAtOnce(_ action: GuestLink.Action, of step: Step) -> Bool {
        switch action {
        case .send(let message):
            step.connection.send(message)
        case .sendHeartbeat:
            step.connection.send(.heartbeat(senderTime: UInt64(clamping: clock())))
        case .close:
            step.connection.close()
        case .reachCrashPoint(let phase):
            CrashHook.reach(phase)
        case .settleDelivery(let token, let outcome):
            guard let waiter = step.waiters[token] else { break }
            switch outcome {
            case .confirmed: waiter(nil)
            case .rejected(let why): waiter(.rejected(why))
            case .failed(let why): waiter(.transportFailed(why))
            case .cancelled: waiter(.transportFailed("cancelled"))
            }
        case .save(let saved, let acknowledges):
            save(saved, acknowledges: acknowledges)
        case .endIsSaved:
            endSaved.open()
        case .stopTimers:
            step.ticker?.cancel()
            step.reconnectLoop?.cancel()
        case .toAfterMatch(let inbound):
            step.afterMatch?.handle(inbound)
        case .startReconnecting:
            guard let reconnect else { break }
            step.connection.detach()
            step.connection.close()
            let loop = Task { [weak self] in
                guard let self else { return }
                await self.reconnectLoop(reconnect)
            }
            state.withLock { $0.reconnectLoop = loop }
        case .keepForAfterMatch, .useRejoinedLink, .dropRejoinedLink, .refuseTalk, .scheduleTicker:
            break  // done in the step, or answered by the caller
        case .waitForController:
            // Nothing to wait for when the controller has acted already: a
            // delivery it takes inline commits as the delivery settles.
            return settled.count > step.mark
        case .submitPush, .adopt, .fail, .report, .reportPresence, .reportStandIn, .relayTalk,
             .reportTalkRefused, .linger:
            return false
        }
        return true
    }

    /// Saves `saved` through `persist`, outside the lock; the end's
    /// acknowledgement waits for the save to call back (`GuestLink.Event.endSaved`).
    private func save(_ saved: MatchState, acknowledges: Bool) {
        guard let persist = state.withLock({ $0.persist }) else { return }
        let ours = saved.moves.reduce(0) { $0 + ($1.seat == guestSeat ? 1 : 0) }
            + (saved.seats.indices.contains(guestSeat) && saved.seats[guestSeat].outcome == .quit ? 1 : 0)
        let savedHere = saves.begin(ownChanges: ours)
        guard acknowledges else { return persist(saved) { savedHere() } }
        persist(saved) { [self] in
            savedHere()
            performNow(step(.endSaved))
            settled.bump()
        }
    }
}

/// A seat at a table that is neither ours nor the host's (another guest, a
/// host's bot), as a guest's controller sees it: every change of it reaches
/// us as a push from the host (`RemoteHost`, the authority), so it does
/// nothing itself. It only gives the seat its one participant.
public final class RelayedSeat: Participant {
    /// The player id of the relayed seat.
    public let playerID: PlayerID
    /// False: the host (`RemoteHost`) is the authority, not this seat.
    public var isAuthority: Bool { false }
    /// False: nobody is sent this seat's changes from here, so they commit at once.
    public var takesDeliveries: Bool { false }

    /// The seat of `playerID`.
    public init(playerID: PlayerID) { self.playerID = playerID }

    /// Nothing to start: the seat only stands in the controller's list.
    public func attach(to controller: MatchController) {}
    /// Nothing: the seat's player moves elsewhere, and the move arrives from the host.
    public func turnBegan(_ state: MatchState) {}
    /// Nothing: never called, since `takesDeliveries` is false (the host has the change already).
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {}
    /// Nothing: the guest's own link (`RemoteHost`) follows the states.
    public func stateChanged(_ newState: MatchState, event: MatchEvent) {}
    /// Nothing to stop.
    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {}
}
