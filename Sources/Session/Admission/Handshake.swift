import Games
import Match

/// What the host's shell reports about one connection's handshake, for logs
/// and `--json` output. The host goes on accepting after every one of these.
public enum HandshakeOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The guest was admitted to `seat`.
    case admitted(name: String, seat: SeatIndex)
    /// A spectator was admitted to watch (WATCH, section 17).
    case spectating(name: String)
    /// The guest was sent REJECT with this reason, then the connection closed.
    case rejected(ReasonCode, sentence: String)
    /// The connection was closed without a REJECT (not a parlor peer, or it
    /// left first); the text says what happened.
    case dropped(String)

    /// The outcome as a log line: "admitted Ana to seat 2", "rejected (gameUnknown): …", "dropped: closed before HELLO".
    public var description: String {
        switch self {
        case .admitted(let name, let seat): "admitted \(name) to seat \(seat + 1)"
        case .spectating(let name): "\(name) watches"
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
    /// This host needs a passcode: send CHALLENGE and wait for a HELLO with a proof.
    case challenge(PasscodeChallenge)
    /// The HELLO's passcode proof waits its turn (`PasscodeQueue`); decide
    /// again when it is due, or when the queue refuses it.
    case waitForTurn
    /// Protocol 2: the guest has a seat at a table that is still filling;
    /// send it this TABLE and WELCOME once every seat is taken.
    case seat(TableSeating)
    /// Protocol 2: a spectator (WATCH) is admitted to watch (section 17).
    case spectate
}

/// The host side of one connection's handshake, as a pure state machine.
///
/// The shell feeds it what arrives (`event`) and the admission decision
/// (`decided`), and performs the returned action. It never waits: the
/// handshake timeout is an event the shell delivers. After REJECT or a
/// failure the connection is closed and the machine ignores everything.
public struct HostHandshake: Hashable, Sendable {
    /// What a connection that sent no HELLO within the handshake timeout is told (REJECT handshakeTimeout),
    /// by a table's own handshake and by a many-table host that never saw its first frame.
    static let noHelloInTime = "No HELLO arrived in time."

    /// Where the handshake stands.
    public enum State: Hashable, Sendable {
        /// Accepted; waiting for HELLO (the handshake timer runs).
        case awaitingHello
        /// CHALLENGE sent; waiting for the HELLO with the proof (the same timer runs).
        case challenged
        /// HELLO received; the shell is deciding.
        case deciding
        /// The passcode proof waits its turn before it is checked; only the
        /// peer closing ends this early.
        case proofWaiting
        /// Protocol 2: seated at a table that is filling (TABLE sent); the
        /// handshake timer is off, heartbeats run, WELCOME comes when it is full.
        case seated
        /// WELCOME sent; the session takes over the connection.
        case admitted
        /// Closed, after a REJECT or without one.
        case closed
    }

    /// What happened on the connection.
    public enum Event: Hashable, Sendable {
        /// A whole message arrived (HELLO, or a second HELLO with a passcode proof, WATCH; the guest's side: WELCOME, REJECT, CHALLENGE).
        case message(Message)
        /// The bytes are not a parlor frame (an HTTP request, another program, an unknown version): the peer is refused or dropped.
        case frameError(FrameError)
        /// A frame whose payload does not decode as its message: a protocol error.
        case messageError(MessageError)
        /// The handshake timeout passed with no decision (no HELLO, or no WELCOME or REJECT).
        case timedOut
        /// The connection ended; the text says why when it was not an orderly close (nil when it was).
        case peerClosed(String?)
    }

    /// What the shell must do.
    public enum Action: Hashable, Sendable {
        /// Nothing.
        case none
        /// Decide about this HELLO (`HostAdmissionPolicy`, with `challenge`)
        /// and call `decided`.
        case evaluate(Hello)
        /// Send this message (a CHALLENGE) and keep waiting for HELLO.
        case send(Message)
        /// Send WELCOME and hand the connection to the session.
        case welcome(Welcome)
        /// The guest is seated at a table that is filling: stop the handshake
        /// timer, send this TABLE (and every later one) and keep the seat.
        case seat(TableSeating)
        /// Hand the connection to the spectators (`SpectatorGallery`), which sends WATCHING.
        case spectate(name: String)
        /// Send this message (a REJECT), then close. Reported as `outcome`.
        case rejectAndClose(Message, outcome: HandshakeOutcome)
        /// Answer in plain HTTP (a browser found the port), then close.
        case answerHTTPAndClose(outcome: HandshakeOutcome)
        /// Close without a word.
        case close(outcome: HandshakeOutcome)
    }

    /// The current state.
    public private(set) var state: State = .awaitingHello
    /// The CHALLENGE sent on this connection, once sent; the proof in the
    /// next HELLO must answer it. At most one per connection.
    public private(set) var challenge: PasscodeChallenge?
    /// The name in the HELLO or WATCH being decided.
    private var pendingName: String?

    /// A handshake for a connection that was just accepted.
    public init() {}

    /// Feeds one event.
    public mutating func event(_ event: Event) -> Action {
        if state == .proofWaiting, case .peerClosed(let why) = event {
            state = .closed
            let text = "closed while its passcode proof waited"
            return .close(outcome: .dropped(why.map { "\(text): \($0)" } ?? text))
        }
        if state == .seated { return seatedEvent(event) }
        // Anything after the decision belongs to the session, or to nobody;
        // a waiting proof is answered when its turn comes, whatever else arrives.
        guard state == .awaitingHello || state == .challenged else { return .none }
        switch event {
        case .message(.hello(let hello)), .message(.watch(let hello)):
            state = .deciding
            pendingName = hello.playerName
            return .evaluate(hello)
        case .message(let other):
            return reject(.protocolError, "expected HELLO or WATCH, got \(other.type)")
        case .frameError(.httpRequest(let method)):
            state = .closed
            return .answerHTTPAndClose(outcome: .dropped("an HTTP \(method) request (a browser?)"))
        case .frameError(.badMagic(let bytes)):
            state = .closed
            return .close(outcome: .dropped("not a parlor peer (first bytes \(bytes.hexString))"))
        case .frameError(.unsupportedVersion(let version)):
            return reject(.versionUnsupported,
                          "This host reads parlor frames of version \(FrameFormat.version), not \(version); update parlor on one side.")
        case .frameError(let error):
            return reject(.protocolError, "\(error)")
        case .messageError(let error):
            return reject(.protocolError, "\(error)")
        case .timedOut:
            return reject(.handshakeTimeout, Self.noHelloInTime)
        case .peerClosed(let why):
            let when = state == .challenged ? "after CHALLENGE" : "before HELLO"
            state = .closed
            return .close(outcome: .dropped(why.map { "closed \(when): \($0)" } ?? "closed \(when)"))
        }
    }

    /// Feeds the admission decision for the HELLO passed to `.evaluate`.
    public mutating func decided(_ admission: Admission) -> Action {
        guard state == .deciding || state == .proofWaiting else { return .none }
        switch admission {
        case .waitForTurn:
            state = .proofWaiting
            return .none
        case .welcome(let welcome):
            state = .admitted
            return .welcome(welcome)
        case .reject(let reason, let sentence):
            return reject(reason, sentence)
        case .seat(let table):
            state = .seated
            return .seat(table)
        case .spectate:
            state = .admitted
            return .spectate(name: pendingName ?? "spectator")
        case .challenge(let fresh):
            // One challenge per connection: a guest that answers it without a
            // proof has none, and a second nonce would only help a guesser.
            guard challenge == nil else {
                return reject(.passcodeRequired, PasscodeSentences.required)
            }
            challenge = fresh
            state = .challenged
            return .send(.challenge(fresh))
        }
    }

    /// The table this guest sits at is full: WELCOME it (nothing happens unless seated).
    public mutating func tableFilled(_ welcome: Welcome) -> Action {
        guard state == .seated else { return .none }
        state = .admitted
        return .welcome(welcome)
    }

    /// What a seated guest may send while its table fills: HEARTBEAT, or
    /// GOODBYE or a close to give its seat up. Anything else is a protocol error.
    private mutating func seatedEvent(_ event: Event) -> Action {
        switch event {
        case .message(.heartbeat), .timedOut:
            return .none
        case .message(.goodbye(let reason, let sentence, _)):
            state = .closed
            return .close(outcome: .dropped("left the table before it filled: " + reason.shown(with: sentence)))
        case .peerClosed(let why):
            state = .closed
            return .close(outcome: .dropped(why.map { "left the table before it filled: \($0)" } ?? "left the table before it filled"))
        case .message(let other):
            return reject(.protocolError, "expected HEARTBEAT while the table fills, got \(other.type)")
        case .frameError(let error):
            return reject(.protocolError, "\(error)")
        case .messageError(let error):
            return reject(.protocolError, "\(error)")
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
    /// The passcode a new guest must prove, nil for an open host.
    public var passcode: PasscodeGate?
    /// Seats at the host's table (2 to 8): three or more need protocol 2.
    public var tableSeats: Int = 2
    /// At a table, the seat tokens of the other guest seats of `currentMatch`
    /// (each guest comes back to its own seat with its own token).
    public var otherSeatTokens: [SeatToken] = []

    /// A policy; see the fields.
    public init(gameID: String, rulesVersion: Int, seatAvailable: Bool, currentMatch: (id: MatchID, seatToken: SeatToken)? = nil,
                passcode: PasscodeGate? = nil) {
        self.gameID = gameID
        self.rulesVersion = rulesVersion
        self.seatAvailable = seatAvailable
        self.currentMatch = currentMatch
        self.passcode = passcode
    }

    /// The decision about one HELLO.
    public enum Verdict: Hashable, Sendable {
        /// Admit (to a new match, or back to its seat).
        case admit
        /// Refuse with this reason and sentence.
        case refuse(ReasonCode, String)
        /// Send a CHALLENGE first: the host needs a passcode and this
        /// connection has not been challenged yet.
        case challenge
        /// The proof must wait its turn before it is checked (`PasscodeQueue`).
        case waitForTurn
    }

    /// Checks a HELLO in the documented order (docs/PROTOCOL.md section 7).
    ///
    /// Order: protocol version, game, rules version, name, resume request
    /// (match id and seat token: a seat's owner needs no passcode), then the
    /// passcode (challenge if `challenge` is nil; else the proof must answer
    /// it), then a free seat. The passcode comes before the free seat so that
    /// someone without the code learns nothing about the match.
    public func verdict(on hello: Hello, challenge: PasscodeChallenge?) -> Verdict {
        if let refusal = basicRefusal(of: hello) { return .refuse(refusal.0, refusal.1) }
        if hello.matchID != nil { return .admit }  // the seat's owner is back (basicRefusal checked the token)
        if let gate = passcode {
            guard let challenge else { return .challenge }
            guard !hello.passcodeProof.isEmpty else { return .refuse(.passcodeRequired, PasscodeSentences.required) }
            switch gate.turn {
            case .notQueued: return .waitForTurn
            case .refused: return .refuse(.busy, PasscodeSentences.tooManyGuesses)
            case .due: break
            }
            guard gate.key.accepts(hello.passcodeProof, for: challenge) else {
                return .refuse(.passcodeWrong, PasscodeSentences.wrong)
            }
        }
        guard seatAvailable else {
            return .refuse(.matchFull, "The match on this host already has its players.")
        }
        return .admit
    }

    /// Checks a HELLO in the documented order; nil means admit (to a new
    /// match, or back to its seat when the HELLO names the current match
    /// with the right seat token).
    ///
    /// Order: protocol version, game, rules version, name, resume request
    /// (match id and seat token), passcode, free seat. Without a challenge,
    /// a host that needs a passcode refuses with `passcodeRequired` (see
    /// `verdict(on:challenge:)` for the handshake's own use).
    public func refusal(of hello: Hello) -> (ReasonCode, String)? {
        switch verdict(on: hello, challenge: nil) {
        case .admit: nil
        case .refuse(let reason, let sentence): (reason, sentence)
        case .challenge, .waitForTurn: (.passcodeRequired, PasscodeSentences.required)
        }
    }

    /// The checks that do not depend on the passcode or a free seat.
    private func basicRefusal(of hello: Hello) -> (ReasonCode, String)? {
        guard hello.protocolVersions.contains(where: FrameFormat.supportedVersions.contains) else {
            let theirs = hello.protocolVersions.map(String.init).joined(separator: ", ")
            let sorted = FrameFormat.supportedVersions.sorted().map(String.init)
            let ours = sorted.dropLast().joined(separator: ", ") + " and " + (sorted.last ?? "")
            return (.versionUnsupported, "This host speaks parlor protocol versions \(ours); you speak \(theirs). Update parlor on one side.")
        }
        if tableSeats > 2, !hello.protocolVersions.contains(FrameFormat.tableVersion) {
            // A protocol-1 parlor plays two-seat matches only: a clean refusal, never a retry.
            let theirs = hello.protocolVersions.map(String.init).joined(separator: ", ")
            return (.versionUnsupported,
                    "This table of \(tableSeats) needs parlor protocol \(FrameFormat.tableVersion); yours speaks \(theirs): update parlor.")
        }
        guard let offered = hello.games.first(where: { $0.id == gameID }) else {
            // Named with its version: a game from another package may be missing on this guest's side.
            let theirs = hello.games.isEmpty ? "no games" : hello.games.map(\.id).joined(separator: ", ")
            return (.gameUnknown,
                    "This host is hosting \(gameID) (rules version \(rulesVersion)), which your parlor does not have; you offered \(theirs).")
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
            let tokens = [current.seatToken] + otherSeatTokens
            // Every token is compared, so the time taken says nothing about which one matched.
            let matches = hello.seatToken.map { token in tokens.map { Crypto.constantTimeEqual(token.bytes, $0.bytes) } } ?? []
            guard matches.contains(true) else {
                return (.badSeatToken, "That seat token does not belong to match \(wanted.short).")
            }
            return nil  // the seat's owner is back
        }
        return nil
    }
}

/// What a host that needs a passcode knows when it checks a proof.
public struct PasscodeGate: Sendable {
    /// Where a proof stands in the host's queue of proofs (`PasscodeQueue`).
    public enum Turn: Hashable, Sendable {
        /// It has no place yet: it must wait its turn first.
        case notQueued
        /// Its turn has come: check it.
        case due
        /// The queue has no place for it: refuse it `busy` without checking,
        /// so the answer says nothing about the code and guessing cannot go
        /// faster than the queue allows.
        case refused
    }

    /// The key derived from the host's code for the match a new guest joins.
    public var key: PasscodeKey
    /// Where this connection's proof stands.
    public var turn: Turn

    /// A gate; see the fields.
    public init(key: PasscodeKey, turn: Turn = .due) {
        self.key = key
        self.turn = turn
    }
}

/// The sentences of passcode refusals, in one place.
enum PasscodeSentences {
    static let required = "This host needs a passcode; ask the host for it and join with --code."
    static let wrong = "That passcode is wrong."
    static let tooManyGuesses = "Too many passcodes are waiting to be checked; try again in a moment."
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
    /// The host needs a passcode (it sent CHALLENGE) and this guest has none.
    case passcodeNeeded
    /// This side could not compute its passcode proof (libsodium failed).
    case passcodeUnavailable(CryptoError)
    /// This side refused the host in the encrypted handshake (its key is not the one expected), and says why.
    case hostRefused(String)

    /// Why, as a sentence for the player: "the host refused: The match on this host already has its players." or
    /// "the host did not answer in time".
    public var description: String {
        switch self {
        // A known reason reads as the host's sentence alone; an unknown one keeps its number.
        case .rejected(let reason, let sentence):
            sentence.isEmpty && reason.name != nil ? "the host refused" : "the host refused: \(reason.shown(with: sentence))"
        case .timedOut: "the host did not answer in time"
        case .connectionClosed(let why): "the host closed the connection" + (why.map { " (\($0))" } ?? "")
        case .notAParlorHost(let error): "that address is not a parlor host: \(error)"
        case .protocolError(let why): "the host broke the protocol: \(why)"
        case .badWelcome(let why): "the host's welcome is unusable: \(why)"
        case .passcodeNeeded: "the host needs a passcode"
        case .passcodeUnavailable(let error): "could not prove the passcode: \(error)"
        case .hostRefused(let sentence): sentence
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
        /// Nothing to do: keep waiting for the next event.
        case none
        /// Send HELLO.
        case send(Message)
        /// Admitted: the validated welcome, the decoded match and our seat.
        case joined(Welcome, MatchState)
        /// Admitted to watch (WATCHING): the match as it stands, nil before it begins.
        case watching(SpectatorWelcome, MatchState?)
        /// Protocol 2: seated at a table that is still filling. Stop the
        /// handshake timer, send HEARTBEAT and watch for silence with the
        /// TABLE's timers, and keep waiting for WELCOME.
        case seated(TableSeating)
        /// Give up with this error and close the connection.
        case fail(JoinError)
    }

    /// What the guest asks for.
    public let hello: Hello
    /// The current state.
    public private(set) var state: State = .idle
    /// The passcode to prove if the host sends CHALLENGE; nil for none.
    private let passcode: String?
    /// The guest nonce to use (tests); nil for fresh random bytes.
    private let guestNonce: [UInt8]?
    /// Whether a CHALLENGE was answered already (a host sends at most one).
    private var answeredChallenge = false
    /// The last TABLE the host sent (protocol 2, a table of three or more seats).
    public private(set) var table: TableSeating?

    /// A handshake that will send `hello`, and prove `passcode` if the host
    /// asks for one. `guestNonce` fixes the proof's nonce (tests only).
    public init(hello: Hello, passcode: String? = nil, guestNonce: [UInt8]? = nil) {
        self.hello = hello
        self.passcode = passcode
        self.guestNonce = guestNonce
    }

    /// Begins: returns the HELLO to send.
    public mutating func start() -> Action {
        guard state == .idle else { return .none }
        state = .awaitingWelcome
        return .send(hello.watching ? .watch(hello) : .hello(hello))
    }

    /// Feeds one event.
    public mutating func event(_ event: Event) -> Action {
        guard state == .awaitingWelcome else { return .none }
        switch event {
        case .message(.welcome) where hello.watching:
            return fail(.protocolError("the host answered WATCH with WELCOME"))
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
        case .message(.watching(let welcome)) where hello.watching:
            guard welcome.protocolVersion == FrameFormat.tableVersion else {
                return fail(.badWelcome("it chose protocol version \(welcome.protocolVersion) to watch; watching is protocol \(FrameFormat.tableVersion)"))
            }
            if welcome.matchBlob.isEmpty {
                state = .joined
                return .watching(welcome, nil)
            }
            let match: MatchState
            do { match = try MatchBlob.decode(welcome.matchBlob) } catch { return fail(.badWelcome("its match blob is invalid: \(error)")) }
            state = .joined
            return .watching(welcome, match)
        case .message(.table(let seating)):
            guard hello.protocolVersions.contains(FrameFormat.tableVersion) else {
                return fail(.protocolError("the host sent TABLE, which protocol 1 does not have"))
            }
            guard seating.seats.count > 2 else { return fail(.protocolError("a TABLE of \(seating.seats.count) seats")) }
            guard seating.yourSeat != TableSeating.noSeat else { return fail(.protocolError("the host sent a spectator's TABLE (no seat) to a guest")) }
            if let earlier = table, earlier.yourSeat != seating.yourSeat || earlier.seats.count != seating.seats.count {
                return fail(.protocolError("the host moved us from seat \(earlier.yourSeat + 1) of \(earlier.seats.count) to seat \(seating.yourSeat + 1) of \(seating.seats.count)"))
            }
            table = seating
            return .seated(seating)
        case .message(.heartbeat) where table != nil:
            return .none
        case .message(.challenge(let challenge)):
            guard !answeredChallenge else { return fail(.protocolError("the host sent a second CHALLENGE")) }
            guard let passcode else { return fail(.passcodeNeeded) }
            answeredChallenge = true
            // The key is derived per join (PBKDF2, tens of ms): a one-off cost at connect time.
            do {
                let key = try PasscodeKey(code: passcode, matchID: challenge.matchID)
                var answer = hello
                answer.passcodeProof = try key.proof(for: challenge, guestNonce: guestNonce)
                return .send(answer.watching ? .watch(answer) : .hello(answer))
            } catch {
                return fail(.passcodeUnavailable(error))
            }
        case .message(let other):
            return fail(.protocolError("expected WELCOME, CHALLENGE or REJECT, got \(other.type)"))
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
        guard state.seats.count == 2 || welcome.protocolVersion >= FrameFormat.tableVersion else {
            return .failure(.badWelcome("its match has \(state.seats.count) seats; protocol version 1 plays two-seat matches"))
        }
        if state.seats.count > 2, hello.matchID == nil {
            // A new table was announced seat by seat: WELCOME must be the table we sat at.
            guard let table, table.seats.count == state.seats.count, table.yourSeat == welcome.seat else {
                return .failure(.badWelcome("its table of \(state.seats.count) is not the one we were seated at"))
            }
        }
        guard state.seats.indices.contains(welcome.seat), state.seats[welcome.seat].playerID == hello.playerID else {
            return .failure(.badWelcome("seat \(welcome.seat + 1) is not ours"))
        }
        if let wanted = hello.matchID, wanted != state.matchID {
            return .failure(.badWelcome("it sent match \(state.matchID.short), we asked for \(wanted.short)"))
        }
        if hello.matchID == nil, case .failure(let why) = GuestRecordCheck.newMatch(state) {
            return .failure(.badWelcome(why.description))
        }
        guard state.turnTimeout == welcome.settings.turnTimeoutSeconds else {
            return .failure(.badWelcome("its turn timeout and its match's disagree"))
        }
        return .success(state)
    }
}
