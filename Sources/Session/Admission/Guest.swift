import Games
import Match
import Synchronization

/// The match a host admitted us to, ready for a controller.
public struct JoinedMatch: Sendable {
    /// The match as the host sent it in WELCOME.
    public let initialState: MatchState
    /// Our seat.
    public let seat: SeatIndex
    /// Our player id (from the HELLO).
    public let playerID: PlayerID
    /// Our secret for this seat (for resume, issue 5).
    public let seatToken: SeatToken
    /// The host's settings for the session.
    public let settings: SessionSettings
    /// The host's parlor version.
    public let hostAppVersion: String
    /// The host's seat as a participant; pass it to the controller.
    public let remote: RemoteHost
    /// Controller settings that match the session (the host's confirmation timeout, the clock).
    public let controllerConfiguration: MatchController.Configuration
    /// The HELLO this side introduced itself with, for a rematch's WELCOME.
    let hello: Hello
    /// The options it joined with (reconnecting, timeouts), kept for a rematch.
    let options: GuestOptions

    /// The host player's name.
    public var hostName: String { remote.name }

    /// A controller for this match with `makeLocal(playerID)` at our seat (a
    /// `LocalParticipant` or a `BotParticipant`) and the remote host at the
    /// other. Start it with `start()`.
    public func makeController<Local: Participant>(_ makeLocal: (PlayerID) -> Local) -> (MatchController, Local) {
        let local = makeLocal(playerID)
        return (makeController(with: local), local)
    }

    /// A controller for this match with `local` at our seat, for a participant
    /// chosen at run time. `local.playerID` must be `playerID` (otherwise
    /// `start()` throws `SubmitRejection.notAParticipant`). At a table, every
    /// seat that is neither ours nor the host's is a `RelayedSeat`: its
    /// changes reach us as the host's pushes.
    public func makeController(with local: any Participant) -> MatchController {
        MatchController(state: initialState, participants: [local, remote] + relayedSeats, configuration: controllerConfiguration)
    }

    /// The other guests' and the host's bots' seats, at a table of three or more.
    var relayedSeats: [any Participant] {
        initialState.seats.indices.filter { $0 != seat && $0 != remote.hostSeat }
            .map { RelayedSeat(playerID: initialState.seats[$0].playerID) }
    }
}

/// Joining a host (`parlor join HOST:PORT`), and getting back to one (`parlor resume`).
public enum Guest {
    /// Runs the handshake over a connected stream: sends `hello`, waits for
    /// WELCOME (or REJECT, or the handshake timeout) and returns the match.
    ///
    /// On any failure the stream is closed. A REJECT is final: do not retry.
    /// With `options.redial` set, the returned match reconnects by itself
    /// when the connection drops (see `RemoteHost`).
    public static func join(over stream: any ByteStream, hello: Hello,
                            options: GuestOptions = GuestOptions()) async throws(JoinError) -> JoinedMatch {
        let connection = WireConnection(stream: stream)
        let attempt = JoinAttempt(hello: hello, connection: connection, options: options) { connection, welcome, match, table in
            joinedMatch(connection: connection, welcome: welcome, match: match, hello: hello, options: options, table: table)
        }
        return try await attempt.run().get()
    }

    /// Takes a seat back in a saved match (`parlor resume` on the guest's
    /// side): dials with `dial` and sends `hello` (which must carry the match
    /// id and seat token) until the host admits it, a fatal refusal, or
    /// `options.grace` has passed, backing off between attempts.
    ///
    /// The host's state wins, but it must keep every move of `saved` (the
    /// guest only ever commits what the host committed); otherwise this fails
    /// with a desync. `onRetry` hears each failed attempt, for "waiting…" lines.
    public static func resume(dial: @escaping Dialer, hello: Hello, saved: MatchState, options: GuestOptions = GuestOptions(),
                              onRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error, _ left: Duration) async -> Void = { _, _, _ in })
        async throws(ResumeError) -> JoinedMatch {
        guard hello.matchID == saved.matchID, hello.seatToken != nil else { throw .notAResumeHello }
        var options = options
        if options.redial == nil { options.redial = dial }
        let captured = options
        let box = ResultBox<JoinedMatch>()
        let result = await Rejoin.run(
            dial: dial, hello: hello, policy: options.reconnect, handshakeTimeout: options.handshakeTimeout,
            until: .now + options.grace, clock: options.clock,
            onWelcome: { connection, welcome, match in
                box.set(joinedMatch(connection: connection, welcome: welcome, match: match, hello: hello, options: captured))
            },
            onFailure: onRetry)
        switch result {
        case .failure(let failure):
            throw .rejoin(failure)
        case .success(let rejoined):
            guard let joined = box.take() else { throw .rejoin(.refused("the handshake ended without a match")) }
            let hostState = rejoined.match
            // The one change of ours it may hold beyond our copy is one we may have sent just before we stopped.
            if case .failure(let why) = GuestRecordCheck.adoption(hostState, known: saved, guestSeat: joined.seat,
                                                                  proposal: nil, oneUnsavedChange: true) {
                rejoined.connection.send(.goodbye(.goodbyeDesync, sentence: String(why.description.prefix(200)), finalBlob: []))
                rejoined.connection.close()
                throw .desync("the host's copy of match \(saved.matchID.short) does not continue the one saved here: \(why)")
            }
            return joined
        }
    }

    /// The host's seat as a guest knows it: at a table the last TABLE names it;
    /// with two seats, and for a guest taking its seat back (no TABLE), the
    /// first seat that is not the guest's (a table's host holds seat index 0
    /// unless it chose `--seat second` or `random`).
    public static func presumedHostSeat(in match: MatchState, guestSeat: SeatIndex, table: TableSeating? = nil) -> SeatIndex {
        table?.hostSeat ?? match.seats.indices.first { $0 != guestSeat } ?? 0
    }

    /// The match and the host's participant for an accepted WELCOME. Runs
    /// inside the connection's handler, so the handler swap loses nothing.
    static func joinedMatch(connection: WireConnection, welcome: Welcome, match: MatchState, hello: Hello,
                            options: GuestOptions, table: TableSeating? = nil) -> JoinedMatch {
        let settings = Liveness.Settings(
            interval: .milliseconds(welcome.settings.heartbeatIntervalMilliseconds),
            timeout: .milliseconds(welcome.settings.heartbeatTimeoutMilliseconds),
            grace: options.grace)
        var resumeHello = hello
        resumeHello.matchID = match.matchID
        resumeHello.seatToken = welcome.seatToken
        resumeHello.games = [GameVersion(id: match.gameID, rulesVersion: UInt16(clamping: match.rulesVersion))]
        let hostSeat = presumedHostSeat(in: match, guestSeat: welcome.seat, table: table)
        let remote = RemoteHost(connection: connection, guestSeat: welcome.seat, hostSeat: hostSeat, initial: match,
                                settings: settings, clock: options.clock,
                                reconnect: options.redial.map { RemoteHost.Reconnect(dial: $0, hello: resumeHello, policy: options.reconnect,
                                                                                    handshakeTimeout: options.handshakeTimeout) },
                                protocolVersion: welcome.protocolVersion)
        // Swapped before this handler returns, so nothing after WELCOME is lost.
        remote.takeOver()
        return JoinedMatch(
            initialState: match, seat: welcome.seat, playerID: hello.playerID, seatToken: welcome.seatToken,
            settings: welcome.settings, hostAppVersion: welcome.hostAppVersion, remote: remote,
            controllerConfiguration: MatchController.Configuration(
                confirmationTimeout: .milliseconds(welcome.settings.confirmationTimeoutMilliseconds),
                clock: options.clock).talking(through: HostTalkOutlet(remote: remote)),
            hello: hello, options: options)
    }
}

/// Why `Guest.resume` failed.
public enum ResumeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HELLO names no match or no seat token.
    case notAResumeHello
    /// The host could not be reached in time, or refused the seat.
    case rejoin(RejoinFailure)
    /// The host's copy of the match does not continue the one saved here.
    case desync(String)

    /// Why, as the end of a sentence a person reads: "desync: the host's state does not continue ours".
    public var description: String {
        switch self {
        case .notAResumeHello: "a resume needs the match id and the seat token"
        case .rejoin(let failure): "\(failure)"
        case .desync(let why): "desync: \(why)"
        }
    }
}

/// One value handed from a callback to the code that awaits it.
final class ResultBox<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    func set(_ new: Value) { value.withLock { $0 = new } }
    func take() -> Value? { value.withLock { current in defer { current = nil }; return current } }
}

/// One handshake from the guest side: the pure `GuestHandshake` fed by the
/// connection's reader and a timer, resolved exactly once. `accepted` turns
/// the WELCOME into the result inside the connection's handler.
final class JoinAttempt<Joined: Sendable>: Sendable {
    typealias Accept = @Sendable (WireConnection, Welcome, MatchState, TableSeating?) -> Joined
    /// What a WATCH attempt makes of WATCHING (section 17); nil: WATCHING is a protocol error.
    typealias Watched = @Sendable (WireConnection, SpectatorWelcome, MatchState?) -> Joined

    private struct State {
        var machine: GuestHandshake
        var continuation: CheckedContinuation<Result<Joined, JoinError>, Never>?
        /// Disarms the handshake's time limit (an alarm on the event loop).
        var timer: (@Sendable () -> Void)?
        /// Seated at a filling table: when a HEARTBEAT is due and when the host is silent (no grace),
        /// and the timer that ticks it (the process's `LivenessClock`; let go, and so disarmed, when resolved).
        var waiting: (liveness: Liveness, timer: LivenessClock.Timer)?
    }

    private let connection: WireConnection
    private let options: GuestOptions
    private let accepted: Accept
    private let watched: Watched?
    private let state: Mutex<State>

    init(hello: Hello, connection: WireConnection, options: GuestOptions, accepted: @escaping Accept, watched: Watched? = nil) {
        self.connection = connection
        self.options = options
        self.accepted = accepted
        self.watched = watched
        // Over protocol 3's channel a passcode is proved in the channel's handshake (section 20.4), never by a
        // CHALLENGE's HMAC, which a host that is not the one we meant could test offline.
        let answersChallenge = !(connection.stream is SecureByteStream)
        self.state = Mutex(State(machine: GuestHandshake(hello: hello, passcode: answersChallenge ? options.passcode : nil)))
    }

    func run() async -> Result<Joined, JoinError> {
        await withCheckedContinuation { continuation in
            let start = state.withLock { state -> GuestHandshake.Action in
                state.continuation = continuation
                return state.machine.start()
            }
            connection.start { [self] inbound in
                handle(inbound)
                return nil
            }
            perform(start)
            let timeout = options.handshakeTimeout
            let timer = LoopAlarm.after(timeout) { [self] in event(.timedOut) }
            let alreadyResolved = state.withLock { state -> Bool in
                state.timer = timer
                return state.continuation == nil
            }
            if alreadyResolved { timer() }
        }
    }

    private func handle(_ inbound: Inbound) {
        switch inbound {
        case .message(let message): event(.message(message))
        case .frameError(let error): event(.frameError(error))
        case .messageError(let error): event(.messageError(error))
        case .closed(let why, _):
            // The channel's rejection (a wrong passcode, too many guesses) is the host's REJECT.
            switch (connection.stream as? SecureByteStream)?.failure {
            case .passcodeWrong?: event(.message(.reject(.passcodeWrong, sentence: PasscodeSentences.wrong)))
            case .rejected(let code, let sentence)?: event(.message(.reject(code, sentence: sentence)))
            case .refusedPeer(let sentence)?: perform(.fail(.hostRefused(sentence)))
            default: event(.peerClosed(why))
            }
        }
    }

    private func event(_ event: GuestHandshake.Event) {
        let action = state.withLock { $0.machine.event(event) }
        perform(action)
    }

    private func perform(_ action: GuestHandshake.Action) {
        switch action {
        case .none:
            return
        case .send(let message):
            connection.send(message)
        case .joined(let welcome, let match):
            let table = state.withLock { $0.machine.table }
            resolve(.success(accepted(connection, welcome, match, table)))
        case .watching(let welcome, let match):
            guard let watched else {
                connection.close()
                resolve(.failure(.protocolError("the host sent WATCHING to a HELLO")))
                return
            }
            resolve(.success(watched(connection, welcome, match)))
        case .seated(let table):
            options.onTable?(table)
            waitAtTable(table)
        case .fail(let error):
            connection.close()
            resolve(.failure(error))
        }
    }

    /// Seated at a table that fills: the handshake timer gives way to
    /// heartbeats both ways, and a host silent for the TABLE's heartbeat
    /// timeout ends the wait (docs/PROTOCOL.md, section 16). Each TABLE starts
    /// the heartbeats again with its timing, the first one at once.
    private func waitAtTable(_ table: TableSeating) {
        let settings = Liveness.Settings(interval: .milliseconds(table.heartbeatIntervalMilliseconds),
                                         timeout: .milliseconds(table.heartbeatTimeoutMilliseconds), grace: .zero)
        let liveness = Liveness(settings: settings, now: .now, heartbeatAtOnce: true)
        let handshakeTimer = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.timer = nil }
            guard state.continuation != nil else { return state.timer }
            let timer = state.waiting?.timer ?? LivenessClock.shared.timer { [weak self] in self?.waitingTick() }
            state.waiting = (liveness, timer)
            return state.timer
        }
        handshakeTimer?()
        waitingTick()
    }

    /// The table wait's timer fired (or a TABLE came): a HEARTBEAT, the wait ended for the host's
    /// silence, or nothing yet. A closed connection is the reader's to report, so it counts as open here.
    private func waitingTick() {
        let now = ContinuousClock.now
        let lastHeard = connection.lastHeard
        let actions = state.withLock { state -> [Liveness.Action] in
            guard state.continuation != nil, var waiting = state.waiting else { return [] }
            let actions = waiting.liveness.tick(now: now, lastHeard: lastHeard, open: true)
            state.waiting = waiting
            if !actions.contains(.graceExpired) {
                waiting.timer.schedule(at: waiting.liveness.nextTick(lastHeard: lastHeard, open: true, now: now),
                                       tolerance: waiting.liveness.tolerance)
            }
            return actions
        }
        if actions.contains(.graceExpired) {
            event(.timedOut)
        } else if actions.contains(.sendHeartbeat) {
            connection.send(.heartbeat(senderTime: UInt64(clamping: options.clock())))
        }
    }

    private func resolve(_ result: Result<Joined, JoinError>) {
        let (continuation, timer, waiting) = state.withLock { state in
            defer { state.continuation = nil; state.timer = nil; state.waiting = nil }
            return (state.continuation, state.timer, state.waiting)
        }
        timer?()
        waiting?.timer.cancel()
        continuation?.resume(returning: result)
    }
}
