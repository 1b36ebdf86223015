import Games
import Match
import Synchronization

/// The host's seat as the guest's match controller sees it: the guest side
/// of a LAN session. It speaks for the authoritative copy (`isAuthority`).
///
/// - `deliver` (the guest's own move or quit) sends TURN or QUIT and
///   returns when the host's CONFIRM arrives with the same state hash; it
///   throws `DeliveryError.rejected` on TURN_REJECTED. A CONFIRM after the
///   controller's confirmation timeout is ignored.
/// - After a rollback for a confirmation timeout or a rejection it sends
///   STATE_REQUEST and adopts the STATE answer, so the copies converge: a
///   move the host did commit comes back through the adopted state.
///   Pushes that arrive while the answer is awaited are skipped: the
///   answer, sent after them, contains them.
/// - The host's pushes (TURN, QUIT) are checked by `GuestPushValidator`
///   against what the host is known to have committed; any failure is a
///   desync: GOODBYE(desync) to the host and `MatchFailure.desync` here.
/// - Heartbeats both ways. When the connection closes, the host goes silent
///   for the heartbeat timeout, or says GOODBYE(leaving), the guest gets back
///   to it by itself (when built with a `Dialer`): it redials with backoff
///   for the grace period and sends HELLO with the match id and seat token;
///   on WELCOME it adopts the host's state (docs/PROTOCOL.md, "Reconnecting").
///   A fatal refusal, or no success within grace, fails the match with
///   `MatchFailure.connectionLost` (saved as interrupted, for `parlor resume`).
///   Without a `Dialer` a dropped connection fails the match at once.
public final class RemoteHost: Participant {
    /// The player id of the host's seat.
    public let playerID: PlayerID
    /// The host's player name, for notices.
    public let name: String
    /// The guest's own seat.
    public let guestSeat: SeatIndex
    /// The host's own seat (at a table, named by its last TABLE).
    public let hostSeat: SeatIndex
    public var isAuthority: Bool { true }

    private struct Awaiting {
        var token: UInt64
        var sequence: UInt32
        var stateHash: UInt64
        var continuation: CheckedContinuation<Void, any Error>
        /// Whether the TURN or QUIT went out; a change held back during a
        /// resync must never be taken as confirmed by an older CONFIRM.
        var sent: Bool
    }

    /// How to get back to the host: built by `Guest` from `GuestOptions.redial`.
    struct Reconnect: Sendable {
        var dial: Dialer
        /// HELLO with the match id and seat token.
        var hello: Hello
        var policy: ReconnectPolicy
        var handshakeTimeout: Duration
    }

    private struct State {
        var controller: MatchController?
        /// The connection in use; replaced when the guest gets back to the host.
        var connection: WireConnection
        /// The latest state the host is known to have committed.
        var known: MatchState
        /// Other guests' seats a bot of the host's plays while they are away (SEAT presence 2).
        var standIns: Set<SeatIndex> = []
        var awaiting: Awaiting?
        var nextToken: UInt64 = 0
        /// A STATE_REQUEST is outstanding.
        var resyncing = false
        var ended = false
        var lateConfirmations = 0
        var liveness: Liveness
        var ticker: Task<Void, Never>?
        /// Keep the connection open after a normal end, for a rematch.
        var keepForRematch = false
        /// The after-match conversation, once the match ended with the connection kept.
        var afterMatch: AfterMatch?
        /// Getting back to the host is under way (the old connection is closed).
        var reconnecting = false
        var reconnectLoop: Task<Void, Never>?
        /// `leaveForNow` was called: this side is going away on purpose.
        var left = false
        /// Our own change that went out and is not settled: the only change of
        /// our seat that a state from the host may hold beyond `known`.
        var proposal: OwnProposal?
        /// Writes a state this side committed to disk, calling back once it is there;
        /// nothing that acknowledges the state leaves before that.
        var persist: Persist?
        /// The end is being saved (its save has not called back): its acknowledgement waits.
        var savingTheEnd = false
        /// The test hook `at-end` waits for the end's save (it fires when the record of the end is on disk).
        var crashAtEndOnSave = false
        /// The GOODBYE(matchOver) that answers the end, held until the end's save calls back.
        var goodbyeAfterSave: Message?
    }

    /// Saves a state and calls `done` once it is on disk (or failed: the record keeps the problem).
    public typealias Persist = @Sendable (MatchState, _ done: @escaping @Sendable () -> Void) -> Void

    private let reconnect: Reconnect?
    private let settings: Liveness.Settings
    private let clock: @Sendable () -> Int64
    private let attached = Gate()
    /// Open once the end is saved (or there was no end to save): what answers the end waits for it.
    private let endSaved = Gate()
    private let settled = SettleSignal()
    private let state: Mutex<State>

    /// Whether the connection speaks protocol 2, which has table talk (TALK).
    let speaksTalk: Bool

    init(connection: WireConnection, guestSeat: SeatIndex, hostSeat: SeatIndex, initial: MatchState, settings: Liveness.Settings,
         clock: @escaping @Sendable () -> Int64, reconnect: Reconnect? = nil, protocolVersion: UInt8 = 1) {
        self.reconnect = reconnect
        self.speaksTalk = protocolVersion >= 2
        self.guestSeat = guestSeat
        self.hostSeat = hostSeat
        self.playerID = initial.seats[hostSeat].playerID
        self.name = initial.seats[hostSeat].name
        self.settings = settings
        self.clock = clock
        self.state = Mutex(State(connection: connection, known: initial, liveness: Liveness(settings: settings, now: .now)))
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
        state.withLock { $0.persist = save }
    }

    /// Waits until the end of the match is on disk here (at once when nothing is being saved).
    func waitForTheEndToBeSaved() async {
        let saving = state.withLock { $0.savingTheEnd }
        if saving { await endSaved.wait() }
    }

    /// Saves `committed` through `persist`, outside the lock; the end's acknowledgement waits for it.
    private func save(_ committed: MatchState, with persist: Persist?) {
        guard let persist else { return }
        guard committed.isEnded else { return persist(committed) {} }
        persist(committed) { [self] in
            let (goodbye, crash) = state.withLock { state -> ((Message, WireConnection)?, Bool) in
                state.savingTheEnd = false
                defer {
                    state.goodbyeAfterSave = nil
                    state.crashAtEndOnSave = false
                }
                return (state.goodbyeAfterSave.map { ($0, state.connection) }, state.crashAtEndOnSave)
            }
            if crash { CrashHook.reach(.atEnd) }
            endSaved.open()
            if let (message, connection) = goodbye {
                connection.send(message)
                connection.close()
            }
            settled.bump()
        }
    }

    /// Whether this side gets back to the host by itself when the connection drops.
    public var reconnects: Bool { reconnect != nil }

    /// Whether the guest is trying to get back to the host right now.
    public var isReconnecting: Bool { state.withLock { $0.reconnecting } }

    private var connection: WireConnection { state.withLock { $0.connection } }

    /// Confirmations that arrived after their change had been rolled back (and were ignored).
    public var lateConfirmationsIgnored: Int { state.withLock { $0.lateConfirmations } }

    /// Takes the connection over from the handshake; what arrives waits for `attach`.
    func takeOver() {
        let connection = self.connection
        connection.setHandler { [self] inbound in await receive(inbound, from: connection) }
    }

    /// Keeps the connection open when the match ends normally, so the two
    /// sides can agree on a rematch (`MatchHost.rematch` / `Guest.rematch`)
    /// instead of saying GOODBYE at once. Call before the match ends.
    public func keepConnectionForRematch() {
        state.withLock { $0.keepForRematch = true }
    }

    /// Whether the other side has offered a rematch that this side has not answered yet.
    public var peerOfferedRematch: Bool { afterMatch?.peerHasOffered ?? false }

    /// After the end: why a rematch is already impossible (the peer left,
    /// declined or the connection was not kept), so nobody is asked in vain;
    /// nil while one can still be agreed.
    public var rematchRuledOut: RematchEnd? {
        guard let talk = afterMatch else { return .notConnected }
        return talk.settledEnd
    }

    /// The after-match conversation, when the connection was kept past the end.
    var afterMatch: AfterMatch? { state.withLock { $0.afterMatch } }

    // MARK: Participant

    public func attach(to controller: MatchController) {
        connection.markHeard()
        state.withLock { state in
            state.controller = controller
            // A guest killed a moment after joining still has the match it was admitted to.
            state.persist?(state.known) {}
            state.liveness = Liveness(settings: settings, now: .now)
            let interval = state.liveness.tickInterval
            state.ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard let self else { return }
                    await self.tick()
                }
            }
        }
        attached.open()
    }

    public func turnBegan(_ state: MatchState) {}

    /// Sends the guest's own change and waits for the host's verdict.
    public func deliver(_ change: MatchChange, resulting: MatchState) async throws {
        guard change.seat == guestSeat else { return }
        let message = ChangeMessageKind(change).message(sequence: resulting.sequence, blob: MatchBlob.encode(resulting))
        let token = state.withLock { state -> UInt64 in
            state.nextToken += 1
            return state.nextToken
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let refusal = state.withLock { state -> (any Error)? in
                    if state.ended { return DeliveryError.transportFailed("the match has stopped") }
                    if Task.isCancelled { return CancellationError() }
                    let open = state.connection.isOpen
                    if !open, reconnect == nil || state.left {
                        return DeliveryError.transportFailed("the connection to \(name) is closed")
                    }
                    // While a resync is outstanding, or while getting back to the
                    // host, nothing is sent: the adopted state supersedes this
                    // change, and the player moves again on it.
                    let send = open && !state.resyncing && !state.reconnecting
                    state.awaiting = Awaiting(token: token, sequence: resulting.sequence, stateHash: resulting.stateHash,
                                              continuation: continuation, sent: send)
                    if send {
                        state.proposal = OwnProposal(base: state.known.sequence, change: change, resultingHash: resulting.stateHash)
                        CrashHook.reach(.beforeSend)
                        state.connection.send(message)
                    }
                    return nil
                }
                if let refusal { continuation.resume(throwing: refusal) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> Awaiting? in
                guard let awaiting = state.awaiting, awaiting.token == token else { return nil }
                state.awaiting = nil
                return awaiting
            }
            waiting?.continuation.resume(throwing: CancellationError())
        }
    }

    public func stateChanged(_ newState: MatchState, event: MatchEvent) {
        let toSave = state.withLock { state -> (MatchState, Persist?)? in
            switch event {
            case .committed(_, let committed):
                state.known = committed
                state.proposal = nil
                if committed.isEnded { state.savingTheEnd = state.persist != nil }
                return (committed, state.persist)
            case .adopted(let adopted):
                if adopted.isEnded { state.savingTheEnd = state.persist != nil }
                state.known = adopted
                state.resyncing = false
                state.proposal = nil
                return (adopted, state.persist)
            case .rolledBack(_, let reason, let restored):
                state.known = restored
                // Refused by the host: it is not in the host's state.
                if case .rejected = reason { state.proposal = nil }
                let needsState: Bool
                switch reason {
                case .confirmationTimeout, .rejected: needsState = true
                case .superseded, .transportFailed: needsState = false
                }
                if needsState, !state.resyncing, !state.ended {
                    state.resyncing = true
                    state.connection.send(.stateRequest(knownSequence: restored.sequence))
                }
            default:
                break
            }
            return nil
        }
        // Saved in the order the controller committed (its calls come one at a time).
        if let (committed, persist) = toSave { save(committed, with: persist) }
        settled.bump()
    }

    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {
        let (ticker, waiting, loop, connection, kept) = state.withLock { state in
            state.ended = true
            defer { state.awaiting = nil }
            let kept = failure == nil && state.keepForRematch && state.connection.isOpen && !state.reconnecting
            if kept { state.afterMatch = AfterMatch(connection: state.connection, finalState: final) }
            return (state.ticker, state.awaiting, state.reconnectLoop, state.connection, kept)
        }
        ticker?.cancel()
        loop?.cancel()
        waiting?.continuation.resume(throwing: DeliveryError.transportFailed("the match has stopped"))
        // The final state's save began when it was committed or adopted (`stateChanged`):
        // the test hook `at-end` fires once it is on disk, here or when the save returns.
        if failure == nil {
            let now = state.withLock { state -> Bool in
                if state.savingTheEnd { state.crashAtEndOnSave = true }
                return !state.savingTheEnd
            }
            if now { CrashHook.reach(.atEnd) }
        }
        if kept {
            // The after-match conversation says GOODBYE when it is over.
            settled.bump()
            return
        }
        switch failure {
        case nil:
            let goodbye = Message.goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: MatchBlob.encode(final))
            // Our answer to the end acknowledges it: it leaves once the end is on disk here.
            let held = state.withLock { state -> Bool in
                guard state.savingTheEnd else { return false }
                state.goodbyeAfterSave = goodbye
                return true
            }
            if held { return settled.bump() }
            connection.send(goodbye)
        case .desync(let why)?:
            connection.send(.goodbye(.goodbyeDesync, sentence: String(why.prefix(200)), finalBlob: []))
        case .connectionLost(let why)?:
            connection.send(.goodbye(.goodbyeSilence, sentence: String(why.prefix(200)), finalBlob: []))
        }
        connection.close()
        settled.bump()
    }

    /// Leaves the match for now without quitting it (the terminal went away,
    /// SIGHUP): tells the host with GOODBYE(leaving), closes, and stops
    /// reconnecting. The host keeps the seat for its grace period and saves
    /// the match as interrupted after it; `parlor resume` continues it.
    /// Returns once the GOODBYE has had a moment to leave.
    public func leaveForNow(_ sentence: String = "leaving, may resume") async {
        let (connection, ticker, loop, wasOpen) = state.withLock { state in
            state.left = true
            return (state.connection, state.ticker, state.reconnectLoop, !state.ended && state.connection.isOpen)
        }
        ticker?.cancel()
        loop?.cancel()
        guard wasOpen else { return }
        connection.send(.goodbye(.goodbyeLeaving, sentence: sentence, finalBlob: []))
        connection.close()
        try? await Task.sleep(for: .milliseconds(150))
    }

    // MARK: Inbound

    private var controller: MatchController? { state.withLock { $0.controller } }

    private func receive(_ inbound: Inbound, from source: WireConnection) async {
        await attached.wait()
        // Whatever still trickles in on a replaced connection is not looked at.
        guard let controller, state.withLock({ $0.connection === source }) else { return }
        let (ended, talk) = state.withLock { ($0.ended, $0.afterMatch) }
        if ended {
            talk?.handle(inbound)
            return
        }
        switch inbound {
        case .message(.confirm(let sequence, let hash, _)):
            await handleConfirm(sequence: sequence, hash: hash, controller: controller)
        case .message(.turnRejected(let sequence, let reason, let sentence)):
            let (waiting, mark) = state.withLock { state -> (Awaiting?, UInt64) in
                guard let awaiting = state.awaiting, awaiting.sent, awaiting.sequence == sequence else { return (nil, 0) }
                state.awaiting = nil
                return (awaiting, settled.count)
            }
            guard let waiting else { return }  // late: its change was already rolled back
            waiting.continuation.resume(throwing: DeliveryError.rejected(reason.shown(with: sentence)))
            await settled.wait(beyond: mark, limit: .seconds(5))
        case .message(.turn(let sequence, let blob)):
            await handlePush(.turn, sequence: sequence, blob: blob, controller: controller)
        case .message(.quit(let sequence, let blob)):
            await handlePush(.quit, sequence: sequence, blob: blob, controller: controller)
        case .message(.state(let blob)):
            guard state.withLock({ $0.resyncing }) else { return }  // unrequested: nothing to do
            let adopted: MatchState
            do { adopted = try MatchBlob.decode(blob) } catch {
                await controller.fail(.desync("the host's state is invalid: \(error)"))
                return
            }
            if case .failure(let desync) = checkAdoption(adopted) {
                await controller.fail(.desync(desync.description))
                return
            }
            if !(await controller.adopt(adopted, from: self)) {
                await controller.fail(.desync("the host's state does not continue ours"))
            }
        case .message(.heartbeat):
            break
        case .message(.seat(let presence)):
            // Only at a table, and only about another guest's seat: the host never goes away in its own match.
            let seats = state.withLock { $0.known.seats.count }
            guard seats > 2, presence.seat < seats, presence.seat != guestSeat, presence.seat != hostSeat else {
                await protocolViolation("SEAT names seat \(presence.seat), which is not another guest's seat at this table",
                                        controller: controller)
                return
            }
            await controller.reportPresence(seat: presence.seat, away: presence.away,
                                            graceLeft: .milliseconds(Int64(presence.graceLeftMilliseconds)))
            // A bot the host put in that seat (presence 2), until the player is back; the host does not say which bot.
            let (began, ended) = state.withLock { state -> (Bool, Bool) in
                if presence.botStandsIn { return (state.standIns.insert(presence.seat).inserted, false) }
                if !presence.away { return (false, state.standIns.remove(presence.seat) != nil) }
                return (false, false)
            }
            if began {
                await controller.reportStandIn(seat: presence.seat, bot: "A bot")
            } else if ended {
                await controller.reportStandIn(seat: presence.seat, bot: nil)
            }
        case .message(.goodbye(let reason, let sentence, let blob)):
            await handleGoodbye(reason, sentence: sentence, blob: blob, controller: controller)
        case .message(.talk(.relayed(let line))) where speaksTalk:
            await controller.relayTalk(line)
        case .message(.talk(.refused(let reason, let sentence))) where speaksTalk:
            await controller.reportTalkRefused(TalkRefusal(code: reason.rawValue, name: reason.description,
                                                           sentence: reason.shown(with: sentence)))
        case .message(let other):
            await protocolViolation("\(other.type) is not a message a host sends during a match", controller: controller)
        case .frameError(let error):
            await protocolViolation("\(error)", controller: controller)
        case .messageError(let error):
            await protocolViolation("\(error)", controller: controller)
        case .closed(let why, _):
            await connectionDropped("the connection to \(name) closed" + (why.map { " (\($0))" } ?? ""), controller: controller)
        }
    }

    /// Sends a line of table talk to the host (TALK kind 1); the host judges
    /// it. Refused here only when it cannot be sent: a protocol-1 host, or no
    /// connection right now.
    func say(_ text: String) -> TalkCheck.Refusal? {
        guard speaksTalk else {
            return TalkCheck.Refusal(reason: .talkOff, sentence: "\(name)'s parlor speaks protocol 1, which has no table talk.")
        }
        return state.withLock { state -> TalkCheck.Refusal? in
            guard !state.ended, !state.reconnecting, state.connection.isOpen else {
                return TalkCheck.Refusal(reason: .talkOff, sentence: "Not connected to \(name) right now; the line was not sent.")
            }
            state.connection.send(.talk(.say(Array(text.utf8))))
            return nil
        }
    }

    /// The connection is gone: get back to the host if we can, else the match is lost here.
    private func connectionDropped(_ why: String, controller: MatchController) async {
        if reconnect != nil, !state.withLock({ $0.left }) {
            startReconnecting(why)
        } else {
            await controller.fail(.connectionLost(why))
        }
    }

    private func handleConfirm(sequence: UInt32, hash: UInt64, controller: MatchController) async {
        enum Verdict { case late, confirmed(Awaiting, UInt64), differs(Awaiting), neverSent }
        if state.withLock({ $0.awaiting?.sent == true }) { CrashHook.reach(.afterSend) }
        let verdict = state.withLock { state -> Verdict in
            guard let awaiting = state.awaiting, awaiting.sent, awaiting.sequence == sequence else {
                // A CONFIRM answers a change we sent; one for anything else would
                // have us ask for, and adopt, a state holding words we never said.
                guard state.proposal?.isConfirmed(by: sequence, hash: hash) == true else { return .neverSent }
                state.lateConfirmations += 1
                // The host committed a change we rolled back (or are rolling
                // back: the controller cancels the delivery just before it
                // reports the rollback). Pushes that follow build on it, so
                // they must wait for the host's state.
                if sequence == state.known.sequence &+ 1, !state.resyncing, !state.ended {
                    state.resyncing = true
                    state.connection.send(.stateRequest(knownSequence: state.known.sequence))
                }
                return .late
            }
            state.awaiting = nil
            return awaiting.stateHash == hash ? .confirmed(awaiting, settled.count) : .differs(awaiting)
        }
        switch verdict {
        case .late:
            return
        case .neverSent:
            await protocolViolation("CONFIRM for change \(sequence), which we never sent", controller: controller)
        case .confirmed(let awaiting, let mark):
            awaiting.continuation.resume()
            // Let the controller commit before the next message is looked at,
            // so a push that follows is checked against the committed change.
            await settled.wait(beyond: mark, limit: .seconds(5))
            CrashHook.reach(.afterConfirm)
        case .differs(let awaiting):
            awaiting.continuation.resume(throwing: DeliveryError.transportFailed("desync"))
            await controller.fail(.desync("the host committed change \(sequence) with a different state hash"))
        }
    }

    private func handlePush(_ kind: ChangeMessageKind, sequence: UInt32, blob: [UInt8], controller: MatchController) async {
        let (resyncing, known) = state.withLock { ($0.resyncing, $0.known) }
        // The STATE answer was sent after this push and includes it.
        guard !resyncing else { return }
        switch GuestPushValidator.validate(kind, sequence: sequence, blob: blob, known: known, guestSeat: guestSeat) {
        case .failure(let desync):
            await controller.fail(.desync(desync.description))
        case .success(let (change, received, judged)):
            // Judged once, by the validator: the controller commits the host's state as judged.
            let result = if let judged {
                await controller.submit(judged, from: self)
            } else {
                await controller.submit(change, from: self, authoritative: received)
            }
            switch result {
            case .committed:
                break
            case .rejected(let why):
                await controller.fail(.desync("our copy refused the host's change \(sequence): \(why)"))
            case .rolledBack(let why):
                await controller.fail(.desync("our copy could not take the host's change \(sequence): \(why)"))
            }
        }
    }

    private func handleGoodbye(_ reason: ReasonCode, sentence: String, blob: [UInt8], controller: MatchController) async {
        switch reason {
        case .goodbyeMatchOver:
            if !blob.isEmpty, !(await controller.isStopped), let final = try? MatchBlob.decode(blob) {
                if case .failure(let desync) = checkAdoption(final) {
                    await controller.fail(.desync(desync.description))
                    return
                }
                await controller.adopt(final, from: self)
            }
            if !(await controller.isStopped) {
                await controller.fail(.desync("the host says the match is over, but it is not over here"))
            }
        case .goodbyeDesync:
            await controller.fail(.desync("the host found that the two copies of the match disagree: \(sentence)"))
        case .goodbyeLeaving:
            // The host is going away for now (its terminal went away); it may come back with `parlor resume`.
            connection.close()
            await connectionDropped("\(name) disconnected" + (sentence.isEmpty ? "" : " (\(sentence))"), controller: controller)
        case .goodbyeCannotSave:
            // The host pauses until it can save; it takes the seat back once it can.
            connection.close()
            await connectionDropped("\(name) cannot save the match and paused it" + (sentence.isEmpty ? "" : " (\(sentence))"),
                                    controller: controller)
        default:
            await controller.fail(.connectionLost("\(name) left: " + reason.shown(with: sentence)))
        }
    }

    /// Whether a whole state from the host keeps our seat's words ours (`GuestRecordCheck`).
    private func checkAdoption(_ adopted: MatchState) -> Result<Void, PushDesync> {
        state.withLock { state in
            GuestRecordCheck.adoption(adopted, known: state.known, guestSeat: guestSeat, proposal: state.proposal)
        }
    }

    private func protocolViolation(_ why: String, controller: MatchController) async {
        let connection = self.connection
        connection.send(.goodbye(.goodbyeProtocolError, sentence: String(why.prefix(200)), finalBlob: []))
        connection.close()
        await controller.fail(.connectionLost("\(name) broke the protocol: \(why)"))
    }

    // MARK: Reconnecting

    /// Closes the current connection and starts getting back to the host (once).
    private func startReconnecting(_ why: String) {
        guard let reconnect else { return }
        let old = state.withLock { state -> WireConnection? in
            guard !state.ended, !state.left, !state.reconnecting else { return nil }
            state.reconnecting = true
            return state.connection
        }
        guard let old else { return }
        old.detach()
        old.close()
        let loop = Task { [weak self] in
            guard let self else { return }
            await self.reconnectLoop(why, reconnect)
        }
        state.withLock { $0.reconnectLoop = loop }
    }

    /// What the guest's player reads while the host is away: only the host's
    /// own `parlor resume` brings back a host whose parlor stopped.
    private var hostMustResume: String {
        let id = state.withLock { $0.known.matchID.short }
        return "; if \(name)'s parlor stopped, \(name) must run 'parlor resume \(id)' there"
    }

    private func reconnectLoop(_ why: String, _ reconnect: Reconnect) async {
        guard let controller else { return }
        let hostMustResume = self.hostMustResume
        let grace = settings.grace
        await controller.report("\(why) — waiting for \(name) to come back (\(grace.roundedUpSeconds) s left)\(hostMustResume)")
        let lastReminder = Mutex(ContinuousClock.now)
        let reminderInterval = settings.noticeInterval
        let gate = Gate()
        let name = self.name
        let result = await Rejoin.run(
            dial: reconnect.dial, hello: reconnect.hello, policy: reconnect.policy,
            handshakeTimeout: reconnect.handshakeTimeout, until: .now + grace, clock: clock,
            onWelcome: { [weak self] connection, _, _ in
                // Held until the WELCOME is reconciled, so pushes are checked against the adopted state.
                connection.setHandler { [weak self] inbound in
                    await gate.wait()
                    await self?.receive(inbound, from: connection)
                }
            },
            onFailure: { _, _, left in
                let remind = lastReminder.withLock { last -> Bool in
                    guard ContinuousClock.now - last >= reminderInterval else { return false }
                    last = .now
                    return true
                }
                if remind { await controller.report("waiting for \(name) to come back (\(left.roundedUpSeconds) s left)\(hostMustResume)") }
            })
        switch result {
        case .success(let rejoined):
            await reconnected(rejoined, controller: controller)
            gate.open()
        case .failure(let failure):
            let stillWanted = state.withLock { state -> Bool in
                state.reconnecting = false
                return !state.ended && !state.left
            }
            guard stillWanted else { return }
            switch failure {
            case .refused(let why):
                await controller.fail(.connectionLost("\(name) would not take this seat back: \(why)"))
            case .gaveUp:
                await controller.fail(.connectionLost("\(name) did not come back within \(grace.roundedUpSeconds) s (\(failure))"))
            }
        }
    }

    /// Back with the host: the new connection replaces the old, and the
    /// host's state (in WELCOME) wins. A change of ours that waited for a
    /// CONFIRM is dropped; if the host had committed it, it is in the
    /// host's state, so it is applied once either way.
    private func reconnected(_ rejoined: Rejoined, controller: MatchController) async {
        let stillWanted = state.withLock { state -> Bool in
            guard !state.ended, !state.left else { return false }
            state.connection = rejoined.connection
            state.reconnecting = false
            state.resyncing = false
            state.reconnectLoop = nil
            state.liveness = Liveness(settings: settings, now: .now)
            return true
        }
        guard stillWanted else {
            rejoined.connection.close()
            return
        }
        rejoined.connection.markHeard()
        let host = rejoined.match
        let ours = await controller.state
        if await controller.isAwaitingConfirmation || host.sequence != ours.sequence || host.stateHash != ours.stateHash {
            if case .failure(let desync) = checkAdoption(host) {
                await controller.fail(.desync(desync.description))
                return
            }
            if !(await controller.adopt(host, from: self)), !(await controller.isStopped) {
                await controller.fail(.desync("the host's state does not continue ours"))
            }
        }
        await controller.report("\(name) is back")
    }

    // MARK: Liveness

    private func tick() async {
        let (actions, connection) = state.withLock { state -> ([Liveness.Action], WireConnection) in
            guard !state.ended, !state.reconnecting, !state.left else { return ([], state.connection) }
            let connection = state.connection
            return (state.liveness.tick(now: .now, lastHeard: connection.lastHeard, open: connection.isOpen), connection)
        }
        guard !actions.isEmpty, let controller else { return }
        for action in actions {
            switch action {
            case .sendHeartbeat:
                connection.send(.heartbeat(senderTime: UInt64(clamping: clock())))
            case .peerSilent(let wait):
                if reconnect != nil {
                    // A half-open link looks like this; a fresh connection tells.
                    startReconnecting("\(name) is not responding")
                    return
                }
                await controller.report("\(name) is not responding — waiting for \(name) to come back (\(wait.roundedUpSeconds) s left)")
            case .stillWaiting(let left):
                await controller.report("waiting for \(name) to come back (\(left.roundedUpSeconds) s left)")
            case .peerBack:
                await controller.report("\(name) is back")
            case .peerDisconnected:
                await connectionDropped("the connection to \(name) closed", controller: controller)
                return
            case .graceExpired:
                await controller.fail(.connectionLost("no word from \(name) for \(settings.timeout.roundedUpSeconds + settings.grace.roundedUpSeconds) s"))
            }
        }
    }
}

/// A seat at a table that is neither ours nor the host's (another guest, a
/// host's bot), as a guest's controller sees it: every change of it reaches
/// us as a push from the host (`RemoteHost`, the authority), so it does
/// nothing itself. It only gives the seat its one participant.
public final class RelayedSeat: Participant {
    public let playerID: PlayerID
    public var isAuthority: Bool { false }

    /// The seat of `playerID`.
    public init(playerID: PlayerID) { self.playerID = playerID }

    public func attach(to controller: MatchController) {}
    public func turnBegan(_ state: MatchState) {}
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {}
    public func stateChanged(_ newState: MatchState, event: MatchEvent) {}
    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {}
}
