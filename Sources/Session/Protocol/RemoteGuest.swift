import Games
import Match
import Synchronization

/// The guest's seat as the host's match controller sees it: the host side of
/// a LAN session. The host is the authoritative turn holder.
///
/// - Every TURN or QUIT from the guest is checked by `HostTurnValidator`
///   and only then submitted to the controller as this participant's change;
///   the guest gets CONFIRM once it is committed, TURN_REJECTED otherwise
///   (and the match is unchanged).
/// - Every change the host commits that did not come from the guest (the
///   host's moves and quit, time expiries) is pushed as TURN or QUIT with
///   the committed blob. `deliver` returns at once: the host does not wait.
/// - STATE_REQUEST is answered with the committed state.
/// - Heartbeats both ways; a silent or disconnected guest is reported to the
///   controller ("waiting for NAME to come back (N s left)"). Within the
///   grace period the guest may come back on a new connection with its seat
///   token (`MatchHost` calls `reattach`): it gets WELCOME with the committed
///   state and the match goes on. After the grace period the match stops on
///   this side as `connectionLost`, saved as interrupted for `parlor resume`.
///
/// Outgoing frames are sent under the same lock that updates the mirror of
/// the committed state, so CONFIRM, pushes and STATE leave in commit order.
/// With `persistBeforeSending` set, each committed state is written to disk
/// before any frame that reveals it leaves: the host's saved copy is never
/// behind what the guest has seen, so a restarted host never forgets a
/// move it confirmed. The save runs on the store's writer, not here: the
/// frames for a state wait in order until its save calls back, so neither
/// this participant's lock nor the controller's actor waits for the disk.
public final class RemoteGuest: Participant {
    /// The guest's player id.
    public let playerID: PlayerID
    /// The guest's name, for notices.
    public let name: String
    /// The guest's seat.
    public let seat: SeatIndex
    /// Where the guest connects from.
    public var peerDescription: String { connection.peerDescription }

    private struct State {
        var controller: MatchController?
        /// The guest's current connection; replaced when it comes back.
        var connection: WireConnection
        /// Writes a committed state to disk and calls back when it is there (nil) or could not be (why).
        var persist: Persist?
        /// The newest committed state known to be on disk (or the initial one): all a frame may reveal.
        var revealed: MatchState
        /// The end came before its save did: GOODBYE(matchOver) follows that save.
        var goodbyeAfterSave: GoodbyeAfterSave?
        /// Why the last committed state could not be saved: the match is paused
        /// (the guest was told with GOODBYE(cannotSave) and cannot come back) until a save succeeds.
        var unsaved: String?
        var saveRetry: Task<Void, Never>?
        /// How far the end of the match got to the guest; every change bumps `deliveryChanged`.
        var delivery = FinalDelivery.pending
        /// Gives up on the guest's acknowledgement of the end.
        var ackTimer: Task<Void, Never>?
        /// `leaveForNow` was called.
        var left = false
        /// What the guest said in GOODBYE(leaving), for the "waiting" notice.
        var departure: String?
        /// The controller's committed state, updated in `stateChanged`.
        var committed: MatchState
        /// State hash of every committed sequence, to recognise replays.
        var hashes: [UInt32: UInt64]
        /// The guest change being submitted (its sequence), to answer it with CONFIRM.
        var inflight: (sequence: UInt32, change: MatchChange)?
        var liveness: Liveness
        /// Ticks `liveness` at its next deadline (the process's shared `LivenessClock`).
        var ticker: LivenessClock.Timer?
        /// Keep the connection open after a normal end, for a rematch.
        var keepForRematch = false
        /// The after-match conversation, once the match ended with the connection kept.
        var afterMatch: AfterMatch?
        var ended = false
        /// Relayed talk waiting for the save of the change it follows (section 18): (after sequence, frame).
        var heldTalk: [(after: UInt32, message: Message)] = []
    }

    /// The host's table talk, which judges this guest's lines; nil: none.
    private let talk: TableTalk?
    /// Whether the connection speaks protocol 2, which has table talk (TALK).
    let speaksTalk: Bool

    private let settings: Liveness.Settings
    private let confirmationTimeout: Duration
    private let clock: @Sendable () -> Int64
    private let attached = Gate()
    /// Bumped whenever `State.delivery` changes.
    private let deliveryChanged = SettleSignal()
    private let state: Mutex<State>
    /// A bot that may stand in for this seat while the guest is away (at a table).
    private let standIn = StandIn()

    /// How the end's GOODBYE(matchOver) goes once the end is saved.
    private enum GoodbyeAfterSave {
        /// At the end: kept open until the guest's own GOODBYE(matchOver) acknowledges it.
        case keepOpen
        /// To a guest that came back after the end: it has the end once this is sent.
        case closeAsDelivered
    }

    /// Saves a state and calls back once it is on disk (nil) or with why it could not be.
    public typealias Persist = @Sendable (MatchState, _ then: @escaping @Sendable ((any Error)?) -> Void) -> Void

    init(connection: WireConnection, seat: SeatIndex, initial: MatchState, timeouts: SessionTimeouts,
         clock: @escaping @Sendable () -> Int64, talk: TableTalk? = nil, protocolVersion: UInt8 = 1) {
        self.talk = talk
        self.speaksTalk = protocolVersion >= 2
        self.seat = seat
        self.playerID = initial.seats[seat].playerID
        self.name = initial.seats[seat].name
        self.settings = Liveness.Settings(interval: timeouts.heartbeatInterval, timeout: timeouts.heartbeatTimeout,
                                          grace: timeouts.grace)
        self.confirmationTimeout = timeouts.confirmation
        self.clock = clock
        self.state = Mutex(State(connection: connection, revealed: initial, committed: initial,
                                 hashes: [initial.sequence: initial.stateHash],
                                 liveness: Liveness(settings: settings, now: .now)))
    }

    private var connection: WireConnection { state.withLock { $0.connection } }

    /// The committed state as this participant last saw it.
    public var committedState: MatchState { state.withLock { $0.committed } }

    /// Whether this side is going away for now (`leaveForNow` was called):
    /// the guest must not be taken back by this process any more.
    public var isLeaving: Bool { state.withLock { $0.left } }

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
        state.withLock { $0.persist = save }
    }

    /// `persistBeforeSending(asynchronously:)` with a save that is done when it returns (throws when it failed).
    public func persistBeforeSending(_ save: @escaping @Sendable (MatchState) throws -> Void) {
        persistBeforeSending(asynchronously: { state, then in
            do { try save(state); then(nil) } catch { then(error) }
        })
    }

    /// Why a guest coming back must try again later (REJECT busy), or nil when it may.
    public var unavailable: String? {
        state.withLock { state in
            if state.left { return "This host is going away for now; try again in a moment." }
            if state.unsaved != nil { return "This host cannot save the match right now; try again in a moment." }
            return nil
        }
    }

    /// Takes the connection over from the handshake; what arrives waits for `attach`.
    func takeOver() {
        let connection = self.connection
        connection.setHandler { [self] inbound in await receive(inbound, from: connection) }
    }

    /// The guest came back on `newConnection` with its seat token: it replaces
    /// the old connection and gets WELCOME with the committed state (and,
    /// when the match has ended meanwhile, GOODBYE with the final state).
    /// Called by `MatchHost` from the connection's handshake handler, so
    /// nothing the guest sends after HELLO is lost.
    func reattach(_ newConnection: WireConnection, welcome: (MatchState) -> Welcome) {
        let refused = state.withLock { state -> Bool in
            guard state.unsaved != nil else { return false }
            // Its WELCOME would reveal a state that is not on disk.
            newConnection.send(.reject(.busy, sentence: "This host cannot save the match right now; try again in a moment."))
            newConnection.close()
            return true
        }
        if refused { return }
        let (old, controller) = state.withLock { state -> (WireConnection, MatchController?) in
            let old = state.connection
            state.connection = newConnection
            state.departure = nil
            state.liveness = Liveness(settings: settings, now: .now)
            newConnection.setHandler { [self] inbound in await receive(inbound, from: newConnection) }
            newConnection.send(.welcome(welcome(state.revealed)))
            if state.ended {
                if state.revealed.sequence == state.committed.sequence {
                    newConnection.send(.goodbye(.goodbyeMatchOver, sentence: "The match is over.",
                                                finalBlob: MatchBlob.encode(state.committed)))
                    newConnection.close()
                    settle(&state, .delivered)
                } else {
                    // The end is being saved: it reaches this connection once it is on disk.
                    state.goodbyeAfterSave = .closeAsDelivered
                }
            }
            return (old, state.controller)
        }
        newConnection.markHeard()
        if old !== newConnection {
            old.detach()
            old.close()
        }
        if let controller {
            let name = self.name
            Task {
                await self.reportPresence(away: false, to: controller)
                await controller.report(LinkNotice.back(name))
                await self.standInEnds(controller)
            }
        }
    }

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

    /// How long a guest has to acknowledge the end before it counts as gone:
    /// without a rematch it says GOODBYE(matchOver) at once; with one, a
    /// connection still open after this long carries the end to a live guest.
    static let afterMatchWindow: Duration = .seconds(2)

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
            let (current, ended) = state.withLock { ($0.delivery, $0.ended) }
            // Before the end there is nothing to deliver yet.
            guard ended else { return .delivered }
            let left = deadline - ContinuousClock.now
            if done(current) || left <= .zero { return current }
            await deliveryChanged.wait(beyond: mark, limit: left)
        }
    }

    /// Moves the delivery on (only from `.pending`, except that a guest coming
    /// back always gets the end) and wakes whoever waits for it.
    private func settle(_ state: inout State, _ new: FinalDelivery) {
        guard state.delivery == .pending || new == .delivered, state.delivery != new else { return }
        state.delivery = new
        state.ackTimer?.cancel()
        state.ackTimer = nil
        deliveryChanged.bump()
    }

    /// Leaves the match for now without quitting it (the terminal went away,
    /// SIGHUP): GOODBYE(leaving) to the guest, then close. The match is saved
    /// as interrupted by the caller; `parlor resume` continues it.
    public func leaveForNow(_ sentence: String = "leaving, may resume") async {
        let (connection, ticker, wasOpen) = state.withLock { state in
            state.left = true
            return (state.connection, state.ticker, !state.ended && state.connection.isOpen)
        }
        ticker?.cancel()
        guard wasOpen else { return }
        connection.send(Farewell.leaving(sentence))
        connection.close()
        try? await Task.sleep(for: Farewell.linger)
    }

    /// Keeps the connection open when the match ends normally, so the two
    /// sides can agree on a rematch (`MatchHost.rematch` / `Guest.rematch`)
    /// instead of saying GOODBYE at once. Call before the match ends.
    public func keepConnectionForRematch() {
        state.withLock { $0.keepForRematch = true }
    }

    /// Whether the other side has offered a rematch that this side has not answered yet.
    public var peerOfferedRematch: Bool { afterMatch.peerOfferedRematch }

    /// After the end: why a rematch is already impossible, or nil while one can still be agreed.
    public var rematchRuledOut: RematchEnd? { afterMatch.rematchRuledOut }

    /// The after-match conversation, when the connection was kept past the end.
    var afterMatch: AfterMatch? { state.withLock { $0.afterMatch } }

    // MARK: Participant

    public func attach(to controller: MatchController) {
        connection.markHeard()
        state.withLock { state in
            state.controller = controller
            state.liveness = Liveness(settings: settings, now: .now)
            state.ticker = LivenessClock.shared.timer { [weak self] in self?.tickerFired() }
            armTicker(&state)
        }
        attached.open()
    }

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
            _ = await controller.submit(change, from: self)
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

    public func stateChanged(_ newState: MatchState, event: MatchEvent) {
        let toSave = state.withLock { state -> (MatchState, [Message], Persist)? in
            switch event {
            case .committed(let change, let committed):
                state.committed = committed
                state.hashes[committed.sequence] = committed.stateHash
                let frame: Message
                if let inflight = state.inflight, inflight.sequence == committed.sequence, inflight.change == change {
                    frame = .confirm(sequence: committed.sequence, stateHash: committed.stateHash, deadline: committed.deadline)
                } else {
                    frame = ChangeMessageKind(change).message(sequence: committed.sequence, blob: MatchBlob.encode(committed))
                }
                guard let persist = state.persist else {
                    reveal(&state, committed, frames: [frame])
                    return nil
                }
                return (committed, [frame], persist)
            case .rolledBack(_, _, let restored), .adopted(let restored):
                state.committed = restored
                if state.persist == nil { state.revealed = restored }
                return nil
            case .presence(let other, let away, let graceLeft):
                // Another guest at this table went away or came back: this guest is told (SEAT,
                // protocol 2; a match of two seats has no other guest, so its wire never changes).
                guard other != seat, state.committed.seats.count > 2, !state.ended else { return nil }
                state.connection.send(.seat(SeatPresence(seat: other, away: away, graceLeftMilliseconds: graceLeft.wireMilliseconds)))
                return nil
            case .standIn(let other, let bot?):
                // A bot plays another away guest's seat: this guest is told (SEAT presence 2);
                // the player's return is the "back" that follows.
                guard other != seat, state.committed.seats.count > 2, !state.ended else { return nil }
                state.connection.send(.seat(SeatPresence(seat: other, away: true, graceLeftMilliseconds: 0, botStandsIn: !bot.isEmpty)))
                return nil
            case .talk(let line):
                // After every change committed before it, and so after the save that reveals that change.
                guard speaksTalk, !state.ended else { return nil }
                let message = Message.talk(.relayed(line))
                if state.revealed.sequence >= line.afterSequence && state.heldTalk.isEmpty {
                    state.connection.send(message)
                } else {
                    state.heldTalk.append((line.afterSequence, message))
                }
                return nil
            default:
                return nil
            }
        }
        // Nothing reveals a state before it is saved; the save calls back from the writer.
        guard let (committed, frames, persist) = toSave else { return }
        persist(committed) { [self] error in
            state.withLock { state in
                if let error {
                    pause(&state, because: "\(error)")
                    return
                }
                if state.unsaved != nil { resumeAfterSave(&state) }
                reveal(&state, committed, frames: frames)
            }
        }
    }

    /// `committed` is on disk: sends what reveals it, and the end's GOODBYE when it waited for this save.
    private func reveal(_ state: inout State, _ committed: MatchState, frames: [Message]) {
        if committed.sequence >= state.revealed.sequence { state.revealed = committed }
        if committed.isEnded { CrashHook.reach(.atEnd) }
        for frame in frames {
            state.connection.send(frame)
            if case .confirm = frame { CrashHook.reach(.afterConfirm) } else { CrashHook.reach(.afterSend) }
        }
        while let first = state.heldTalk.first, first.after <= state.revealed.sequence {
            state.heldTalk.removeFirst()
            state.connection.send(first.message)
        }
        if let goodbye = state.goodbyeAfterSave, state.ended, state.revealed.sequence == state.committed.sequence {
            state.goodbyeAfterSave = nil
            state.connection.send(.goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: MatchBlob.encode(state.committed)))
            if goodbye == .closeAsDelivered {
                state.connection.close()
                settle(&state, .delivered)
            }
        }
    }

    // MARK: Saving

    /// The first failed save: the guest is told why and let go (it keeps
    /// trying to come back), the player is told at once, and the save is
    /// tried again every second.
    private func pause(_ state: inout State, because why: String) {
        let first = state.unsaved == nil
        state.unsaved = why
        // The guest is let go: the talk held for it is not sent later on another connection.
        state.heldTalk = []
        guard first else { return }
        state.departure = "the match is paused: it cannot be saved here"
        let connection = state.connection
        connection.send(.goodbye(.goodbyeCannotSave, sentence: "The host cannot save the match (\(why.prefix(300))); it pauses until it can.",
                                 finalBlob: []))
        connection.close()
        let controller = state.controller
        let name = self.name
        Task { await controller?.report("could not save the match: \(why) — paused until it can be saved; \(name) was told") }
        state.saveRetry = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self else { return }
                if await self.retrySave() { return }
            }
        }
    }

    private func resumeAfterSave(_ state: inout State) {
        state.unsaved = nil
        state.departure = nil
        state.saveRetry?.cancel()
        state.saveRetry = nil
        let controller = state.controller
        let name = self.name
        Task { await controller?.report("the match is saved again; \(name) can come back") }
    }

    /// Tries the failed save again; true once the committed state is on disk.
    private func retrySave() async -> Bool {
        guard let (committed, persist) = state.withLock({ state -> (MatchState, Persist)? in
            guard state.unsaved != nil, let persist = state.persist else { return nil }
            return (state.committed, persist)
        }) else { return true }
        let error = await withCheckedContinuation { (done: CheckedContinuation<(any Error)?, Never>) in
            persist(committed) { done.resume(returning: $0) }
        }
        return state.withLock { state -> Bool in
            if let error {
                state.unsaved = "\(error)"
                return false
            }
            if committed.sequence >= state.revealed.sequence { state.revealed = committed }
            resumeAfterSave(&state)
            return true
        }
    }

    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {
        let window = min(Self.afterMatchWindow, confirmationTimeout)
        let ackLimit = confirmationTimeout
        let (ticker, connection, present, kept) = state.withLock { state in
            state.ended = true
            state.committed = final
            // An open connection that is not known to be silent may carry the end to the guest.
            let present = state.connection.isOpen && state.liveness.isPeerPresent
            let kept = failure == nil && present && state.keepForRematch
            if kept { state.afterMatch = AfterMatch(connection: state.connection, finalState: final) }
            if failure != nil || !present {
                settle(&state, .lost)
            } else {
                // A write that succeeded proves nothing: a guest killed a moment
                // ago still accepts bytes. The end has reached it only when it
                // answers (or, with a rematch possible, stays connected a while).
                state.ackTimer = Task { [weak self] in
                    do { try await Task.sleep(for: kept ? window : ackLimit) } catch { return }
                    self?.ackTimeElapsed(kept: kept)
                }
            }
            return (state.ticker, state.connection, present, kept)
        }
        ticker?.cancel()
        if failure == nil, !present {
            // Keep the guest's way back open: it learns the end by reattaching.
            return
        }
        if kept { return }  // the after-match conversation says GOODBYE when it is over
        switch failure {
        case nil:
            // Kept open until the guest's own GOODBYE(matchOver) acknowledges it; sent
            // once the end is on disk (from the save's callback if it is not yet).
            let saved = state.withLock { state -> Bool in
                if state.revealed.sequence == final.sequence { return true }
                state.goodbyeAfterSave = .keepOpen
                return false
            }
            if saved {
                connection.send(Farewell.matchOver(final))
            }
            return
        case let failure?:
            // Desync, or this side stopped waiting (the match is interrupted, not over).
            connection.send(Farewell.stopped(failure))
        }
        connection.close()
    }

    /// The guest did not acknowledge the end in time. With a rematch possible,
    /// a connection still open this long after the end has carried it to a
    /// live guest; otherwise the guest counts as gone and may come back.
    private func ackTimeElapsed(kept: Bool) {
        let close = state.withLock { state -> WireConnection? in
            guard state.delivery == .pending else { return nil }
            if kept, state.connection.isOpen {
                settle(&state, .delivered)
                return nil
            }
            settle(&state, .lost)
            return kept ? nil : state.connection
        }
        close?.close()
    }

    /// What the guest sends after the end says whether the end reached it:
    /// GOODBYE(matchOver) or REMATCH only come from a guest whose match ended
    /// too; a close or anything else before that means it went away first.
    private func noteAfterEnd(_ inbound: Inbound, kept: Bool) {
        let close = state.withLock { state -> WireConnection? in
            guard state.delivery == .pending else { return nil }
            switch inbound {
            case .message(.heartbeat), .message(.talk):
                // Talk that crossed the end is dropped: it says nothing about the end.
                return nil
            case _ where Self.answersTheEnd(inbound):
                settle(&state, .delivered)
            default:
                settle(&state, .lost)
            }
            return kept ? nil : state.connection
        }
        close?.close()
    }

    /// GOODBYE(matchOver) and REMATCH: what only a guest whose match has ended sends.
    private static func answersTheEnd(_ inbound: Inbound) -> Bool {
        switch inbound {
        case .message(.goodbye(.goodbyeMatchOver, _, _)), .message(.rematch): true
        default: false
        }
    }

    // MARK: Inbound

    private var controller: MatchController? { state.withLock { $0.controller } }

    private func receive(_ inbound: Inbound, from source: WireConnection) async {
        await attached.wait()
        // A replaced connection is not listened to any more.
        guard let controller, state.withLock({ $0.connection === source }) else { return }
        var (ended, talk) = state.withLock { ($0.ended, $0.afterMatch) }
        if !ended, Self.answersTheEnd(inbound), await controller.isStopped {
            // The guest answers an end that this host reached a moment ago:
            // once the controller has stopped, `matchEnded` has run.
            (ended, talk) = state.withLock { ($0.ended, $0.afterMatch) }
        }
        if ended {
            noteAfterEnd(inbound, kept: talk != nil)
            talk?.handle(inbound)
            return
        }
        switch inbound {
        case .message(.turn(let sequence, let blob)):
            await handleProposal(.turn, sequence: sequence, blob: blob, controller: controller)
        case .message(.quit(let sequence, let blob)):
            await handleProposal(.quit, sequence: sequence, blob: blob, controller: controller)
        case .message(.stateRequest):
            state.withLock { state in state.connection.send(.state(blob: MatchBlob.encode(state.revealed))) }
        case .message(.heartbeat):
            break
        case .message(.talk(.say(let bytes))) where speaksTalk:
            let speaker = TalkLine(role: .player, seat: seat, name: name, text: "")
            let refusal: TalkCheck.Refusal? = if let talk = self.talk {
                await talk.hear(bytes, from: speaker, link: ObjectIdentifier(self), in: controller)
            } else {
                TalkCheck.Refusal(reason: .talkOff, sentence: TableTalk.turnedOff)
            }
            if let refusal { source.send(.talk(.refused(refusal.reason, sentence: refusal.sentence))) }
        case .message(.goodbye(let reason, let sentence, _)):
            // This host's copy is the match, so no GOODBYE from the guest ends
            // it or changes a result: each one (leaving, desync, a matchOver
            // while the match is not over here, a code from a newer parlor) is
            // the guest going away for now. Its seat is kept for the grace
            // period, the turn timeout keeps running, and a guest that comes
            // back gets this host's state (docs/PROTOCOL.md, section 6).
            let why = switch reason {
            case .goodbyeLeaving where sentence.isEmpty: "leaving"
            case .goodbyeDesync: "its copy of the match disagrees with this one: " + reason.shown(with: sentence)
            case .goodbyeMatchOver: "it says the match is over, but it is not over here"
            default: reason.shown(with: sentence)
            }
            state.withLock { $0.departure = why }
            source.close()
            await tick()
        case .message(let other):
            await protocolViolation("\(other.type) is not a message a guest sends")
        case .frameError(let error):
            await protocolViolation("\(error)")
        case .messageError(let error):
            await protocolViolation("\(error)")
        case .closed:
            await tick()
        }
    }

    private func protocolViolation(_ why: String) async {
        let connection = self.connection
        connection.send(Farewell.protocolViolation(why))
        connection.close()
        await controller?.report("\(name) sent something invalid (\(why)); the connection was closed")
        await tick()
    }

    /// Validates and submits one guest change; answers CONFIRM (from
    /// `stateChanged`) or TURN_REJECTED.
    private func handleProposal(_ kind: ChangeMessageKind, sequence: UInt32, blob: [UInt8], controller: MatchController) async {
        let giveUp = ContinuousClock.now + confirmationTimeout
        while true {
            let verdict = state.withLock { state in
                HostTurnValidator.validate(kind, sequence: sequence, blob: blob, committed: state.committed,
                                           guestSeat: seat, committedHashes: state.hashes)
            }
            let change: MatchChange
            let judged: MatchSuccessor?
            switch verdict {
            case .failure(let rejection):
                connection.send(.turnRejected(sequence: sequence, reason: rejection.reason, sentence: rejection.sentence))
                return
            case .success(let accepted):
                (change, judged) = accepted
            }
            CrashHook.reach(.beforeConfirm)
            state.withLock { $0.inflight = (sequence, change) }
            // Judged once, by the validator: the controller commits what it judged.
            let result = if let judged { await controller.submit(judged, from: self) } else { await controller.submit(change, from: self) }
            state.withLock { $0.inflight = nil }
            switch result {
            case .committed:
                return  // CONFIRM went out from stateChanged, in commit order.
            case .rejected(.awaitingConfirmation) where ContinuousClock.now < giveUp:
                // The host's own change is settling; it never waits on the network.
                try? await Task.sleep(for: .milliseconds(2))
                continue
            case .rejected(let why):
                let rejection = Self.rejection(for: why)
                connection.send(.turnRejected(sequence: sequence, reason: rejection.reason, sentence: rejection.sentence))
                return
            case .rolledBack(let why):
                connection.send(.turnRejected(sequence: sequence, reason: .outOfSequence, sentence: "The host's match moved on (\(why))."))
                return
            }
        }
    }

    private static func rejection(for refusal: SubmitRejection) -> TurnRejection {
        switch refusal {
        case .rule(.notYourTurn): TurnRejection(.notYourTurn, "It is not your turn.")
        case .rule(.illegalMove): TurnRejection(.illegalMove, "That move is not allowed by the rules.")
        case .rule(.matchEnded), .matchOver: TurnRejection(.matchOver, "The match is over.")
        case .authoritativeStateDisagrees: TurnRejection(.hashMismatch, "The state does not match the change.")
        case .awaitingConfirmation: TurnRejection(.outOfSequence, "The host is busy with another change; ask for the state.")
        default: TurnRejection(.notYourSeat, "That change is not yours to make (\(refusal)).")
        }
    }

    // MARK: Liveness

    /// At a table (three or more seats) tells the controller, and so every
    /// frontend and every other guest link, that this guest is away or back.
    /// A match of two seats has only the notices, as before tables.
    private func reportPresence(away: Bool, graceLeft: Duration = .zero, to controller: MatchController) async {
        guard committedState.seats.count > 2 else { return }
        await controller.reportPresence(seat: seat, away: away, graceLeft: graceLeft)
    }

    /// Whether a guest whose grace period ran out counts as quit so the match
    /// goes on (three or more seats still play), rather than interrupting it.
    static func leavesTheTable(_ state: MatchState) -> Bool {
        state.seats.filter { $0.status == .playing }.count > 2
    }

    /// Arms the ticker for the next instant `liveness` may act at.
    private func armTicker(_ state: inout State) {
        guard !state.ended, !state.left, let ticker = state.ticker else { return }
        let connection = state.connection
        ticker.schedule(at: state.liveness.nextTick(lastHeard: connection.lastHeard, open: connection.isOpen, now: .now),
                        tolerance: state.liveness.tolerance)
    }

    /// The ticker fired: the common case (a heartbeat due, or nothing) is
    /// done here on the clock's task; anything else goes on in a task.
    private func tickerFired() {
        let (actions, connection) = tickLiveness()
        guard actions.allSatisfy({ $0 == .sendHeartbeat }), !standIn.mayTakeOver else {
            Task { await handle(actions, on: connection) }
            return
        }
        if !actions.isEmpty { connection.send(.heartbeat(senderTime: UInt64(clamping: clock()))) }
    }

    private func tick() async {
        let (actions, connection) = tickLiveness()
        await handle(actions, on: connection)
    }

    /// Advances `liveness` to now and arms the ticker for what comes next.
    private func tickLiveness() -> ([Liveness.Action], WireConnection) {
        state.withLock { state -> ([Liveness.Action], WireConnection) in
            let connection = state.connection
            guard !state.ended, !state.left else { return ([], connection) }
            let actions = state.liveness.tick(now: .now, lastHeard: connection.lastHeard, open: connection.isOpen)
            armTicker(&state)
            return (actions, connection)
        }
    }

    private func handle(_ actions: [Liveness.Action], on connection: WireConnection) async {
        guard let controller else { return }
        await standInCheck(controller)
        guard !actions.isEmpty else { return }
        for action in actions {
            switch action {
            case .sendHeartbeat:
                connection.send(.heartbeat(senderTime: UInt64(clamping: clock())))
            case .peerSilent(let wait):
                standIn.away()
                // The seat list first, then the notice with the reason, which the screen keeps.
                await reportPresence(away: true, graceLeft: wait, to: controller)
                await controller.report(LinkNotice.notResponding(name, left: wait))
            case .peerDisconnected(let wait):
                let how = state.withLock { $0.departure }.map { "disconnected (\($0))" } ?? "disconnected"
                standIn.away()
                await reportPresence(away: true, graceLeft: wait, to: controller)
                await controller.report("\(name) \(how) — " + LinkNotice.waiting(for: name, left: wait))
            case .stillWaiting(let left):
                await controller.report(LinkNotice.waiting(for: name, left: left))
            case .peerBack:
                await reportPresence(away: false, to: controller)
                await controller.report(LinkNotice.back(name))
                await standInEnds(controller)
            case .graceExpired:
                let gone = "\(name) did not come back within \(settings.grace.roundedUpSeconds) s"
                // A bot standing in keeps the seat in play until the guest is back.
                if standIn.isStanding { continue }
                // At a table where three or more seats still play, the seat counts as
                // quit and the others play on (docs/PROTOCOL.md section 16).
                if Self.leavesTheTable(committedState),
                   case .committed = await controller.submit(.quit(seat), from: self) {
                    await controller.report("\(gone); \(name) has left the table and the others play on")
                    continue
                }
                // Interrupted, not quit: both sides keep the match for `parlor resume`.
                await controller.fail(.connectionLost(gone))
            }
        }
    }
}
