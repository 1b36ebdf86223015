import Match
import Secure

/// The timers of a LAN session (docs/PROTOCOL.md, "Timeouts").
public struct SessionTimeouts: Hashable, Sendable {
    /// How long a new connection has to complete HELLO (host) or to get an
    /// answer to it (guest). Counted from accept, not reset by incoming bytes,
    /// so a connection trickling one byte a minute is dropped. Default 10 s.
    public var handshake: Duration
    /// How often each side sends HEARTBEAT. Default 5 s: a third of the
    /// timeout, so the peer hears three before it counts as silent, and a
    /// thousand idle tables cost 400 heartbeats a second, not 667.
    public var heartbeatInterval: Duration
    /// Silence after which the peer counts as disconnected. Default 15 s.
    public var heartbeatTimeout: Duration
    /// How long the guest waits for CONFIRM before rolling back and asking
    /// for the host's state. Default 10 s.
    public var confirmation: Duration
    /// How long a disconnected peer may stay away before the match is
    /// interrupted on this side (saved as "interrupted", for `parlor resume`).
    /// Default 120 s.
    public var grace: Duration

    /// Timeouts; every default is the documented one.
    public init(handshake: Duration = .seconds(10), heartbeatInterval: Duration = .seconds(5),
                heartbeatTimeout: Duration = .seconds(15), confirmation: Duration = .seconds(10),
                grace: Duration = .seconds(120)) {
        self.handshake = handshake
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatTimeout = heartbeatTimeout
        self.confirmation = confirmation
        self.grace = grace
    }
}

extension SessionTimeouts {
    /// These timeouts with the heartbeat interval at most a third of the
    /// heartbeat timeout, so a short `--heartbeat-timeout` (say 3 s with the
    /// default 5 s interval) still sees several heartbeats before it fires,
    /// and the WELCOME stays valid (the timeout must exceed the interval).
    public func withHeartbeatFittingTheTimeout() -> SessionTimeouts {
        var fitted = self
        if fitted.heartbeatInterval * 3 > fitted.heartbeatTimeout {
            fitted.heartbeatInterval = max(fitted.heartbeatTimeout / 3, .milliseconds(10))
        }
        return fitted
    }
}

/// Everything `parlor host` decides before the first guest arrives.
public struct HostConfiguration: Sendable {
    /// Which seat the host takes.
    public enum SeatPreference: Hashable, Sendable {
        /// The host moves first (seat 1).
        case first
        /// The guest moves first.
        case second
        /// A coin flip; a seed makes it reproducible.
        case random(seed: UInt64?)
    }

    /// The game hosted, e.g. `connect4` (must be in the catalog).
    public var gameID: String
    /// The host player's name (1-64 UTF-8 bytes, no control characters).
    public var hostName: String
    /// The host player's stable id. If a guest arrives with the same id (two
    /// processes of one installation), the host plays this match under a
    /// fresh random id instead: see `HostedMatch.hostPlayerID`.
    public var hostPlayerID: PlayerID
    /// Which seat the host takes. Default `.first`.
    public var seatPreference: SeatPreference
    /// Seconds per turn, 0 for no limit (`--turn-timeout`). Enforced by the host.
    public var turnTimeoutSeconds: UInt32
    /// The session timers.
    public var timeouts: SessionTimeouts
    /// This parlor's version, sent in WELCOME.
    public var appVersion: String
    /// Connections allowed in their handshake at once; more get REJECT busy. Default 32.
    public var maximumPendingHandshakes: Int
    /// Wall clock in ms since 1970 (injected in tests).
    public var clock: @Sendable () -> Int64
    /// The passcode a new guest must prove (`--code`), nil for an open host.
    /// A guest taking its seat back with its seat token needs none.
    public var passcode: String?
    /// How wrong passcodes are slowed down.
    public var passcodeThrottle: PasscodeThrottle = PasscodeThrottle()
    /// The pacer of passcode guesses to share (a hall's, over all its tables);
    /// nil: the host makes its own from `passcodeThrottle`. Both kinds of
    /// guess go through it, protocol 2's proofs in HELLO and protocol 3's
    /// offers in the encrypted handshake, so a guesser that mixes them
    /// (`--allow-unencrypted`) is slowed as one.
    public var sharedGuesses: PasscodeGuesses?

    /// The codes protocol 3's handshake checks (section 20.4): the seat's, and the
    /// spectators' (the watch code, else the seat code; none when `watchCode` is empty).
    public var channelPasscodes: HostPasscodes? {
        let watch: String? = switch watchCode {
        case nil: passcode
        case ""?: nil
        case let code?: code
        }
        guard passcode != nil || watch != nil else { return nil }
        return HostPasscodes(seat: passcode, watch: watch)
    }
    /// Seats at the table (`--seats`), 2 to 8 and one of the game's seat
    /// counts. Three or more need protocol 2 (docs/PROTOCOL.md, section 16).
    public var seats: Int = 2
    /// The names of the host's bots (`--bots`), one seat each from the start;
    /// at least one seat must stay for a guest. The caller plays them.
    public var botNames: [String] = []
    /// Whether the table may talk (docs/PROTOCOL.md section 18); `parlor host --no-talk` turns it off.
    public var talk = true
    /// Spectators allowed at once (`--spectators`); 0 forbids watching
    /// (docs/PROTOCOL.md, section 17). Default `SpectatorGallery.defaultLimit`.
    public var spectators: Int = SpectatorGallery.defaultLimit
    /// The code a spectator must prove: nil asks for `passcode` (the seat
    /// code, if any); "" lets spectators watch without one (`--watch-code`).
    public var watchCode: String?
    /// Judges a newcomer's (or spectator's) proved key against its name before it is
    /// seated (protocol 3; known players). nil admits, a sentence refuses with REJECT
    /// playerKeyRefused (116). Not asked for a guest in clear, nor for one taking a
    /// seat back: the host itself wants the key the seat was played with
    /// (`SavedHostMatch.guestKeys`, or the seat's link in a match under way).
    public var judgePlayer: (@Sendable (_ name: String, _ key: PlayerPublicKey) -> String?)?
    /// Saves a new match before any guest is welcomed into it: called once
    /// the last seat is taken, with the match as `waitForGuest` will return
    /// it; returns nil once it is on disk, or why it could not be saved. Only
    /// then do the guests get WELCOME (and spectators the start), so a host
    /// that dies at any moment keeps the record of every match a guest was
    /// welcomed into. A failure turns the guests away (REJECT busy, with the
    /// reason) and stops the host (`HostError.cannotSave`). Not called for a
    /// match resumed from its record (`MatchHost(configuration:resuming:)`).
    /// A rematch is saved the same way before its WELCOME; a failure there
    /// ends the series (`RematchEnd.cannotSave`). nil: WELCOME at once (a
    /// match that is not kept).
    /// Session does not know the store: ParlorCLI passes the save in.
    public var saveBeforeWelcome: (@Sendable (HostedMatch) async -> String?)?

    /// Called when a match that `saveBeforeWelcome` saved will never be
    /// welcomed into, because the host was shut down while it was being saved
    /// (q or Ctrl-C as the last guest sat down): remove what was saved, so no
    /// record of a match nobody joined is left to resume. `waitForGuest`
    /// returns (throwing `.shutDown`) only after it.
    public var forgetUnwelcomed: (@Sendable (HostedMatch) async -> Void)?

    /// A configuration; see each field for its default.
    public init(gameID: String, hostName: String, hostPlayerID: PlayerID, seatPreference: SeatPreference = .first,
                turnTimeoutSeconds: UInt32 = 0, timeouts: SessionTimeouts = SessionTimeouts(), appVersion: String,
                maximumPendingHandshakes: Int = 32, clock: @escaping @Sendable () -> Int64 = wallClockMilliseconds) {
        self.gameID = gameID
        self.hostName = hostName
        self.hostPlayerID = hostPlayerID
        self.seatPreference = seatPreference
        self.turnTimeoutSeconds = turnTimeoutSeconds
        self.timeouts = timeouts
        self.appVersion = appVersion
        self.maximumPendingHandshakes = maximumPendingHandshakes
        self.clock = clock
    }
}

/// How a host slows down passcode guessing (docs/PROTOCOL.md, "Passcodes");
/// `PasscodeQueue` applies it.
///
/// Every proof waits on its own connection before it is checked: an
/// address's delay grows with its wrong proofs of late and its proofs
/// waiting now (none for a clean address; then `firstDelay`, doubling up to
/// `maximumDelay`; forgotten after `memory` without a wrong one), and the
/// whole host checks at most one proof per `judgingInterval`. At most
/// `maximumWaitingPerAddress` proofs wait for one address and
/// `maximumWaiting` in all; beyond that a new proof is refused `busy`
/// unchecked, a full queue making room for an address with fewer waiting.
/// The waits are timers, not sleeping threads: the match and other
/// handshakes go on meanwhile.
public struct PasscodeThrottle: Hashable, Sendable {
    /// The delay after the first wrong proof from an address. Default 1 s.
    public var firstDelay: Duration
    /// The longest delay. Default 6 s (well below the guest's 10 s handshake
    /// timeout, so a person who mistyped still reads the refusal, and a guest
    /// sharing an address with a guesser is still answered in time).
    public var maximumDelay: Duration
    /// How long an address's wrong proofs are remembered. Default 10 minutes.
    public var memory: Duration
    /// Proofs allowed to wait at once, from all addresses. Default 24.
    public var maximumWaiting: Int
    /// Proofs allowed to wait at once for one address. Default 4.
    public var maximumWaitingPerAddress: Int
    /// The least time between two proofs checked by this host: the cap on
    /// guesses per second, over all addresses. Default 250 ms (4 a second).
    public var judgingInterval: Duration

    /// A throttle; see each field for its default.
    public init(firstDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(6),
                memory: Duration = .seconds(600), maximumWaiting: Int = 24, maximumWaitingPerAddress: Int = 4,
                judgingInterval: Duration = .milliseconds(250)) {
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.memory = memory
        self.maximumWaiting = maximumWaiting
        self.maximumWaitingPerAddress = maximumWaitingPerAddress
        self.judgingInterval = judgingInterval
    }

    /// The delay of a proof from an address with `count` wrong proofs of late
    /// and waiting proofs: none for 0, then `firstDelay` doubling to `maximumDelay`.
    public func delay(afterWrongProofs count: Int) -> Duration {
        count <= 0 ? .zero : Duration.doubling(firstDelay, times: count - 1, upTo: maximumDelay)
    }

    /// The longest a proof waits before it is checked, once it has a place:
    /// its address's longest delay or a full queue's worth of turns.
    public var longestWait: Duration {
        max(maximumDelay, judgingInterval * maximumWaiting)
    }
}

/// What `parlor join` decides; the other timers come from the host's WELCOME.
public struct GuestOptions: Sendable {
    /// How long to wait for WELCOME or REJECT. Default 10 s.
    public var handshakeTimeout: Duration
    /// How long the host may stay away (silent, or the connection closed)
    /// while the guest tries to get back to it. Default 120 s.
    public var grace: Duration
    /// Wall clock in ms since 1970 (injected in tests).
    public var clock: @Sendable () -> Int64
    /// How to open a new connection to the host when the current one drops.
    /// With nil (the default) a dropped connection ends the match on this
    /// side at once as "connection lost" (resumable later).
    public var redial: Dialer?
    /// Backoff and attempt cap while getting back to the host.
    public var reconnect: ReconnectPolicy
    /// The passcode to prove if the host asks for one (`--code`); nil for none.
    /// Only a first join can be asked: taking a seat back proves the seat
    /// token instead.
    public var passcode: String?
    /// Hears every TABLE while a table of three or more seats fills (protocol 2):
    /// who is seated so far, for a "2 of 4 seated" line.
    public var onTable: (@Sendable (TableSeating) -> Void)?

    /// Options; see each field for its default.
    public init(handshakeTimeout: Duration = .seconds(10), grace: Duration = .seconds(120),
                clock: @escaping @Sendable () -> Int64 = wallClockMilliseconds, redial: Dialer? = nil,
                reconnect: ReconnectPolicy = ReconnectPolicy()) {
        self.handshakeTimeout = handshakeTimeout
        self.grace = grace
        self.clock = clock
        self.redial = redial
        self.reconnect = reconnect
    }
}

extension Duration {
    /// Whole milliseconds, clamped to the u32 range of the wire.
    var wireMilliseconds: UInt32 {
        let (seconds, attoseconds) = components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return UInt32(clamping: max(0, total))
    }

    /// Whole seconds rounded up, for "waiting N s".
    var roundedUpSeconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds + (attoseconds > 0 ? 1 : 0)
    }
}
