import Games
import Match

/// One connection's handshake result, for the host's log and `--json` events.
public struct ConnectionReport: Hashable, Sendable, CustomStringConvertible {
    /// Where the connection came from.
    public var peer: String
    /// What became of it.
    public var outcome: HandshakeOutcome

    /// The address it came from, without the port: "192.0.2.7", "[::1]".
    public var address: String { MatchHost.sourceAddress(peer) }

    public var description: String { "\(peer): \(outcome)" }
}

/// Why hosting failed before a match began.
public enum HostError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The configured game is not in the catalog.
    case unknownGame(String)
    /// The configured host name is not a valid player name.
    case invalidName(String)
    /// `shutdown()` was called before a guest was admitted.
    case shutDown
    /// The passcode key could not be derived (libcrypto failed).
    case passcodeUnavailable(CryptoError)

    public var description: String {
        switch self {
        case .unknownGame(let id): "there is no game called '\(id)'"
        case .invalidName(let name): "'\(name)' cannot be a player name (1 to \(Seat.maximumNameBytes) bytes, no control characters)"
        case .shutDown: "the host was shut down before anyone joined"
        case .passcodeUnavailable(let error): "could not set up the passcode: \(error)"
        }
    }
}

/// The match a guest was admitted to, ready for a controller.
public struct HostedMatch: Sendable {
    /// The match as it starts (both seats, nobody has moved).
    public let initialState: MatchState
    /// The host's seat.
    public let hostSeat: SeatIndex
    /// The guest's seat.
    public let guestSeat: SeatIndex
    /// The player id of the host's seat in this match: the configured one,
    /// or a fresh one if the guest arrived with the same id.
    public let hostPlayerID: PlayerID
    /// The guest's secret for its seat (for resume, issue 5).
    public let seatToken: SeatToken
    /// The guest's seat as a participant; pass it to the controller.
    public let remote: RemoteGuest
    /// Controller settings that match the session (confirmation timeout, clock).
    public let controllerConfiguration: MatchController.Configuration

    /// The guest's name.
    public var guestName: String { remote.name }

    /// A controller for this match with `makeLocal(hostPlayerID)` at the
    /// host's seat (a `LocalParticipant` or a `BotParticipant`) and the
    /// remote guest at the other. Start it with `start()`.
    public func makeController<Local: Participant>(_ makeLocal: (PlayerID) -> Local) -> (MatchController, Local) {
        let local = makeLocal(hostPlayerID)
        let controller = MatchController(state: initialState, participants: [local, remote], configuration: controllerConfiguration)
        return (controller, local)
    }

    /// A controller for this match with `local` at the host's seat, for a
    /// participant chosen at run time. `local.playerID` must be `hostPlayerID`
    /// (otherwise `start()` throws `SubmitRejection.notAParticipant`).
    public func makeController(with local: any Participant) -> MatchController {
        MatchController(state: initialState, participants: [local, remote], configuration: controllerConfiguration)
    }
}

/// A match this host saved and now offers again (`parlor resume` on the
/// host's side): only the guest holding `seatToken` may take its seat.
public struct SavedHostMatch: Sendable {
    /// The saved state; the host's copy, which wins on reconnect.
    public var state: MatchState
    /// The host's own seat in it.
    public var hostSeat: SeatIndex
    /// The guest seat's secret, from the original WELCOME.
    public var seatToken: SeatToken

    /// A saved match; see the fields.
    public init(state: MatchState, hostSeat: SeatIndex, seatToken: SeatToken) {
        self.state = state
        self.hostSeat = hostSeat
        self.seatToken = seatToken
    }
}

/// The host of one LAN match (`parlor host`): runs the handshake on every
/// connection it is given, admits the first fitting guest, and refuses
/// everyone after that (REJECT matchFull) while the match goes on.
///
/// A guest of the match that comes back with HELLO naming the match id and
/// its seat token (after its connection dropped, or after it restarted) is
/// admitted again: its connection replaces the old one and it gets WELCOME
/// with the committed state. A wrong token gets REJECT badSeatToken, so no
/// one else on the LAN can take the seat by knowing the match id. Built
/// with a `SavedHostMatch`, the host admits only that match's guest.
///
/// With `HostConfiguration.passcode`, a new guest must first prove the code
/// (CHALLENGE, then a HELLO with the proof). Every proof waits its turn on
/// its own connection before it is checked (`PasscodeQueue`), on a timer,
/// so guessing is slow while the match and every other handshake go on,
/// and a guesser's waiting proofs never hold up another connection's.
///
/// The TCP shell calls `accept(_:)` for every accepted connection; the CLI
/// awaits `waitForGuest()` and builds a controller from the `HostedMatch`.
/// Each handshake is a `HostHandshake` state machine; this actor performs
/// its actions. No connection can block another: handshakes have a timeout
/// counted from accept, and at most `maximumPendingHandshakes` run at once.
public actor MatchHost {
    private struct Pending {
        var machine: HostHandshake
        var connection: WireConnection
        var timer: Task<Void, Never>?
        /// When the connection was accepted, on this host's clock.
        var accepted = ContinuousClock.now
    }

    /// The configuration this host runs with.
    public let configuration: HostConfiguration
    /// One report per connection whose handshake ended (admitted, rejected, dropped).
    public nonisolated let reports: AsyncStream<ConnectionReport>
    private let reportSink: AsyncStream<ConnectionReport>.Continuation
    private let gameType: any Game.Type
    private var pending: [UInt64: Pending] = [:]
    private var nextID: UInt64 = 0
    private var hosted: HostedMatch?
    private var waiters: [CheckedContinuation<HostedMatch?, Never>] = []
    private var isShutDown = false
    private var random: SplitMix64
    /// The saved match offered again, until its guest is back.
    private let saved: SavedHostMatch?
    /// Handshakes (by id) that take a seat back rather than start a match.
    private var resuming: Set<UInt64> = []
    /// The id the next new match gets; fixed up front so that CHALLENGE can
    /// bind a passcode proof to it.
    private let upcomingMatchID: MatchID
    /// The key derived from the passcode for `upcomingMatchID`; nil for an open host.
    private let passcodeKey: PasscodeKey?
    /// When each passcode proof is checked.
    private var proofs: PasscodeQueue
    /// Proofs waiting their turn, by handshake id: the HELLO and its timer.
    private var waitingProofs: [UInt64: (hello: Hello, timer: Task<Void, Never>)] = [:]

    /// A host for `configuration`; throws if its game or name is invalid.
    /// With `saved`, it waits for that match's guest only (`parlor resume`).
    public init(configuration: HostConfiguration, resuming saved: SavedHostMatch? = nil) throws(HostError) {
        guard let type = GameCatalog.game(id: configuration.gameID), type.seatCounts.contains(2) else {
            throw .unknownGame(configuration.gameID)
        }
        if let saved, saved.state.gameID != type.id || saved.state.seats.count != 2 || !saved.state.seats.indices.contains(saved.hostSeat) {
            throw .unknownGame(saved.state.gameID)
        }
        self.saved = saved
        guard Seat.isValidName(configuration.hostName) else { throw .invalidName(configuration.hostName) }
        var configuration = configuration
        configuration.timeouts = configuration.timeouts.withHeartbeatFittingTheTimeout()
        self.configuration = configuration
        self.gameType = type
        self.proofs = PasscodeQueue(throttle: configuration.passcodeThrottle)
        let seed: UInt64
        if case .random(let given?) = configuration.seatPreference { seed = given } else { seed = UInt64.random(in: .min ... .max) }
        self.random = SplitMix64(seed: seed)
        let upcoming = MatchID.random()
        self.upcomingMatchID = upcoming
        if let code = configuration.passcode {
            do { self.passcodeKey = try PasscodeKey(code: code, matchID: upcoming) } catch { throw .passcodeUnavailable(error) }
        } else {
            self.passcodeKey = nil
        }
        (reports, reportSink) = AsyncStream<ConnectionReport>.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    /// Number of connections currently in their handshake.
    public var pendingHandshakeCount: Int { pending.count }

    /// Whether a guest has been admitted.
    public var hasGuest: Bool { hosted != nil }

    /// Passcode proofs now waiting their turn to be checked.
    public var waitingProofCount: Int { waitingProofs.count }

    /// Runs the handshake on a newly accepted connection. Returns at once.
    public func accept(_ stream: any ByteStream) {
        let connection = WireConnection(stream: stream)
        guard !isShutDown else {
            stream.close()
            return
        }
        // Proofs waiting their turn have their own caps (`PasscodeQueue`).
        guard pending.count - waitingProofs.count < configuration.maximumPendingHandshakes else {
            let sentence = "This host has too many connections starting; try again in a moment."
            connection.send(.reject(.busy, sentence: sentence))
            connection.close()
            report(stream.peerDescription, .rejected(.busy, sentence: sentence))
            return
        }
        nextID += 1
        let id = nextID
        pending[id] = Pending(machine: HostHandshake(), connection: connection)
        connection.start { [weak self] inbound in await self?.handshake(id, inbound) }
        let timeout = configuration.timeouts.handshake
        pending[id]?.timer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            await self?.handshake(id, event: .timedOut)
        }
    }

    /// Waits until a guest is admitted and returns its match.
    public func waitForGuest() async throws(HostError) -> HostedMatch {
        if let hosted { return hosted }
        if isShutDown { throw .shutDown }
        let match = await withCheckedContinuation { waiters.append($0) }
        guard let match else { throw .shutDown }
        return match
    }

    /// Stops admitting: pending handshakes are closed and `waitForGuest` throws.
    /// An admitted match is not affected (its controller ends it).
    public func shutdown() {
        isShutDown = true
        for (_, entry) in pending {
            entry.timer?.cancel()
            entry.connection.close()
        }
        pending = [:]
        for (id, waiting) in waitingProofs {
            waiting.timer.cancel()
            proofs.remove(id)
        }
        waitingProofs = [:]
        for waiter in waiters { waiter.resume(returning: hosted) }
        waiters = []
        reportSink.finish()
    }

    // MARK: Handshake shell

    private func handshake(_ id: UInt64, _ inbound: Inbound) {
        switch inbound {
        case .message(let message): handshake(id, event: .message(message))
        case .frameError(let error): handshake(id, event: .frameError(error))
        case .messageError(let error): handshake(id, event: .messageError(error))
        case .closed(let why, let midFrame):
            handshake(id, event: .peerClosed(midFrame ? "in the middle of a frame" + (why.map { ", \($0)" } ?? "") : why))
        }
    }

    private func handshake(_ id: UInt64, event: HostHandshake.Event) {
        guard var entry = pending[id] else { return }
        var action = entry.machine.event(event)
        if case .evaluate(let hello) = action {
            let decision = admission(for: hello, challenge: entry.machine.challenge, id: id, turn: .notQueued)
            action = entry.machine.decided(decision)
            if case .waitForTurn = decision {
                pending[id] = entry
                queueProof(id, hello: hello)
                return
            }
        }
        pending[id] = entry
        perform(action, id: id)
    }

    /// Gives the proof in `hello` its place in the queue, or refuses it (and
    /// the proof whose place it takes) `busy` unchecked.
    private func queueProof(_ id: UInt64, hello: Hello) {
        guard let entry = pending[id] else { return }
        switch proofs.arrive(id, from: Self.sourceAddress(entry.connection.peerDescription), at: .now) {
        case .refuse:
            decideProof(id, hello: hello, turn: .refused)
        case .judge(let at, let evicting):
            if let evicting, let evicted = waitingProofs.removeValue(forKey: evicting) {
                evicted.timer.cancel()
                decideProof(evicting, hello: evicted.hello, turn: .refused)
            }
            let timer = Task { [weak self] in
                do { try await Task.sleep(until: at, clock: .continuous) } catch { return }
                await self?.proofDue(id)
            }
            waitingProofs[id] = (hello, timer)
        }
    }

    /// The proof of handshake `id` has waited its turn: check it now.
    private func proofDue(_ id: UInt64) {
        guard let waiting = waitingProofs.removeValue(forKey: id) else { return }
        decideProof(id, hello: waiting.hello, turn: .due)
    }

    private func decideProof(_ id: UInt64, hello: Hello, turn: PasscodeGate.Turn) {
        guard var entry = pending[id] else { return }
        let decision = admission(for: hello, challenge: entry.machine.challenge, id: id, turn: turn)
        if turn == .due {
            if case .reject(.passcodeWrong, _) = decision {
                proofs.judged(id, wrong: true, at: .now)
            } else {
                proofs.judged(id, wrong: false, at: .now)
            }
        }
        let action = entry.machine.decided(decision)
        pending[id] = entry
        perform(action, id: id)
    }

    private func perform(_ action: HostHandshake.Action, id: UInt64) {
        guard let entry = pending[id] else { return }
        let connection = entry.connection
        let peer = connection.peerDescription
        switch action {
        case .none, .evaluate:
            return
        case .send(let message):
            connection.send(message)  // CHALLENGE; the handshake timer keeps running
        case .welcome(let welcome):
            finish(id)
            if let gaveUp = guestGaveUp(entry) {
                // Never seat a guest that is gone: the seat stays open for the next one.
                resuming.remove(id)
                connection.close()
                report(peer, .dropped(gaveUp))
                return
            }
            if resuming.remove(id) != nil, let hosted {
                // The guest is back: its new connection replaces the old one.
                let template = welcome
                hosted.remote.reattach(connection) { committed in
                    var fresh = template
                    fresh.matchBlob = MatchBlob.encode(committed)
                    return fresh
                }
                report(peer, .admitted(name: hosted.remote.name, seat: hosted.guestSeat))
            } else {
                admit(welcome: welcome, connection: connection)
            }
        case .rejectAndClose(let message, let outcome):
            finish(id)
            connection.send(message)
            connection.close()
            report(peer, outcome)
        case .answerHTTPAndClose(let outcome):
            finish(id)
            connection.sendRaw(Self.httpAnswer)
            connection.close()
            report(peer, outcome)
        case .close(let outcome):
            finish(id)
            connection.close()
            report(peer, outcome)
        }
    }

    /// Why the guest of `entry` has given up on its handshake, if it has: it
    /// closed the connection already (its HELLO and its end were both waiting,
    /// say, while this host was stopped), or the handshake timeout has nearly
    /// run out on this host's clock, so the guest's own timer, started before
    /// it connected, has run out or will before WELCOME reaches it.
    private func guestGaveUp(_ entry: Pending) -> String? {
        if entry.connection.peerHasClosed { return "the guest closed the connection before it was seated" }
        let timeout = configuration.timeouts.handshake
        if ContinuousClock.now - entry.accepted >= timeout - min(Self.seatingMargin, timeout / 4) {
            return "the handshake took too long to seat the guest (it gives up after \(timeout))"
        }
        return nil
    }

    /// How long before the handshake timeout this host stops seating a guest.
    static let seatingMargin: Duration = .seconds(1)

    private func finish(_ id: UInt64) {
        pending[id]?.timer?.cancel()
        pending[id] = nil
        waitingProofs.removeValue(forKey: id)?.timer.cancel()
        proofs.remove(id)
    }

    /// "192.0.2.7:5000" → "192.0.2.7", "[::1]:5000" → "[::1]": wrong guesses are counted per address, not per port.
    static func sourceAddress(_ peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":"), !peer[colon...].contains("]") else { return peer }
        return String(peer[..<colon])
    }

    /// The words a browser gets when someone opens the port in it.
    static let httpAnswer: [UInt8] = Array("""
        HTTP/1.0 400 Bad Request\r
        Content-Type: text/plain; charset=utf-8\r
        Connection: close\r
        \r
        This is a parlor game host, not a web server. Join it with: parlor join HOST:PORT\r

        """.utf8)

    // MARK: Admission

    /// The admission decision, and when admitting, the match and WELCOME.
    private func admission(for hello: Hello, challenge: PasscodeChallenge?, id: UInt64, turn: PasscodeGate.Turn) -> Admission {
        let current = hosted.map { ($0.initialState.matchID, $0.seatToken) } ?? saved.map { ($0.state.matchID, $0.seatToken) }
        let gate = passcodeKey.map { PasscodeGate(key: $0, turn: turn) }
        let policy = HostAdmissionPolicy(gameID: gameType.id, rulesVersion: gameType.rulesVersion,
                                         seatAvailable: hosted == nil && saved == nil && !isShutDown,
                                         currentMatch: current, passcode: gate)
        switch policy.verdict(on: hello, challenge: challenge) {
        case .admit:
            break
        case .refuse(let reason, let sentence):
            return .reject(reason, sentence)
        case .waitForTurn:
            return .waitForTurn
        case .challenge:
            guard let key = passcodeKey, let fresh = try? PasscodeChallenge.fresh(for: key.matchID) else {
                return .reject(.busy, "This host cannot make a passcode challenge right now; try again in a moment.")
            }
            return .challenge(fresh)
        }
        if hello.matchID != nil {
            // The right seat token: take the seat back (the policy checked it).
            let state = hosted?.remote.committedState ?? saved?.state
            let guestSeat = hosted?.guestSeat ?? saved.map { 1 - $0.hostSeat }
            guard let state, let guestSeat, let token = hello.seatToken else {
                return .reject(.matchNotFound, "This host has no match to resume.")
            }
            if let hosted, let busy = hosted.remote.unavailable {
                // This process is about to exit, or cannot save: the guest should try again in a moment.
                return .reject(.busy, busy)
            }
            if hosted != nil { resuming.insert(id) }
            return .welcome(welcome(for: state, guestSeat: guestSeat, token: token, hello: hello))
        }
        let hostSeat: SeatIndex
        switch configuration.seatPreference {
        case .first: hostSeat = 0
        case .second: hostSeat = 1
        case .random: hostSeat = Int(random.next() & 1)
        }
        let guestSeat = 1 - hostSeat
        let hostID = hello.playerID == configuration.hostPlayerID ? PlayerID.random() : configuration.hostPlayerID
        var seats = [Seat(playerID: hostID, name: configuration.hostName), Seat(playerID: hello.playerID, name: hello.playerName)]
        if hostSeat == 1 { seats.reverse() }
        let state = MatchState(matchID: upcomingMatchID, game: gameType.init(seats: 2), seats: seats,
                               turnTimeout: configuration.turnTimeoutSeconds, now: configuration.clock())
        return .welcome(welcome(for: state, guestSeat: guestSeat, token: SeatToken.random(), hello: hello))
    }

    /// The WELCOME for `state`, with this host's timers and the match's own turn timeout.
    private func welcome(for state: MatchState, guestSeat: SeatIndex, token: SeatToken, hello: Hello) -> Welcome {
        let timeouts = configuration.timeouts
        let settings = SessionSettings(
            turnTimeoutSeconds: state.turnTimeout,
            heartbeatIntervalMilliseconds: timeouts.heartbeatInterval.wireMilliseconds,
            heartbeatTimeoutMilliseconds: timeouts.heartbeatTimeout.wireMilliseconds,
            confirmationTimeoutMilliseconds: timeouts.confirmation.wireMilliseconds)
        let version = FrameFormat.supportedVersions.first { hello.protocolVersions.contains($0) } ?? FrameFormat.version
        return Welcome(protocolVersion: version, seat: guestSeat, seatToken: token, settings: settings,
                       hostAppVersion: configuration.appVersion, matchBlob: MatchBlob.encode(state))
    }

    /// Sends WELCOME and hands the connection to the guest's `RemoteGuest`.
    private func admit(welcome: Welcome, connection: WireConnection) {
        guard let state = try? MatchBlob.decode(welcome.matchBlob) else { return }  // encoded just above
        let remote = RemoteGuest(connection: connection, seat: welcome.seat, initial: state,
                                 timeouts: configuration.timeouts, clock: configuration.clock)
        remote.takeOver()
        connection.send(.welcome(welcome))
        let match = HostedMatch(
            initialState: state, hostSeat: 1 - welcome.seat, guestSeat: welcome.seat,
            hostPlayerID: state.seats[1 - welcome.seat].playerID, seatToken: welcome.seatToken, remote: remote,
            controllerConfiguration: MatchController.Configuration(confirmationTimeout: configuration.timeouts.confirmation,
                                                                   clock: configuration.clock))
        hosted = match
        report(connection.peerDescription, .admitted(name: remote.name, seat: welcome.seat))
        for waiter in waiters { waiter.resume(returning: match) }
        waiters = []
    }

    /// The rematch both sides agreed to: a new match of the same game with
    /// seats swapped, a new id and seat token, WELCOME over `connection`.
    func startRematch(after previous: HostedMatch, on connection: WireConnection) -> HostedMatch {
        let old = previous.initialState
        let hostSeat = previous.guestSeat  // swapped
        let guestSeat = previous.hostSeat
        var seats = old.seats.map { Seat(playerID: $0.playerID, name: $0.name) }
        seats.swapAt(0, 1)
        let state = MatchState(matchID: MatchID.random(), game: gameType.init(seats: 2), seats: seats,
                               turnTimeout: old.turnTimeout, now: configuration.clock())
        var hello = Hello(appVersion: configuration.appVersion, playerID: seats[guestSeat].playerID, playerName: seats[guestSeat].name)
        hello.protocolVersions = FrameFormat.supportedVersions
        let welcome = welcome(for: state, guestSeat: guestSeat, token: SeatToken.random(), hello: hello)
        let remote = RemoteGuest(connection: connection, seat: guestSeat, initial: state,
                                 timeouts: configuration.timeouts, clock: configuration.clock)
        remote.takeOver()
        connection.send(.welcome(welcome))
        let match = HostedMatch(
            initialState: state, hostSeat: hostSeat, guestSeat: guestSeat,
            hostPlayerID: state.seats[hostSeat].playerID, seatToken: welcome.seatToken, remote: remote,
            controllerConfiguration: MatchController.Configuration(confirmationTimeout: configuration.timeouts.confirmation,
                                                                   clock: configuration.clock))
        hosted = match
        report(connection.peerDescription, .admitted(name: remote.name, seat: guestSeat))
        return match
    }

    private func report(_ peer: String, _ outcome: HandshakeOutcome) {
        reportSink.yield(ConnectionReport(peer: peer, outcome: outcome))
    }
}
