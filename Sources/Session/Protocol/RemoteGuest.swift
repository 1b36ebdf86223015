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
///   controller, and after the grace period its seat quits.
///
/// Outgoing frames are sent under the same lock that updates the mirror of
/// the committed state, so CONFIRM, pushes and STATE leave in commit order.
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
        /// The controller's committed state, updated in `stateChanged`.
        var committed: MatchState
        /// State hash of every committed sequence, to recognise replays.
        var hashes: [UInt32: UInt64]
        /// The guest change being submitted (its sequence), to answer it with CONFIRM.
        var inflight: (sequence: UInt32, change: MatchChange)?
        var liveness: Liveness
        var ticker: Task<Void, Never>?
        var ended = false
    }

    private let connection: WireConnection
    private let settings: Liveness.Settings
    private let confirmationTimeout: Duration
    private let clock: @Sendable () -> Int64
    private let attached = Gate()
    private let state: Mutex<State>

    init(connection: WireConnection, seat: SeatIndex, initial: MatchState, timeouts: SessionTimeouts,
         clock: @escaping @Sendable () -> Int64) {
        self.connection = connection
        self.seat = seat
        self.playerID = initial.seats[seat].playerID
        self.name = initial.seats[seat].name
        self.settings = Liveness.Settings(interval: timeouts.heartbeatInterval, timeout: timeouts.heartbeatTimeout,
                                          grace: timeouts.grace)
        self.confirmationTimeout = timeouts.confirmation
        self.clock = clock
        self.state = Mutex(State(committed: initial, hashes: [initial.sequence: initial.stateHash],
                                 liveness: Liveness(settings: settings, now: .now)))
    }

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

    /// The host's own change: nothing to wait for, the host is authoritative.
    /// It is pushed to the guest when committed (`stateChanged`).
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {}

    public func stateChanged(_ newState: MatchState, event: MatchEvent) {
        state.withLock { state in
            switch event {
            case .committed(let change, let committed):
                state.committed = committed
                state.hashes[committed.sequence] = committed.stateHash
                if let inflight = state.inflight, inflight.sequence == committed.sequence, inflight.change == change {
                    connection.send(.confirm(sequence: committed.sequence, stateHash: committed.stateHash, deadline: committed.deadline))
                } else {
                    connection.send(ChangeMessageKind(change).message(sequence: committed.sequence, blob: MatchBlob.encode(committed)))
                }
            case .rolledBack(_, _, let restored), .adopted(let restored):
                state.committed = restored
            default:
                break
            }
        }
    }

    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {
        let ticker = state.withLock { state -> Task<Void, Never>? in
            state.ended = true
            state.committed = final
            return state.ticker
        }
        ticker?.cancel()
        switch failure {
        case nil:
            connection.send(.goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: MatchBlob.encode(final)))
        case .desync(let why)?:
            connection.send(.goodbye(.goodbyeDesync, sentence: String(why.prefix(200)), finalBlob: []))
        case .connectionLost(let why)?:
            connection.send(.goodbye(.goodbyeLeaving, sentence: String(why.prefix(200)), finalBlob: []))
        }
        connection.close()
    }

    // MARK: Inbound

    private var controller: MatchController? { state.withLock { $0.controller } }

    private func receive(_ inbound: Inbound) async {
        await attached.wait()
        guard let controller, !state.withLock({ $0.ended }) else { return }
        switch inbound {
        case .message(.turn(let sequence, let blob)):
            await handleProposal(.turn, sequence: sequence, blob: blob, controller: controller)
        case .message(.quit(let sequence, let blob)):
            await handleProposal(.quit, sequence: sequence, blob: blob, controller: controller)
        case .message(.stateRequest):
            state.withLock { state in connection.send(.state(blob: MatchBlob.encode(state.committed))) }
        case .message(.heartbeat):
            break
        case .message(.goodbye(let reason, let sentence, _)):
            if reason == .goodbyeDesync {
                await controller.fail(.desync("\(name) found that the two copies of the match disagree: \(sentence)"))
            } else if reason == .goodbyeMatchOver {
                // The guest ends only on changes this host committed, so this host ended first.
                if !(await controller.isStopped) {
                    await controller.fail(.desync("\(name) says the match is over, but it is not over here"))
                }
            } else {
                connection.close()
                await tick()
            }
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
        connection.send(.goodbye(.goodbyeProtocolError, sentence: String(why.prefix(200)), finalBlob: []))
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
            switch verdict {
            case .failure(let rejection):
                connection.send(.turnRejected(sequence: sequence, reason: rejection.reason, sentence: rejection.sentence))
                return
            case .success(let accepted):
                change = accepted.0
            }
            state.withLock { $0.inflight = (sequence, change) }
            let result = await controller.submit(change, from: self)
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
            case .peerDisconnected(let wait):
                await controller.report("\(name) disconnected — waiting \(wait.roundedUpSeconds) s")
            case .peerBack:
                await controller.report("\(name) is back")
            case .graceExpired:
                // Quit first: if the guest can still hear us (half-open link), it learns the outcome.
                await quitGuestSeat(controller)
                connection.close()
            }
        }
    }

    /// The grace period ran out: the guest's seat quits (the host wins a two-seat match).
    private func quitGuestSeat(_ controller: MatchController) async {
        let giveUp = ContinuousClock.now + confirmationTimeout
        while ContinuousClock.now < giveUp {
            switch await controller.submit(.quit(seat), from: self) {
            case .rejected(.awaitingConfirmation):
                try? await Task.sleep(for: .milliseconds(5))
            case .committed:
                await controller.report("\(name) did not come back and counts as having quit")
                return
            default:
                return
            }
        }
    }
}
