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
/// - Heartbeats both ways; a silent host is reported, and after the grace
///   period (or at once when the connection closes) the match fails with
///   `MatchFailure.connectionLost`.
public final class RemoteHost: Participant {
    /// The player id of the host's seat.
    public let playerID: PlayerID
    /// The host's player name, for notices.
    public let name: String
    /// The guest's own seat.
    public let guestSeat: SeatIndex
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

    private struct State {
        var controller: MatchController?
        /// The latest state the host is known to have committed.
        var known: MatchState
        var awaiting: Awaiting?
        var nextToken: UInt64 = 0
        /// A STATE_REQUEST is outstanding.
        var resyncing = false
        var ended = false
        var lateConfirmations = 0
        var liveness: Liveness
        var ticker: Task<Void, Never>?
    }

    private let connection: WireConnection
    private let settings: Liveness.Settings
    private let clock: @Sendable () -> Int64
    private let attached = Gate()
    private let settled = SettleSignal()
    private let state: Mutex<State>

    init(connection: WireConnection, guestSeat: SeatIndex, initial: MatchState, settings: Liveness.Settings,
         clock: @escaping @Sendable () -> Int64) {
        self.connection = connection
        self.guestSeat = guestSeat
        let hostSeat = initial.seats.indices.first { $0 != guestSeat } ?? 0
        self.playerID = initial.seats[hostSeat].playerID
        self.name = initial.seats[hostSeat].name
        self.settings = settings
        self.clock = clock
        self.state = Mutex(State(known: initial, liveness: Liveness(settings: settings, now: .now)))
    }

    /// Confirmations that arrived after their change had been rolled back (and were ignored).
    public var lateConfirmationsIgnored: Int { state.withLock { $0.lateConfirmations } }

    /// Takes the connection over from the handshake; what arrives waits for `attach`.
    func takeOver() {
        connection.setHandler { [self] inbound in await receive(inbound) }
    }

    // MARK: Participant

    public func attach(to controller: MatchController) {
        connection.markHeard()
        state.withLock { state in
            state.controller = controller
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
                    if !connection.isOpen { return DeliveryError.transportFailed("the connection to \(name) is closed") }
                    // While a resync is outstanding nothing is sent: the adopted
                    // state supersedes this change, and the player moves again on it.
                    state.awaiting = Awaiting(token: token, sequence: resulting.sequence, stateHash: resulting.stateHash,
                                              continuation: continuation, sent: !state.resyncing)
                    if !state.resyncing { connection.send(message) }
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
        state.withLock { state in
            switch event {
            case .committed(_, let committed):
                state.known = committed
            case .adopted(let adopted):
                state.known = adopted
                state.resyncing = false
            case .rolledBack(_, let reason, let restored):
                state.known = restored
                let needsState: Bool
                switch reason {
                case .confirmationTimeout, .rejected: needsState = true
                case .superseded, .transportFailed: needsState = false
                }
                if needsState, !state.resyncing, !state.ended {
                    state.resyncing = true
                    connection.send(.stateRequest(knownSequence: restored.sequence))
                }
            default:
                break
            }
        }
        settled.bump()
    }

    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {
        let (ticker, waiting) = state.withLock { state -> (Task<Void, Never>?, Awaiting?) in
            state.ended = true
            defer { state.awaiting = nil }
            return (state.ticker, state.awaiting)
        }
        ticker?.cancel()
        waiting?.continuation.resume(throwing: DeliveryError.transportFailed("the match has stopped"))
        switch failure {
        case nil:
            connection.send(.goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: MatchBlob.encode(final)))
        case .desync(let why)?:
            connection.send(.goodbye(.goodbyeDesync, sentence: String(why.prefix(200)), finalBlob: []))
        case .connectionLost(let why)?:
            connection.send(.goodbye(.goodbyeSilence, sentence: String(why.prefix(200)), finalBlob: []))
        }
        connection.close()
        settled.bump()
    }

    // MARK: Inbound

    private var controller: MatchController? { state.withLock { $0.controller } }

    private func receive(_ inbound: Inbound) async {
        await attached.wait()
        guard let controller, !state.withLock({ $0.ended }) else { return }
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
            waiting.continuation.resume(throwing: DeliveryError.rejected(sentence.isEmpty ? "\(reason)" : sentence))
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
            if !(await controller.adopt(adopted, from: self)) {
                await controller.fail(.desync("the host's state does not continue ours"))
            }
        case .message(.heartbeat):
            break
        case .message(.goodbye(let reason, let sentence, let blob)):
            await handleGoodbye(reason, sentence: sentence, blob: blob, controller: controller)
        case .message(let other):
            await protocolViolation("\(other.type) is not a message a host sends during a match", controller: controller)
        case .frameError(let error):
            await protocolViolation("\(error)", controller: controller)
        case .messageError(let error):
            await protocolViolation("\(error)", controller: controller)
        case .closed:
            await controller.fail(.connectionLost("the connection to \(name) closed"))
        }
    }

    private func handleConfirm(sequence: UInt32, hash: UInt64, controller: MatchController) async {
        enum Verdict { case late, confirmed(Awaiting, UInt64), differs(Awaiting) }
        let verdict = state.withLock { state -> Verdict in
            guard let awaiting = state.awaiting, awaiting.sent, awaiting.sequence == sequence else {
                state.lateConfirmations += 1
                // The host committed a change we rolled back (or are rolling
                // back: the controller cancels the delivery just before it
                // reports the rollback). Pushes that follow build on it, so
                // they must wait for the host's state.
                if sequence == state.known.sequence &+ 1, !state.resyncing, !state.ended {
                    state.resyncing = true
                    connection.send(.stateRequest(knownSequence: state.known.sequence))
                }
                return .late
            }
            state.awaiting = nil
            return awaiting.stateHash == hash ? .confirmed(awaiting, settled.count) : .differs(awaiting)
        }
        switch verdict {
        case .late:
            return
        case .confirmed(let awaiting, let mark):
            awaiting.continuation.resume()
            // Let the controller commit before the next message is looked at,
            // so a push that follows is checked against the committed change.
            await settled.wait(beyond: mark, limit: .seconds(5))
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
        case .success(let (change, received)):
            switch await controller.submit(change, from: self, authoritative: received) {
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
                await controller.adopt(final, from: self)
            }
            if !(await controller.isStopped) {
                await controller.fail(.desync("the host says the match is over, but it is not over here"))
            }
        case .goodbyeDesync:
            await controller.fail(.desync("the host found that the two copies of the match disagree: \(sentence)"))
        default:
            await controller.fail(.connectionLost("\(name) left" + (sentence.isEmpty ? "" : ": \(sentence)")))
        }
    }

    private func protocolViolation(_ why: String, controller: MatchController) async {
        connection.send(.goodbye(.goodbyeProtocolError, sentence: String(why.prefix(200)), finalBlob: []))
        connection.close()
        await controller.fail(.connectionLost("\(name) broke the protocol: \(why)"))
    }

    // MARK: Liveness

    private func tick() async {
        let actions = state.withLock { state -> [Liveness.Action] in
            guard !state.ended else { return [] }
            return state.liveness.tick(now: .now, lastHeard: connection.lastHeard, open: connection.isOpen)
        }
        guard !actions.isEmpty, let controller else { return }
        for action in actions {
            switch action {
            case .sendHeartbeat:
                connection.send(.heartbeat(senderTime: UInt64(clamping: clock())))
            case .peerSilent(let wait):
                await controller.report("\(name) is not responding — waiting \(wait.roundedUpSeconds) s")
            case .peerBack:
                await controller.report("\(name) is back")
            case .peerDisconnected:
                // Protocol version 1 cannot reconnect: a closed connection is the end.
                await controller.fail(.connectionLost("the connection to \(name) closed"))
            case .graceExpired:
                await controller.fail(.connectionLost("no word from \(name) for \(settings.timeout.roundedUpSeconds + settings.grace.roundedUpSeconds) s"))
            }
        }
    }
}
