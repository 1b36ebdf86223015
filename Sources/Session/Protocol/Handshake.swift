import Games
import Match

/// What the host's shell reports about one connection's handshake, for logs
/// and `--json` output. The host goes on accepting after every one of these.
public enum HandshakeOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The guest was admitted to `seat`.
    case admitted(name: String, seat: SeatIndex)
    /// The guest was sent REJECT with this reason, then the connection closed.
    case rejected(ReasonCode, sentence: String)
    /// The connection was closed without a REJECT (not a parlor peer, or it
    /// left first); the text says what happened.
    case dropped(String)

    public var description: String {
        switch self {
        case .admitted(let name, let seat): "admitted \(name) to seat \(seat + 1)"
        case .rejected(let reason, let sentence): "rejected (\(reason)): \(sentence)"
        case .dropped(let why): "dropped: \(why)"
        }
    }
}

/// The host's decision about one HELLO.
public enum Admission: Hashable, Sendable {
    /// Admit with this WELCOME.
    case welcome(Welcome)
    /// Refuse with this reason and sentence.
    case reject(ReasonCode, String)
}

/// The host side of one connection's handshake, as a pure state machine.
///
/// The shell feeds it what arrives (`event`) and the admission decision
/// (`decided`), and performs the returned action. It never waits: the
/// handshake timeout is an event the shell delivers. After REJECT or a
/// failure the connection is closed and the machine ignores everything.
public struct HostHandshake: Hashable, Sendable {
    /// Where the handshake stands.
    public enum State: Hashable, Sendable {
        /// Accepted; waiting for HELLO (the handshake timer runs).
        case awaitingHello
        /// HELLO received; the shell is deciding.
        case deciding
        /// WELCOME sent; the session takes over the connection.
        case admitted
        /// Closed, after a REJECT or without one.
        case closed
    }

    /// What happened on the connection.
    public enum Event: Hashable, Sendable {
        case message(Message)
        case frameError(FrameError)
        case messageError(MessageError)
        case timedOut
        case peerClosed(String?)
    }

    /// What the shell must do.
    public enum Action: Hashable, Sendable {
        /// Nothing.
        case none
        /// Decide about this HELLO (`HostAdmissionPolicy`) and call `decided`.
        case evaluate(Hello)
        /// Send WELCOME and hand the connection to the session.
        case welcome(Welcome)
        /// Send this message (a REJECT), then close. Reported as `outcome`.
        case rejectAndClose(Message, outcome: HandshakeOutcome)
        /// Answer in plain HTTP (a browser found the port), then close.
        case answerHTTPAndClose(outcome: HandshakeOutcome)
        /// Close without a word.
        case close(outcome: HandshakeOutcome)
    }

    /// The current state.
    public private(set) var state: State = .awaitingHello

    /// A handshake for a connection that was just accepted.
    public init() {}

    /// Feeds one event.
    public mutating func event(_ event: Event) -> Action {
        // Anything after the decision belongs to the session, or to nobody.
        guard state == .awaitingHello else { return .none }
        switch event {
        case .message(.hello(let hello)):
            state = .deciding
            return .evaluate(hello)
        case .message(let other):
            return reject(.protocolError, "expected HELLO, got \(other.type)")
        case .frameError(.httpRequest(let method)):
            state = .closed
            return .answerHTTPAndClose(outcome: .dropped("an HTTP \(method) request (a browser?)"))
        case .frameError(.badMagic(let bytes)):
            state = .closed
            return .close(outcome: .dropped("not a parlor peer (first bytes \(bytes.hexString))"))
        case .frameError(.unsupportedVersion(let version)):
            return reject(.versionUnsupported,
                          "This host speaks parlor protocol version \(FrameFormat.version), not \(version); update parlor on one side.")
        case .frameError(let error):
            return reject(.protocolError, "\(error)")
        case .messageError(let error):
            return reject(.protocolError, "\(error)")
        case .timedOut:
            return reject(.handshakeTimeout, "No HELLO arrived in time.")
        case .peerClosed(let why):
            state = .closed
            return .close(outcome: .dropped(why.map { "closed before HELLO: \($0)" } ?? "closed before HELLO"))
        }
    }

    /// Feeds the admission decision for the HELLO passed to `.evaluate`.
    public mutating func decided(_ admission: Admission) -> Action {
        guard state == .deciding else { return .none }
        switch admission {
        case .welcome(let welcome):
            state = .admitted
            return .welcome(welcome)
        case .reject(let reason, let sentence):
            return reject(reason, sentence)
        }
    }

    private mutating func reject(_ reason: ReasonCode, _ sentence: String) -> Action {
        state = .closed
        return .rejectAndClose(.reject(reason, sentence: sentence), outcome: .rejected(reason, sentence: sentence))
    }
}

/// What the host knows when it decides about a HELLO. Pure data, so the
/// decision is a pure function that tests call directly.
public struct HostAdmissionPolicy: Sendable {
    /// The game this host offers.
    public var gameID: String
    /// The host's rules version of that game.
    public var rulesVersion: Int
    /// Whether the guest seat is still free.
    public var seatAvailable: Bool
    /// The match in progress and its guest seat token, once a guest was admitted.
    public var currentMatch: (id: MatchID, seatToken: SeatToken)?

    /// A policy; see the fields.
    public init(gameID: String, rulesVersion: Int, seatAvailable: Bool, currentMatch: (id: MatchID, seatToken: SeatToken)? = nil) {
        self.gameID = gameID
        self.rulesVersion = rulesVersion
        self.seatAvailable = seatAvailable
        self.currentMatch = currentMatch
    }

    /// Checks a HELLO in the documented order; nil means admit (to a new
    /// match, or back to its seat when the HELLO names the current match
    /// with the right seat token).
    ///
    /// Order: protocol version, game, rules version, name, resume request
    /// (match id and seat token), free seat. The passcode proof is ignored
    /// by protocol version 1 hosts, which have no passcode.
    public func refusal(of hello: Hello) -> (ReasonCode, String)? {
        guard hello.protocolVersions.contains(where: FrameFormat.supportedVersions.contains) else {
            let theirs = hello.protocolVersions.map(String.init).joined(separator: ", ")
            return (.versionUnsupported, "This host speaks parlor protocol version \(FrameFormat.version); you speak \(theirs). Update parlor on one side.")
        }
        guard let offered = hello.games.first(where: { $0.id == gameID }) else {
            let theirs = hello.games.map(\.id).joined(separator: ", ")
            return (.gameUnknown, "This host is hosting \(gameID); you offered \(theirs).")
        }
        guard Int(offered.rulesVersion) == rulesVersion else {
            return (.rulesVersionMismatch, "This host has \(gameID) rules version \(rulesVersion), you have \(offered.rulesVersion); update parlor on one side.")
        }
        guard Seat.isValidName(hello.playerName) else {
            return (.nameInvalid, "A player name needs 1 to \(Seat.maximumNameBytes) bytes and no control characters.")
        }
        if let wanted = hello.matchID {
            guard let current = currentMatch, current.id == wanted else {
                return (.matchNotFound, "This host has no match \(wanted.short).")
            }
            guard let token = hello.seatToken, constantTimeEqual(token.bytes, current.seatToken.bytes) else {
                return (.badSeatToken, "That seat token does not belong to match \(wanted.short).")
            }
            return nil  // the seat's owner is back
        }
        guard seatAvailable else {
            return (.matchFull, "The match on this host already has its players.")
        }
        return nil
    }
}

/// Compares secrets without an early exit, so timing does not reveal how many bytes matched.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}

/// Why joining a host failed. Never retried automatically: a REJECT is final.
public enum JoinError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host refused with this reason and sentence.
    case rejected(ReasonCode, String)
    /// No WELCOME or REJECT arrived within the handshake timeout.
    case timedOut
    /// The connection closed before the host answered.
    case connectionClosed(String?)
    /// The other end is not a parlor host (it sent something that is not a parlor frame).
    case notAParlorHost(FrameError)
    /// The host broke the protocol during the handshake.
    case protocolError(String)
    /// The WELCOME's match does not fit what was asked (wrong game, seat, or an invalid blob).
    case badWelcome(String)

    public var description: String {
        switch self {
        case .rejected(let reason, let sentence): "the host refused (\(reason)): \(sentence)"
        case .timedOut: "the host did not answer in time"
        case .connectionClosed(let why): "the host closed the connection" + (why.map { " (\($0))" } ?? "")
        case .notAParlorHost(let error): "that address is not a parlor host: \(error)"
        case .protocolError(let why): "the host broke the protocol: \(why)"
        case .badWelcome(let why): "the host's welcome is unusable: \(why)"
        }
    }
}

/// The guest side of the handshake, as a pure state machine.
///
/// `start()` yields the HELLO to send; each event then either keeps waiting
/// or ends the handshake with `.joined` or `.fail`. A REJECT ends it for
/// good: the guest closes and does not retry.
public struct GuestHandshake: Sendable {
    /// Where the handshake stands.
    public enum State: Hashable, Sendable { case idle, awaitingWelcome, joined, failed }

    /// What happened on the connection.
    public typealias Event = HostHandshake.Event

    /// What the shell must do.
    public enum Action: Sendable {
        case none
        /// Send HELLO.
        case send(Message)
        /// Admitted: the validated welcome, the decoded match and our seat.
        case joined(Welcome, MatchState)
        /// Give up with this error and close the connection.
        case fail(JoinError)
    }

    /// What the guest asks for.
    public let hello: Hello
    /// The current state.
    public private(set) var state: State = .idle

    /// A handshake that will send `hello`.
    public init(hello: Hello) { self.hello = hello }

    /// Begins: returns the HELLO to send.
    public mutating func start() -> Action {
        guard state == .idle else { return .none }
        state = .awaitingWelcome
        return .send(.hello(hello))
    }

    /// Feeds one event.
    public mutating func event(_ event: Event) -> Action {
        guard state == .awaitingWelcome else { return .none }
        switch event {
        case .message(.welcome(let welcome)):
            switch validate(welcome) {
            case .success(let state):
                self.state = .joined
                return .joined(welcome, state)
            case .failure(let error):
                return fail(error)
            }
        case .message(.reject(let reason, let sentence)):
            return fail(.rejected(reason, sentence))
        case .message(let other):
            return fail(.protocolError("expected WELCOME or REJECT, got \(other.type)"))
        case .frameError(let error):
            if case .badMagic = error { return fail(.notAParlorHost(error)) }
            if case .httpRequest = error { return fail(.notAParlorHost(error)) }
            return fail(.protocolError("\(error)"))
        case .messageError(let error):
            return fail(.protocolError("\(error)"))
        case .timedOut:
            return fail(.timedOut)
        case .peerClosed(let why):
            return fail(.connectionClosed(why))
        }
    }

    private mutating func fail(_ error: JoinError) -> Action {
        state = .failed
        return .fail(error)
    }

    /// Checks that the WELCOME admits us to the match we asked for.
    private func validate(_ welcome: Welcome) -> Result<MatchState, JoinError> {
        guard hello.protocolVersions.contains(welcome.protocolVersion),
              FrameFormat.supportedVersions.contains(welcome.protocolVersion) else {
            return .failure(.badWelcome("it chose protocol version \(welcome.protocolVersion), which we did not offer"))
        }
        let state: MatchState
        do { state = try MatchBlob.decode(welcome.matchBlob) } catch { return .failure(.badWelcome("its match blob is invalid: \(error)")) }
        guard hello.games.contains(GameVersion(id: state.gameID, rulesVersion: UInt16(clamping: state.rulesVersion))) else {
            return .failure(.badWelcome("it offers \(state.gameID) rules \(state.rulesVersion), which we did not ask for"))
        }
        guard state.seats.count == 2 else {
            return .failure(.badWelcome("its match has \(state.seats.count) seats; protocol version 1 plays two-seat matches"))
        }
        guard state.seats.indices.contains(welcome.seat), state.seats[welcome.seat].playerID == hello.playerID else {
            return .failure(.badWelcome("seat \(welcome.seat + 1) is not ours"))
        }
        if let wanted = hello.matchID, wanted != state.matchID {
            return .failure(.badWelcome("it sent match \(state.matchID.short), we asked for \(wanted.short)"))
        }
        guard state.turnTimeout == welcome.settings.turnTimeoutSeconds else {
            return .failure(.badWelcome("its turn timeout and its match's disagree"))
        }
        return .success(state)
    }
}
