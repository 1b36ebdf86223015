import Games
import Match
import Secure
import Synchronization

/// The guest's seat as the host's match controller sees it: the host side of
/// a LAN session. The host is the authoritative turn holder.
///
/// A thin shell around `HostLink`, the pure machine that decides every rule
/// of the host's side of a guest's link (read it for what happens when):
/// this class feeds it what arrives, what the controller does, the saves'
/// callbacks and the timers, and performs what it returns: sends, closes,
/// submits the guest's changes as judged, saves, reports, and settles the
/// end's delivery.
///
/// - Every TURN or QUIT from the guest is judged once and only then
///   submitted to the controller as this participant's change; the guest
///   gets CONFIRM once it is committed, TURN_REJECTED otherwise (and the
///   match is unchanged).
/// - Every change the host commits that did not come from the guest (the
///   host's moves and quit, time expiries) is pushed as TURN or QUIT with
///   the committed blob. `deliver` returns at once: the host does not wait.
/// - Heartbeats both ways; a silent or disconnected guest is reported to the
///   controller. Within the grace period the guest may come back on a new
///   connection with its seat token (`MatchHost` calls `reattach`). After the
///   grace period the match stops on this side as `connectionLost`, saved as
///   interrupted for `parlor resume` (at a table, the seat quits instead).
///
/// A step runs the machine under one lock and sends what it returns under
/// that lock too, so CONFIRM, pushes and STATE leave in commit order; what
/// waits (the controller, table talk) runs after it, in the machine's order.
/// With `persistBeforeSending` set, each committed state is written to disk
/// before any frame that reveals it leaves, from the save's callback: neither
/// this lock nor the controller's actor waits for the disk.
public final class RemoteGuest: DeliversInline {
    /// The guest's player id.
    public let playerID: PlayerID
    /// The guest's name, for notices.
    public let name: String
    /// The guest's seat.
    public let seat: SeatIndex
    /// Where the guest connects from.
    public var peerDescription: String { connection.peerDescription }

    private struct State {
        /// Every decision.
        var link: HostLink
        var controller: MatchController?
        /// The guest's current connection; replaced when it comes back.
        var connection: WireConnection
        /// The connection the guest came back on, until it replaces `connection`
        /// (at once, or once the change the guest sent on the old one is settled).
        var rejoining: WireConnection?
        /// Makes the WELCOME for the guest coming back on `rejoining`.
        var welcome: (@Sendable (MatchState) -> Welcome)?
        /// Writes a committed state to disk and calls back when it is there (nil) or could not be (why).
        var persist: Persist?
        /// Disarms the next try of a failed save (an alarm on the event loop), while saves fail.
        var saveRetry: (@Sendable () -> Void)?
        /// Gives up on the guest's acknowledgement of the end.
        /// Disarms the wait for the end's acknowledgement (an alarm on the event loop).
        var ackTimer: (@Sendable () -> Void)?
        /// Ticks the machine at its next deadline (the process's shared `LivenessClock`).
        var ticker: LivenessClock.Timer?
        /// The after-match conversation, once the match ended with the connection kept.
        var afterMatch: AfterMatch?
        /// Saves asked for, and saves that called back (`savesSettled` counts
        /// the callbacks too). A link's saves call back in the order asked (one writer).
        var savesAsked: UInt64 = 0
        var savesDone: UInt64 = 0
        /// The saves the next guest frame waits for: those asked for by the time the frame before it was handled.
        var nextFrameWaitsFor: UInt64 = 0
    }

    /// What is left of one step after the lock: the actions that wait, with what they need.
    private struct Step {
        var actions: [HostLink.Action] = []
        var connection: WireConnection
        var controller: MatchController?
        var afterMatch: AfterMatch?
        /// Run the timer step after these actions (`HostLink.Action.tick`).
        var tick = false
    }

    /// The host's table talk, which judges this guest's lines; nil: none.
    private let talk: TableTalk?
    /// The after-match conversation's news, for whoever follows it (`rematchNews`).
    private let news = RematchNewsFeed()
    /// Whether the connection speaks protocol 2, which has table talk (TALK).
    let speaksTalk: Bool
    /// The protocol version this guest's WELCOME chose (a rematch keeps it).
    let protocolVersion: UInt8

    private let confirmationTimeout: Duration
    private let clock: @Sendable () -> Int64
    private let attached = Gate()
    /// Bumped whenever the machine's `delivery` changes.
    private let deliveryChanged = SettleSignal()
    /// Bumped whenever a save calls back.
    private let savesSettled = SettleSignal()
    /// Bumped whenever the controller tells this participant something (after the machine has
    /// heard it): a change it was settling is committed or rolled back, or the match ended.
    private let controllerMoved = SettleSignal()
    private let state: Mutex<State>
    /// A bot that may stand in for this seat while the guest is away (at a table).
    private let standIn = StandIn()

    /// Saves a state and calls back once it is on disk (nil) or with why it could not be.
    public typealias Persist = @Sendable (MatchState, _ then: @escaping @Sendable ((any Error)?) -> Void) -> Void

    init(connection: WireConnection, seat: SeatIndex, initial: MatchState, timeouts: SessionTimeouts,
         clock: @escaping @Sendable () -> Int64, talk: TableTalk? = nil, protocolVersion: UInt8 = 1) {
        self.talk = talk
        self.speaksTalk = protocolVersion >= 2
        self.protocolVersion = protocolVersion
        self.seat = seat
        self.playerID = initial.seats[seat].playerID
        self.name = initial.seats[seat].name
        self.confirmationTimeout = timeouts.confirmation
        self.clock = clock
        let setup = HostLink.Setup(seat: seat, name: initial.seats[seat].name, speaksTalk: protocolVersion >= 2,
                                   hearsTalk: talk != nil,
                                   settings: Liveness.Settings(interval: timeouts.heartbeatInterval,
                                                               timeout: timeouts.heartbeatTimeout, grace: timeouts.grace),
                                   confirmationTimeout: timeouts.confirmation)
        self.state = Mutex(State(link: HostLink(setup, initial: initial, now: .now), connection: connection))
    }

    private var connection: WireConnection { state.withLock { $0.connection } }

    /// The guest's proved identity key on the current connection (protocol 3); nil in clear.
    public var peerKey: PlayerPublicKey? { (connection.stream as? SecureByteStream)?.peer }

    /// The committed state as this participant last saw it.
    public var committedState: MatchState { state.withLock { $0.link.committed } }

    /// Whether this side is going away for now (`leaveForNow` was called):
    /// the guest must not be taken back by this process any more.
    public var isLeaving: Bool { state.withLock { $0.link.left } }

    /// Whether the guest's connection is open now.
    public var isConnected: Bool { state.withLock { $0.connection.isOpen } }

    /// Has `save` write every committed state before any frame that reveals
    /// it is sent (write-ahead). When it throws, nothing that reveals the
    /// state is sent: the match pauses (GOODBYE(cannotSave) to the guest, a
    /// notice here), the save is tried again every second, and the guest is
    /// taken back once one succeeds. Call before the controller starts.
    ///
    /// `save` is called outside any lock and should return at once, calling
    /// back from its own thread once the state is on disk: the frames that
    /// reveal the state are sent from that callback, in commit order.
    public func persistBeforeSending(asynchronously save: @escaping Persist) {
        performNow(step { state in
            state.persist = save
            return .savingEnabled
        })
    }

    /// `persistBeforeSending(asynchronously:)` with a save that is done when it returns (throws when it failed).
    public func persistBeforeSending(_ save: @escaping @Sendable (MatchState) throws -> Void) {
        persistBeforeSending(asynchronously: { state, then in
            do { try save(state); then(nil) } catch { then(error) }
        })
    }

    /// Why a guest coming back must try again later (REJECT busy), or nil when it may.
    public var unavailable: String? { state.withLock { $0.link.unavailable } }

    /// Takes the connection over from the handshake; what arrives waits for `attach`.
    func takeOver() {
        let connection = self.connection
        connection.setHandler { [self] inbound in receiveNow(inbound, from: connection) }
    }

    /// The guest came back on `newConnection` with its seat token: it replaces
    /// the old connection and gets WELCOME with the committed state (and,
    /// when the match has ended meanwhile, GOODBYE with the final state).
    /// Called by `MatchHost` from the connection's handshake handler, so
    /// nothing the guest sends after HELLO is lost.
    ///
    /// When the guest comes back while a change it sent on the old connection
    /// is still being settled, the old connection is closed at once and the
    /// new one waits, silent, until that change is settled and on disk; its
    /// WELCOME then carries the outcome (`HostLink.Action.holdRejoinedLink`).
    func reattach(_ newConnection: WireConnection, welcome: @escaping @Sendable (MatchState) -> Welcome) {
        var old: WireConnection?
        newConnection.markHeard()
        let rejoining = stepping({ state -> HostLink.Event? in
            // An earlier comeback still waiting for its WELCOME is superseded by this one.
            if let earlier = state.rejoining, earlier !== newConnection { earlier.close() }
            state.rejoining = newConnection
            state.welcome = welcome
            old = state.connection
            return .rejoined(now: .now)
        }, swapping: { state, action in
            if case .refuseRejoin(let sentence) = action {
                newConnection.send(.reject(.busy, sentence: sentence))
                newConnection.close()
                state.rejoining = nil
                state.welcome = nil
                old = nil
            }
        })
        guard let rejoining, let old else { return }
        if old !== newConnection {
            old.detach()
            old.close()
        }
        performNow(rejoining)
    }

    /// The link liveness watches: the one the guest came back on while it waits for its WELCOME.
    private static func live(_ state: State) -> WireConnection { state.rejoining ?? state.connection }

    /// How far the end of the match got to the guest.
    public enum FinalDelivery: Hashable, Sendable {
        /// Not known yet: the match is on, or its end went out and the guest has not acknowledged it.
        case pending
        /// The guest has the final state: it answered the end (GOODBYE(matchOver), a
        /// REMATCH, or its connection stayed open through the after-match window),
        /// or it came back and was given it.
        case delivered
        /// The guest was away at the end, or went away before acknowledging it:
        /// it learns the end by coming back (`parlor resume`) within the grace period.
        case lost
    }

    /// Waits until it is known whether the end of the match reached the guest
    /// (not `.pending`), or `limit` passes, and says how far it got.
    public func finalDelivery(within limit: Duration) async -> FinalDelivery {
        await waitForDelivery(within: limit) { $0 != .pending }
    }

    /// Waits until the end of the match has reached the guest, or `limit`
    /// passes; true if it did. A guest that was away when the match ended
    /// learns it by coming back within its grace period.
    public func waitForFinalDelivery(within limit: Duration) async -> Bool {
        await waitForDelivery(within: limit) { $0 == .delivered } == .delivered
    }

    private func waitForDelivery(within limit: Duration, until done: (FinalDelivery) -> Bool) async -> FinalDelivery {
        let deadline = ContinuousClock.now + limit
        while true {
            // The count is read first: a change after reading the state then ends the wait at once.
            let mark = deliveryChanged.count
            let (current, ended) = state.withLock { ($0.link.delivery, $0.link.ended) }
            // Before the end there is nothing to deliver yet.
            guard ended else { return .delivered }
            let left = deadline - ContinuousClock.now
            if done(current) || left <= .zero { return current }
            await deliveryChanged.wait(beyond: mark, limit: left)
        }
    }

    /// Leaves the match for now without quitting it (the terminal went away,
    /// SIGHUP): GOODBYE(leaving) to the guest, then close. The match is saved
    /// as interrupted by the caller; `parlor resume` continues it. True when
    /// the GOODBYE was sent, false when the guest could not be told (its link
    /// was down, or the match over).
    @discardableResult
    public func leaveForNow(_ sentence: String = "leaving, may resume") async -> Bool {
        let leaving = step { .leaveForNow(sentence, linkOpen: Self.live($0).isOpen) }
        await perform(leaving)
        return leaving.actions.contains { if case .send = $0 { true } else { false } }
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
    /// guest sent before the controller started is handled from now on.
    public func attach(to controller: MatchController) {
        connection.markHeard()
        performNow(step { state in
            state.controller = controller
            state.ticker = LivenessClock.shared.timer { [weak self] in self?.tickerFired() }
            return .attached(now: .now, lastHeard: state.connection.lastHeard, linkOpen: state.connection.isOpen)
        })
        attached.open()
    }

    /// The guest's turn began: nothing is sent (the guest learns it from the push);
    /// a bot standing in for an away guest moves here.
    public func turnBegan(_ state: MatchState) {
        standInPlays(state)
    }

    /// Lets a bot play this seat while the guest is away, once it has been
    /// away for `policy.after`, until it comes back (nil: never again).
    /// Only at a table of three or more seats (`StandIn`).
    public func standIn(_ policy: StandInPolicy?) {
        guard committedState.seats.count > 2 else { return }
        standIn.set(policy)
        Task { await self.tick() }
    }

    /// Whether a bot plays this seat now, for the guest who is away.
    public var isStoodInFor: Bool { standIn.isStanding }

    private func standInPlays(_ committed: MatchState) {
        standIn.play(committed, seat: seat) { [weak self] change in
            guard let self, let controller = self.controller else { return }
            // Dropped when the match has moved on from the state the bot thought on.
            controller.propose(change, from: self, chosenAt: committed.sequence)
        }
    }

    /// The bot takes the seat when the guest has been away long enough, and moves if it is the seat's turn.
    private func standInCheck(_ controller: MatchController) async {
        guard let bot = standIn.takesOver() else { return }
        await controller.reportStandIn(seat: seat, bot: bot)
        await controller.report("\(bot) stands in for \(name) until \(name) is back")
        standInPlays(committedState)
    }

    /// The guest is back: the seat is theirs again.
    private func standInEnds(_ controller: MatchController) async {
        guard standIn.back() else { return }
        await controller.reportStandIn(seat: seat, bot: nil)
        await controller.report("\(name) plays their own seat again")
    }

    /// The host's own change: nothing to wait for, the host is authoritative.
    /// It is pushed to the guest when committed (`stateChanged`).
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {
        CrashHook.reach(.beforeSend)
    }

    /// As `deliver`, inline: the controller commits the host's own change in
    /// the same step, with no task started for it (`DeliversInline`).
    public func startDelivery(_ change: MatchChange, resulting state: MatchState,
                              finished: @escaping @Sendable (DeliveryError?) -> Void) -> (@Sendable () -> Void)? {
        CrashHook.reach(.beforeSend)
        finished(nil)
        return {}
    }

    /// A commit, rollback or adoption on the host: the guest gets CONFIRM for its own
    /// change, the push (TURN or QUIT with the blob) for any other, SEAT and TALK news,
    /// each after the save that reveals it when `persistBeforeSending` is set.
    public func stateChanged(_ newState: MatchState, event: MatchEvent) {
        performNow(step(.controller(event)))
        controllerMoved.bump()
    }

    /// The match ended (or stopped on `failure`): the heartbeats stop; at a normal end
    /// the guest is sent GOODBYE(matchOver) once the end is saved, and the end counts as
    /// delivered when the guest answers (an away guest gets it when it comes back);
    /// after a failure it is sent GOODBYE saying why, and the link closes.
    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {
        performNow(step { .matchEnded(final, failure: failure, linkOpen: $0.connection.isOpen) })
        controllerMoved.bump()
    }

    // MARK: Inbound

    private var controller: MatchController? { state.withLock { $0.controller } }

    /// A guest frame, on the event loop's thread: handled there, inline, when
    /// nothing has to be waited for (the common case: a TURN judged, committed
    /// and its save asked for, with no task started); otherwise what is left
    /// comes back to run in a task, and the guest's next frame waits for it.
    ///
    /// Frames from the guest are handled strictly in arrival order (docs/PROTOCOL.md
    /// section 8): a frame is done once what it caused is on disk and its answer
    /// (CONFIRM) has gone, so a STATE, TURN_REJECTED or GOODBYE that follows it in
    /// the same segment is answered after it, never before. The next frame waits
    /// for the saves asked for by then, at its start, rather than each frame after
    /// itself: a guest's next frame nearly always comes after those saves have
    /// called back, so nobody waits and no task is woken by a save.
    private func receiveNow(_ inbound: Inbound, from source: WireConnection) -> WireConnection.Later? {
        guard attached.isOpen, state.withLock({ $0.savesDone >= $0.nextFrameWaitsFor }) else {
            return { [self] in await receive(inbound, from: source) }
        }
        guard let rest = handle(inbound, from: source) else {
            frameHandled()
            return nil
        }
        return { [self] in
            await rest()
            frameHandled()
        }
    }

    /// `receiveNow` for a frame that has to wait for the controller to attach, or for earlier saves.
    private func receive(_ inbound: Inbound, from source: WireConnection) async {
        await attached.wait()
        await savesCalledBack(upTo: state.withLock { $0.nextFrameWaitsFor })
        if let rest = handle(inbound, from: source) { await rest() }
        frameHandled()
    }

    /// The next guest frame waits for the saves asked for until now.
    private func frameHandled() {
        state.withLock { $0.nextFrameWaitsFor = $0.savesAsked }
    }

    /// Handles one frame as far as it can without waiting; the rest, if any, comes back.
    private func handle(_ inbound: Inbound, from source: WireConnection) -> WireConnection.Later? {
        // A replaced connection is not listened to any more.
        guard let controller, state.withLock({ $0.connection === source }) else { return nil }
        if HostLink.answersTheEnd(inbound), !state.withLock({ $0.link.ended }) {
            // The guest answers an end that this host reached a moment ago:
            // once the controller has stopped, `matchEnded` has run.
            return { [self] in
                _ = await controller.isStopped
                if let rest = handleNow(inbound) { await rest() }
            }
        }
        return handleNow(inbound)
    }

    private func handleNow(_ inbound: Inbound) -> WireConnection.Later? {
        switch inbound {
        case .message(.turn), .message(.quit): proposalNow(inbound)
        default: performSync(step(.inbound(inbound)))
        }
    }

    /// Returns once the first `asked` saves have called back (30 s at most: a save always calls back).
    private func savesCalledBack(upTo asked: UInt64) async {
        let giveUp = ContinuousClock.now + .seconds(30)
        while true {
            let mark = savesSettled.count
            let left = giveUp - ContinuousClock.now
            guard state.withLock({ $0.savesDone }) < asked, left > .zero else { return }
            await savesSettled.wait(beyond: mark, limit: left)
        }
    }

    /// Judges and submits one guest change, inline when the controller answers
    /// at once; the commit answers it (CONFIRM, from `stateChanged`), or
    /// TURN_REJECTED does. While the host's own change settles, the frame is
    /// judged again once it is settled (committed or rolled back:
    /// `stateChanged` says so), up to the confirmation timeout.
    private func proposalNow(_ inbound: Inbound, giveUp: ContinuousClock.Instant? = nil) -> WireConnection.Later? {
        let giveUp = giveUp ?? ContinuousClock.now + confirmationTimeout
        let judging = step(.inbound(inbound))
        guard let index = judging.actions.firstIndex(where: { if case .submit = $0 { true } else { false } }),
              case .submit(let sequence, let change, let judged) = judging.actions[index],
              let controller = judging.controller else {
            return performSync(judging)
        }
        let submit: @Sendable () -> WireConnection.Later? = { [self] in
            // Read before the submit: a change settled after the controller refused this one ends the wait at once.
            let mark = controllerMoved.count
            // Judged once, by the machine: the controller commits what it judged.
            let progress = if let judged { controller.submitNow(judged, from: self) } else { controller.submitNow(change, from: self) }
            guard case .answered(let result) = progress else {
                return { [self] in
                    let result = await progress.result()
                    if let rest = answered(inbound, sequence, result, mark: mark, giveUp: giveUp) { await rest() }
                }
            }
            return answered(inbound, sequence, result, mark: mark, giveUp: giveUp)
        }
        let before = Step(actions: Array(judging.actions[..<index]), connection: judging.connection, controller: controller)
        guard let waiting = performSync(before) else { return submit() }
        return {
            await waiting()
            if let rest = submit() { await rest() }
        }
    }

    /// The controller's answer to a guest change: performed, or the change is
    /// judged again once the host's own change is settled.
    private func answered(_ inbound: Inbound, _ sequence: UInt32, _ result: SubmitResult, mark: UInt64,
                          giveUp: ContinuousClock.Instant) -> WireConnection.Later? {
        let answered = step(.submitted(sequence: sequence, result, mayRetry: ContinuousClock.now < giveUp))
        guard answered.actions.contains(where: { if case .retryProposal = $0 { true } else { false } }) else {
            return performSync(answered)
        }
        return { [self] in
            await controllerMoved.wait(beyond: mark, limit: giveUp - ContinuousClock.now)
            if let rest = proposalNow(inbound, giveUp: giveUp) { await rest() }
        }
    }

    // MARK: Timers

    /// The ticker fired: the common case (a heartbeat due, or nothing) is
    /// done on the clock's thread (the event loop's); anything else goes on in a task.
    private func tickerFired() {
        let ticking = timerStep()
        if !ticking.actions.isEmpty || standIn.mayTakeOver {
            Task { await perform(ticking, checkingStandIn: true) }
        }
    }

    private func tick() async {
        await perform(timerStep(), checkingStandIn: true)
    }

    private func timerStep() -> Step {
        step { state in
            let live = Self.live(state)
            return .timerFired(now: .now, lastHeard: live.lastHeard, linkOpen: live.isOpen)
        }
    }

    /// A second from now, while the match is paused: the failed save again (`saveRetryDue`).
    private func armSaveRetry() -> @Sendable () -> Void {
        LoopAlarm.after(.seconds(1)) { [weak self] in self?.saveRetryDue() }
    }

    /// The failed save is tried again; while it still fails, again a second after it called back,
    /// until one succeeds (`stopSaveRetry`).
    private func saveRetryDue() {
        var again: MatchState?
        let due = stepping({ _ in .saveRetryDue }, swapping: { _, action in
            if case .saveAgain(let committed) = action { again = committed }
        })!
        guard let again, let persist = state.withLock({ $0.persist }) else { return performNow(due) }
        persist(again) { [weak self] error in
            guard let self else { return }
            performNow(step(.savedAgain(again, error: error.map { "\($0)" })))
            state.withLock { state in
                guard state.saveRetry != nil else { return }
                state.saveRetry = armSaveRetry()
            }
        }
    }

    // MARK: Performing

    private func step(_ event: HostLink.Event) -> Step {
        step { _ in event }
    }

    private func step(_ makeEvent: (inout State) -> HostLink.Event) -> Step {
        stepping { state -> HostLink.Event? in makeEvent(&state) }!
    }

    /// Runs the machine on one event under the lock, with `makeEvent` reading
    /// or setting what only the shell holds. What changes the link (sends,
    /// closes, the connection, the after-match conversation, the timers, the
    /// end's delivery) takes effect here, in the machine's order, so frames
    /// leave in commit order and nothing that arrives next sees a half-done
    /// step; `swapping` performs the actions only its caller can. The rest
    /// comes back, to run after the lock.
    private func stepping(_ makeEvent: (inout State) -> HostLink.Event?,
                          swapping: (inout State, HostLink.Action) -> Void = { _, _ in }) -> Step? {
        state.withLock { state -> Step? in
            guard let event = makeEvent(&state) else { return nil }
            let actions = state.link.handle(event)
            var step = Step(connection: state.connection, controller: state.controller)
            for action in actions {
                swapping(&state, action)
                switch action {
                case .send(let message):
                    state.connection.send(message)
                case .sendHeartbeat:
                    state.connection.send(.heartbeat(senderTime: UInt64(clamping: clock())))
                case .close:
                    state.connection.close()
                    // A guest that came back and still waits for its WELCOME goes with it.
                    state.rejoining?.close()
                    state.rejoining = nil
                    state.welcome = nil
                case .reachCrashPoint(let phase):
                    CrashHook.reach(phase)
                case .save:
                    // Outside the lock: the save may call back at once. Counted from now on, so a
                    // guest frame after the one being handled waits for it (`savesCalledBack(upTo:)`).
                    if state.persist != nil { state.savesAsked += 1 }
                    step.actions.append(action)
                case .startSaveRetry:
                    state.saveRetry?()
                    state.saveRetry = armSaveRetry()
                case .stopSaveRetry:
                    state.saveRetry?()
                    state.saveRetry = nil
                case .scheduleTicker(let at, let tolerance):
                    state.ticker?.schedule(at: at, tolerance: tolerance)
                case .stopTicker:
                    state.ticker?.cancel()
                case .startAckTimer(let after):
                    state.ackTimer = LoopAlarm.after(after) { [weak self] in
                        guard let self else { return }
                        self.performNow(self.step { .ackTimeElapsed(linkOpen: $0.connection.isOpen) })
                    }
                case .deliveryChanged:
                    state.ackTimer?()
                    state.ackTimer = nil
                    deliveryChanged.bump()
                case .keepForAfterMatch(let final):
                    state.afterMatch = AfterMatch(connection: state.connection, finalState: final, news: news)
                case .toAfterMatch:
                    step.afterMatch = state.afterMatch
                    step.actions.append(action)
                case .standInAway:
                    step.actions.append(action)
                case .tick:
                    step.tick = true
                case .useRejoinedLink:
                    guard let rejoined = state.rejoining else { break }
                    state.rejoining = nil
                    state.connection = rejoined
                    rejoined.setHandler { [self] inbound in receiveNow(inbound, from: rejoined) }
                case .welcome(let revealed):
                    if let welcome = state.welcome { state.connection.send(.welcome(welcome(revealed))) }
                    state.welcome = nil
                case .holdRejoinedLink:
                    break  // `rejoining` waits, unheard, until `useRejoinedLink`
                case .refuseRejoin, .saveAgain:
                    break  // done by the caller (`swapping`)
                case .retryProposal, .submit, .hearTalk, .report, .reportPresence, .standInEnds, .seatGone, .fail, .linger:
                    step.actions.append(action)
                }
            }
            step.connection = state.connection
            return step
        }
    }

    /// Performs a step from a synchronous caller (the controller's callbacks,
    /// a save's callback): what waits goes on in a task, in order.
    private func performNow(_ step: Step) {
        if let rest = performSync(step) { Task { await rest() } }
    }

    /// Performs a step's actions here while none has to wait; the rest (from
    /// the first that waits) comes back, to run in order.
    private func performSync(_ step: Step) -> WireConnection.Later? {
        var rest = step
        while let first = rest.actions.first {
            switch first {
            case .save(let committed, let frames):
                save(committed, frames: frames)
            case .toAfterMatch(let inbound):
                rest.afterMatch?.handle(inbound)
            case .standInAway:
                standIn.away()
            default:
                let waiting = rest
                return { [self] in await perform(waiting) }
            }
            rest.actions.removeFirst()
        }
        guard rest.tick else { return nil }
        return { [self] in await tick() }
    }

    /// Performs what is left of a step after the lock, in order; `checkingStandIn`:
    /// a timer step, where a bot may take the seat first.
    private func perform(_ step: Step, checkingStandIn: Bool = false) async {
        if checkingStandIn, let controller = step.controller { await standInCheck(controller) }
        for action in step.actions {
            switch action {
            case .save(let committed, let frames):
                save(committed, frames: frames)
                continue
            case .toAfterMatch(let inbound):
                step.afterMatch?.handle(inbound)
                continue
            case .standInAway:
                standIn.away()
                continue
            case .linger:
                await step.connection.waitUntilClosed(within: Farewell.linger)
                continue
            default:
                break
            }
            guard let controller = step.controller else { continue }
            switch action {
            case .hearTalk(let bytes):
                let speaker = TalkLine(role: .player, seat: seat, name: name, text: "")
                if let talk, let refusal = await talk.hear(bytes, from: speaker, link: ObjectIdentifier(self), in: controller) {
                    step.connection.send(.talk(.refused(refusal.reason, sentence: refusal.sentence)))
                }
            case .report(let notice):
                await controller.report(notice)
            case .reportPresence(let away, let graceLeft):
                await controller.reportPresence(seat: seat, away: away, graceLeft: graceLeft)
            case .standInEnds:
                await standInEnds(controller)
            case .seatGone(let gone, let atTable, let otherwise):
                // A bot standing in keeps the seat in play until the guest is back.
                if standIn.isStanding { continue }
                if atTable, case .committed = await controller.submit(.quit(seat), from: self) {
                    await controller.report("\(gone); \(name) has left the table and the others play on")
                    continue
                }
                await controller.fail(otherwise)
            case .fail(let failure):
                await controller.fail(failure)
            default:
                break
            }
        }
        if step.tick { await tick() }
    }

    /// Saves `committed` through `persist`, outside the lock; the frames that
    /// reveal it leave when the save calls back (`HostLink.Event.saved`).
    private func save(_ committed: MatchState, frames: [Message]) {
        // Counted when the machine asked for it (`stepping`), so the guest's next frame waits for it.
        guard let persist = state.withLock({ $0.persist }) else { return }
        persist(committed) { [self] error in
            performNow(step(.saved(committed, frames: frames, error: error.map { "\($0)" })))
            state.withLock { $0.savesDone += 1 }
            savesSettled.bump()
        }
    }
}
