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

    /// The host player's name.
    public var hostName: String { remote.name }

    /// A controller for this match with `makeLocal(playerID)` at our seat (a
    /// `LocalParticipant` or a `BotParticipant`) and the remote host at the
    /// other. Start it with `start()`.
    public func makeController<Local: Participant>(_ makeLocal: (PlayerID) -> Local) -> (MatchController, Local) {
        let local = makeLocal(playerID)
        let controller = MatchController(state: initialState, participants: [local, remote], configuration: controllerConfiguration)
        return (controller, local)
    }

    /// A controller for this match with `local` at our seat, for a participant
    /// chosen at run time. `local.playerID` must be `playerID` (otherwise
    /// `start()` throws `SubmitRejection.notAParticipant`).
    public func makeController(with local: any Participant) -> MatchController {
        MatchController(state: initialState, participants: [local, remote], configuration: controllerConfiguration)
    }
}

/// Joining a host (`parlor join HOST:PORT`).
public enum Guest {
    /// Runs the handshake over a connected stream: sends `hello`, waits for
    /// WELCOME (or REJECT, or the handshake timeout) and returns the match.
    ///
    /// On any failure the stream is closed. A REJECT is final: do not retry.
    public static func join(over stream: any ByteStream, hello: Hello,
                            options: GuestOptions = GuestOptions()) async throws(JoinError) -> JoinedMatch {
        let connection = WireConnection(stream: stream)
        let attempt = JoinAttempt(hello: hello, connection: connection, options: options)
        let result = await attempt.run()
        return try result.get()
    }
}

/// One handshake from the guest side: the pure `GuestHandshake` fed by the
/// connection's reader and a timer, resolved exactly once.
private final class JoinAttempt: Sendable {
    private struct State {
        var machine: GuestHandshake
        var continuation: CheckedContinuation<Result<JoinedMatch, JoinError>, Never>?
        var timer: Task<Void, Never>?
    }

    private let connection: WireConnection
    private let options: GuestOptions
    private let state: Mutex<State>

    init(hello: Hello, connection: WireConnection, options: GuestOptions) {
        self.connection = connection
        self.options = options
        self.state = Mutex(State(machine: GuestHandshake(hello: hello)))
    }

    func run() async -> Result<JoinedMatch, JoinError> {
        await withCheckedContinuation { continuation in
            let start = state.withLock { state -> GuestHandshake.Action in
                state.continuation = continuation
                return state.machine.start()
            }
            connection.start { [self] inbound in handle(inbound) }
            perform(start)
            let timeout = options.handshakeTimeout
            let timer = Task { [self] in
                do { try await Task.sleep(for: timeout) } catch { return }
                event(.timedOut)
            }
            let alreadyResolved = state.withLock { state -> Bool in
                state.timer = timer
                return state.continuation == nil
            }
            if alreadyResolved { timer.cancel() }
        }
    }

    private func handle(_ inbound: Inbound) {
        switch inbound {
        case .message(let message): event(.message(message))
        case .frameError(let error): event(.frameError(error))
        case .messageError(let error): event(.messageError(error))
        case .closed(let why, _): event(.peerClosed(why))
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
            let settings = Liveness.Settings(
                interval: .milliseconds(welcome.settings.heartbeatIntervalMilliseconds),
                timeout: .milliseconds(welcome.settings.heartbeatTimeoutMilliseconds),
                grace: options.grace)
            let remote = RemoteHost(connection: connection, guestSeat: welcome.seat, initial: match,
                                    settings: settings, clock: options.clock)
            // Swapped before this handler returns, so nothing after WELCOME is lost.
            remote.takeOver()
            let hello = state.withLock { $0.machine.hello }
            resolve(.success(JoinedMatch(
                initialState: match, seat: welcome.seat, playerID: hello.playerID, seatToken: welcome.seatToken,
                settings: welcome.settings, hostAppVersion: welcome.hostAppVersion, remote: remote,
                controllerConfiguration: MatchController.Configuration(
                    confirmationTimeout: .milliseconds(welcome.settings.confirmationTimeoutMilliseconds),
                    clock: options.clock))))
        case .fail(let error):
            connection.close()
            resolve(.failure(error))
        }
    }

    private func resolve(_ result: Result<JoinedMatch, JoinError>) {
        let (continuation, timer) = state.withLock { state in
            defer { state.continuation = nil; state.timer = nil }
            return (state.continuation, state.timer)
        }
        timer?.cancel()
        continuation?.resume(returning: result)
    }
}
