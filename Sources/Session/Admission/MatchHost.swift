import Games
import Match
import Secure

/// One connection's handshake result, for the host's log and `--json` events.
public struct ConnectionReport: Hashable, Sendable, CustomStringConvertible {
    /// Where the connection came from.
    public var peer: String
    /// What became of it.
    public var outcome: HandshakeOutcome

    /// The address it came from, without the port: "192.0.2.7", "[::1]".
    public var address: String { SocketAddress.host(ofPeer: peer) }

    /// The report as one log line: "192.0.2.7:51234: admitted Ana to seat 2".
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
    /// The passcode key could not be derived (libsodium failed).
    case passcodeUnavailable(CryptoError)
    /// The table cannot be laid out (seat count, bots); the text says why.
    case badTable(String)
    /// The match could not be saved before its guests were welcomed
    /// (`HostConfiguration.saveBeforeWelcome`); they were turned away and the host stopped.
    case cannotSave(String)

    /// Why, as a sentence for the player: "there is no game called 'nim'".
    public var description: String {
        switch self {
        case .unknownGame(let id): "there is no game called '\(id)'"
        case .invalidName(let name): "'\(name)' cannot be a player name (1 to \(Seat.maximumNameBytes) bytes, no control characters)"
        case .shutDown: "the host was shut down before anyone joined"
        case .passcodeUnavailable(let error): "could not set up the passcode: \(error)"
        case .badTable(let why): why
        case .cannotSave(let why): "could not save the match, so nobody was welcomed into it: \(why)"
        }
    }
}

/// The match a guest was admitted to (at a table: every guest), ready for a controller.
public struct HostedMatch: Sendable {
    /// The match as it starts (every seat, nobody has moved).
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
    /// Every guest's seat, in seat order (at two seats, just `remote`).
    public var guests: [RemoteGuest] = []
    /// Each guest's seat token, in the order of `guests`.
    public var seatTokens: [SeatToken] = []
    /// The seats of the host's bots (`HostConfiguration.botNames`, in that
    /// order): the caller plays them with `makeController(with:bots:)`.
    public var botSeats: [SeatIndex] = []
    /// The host's spectators (section 17): in the controller as a seatless
    /// participant, so they see every committed change.
    public var spectators: SpectatorGallery?

    /// The guest's name.
    public var guestName: String { remote.name }

    /// Every guest's name, in seat order: "Bo", "Bo and Cy", "Bo, Cy and Di".
    public var guestNames: String {
        let names = guests.map(\.name)
        guard names.count > 1, let last = names.last else { return names.first ?? guestName }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }

    fileprivate init(initialState: MatchState, hostSeat: SeatIndex, guestSeat: SeatIndex, hostPlayerID: PlayerID,
                     seatToken: SeatToken, remote: RemoteGuest, controllerConfiguration: MatchController.Configuration) {
        self.initialState = initialState
        self.hostSeat = hostSeat
        self.guestSeat = guestSeat
        self.hostPlayerID = hostPlayerID
        self.seatToken = seatToken
        self.remote = remote
        self.controllerConfiguration = controllerConfiguration
        self.guests = [remote]
        self.seatTokens = [seatToken]
    }

    /// A controller for this match with `makeLocal(hostPlayerID)` at the
    /// host's seat (a `LocalParticipant` or a `BotParticipant`) and the
    /// remote guest at the other. Start it with `start()`.
    public func makeController<Local: Participant>(_ makeLocal: (PlayerID) -> Local) -> (MatchController, Local) {
        let local = makeLocal(hostPlayerID)
        return (makeController(with: local), local)
    }

    /// A controller for this match with `local` at the host's seat, for a
    /// participant chosen at run time, `bots` at `botSeats` (their player ids
    /// are `initialState.seats[seat].playerID`) and every guest at its seat.
    /// `local.playerID` must be `hostPlayerID` (otherwise `start()` throws
    /// `SubmitRejection.notAParticipant`).
    ///
    /// The controller delivers each committed change to every other
    /// participant, so every guest link gets every other seat's change as a
    /// push, in the one commit order, and the proposer its CONFIRM.
    public func makeController(with local: any Participant, bots: [any Participant] = []) -> MatchController {
        MatchController(state: initialState, participants: [local] + bots + guests + (spectators.map { [$0] } ?? []),
                        configuration: controllerConfiguration)
    }
}

/// A match this host saved and now offers again (`parlor resume` on the
/// host's side): only the guest holding `seatToken` may take its seat.
public struct SavedHostMatch: Sendable {
    /// The saved state; the host's copy, which wins on reconnect.
    public var state: MatchState
    /// The host's own seat in it.
    public var hostSeat: SeatIndex
    /// The guest seat's secret, from the original WELCOME (at a table: the lowest guest seat's).
    public var seatToken: SeatToken
    /// At a table (three or more seats): every guest seat's secret, by seat.
    public var guestTokens: [SeatIndex: SeatToken]
    /// At a table: the seats the host's bots play.
    public var botSeats: [SeatIndex]
    /// The key each guest seat was played with, where it is known (protocol 3): only that key takes it back.
    public var guestKeys: [SeatIndex: PlayerPublicKey] = [:]

    /// A saved match of two seats; see the fields.
    public init(state: MatchState, hostSeat: SeatIndex, seatToken: SeatToken) {
        self.state = state
        self.hostSeat = hostSeat
        self.seatToken = seatToken
        self.guestTokens = [1 - hostSeat: seatToken]
        self.botSeats = []
    }

    /// A saved table: every guest seat comes back with its own token, in any order.
    /// Nil when `guestTokens` is empty.
    public init?(table state: MatchState, hostSeat: SeatIndex, guestTokens: [SeatIndex: SeatToken], botSeats: [SeatIndex]) {
        guard let first = guestTokens.keys.min(), let token = guestTokens[first] else { return nil }
        self.state = state
        self.hostSeat = hostSeat
        self.seatToken = token
        self.guestTokens = guestTokens
        self.botSeats = botSeats
    }

    /// Whether this is a table of three or more seats.
    var isTable: Bool { state.seats.count > 2 }

    /// Whether every seat is the host's, a bot's or a guest's, once.
    var isLaidOut: Bool {
        let seats = [hostSeat] + botSeats + guestTokens.keys
        return Set(seats).count == seats.count && Set(seats) == Set(state.seats.indices)
    }

    /// The guest seat whose secret `token` is.
    func seat(holding token: SeatToken) -> SeatIndex? {
        guestTokens.first { $0.value.bytes == token.bytes }?.key
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
        /// Disarms the handshake's time limit (an alarm on the event loop).
        var timer: (@Sendable () -> Void)?
        /// When the connection was accepted, on this host's clock.
        var accepted = ContinuousClock.now
    }

    /// The configuration this host runs with.
    public let configuration: HostConfiguration
    /// One report per connection whose handshake ended (admitted, rejected, dropped).
    public nonisolated let reports: AsyncStream<ConnectionReport>
    private let reportSink: AsyncStream<ConnectionReport>.Continuation
    /// The table after every seating change while a table of three or more
    /// fills (the host's own view: `yourSeat` is the host's seat).
    public nonisolated let tableChanges: AsyncStream<TableSeating>
    private let tableSink: AsyncStream<TableSeating>.Continuation
    private let gameType: any Game.Type
    private var pending: [UInt64: Pending] = [:]
    private var nextID: UInt64 = 0
    private var hosted: HostedMatch?
    private var waiters: [CheckedContinuation<HostedMatch?, Never>] = []
    /// A match being saved before its guests are welcomed (`HostConfiguration.saveBeforeWelcome`):
    /// no seat is offered meanwhile, and `waitForGuest` waits for the WELCOMEs.
    private var welcoming = false
    /// Why the match could not be saved before WELCOME; `waitForGuest` throws it.
    private var saveFailure: String?
    private var isShutDown = false
    private var random: SplitMix64
    /// The saved match offered again, until its guest is back.
    private let saved: SavedHostMatch?
    /// Handshakes (by id) that take a seat back rather than start a match, and whose seat.
    private var resuming: [UInt64: RemoteGuest] = [:]
    /// Connections admitted to watch whose WATCH offered protocol 4 (a move's message).
    private var watchersReadingMessages: Set<UInt64> = []
    /// Who sits where, fixed when the first guest arrives.
    private var layout: TableLayout?
    /// Bots take the free seats when the next guest sits down (`fillEmptySeatsWithBotsOnceSeated`).
    private var fillOnceSeated: (@Sendable (Int) -> String)?
    /// Guests seated at a table of three or more that is still filling, by handshake id.
    private var seated: [UInt64: SeatedGuest] = [:]
    /// The id the next new match gets; fixed up front so that CHALLENGE can
    /// bind a passcode proof to it.
    private let upcomingMatchID: MatchID
    /// The key derived from the passcode for `upcomingMatchID`; nil for an open host.
    private let passcodeKey: PasscodeKey?
    /// Proofs waiting their turn, by handshake id: the HELLO and its timer.
    private var waitingProofs: [UInt64: (hello: Hello, timer: @Sendable () -> Void)] = [:]
    /// Proofs given their turn in `guesses` and not yet judged, by handshake id: their ids there.
    private var proofGuesses: [UInt64: UInt64] = [:]
    /// The table talk of this host's matches (section 18): on unless `--no-talk`.
    /// A spectator's link hands its lines to `talk.hear` with role `.spectator`.
    public nonisolated let talk: TableTalk
    /// Who watches this host's match (WATCH, section 17).
    public nonisolated let spectators: SpectatorGallery
    /// The key a spectator proves: the watch code's, the seat code's, or nil (no code).
    private let watchKey: PasscodeKey?
    /// How passcode guesses are paced: protocol 3's offers in the encrypted
    /// handshake (`serve`) and protocol 2's proofs in HELLO alike, one queue
    /// (`HostConfiguration.sharedGuesses` when a hall shares its own).
    public nonisolated let guesses: PasscodeGuesses

    /// A host for `configuration`; throws if its game or name is invalid.
    /// With `saved`, it waits for that match's guest only (`parlor resume`).
    public init(configuration: HostConfiguration, resuming saved: SavedHostMatch? = nil) throws(HostError) {
        guard let type = GameCatalog.game(id: configuration.gameID) else {
            throw .unknownGame(configuration.gameID)
        }
        guard type.seatCounts.contains(configuration.seats) else {
            let counts = type.seatCounts.map(String.init).joined(separator: ", ")
            throw .badTable("\(type.id) is played by \(counts) players, not \(configuration.seats)")
        }
        guard configuration.botNames.count <= configuration.seats - 2 else {
            throw .badTable("a table of \(configuration.seats) has room for at most \(configuration.seats - 2) bots: "
                            + "one seat is the host's and one must stay for a guest")
        }
        for name in configuration.botNames where !Seat.isValidName(name) { throw .invalidName(name) }
        if let saved, saved.state.gameID != type.id || saved.state.seats.count != configuration.seats || !saved.isLaidOut {
            throw .unknownGame(saved.state.gameID)
        }
        self.saved = saved
        guard Seat.isValidName(configuration.hostName) else { throw .invalidName(configuration.hostName) }
        var configuration = configuration
        configuration.timeouts = configuration.timeouts.withHeartbeatFittingTheTimeout()
        self.configuration = configuration
        self.gameType = type
        self.talk = TableTalk(configuration.talk ? .on : .off(TableTalk.turnedOff))
        self.guesses = configuration.sharedGuesses ?? PasscodeGuesses(throttle: configuration.passcodeThrottle)
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
        switch configuration.watchCode {
        case nil: self.watchKey = passcodeKey
        case ""?: self.watchKey = nil
        case let code?:
            do { self.watchKey = try PasscodeKey(code: code, matchID: upcoming) } catch { throw .passcodeUnavailable(error) }
        }
        self.spectators = SpectatorGallery(limit: configuration.spectators, timeouts: configuration.timeouts,
                                           appVersion: configuration.appVersion, clock: configuration.clock)
        spectators.hearTalk(through: talk)
        (reports, reportSink) = AsyncStream<ConnectionReport>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        (tableChanges, tableSink) = AsyncStream<TableSeating>.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Whether a spectator must prove a passcode (the watch code's, or the seat code's).
    public nonisolated var spectatorsNeedPasscode: Bool { watchKey != nil }

    /// The match under way (or ended), nil before a guest is admitted.
    public var matchID: MatchID? { hosted?.initialState.matchID }

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
        guard pending.count - waitingProofs.count - seated.count < configuration.maximumPendingHandshakes else {
            let sentence = "This host has too many connections starting; try again in a moment."
            connection.send(.reject(.busy, sentence: sentence))
            connection.close()
            report(stream.peerDescription, .rejected(.busy, sentence: sentence))
            return
        }
        nextID += 1
        let id = nextID
        pending[id] = Pending(machine: HostHandshake(), connection: connection)
        connection.start { [weak self] inbound in { [weak self] in await self?.handshake(id, inbound) } }
        let timeout = configuration.timeouts.handshake
        pending[id]?.timer = LoopAlarm.after(timeout) { [weak self] in
            Task { await self?.handshake(id, event: .timedOut) }
        }
    }

    /// The table as it fills, for the host's screen and TXT record: nil before
    /// the first guest arrives (with two seats, until the match starts).
    public var tableSeating: TableSeating? {
        guard let layout, layout.guestSeats.count > 1, hosted == nil, !welcoming else { return nil }
        return seating(layout, for: nil)
    }

    /// Seats taken now: the host, its bots, and every guest seated or playing.
    public var seatsTaken: Int {
        if hosted != nil || welcoming { return configuration.seats }
        return 1 + configuration.botNames.count + seated.count
    }

    /// Waits until a guest is admitted and returns its match.
    public func waitForGuest() async throws(HostError) -> HostedMatch {
        if let hosted { return hosted }
        // Shut down during the save before WELCOME: wait for that save's end (and its record forgotten).
        if isShutDown && !welcoming { throw saveFailure.map { .cannotSave($0) } ?? .shutDown }
        let match = await withCheckedContinuation { waiters.append($0) }
        guard let match else { throw saveFailure.map { .cannotSave($0) } ?? .shutDown }
        return match
    }

    /// Stops admitting: pending handshakes are closed and `waitForGuest` throws.
    /// An admitted match is not affected (its controller ends it).
    public func shutdown() {
        isShutDown = true
        for (_, entry) in pending {
            entry.timer?()
            entry.connection.close()
        }
        pending = [:]
        seated = [:]
        for (_, waiting) in waitingProofs { waiting.timer() }
        for (_, guess) in proofGuesses { guesses.remove(guess) }
        waitingProofs = [:]
        proofGuesses = [:]
        // A match being saved before WELCOME: the waiters hear when its save has called back.
        if !welcoming {
            for waiter in waiters { waiter.resume(returning: hosted) }
            waiters = []
        }
        reportSink.finish()
        tableSink.finish()
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
        let address = SocketAddress.host(ofPeer: entry.connection.peerDescription)
        // A newer guess (of either kind) that takes this one's place refuses it, on this actor.
        guard let turn = guesses.arrive(from: address, refuse: { [weak self] in Task { await self?.proofEvicted(id) } }) else {
            return decideProof(id, hello: hello, turn: .refused)
        }
        proofGuesses[id] = turn.id
        let timer = LoopAlarm.after(max(.zero, turn.at - .now)) { [weak self] in
            Task { await self?.proofDue(id) }
        }
        waitingProofs[id] = (hello, timer)
    }

    /// The proof of handshake `id` has waited its turn: check it now.
    private func proofDue(_ id: UInt64) {
        guard let waiting = waitingProofs.removeValue(forKey: id) else { return }
        decideProof(id, hello: waiting.hello, turn: .due)
    }

    /// A newer guess took the place of handshake `id`'s proof: refuse it `busy`, unchecked.
    private func proofEvicted(_ id: UInt64) {
        guard let evicted = waitingProofs.removeValue(forKey: id) else { return }
        evicted.timer()
        proofGuesses[id] = nil
        decideProof(id, hello: evicted.hello, turn: .refused)
    }

    private func decideProof(_ id: UInt64, hello: Hello, turn: PasscodeGate.Turn) {
        guard var entry = pending[id] else { return }
        let decision = admission(for: hello, challenge: entry.machine.challenge, id: id, turn: turn)
        if turn == .due, let guess = proofGuesses.removeValue(forKey: id) {
            if case .reject(.passcodeWrong, _) = decision {
                guesses.judged(guess, wrong: true)
            } else {
                guesses.judged(guess, wrong: false)
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
        case .spectate(let name):
            finish(id)
            // A table nobody has sat at yet: the spectator sees the host's and the bots' seats as the first TABLE (section 16).
            if configuration.seats > 2, hosted == nil, !welcoming, saved == nil, layout == nil {
                let table = makeLayout()
                layout = table
                var watched = seating(table, for: nil)
                watched.yourSeat = TableSeating.noSeat
                spectators.tableChanged(watched)
            }
            spectators.admit(connection, name: name, readsTurnMessages: watchersReadingMessages.remove(id) != nil)
            report(peer, .spectating(name: name))
        case .seat:
            // Seated at a table that fills: no handshake timeout from now on, heartbeats instead.
            pending[id]?.timer?()
            pending[id]?.timer = nil
            tellTable()
            startHeartbeats(id)
            // --fill-with-bots' wait ended before anyone sat down: the first guest starts it.
            if let botName = fillOnceSeated { fillEmptySeatsWithBots(botName) }
        case .welcome(let welcome):
            finish(id)
            if let gaveUp = guestGaveUp(entry) {
                // Never seat a guest that is gone: the seat stays open for the next one.
                resuming.removeValue(forKey: id)
                connection.close()
                report(peer, .dropped(gaveUp))
                return
            }
            if let remote = resuming.removeValue(forKey: id) {
                // The guest is back: its new connection replaces the old one.
                let template = welcome
                remote.reattach(connection) { committed in
                    var fresh = template
                    fresh.matchBlob = MatchBlob.encode(committed)
                    return fresh
                }
                report(peer, .admitted(name: remote.name, seat: remote.seat))
            } else if let saved, saved.isTable {
                admitSavedTable(saved, welcome: welcome, connection: connection)
            } else if let layout, layout.seatCount > 2 {
                // A table (even one whose only guest seat this guest takes: "me, a friend
                // and a bot") starts with TABLE then WELCOME on every side (section 16).
                fillTable(layout, lastWelcome: welcome, lastConnection: connection)
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
        pending[id]?.timer?()
        pending[id] = nil
        // A guest that leaves a table before it fills frees its seat; the others are told.
        if seated.removeValue(forKey: id) != nil { tellTable() }
        waitingProofs.removeValue(forKey: id)?.timer()
        if let guess = proofGuesses.removeValue(forKey: id) { guesses.remove(guess) }
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
        if hello.watching { return spectatorAdmission(for: hello, challenge: challenge, turn: turn, id: id) }
        let current = hosted.map { ($0.initialState.matchID, $0.seatToken) } ?? saved.map { ($0.state.matchID, $0.seatToken) }
        let sealed = sealedChannel(id)
        // Protocol 3 proves the code in the channel (section 20.4); clear frames still use CHALLENGE.
        let gate = sealed?.provedPasscode == .seat ? nil : passcodeKey.map { PasscodeGate(key: $0, turn: turn) }
        let freeSeat = layout.map { layout in layout.guestSeats.first { seat in !seated.values.contains { $0.seat == seat } } } ?? 0
        var policy = HostAdmissionPolicy(gameID: gameType.id, rulesVersion: gameType.rulesVersion,
                                         seatAvailable: hosted == nil && !welcoming && saved == nil && !isShutDown && freeSeat != nil,
                                         currentMatch: current, passcode: gate)
        policy.tableSeats = configuration.seats
        policy.otherSeatTokens = hosted.map { Array($0.seatTokens.dropFirst()) }
            ?? saved.map { saved in saved.guestTokens.sorted { $0.key < $1.key }.dropFirst().map(\.value) } ?? []
        if let answer = Self.answer(policy.verdict(on: hello, challenge: challenge), key: passcodeKey, sealed: sealed != nil) { return answer }
        if let refused = keyRefusal(for: hello, id: id) { return refused }
        if hello.matchID != nil {
            // The right seat token: take the seat back (the policy checked it).
            guard let token = hello.seatToken else { return .reject(.matchNotFound, "This host has no match to resume.") }
            // At a table the token says whose seat it is (the policy found it among them).
            let remote = hosted.flatMap { hosted in
                zip(hosted.guests, hosted.seatTokens).first { $0.1.bytes == token.bytes }?.0
            }
            let state = remote?.committedState ?? saved?.state
            let guestSeat = remote?.seat ?? saved?.seat(holding: token)
            guard let state, let guestSeat else {
                return .reject(.matchNotFound, "This host has no match to resume.")
            }
            if let remote, let busy = remote.unavailable {
                // This process is about to exit, or cannot save: the guest should try again in a moment.
                return .reject(.busy, busy)
            }
            // A seat welcomed at protocol 4, or a match that holds messages, is never taken back by a parlor that cannot read them.
            if state.hasMessages || (remote?.readsTurnMessages ?? false), !hello.protocolVersions.contains(FrameFormat.messagesVersion) {
                let theirs = hello.protocolVersions.map(String.init).joined(separator: ", ")
                return .reject(.versionUnsupported, "This match carries messages with its moves, which needs parlor protocol "
                               + "\(FrameFormat.messagesVersion); yours speaks \(theirs): update parlor to take your seat back.")
            }
            if let remote { resuming[id] = remote }
            return .welcome(welcome(for: state, guestSeat: guestSeat, token: token, hello: hello))
        }
        var table = layout ?? makeLayout()
        if hello.playerID == table.hostID {
            // Two processes of one installation: the host plays this match under a
            // fresh id (the TABLE names no ids, so nobody seated has seen the old one).
            table.hostID = PlayerID.random()
        }
        layout = table
        guard let guestSeat = table.guestSeats.first(where: { seat in !seated.values.contains { $0.seat == seat } }) else {
            return .reject(.matchFull, "The match on this host already has its players.")
        }
        let inUse = table.bots.map(\.playerID) + seated.values.map(\.hello.playerID)
        guard !inUse.contains(hello.playerID) else {
            // Two parlors of one installation at one table: the blob holds every id once.
            return .reject(.playerIDInUse, "Someone at this table already plays under your player id (another parlor of the same "
                           + "installation); join from another account, or with another PARLOR_HOME.")
        }
        var guests = seated.values.map { ($0.seat, $0.hello) }
        guests.append((guestSeat, hello))
        if guests.count < table.guestSeats.count {
            let timeouts = configuration.timeouts
            // No grace while the table fills: silent for the heartbeat timeout, a guest gives its seat up.
            let liveness = Liveness(settings: Liveness.Settings(interval: timeouts.heartbeatInterval, timeout: timeouts.heartbeatTimeout,
                                                                grace: .zero), now: .now)
            seated[id] = SeatedGuest(seat: guestSeat, hello: hello, token: SeatToken.random(), liveness: liveness)
            return .seat(seating(table, for: guestSeat))
        }
        // The host draws a game's chance (`MatchState.drawSeed()`); the guests adopt it from the WELCOME.
        let state = MatchState(matchID: upcomingMatchID, gameType: gameType,
                               seats: table.seats(guests: guests), turnTimeout: configuration.turnTimeoutSeconds, now: configuration.clock())
        return .welcome(welcome(for: state, guestSeat: guestSeat, token: SeatToken.random(), hello: hello))
    }

    /// The decision about a WATCH (section 17): protocol 2, the game, the name,
    /// spectators welcome, the watch code (as a seat's passcode: challenge,
    /// proof in turn), then room among the spectators.
    private func spectatorAdmission(for hello: Hello, challenge: PasscodeChallenge?, turn: PasscodeGate.Turn, id: UInt64) -> Admission {
        guard hello.protocolVersions.contains(FrameFormat.tableVersion) else {
            return .reject(.versionUnsupported, "Watching needs parlor protocol \(FrameFormat.tableVersion); update parlor.")
        }
        guard spectators.limit > 0, !isShutDown else {
            return .reject(.spectatorsNotWelcome, "This host takes no spectators.")
        }
        let sealed = sealedChannel(id)
        var policy = HostAdmissionPolicy(gameID: gameType.id, rulesVersion: gameType.rulesVersion, seatAvailable: true,
                                         passcode: sealed?.provedPasscode == .watch ? nil : watchKey.map { PasscodeGate(key: $0, turn: turn) })
        policy.tableSeats = configuration.seats
        if let answer = Self.answer(policy.verdict(on: hello, challenge: challenge), key: watchKey, sealed: sealed != nil) { return answer }
        if let refused = keyRefusal(for: hello, id: id) { return refused }
        guard spectators.hasRoom else {
            return .reject(.spectatorsFull, "\(spectators.limit) spectators watch already, as many as this host allows.")
        }
        // An older spectator watches without the moves' messages (section 17).
        if hello.protocolVersions.contains(FrameFormat.messagesVersion) { watchersReadingMessages.insert(id) }
        return .spectate
    }

    /// REJECT playerKeyRefused when the key handshake `id` proved may not have what
    /// `hello` asks (after the passcode: a stranger without the code learns nothing
    /// about who is known). A seat taken back wants the key it was played with (the
    /// seat token is the second factor, never the only one), whatever the name; a
    /// new guest is judged by the configuration's judge.
    private func keyRefusal(for hello: Hello, id: UInt64) -> Admission? {
        guard let key = (pending[id]?.connection.stream as? SecureByteStream)?.peer else { return nil }
        if hello.matchID != nil {
            guard let token = hello.seatToken, let held = seatKey(holding: token), held != key else { return nil }
            return .reject(.playerKeyRefused, "This seat was played with another key (\(held.fingerprint)); yours is \(key.fingerprint): "
                           + "only that player can take the seat back.")
        }
        guard let judge = configuration.judgePlayer, let refusal = judge(hello.playerName, key) else { return nil }
        return .reject(.playerKeyRefused, refusal)
    }

    /// The key the seat that `token` holds was played with: its link's, in a match under way; the saved one, resuming.
    private func seatKey(holding token: SeatToken) -> PlayerPublicKey? {
        if let hosted, let guest = zip(hosted.guests, hosted.seatTokens).first(where: { $0.1.bytes == token.bytes })?.0 {
            return guest.peerKey
        }
        return saved.flatMap { saved in saved.seat(holding: token).flatMap { saved.guestKeys[$0] } }
    }

    /// Handshake `id`'s channel when it is protocol 3's (sealed), nil for clear frames.
    private func sealedChannel(_ id: UInt64) -> SecureByteStream? {
        guard let channel = pending[id]?.connection.stream as? SecureByteStream, channel.isPrivate else { return nil }
        return channel
    }

    /// What a verdict other than admit answers (nil for admit); a challenge is made with `key`.
    /// On a `sealed` channel a code is proved in the handshake or not at all: no CHALLENGE,
    /// whose proof an impostor host could test offline.
    private static func answer(_ verdict: HostAdmissionPolicy.Verdict, key: PasscodeKey?, sealed: Bool) -> Admission? {
        switch verdict {
        case .admit:
            return nil
        case .refuse(let reason, let sentence):
            return .reject(reason, sentence)
        case .waitForTurn:
            return .waitForTurn
        case .challenge where sealed:
            return .reject(.passcodeRequired, PasscodeSentences.required)
        case .challenge:
            guard let key, let fresh = try? PasscodeChallenge.fresh(for: key.matchID) else {
                return .reject(.busy, "This host cannot make a passcode challenge right now; try again in a moment.")
            }
            return .challenge(fresh)
        }
    }

    // MARK: Tables

    /// Who sits where at this host's table.
    private struct TableLayout {
        var hostSeat: SeatIndex
        var hostID: PlayerID
        var hostName: String
        /// The host's bots, by seat.
        var bots: [(seat: SeatIndex, playerID: PlayerID, name: String)]
        /// The seats guests take, in the order they are handed out.
        var guestSeats: [SeatIndex]
        var seatCount: Int

        /// Every seat of the match with `guests` (seat and HELLO) in theirs.
        func seats(guests: [(SeatIndex, Hello)]) -> [Seat] {
            (0..<seatCount).map { index in
                if index == hostSeat { return Seat(playerID: hostID, name: hostName) }
                if let bot = bots.first(where: { $0.seat == index }) { return Seat(playerID: bot.playerID, name: bot.name) }
                let hello = guests.first { $0.0 == index }?.1
                return Seat(playerID: hello?.playerID ?? PlayerID.random(), name: hello?.playerName ?? "?")
            }
        }
    }

    /// A guest with a seat at a table that is filling.
    private struct SeatedGuest {
        var seat: SeatIndex
        var hello: Hello
        var token: SeatToken
        /// When it gets a HEARTBEAT, and when it is silent (no grace: it gives its seat up then).
        var liveness: Liveness
        /// Ticks `liveness` (the process's `LivenessClock`); let go, and so disarmed, with the seat.
        var timer: LivenessClock.Timer?
    }

    /// The host's seat by `--seat` (first, second, or drawn at random among all
    /// seats), its bots in the last seats, the guests in the rest from the lowest.
    private func makeLayout() -> TableLayout {
        let count = configuration.seats
        let hostSeat: SeatIndex
        switch configuration.seatPreference {
        case .first: hostSeat = 0
        case .second: hostSeat = 1
        case .random: hostSeat = Int(random.next() % UInt64(count))
        }
        let hostID = configuration.hostPlayerID
        let others = (0..<count).filter { $0 != hostSeat }
        let botSeats = Array(others.suffix(configuration.botNames.count))
        let bots = zip(botSeats, configuration.botNames).map { (seat: $0.0, playerID: PlayerID.random(), name: $0.1) }
        return TableLayout(hostSeat: hostSeat, hostID: hostID, hostName: configuration.hostName, bots: bots,
                           guestSeats: others.filter { !botSeats.contains($0) }, seatCount: count)
    }

    /// The TABLE for the guest at `seat` (nil: the host's own view).
    private func seating(_ layout: TableLayout, for seat: SeatIndex?) -> TableSeating {
        let guests = seated.values.map { ($0.seat, $0.hello) }
        let places = (0..<layout.seatCount).map { index -> TableSeating.Place in
            if index == layout.hostSeat { return .init(kind: .host, name: layout.hostName) }
            if let bot = layout.bots.first(where: { $0.seat == index }) { return .init(kind: .bot, name: bot.name) }
            if let guest = guests.first(where: { $0.0 == index }) { return .init(kind: .guest, name: guest.1.playerName) }
            return .init(kind: .free, name: "")
        }
        let timeouts = configuration.timeouts
        return TableSeating(yourSeat: seat ?? layout.hostSeat, heartbeatIntervalMilliseconds: timeouts.heartbeatInterval.wireMilliseconds,
                            heartbeatTimeoutMilliseconds: timeouts.heartbeatTimeout.wireMilliseconds, seats: places)
    }

    /// Sends the table as it is now to every seated guest (each seating change),
    /// and to `tableChanges` for the host's own screen.
    private func tellTable() {
        guard let layout, layout.seatCount > 2 else { return }
        for (id, guest) in seated {
            pending[id]?.connection.send(.table(seating(layout, for: guest.seat)))
        }
        var watched = seating(layout, for: nil)
        watched.yourSeat = TableSeating.noSeat
        spectators.tableChanged(watched)
        tableSink.yield(seating(layout, for: nil))
    }

    /// While a guest sits at a filling table, its `Liveness` (no grace) says
    /// when it gets a HEARTBEAT and when, silent for the heartbeat timeout, it
    /// loses its seat; its timer ticks it until the seat is given up or the table fills.
    private func startHeartbeats(_ id: UInt64) {
        guard seated[id] != nil, seated[id]?.timer == nil else { return }
        seated[id]?.timer = LivenessClock.shared.timer { [weak self] in
            Task { await self?.seatedGuestTick(id) }
        }
        armHeartbeats(id, now: .now)
    }

    /// Arms the seated guest's timer for the next instant its liveness can act at.
    private func armHeartbeats(_ id: UInt64, now: ContinuousClock.Instant) {
        guard let guest = seated[id], let connection = pending[id]?.connection else { return }
        let liveness = guest.liveness
        guest.timer?.schedule(at: liveness.nextTick(lastHeard: connection.lastHeard, open: true, now: now), tolerance: liveness.tolerance)
    }

    /// The seated guest's timer fired: a HEARTBEAT, its seat given up for silence, or nothing yet.
    /// A closed connection is the reader's to report (its close says why), so the link counts as open here.
    private func seatedGuestTick(_ id: UInt64) {
        guard var liveness = seated[id]?.liveness, let connection = pending[id]?.connection else { return }
        let now = ContinuousClock.now
        let actions = liveness.tick(now: now, lastHeard: connection.lastHeard, open: true)
        seated[id]?.liveness = liveness
        if actions.contains(.graceExpired) {
            handshake(id, event: .peerClosed("silent for \(liveness.settings.timeout.roundedUpSeconds) s"))
            return
        }
        if actions.contains(.sendHeartbeat) {
            connection.send(.heartbeat(senderTime: UInt64(clamping: configuration.clock())))
        }
        armHeartbeats(id, now: now)
    }

    /// Fills the table's free seats with bots now (`fillEmptySeatsWithBots`)
    /// or, when no guest is seated yet, as soon as the first one is: what
    /// `parlor host --fill-with-bots` does when its wait is over.
    public func fillEmptySeatsWithBotsOnceSeated(_ botName: @escaping @Sendable (Int) -> String) {
        if !fillEmptySeatsWithBots(botName), hosted == nil, !welcoming { fillOnceSeated = botName }
    }

    /// Gives every free seat of a filling table to a bot named by `botName`
    /// (its index among the new bots) and starts the match with the guests
    /// seated so far (`parlor host --fill-with-bots`). False, changing
    /// nothing, when no guest is seated yet or the match has begun.
    @discardableResult
    public func fillEmptySeatsWithBots(_ botName: (Int) -> String) -> Bool {
        guard var table = layout, hosted == nil, !welcoming, !seated.isEmpty, !isShutDown else { return false }
        let taken = Set(seated.values.map(\.seat))
        let free = table.guestSeats.filter { !taken.contains($0) }
        for (index, seat) in free.enumerated() {
            table.bots.append((seat: seat, playerID: PlayerID.random(), name: botName(index)))
        }
        table.bots.sort { $0.seat < $1.seat }
        table.guestSeats = table.guestSeats.filter { taken.contains($0) }
        layout = table
        let state = MatchState(matchID: upcomingMatchID, gameType: gameType,
                               seats: table.seats(guests: seated.values.map { ($0.seat, $0.hello) }),
                               turnTimeout: configuration.turnTimeoutSeconds, now: configuration.clock())
        fillTable(table, state: state, last: nil)
        return true
    }

    /// The last guest took the last free seat: every guest gets the full
    /// TABLE, then its WELCOME (its own seat and token, the one blob of the
    /// match, sequence 0), and the match begins.
    private func fillTable(_ layout: TableLayout, lastWelcome: Welcome, lastConnection: WireConnection) {
        guard let state = try? MatchBlob.decode(lastWelcome.matchBlob) else { return }  // encoded just above
        fillTable(layout, state: state, last: (lastWelcome, lastConnection))
    }

    private func fillTable(_ layout: TableLayout, state: MatchState, last: (welcome: Welcome, connection: WireConnection)?) {
        var links: [(seat: SeatIndex, connection: WireConnection, welcome: Welcome)] = []
        let full = seated
        seated = [:]
        for (id, guest) in full {
            guard var entry = pending[id] else { continue }
            let welcome = welcome(for: state, guestSeat: guest.seat, token: guest.token, hello: guest.hello)
            entry.connection.send(.table(fullSeating(layout, state, for: guest.seat)))
            _ = entry.machine.tableFilled(welcome)
            pending[id] = entry
            links.append((guest.seat, entry.connection, welcome))
            finish(id)
        }
        if let last {
            last.connection.send(.table(fullSeating(layout, state, for: last.welcome.seat)))
            links.append((last.welcome.seat, last.connection, last.welcome))
        }
        links.sort { $0.seat < $1.seat }
        var remotes: [RemoteGuest] = []
        for link in links {
            let remote = RemoteGuest(connection: link.connection, seat: link.seat, initial: state,
                                     timeouts: configuration.timeouts, clock: configuration.clock,
                                     talk: talk, protocolVersion: link.welcome.protocolVersion)
            remote.takeOver()
            remotes.append(remote)
        }
        guard let first = remotes.first, let firstLink = links.first else { return }
        var match = HostedMatch(
            initialState: state, hostSeat: layout.hostSeat, guestSeat: first.seat, hostPlayerID: layout.hostID,
            seatToken: firstLink.welcome.seatToken, remote: first,
            controllerConfiguration: MatchController.Configuration(confirmationTimeout: configuration.timeouts.confirmation,
                                                                   clock: configuration.clock).talking(through: talk))
        match.guests = remotes
        match.seatTokens = links.map(\.welcome.seatToken)
        match.botSeats = layout.bots.map(\.seat)
        match.spectators = spectators
        welcomeOnceSaved(match, links.map { ($0.connection, $0.welcome) }) { [spectators, tableSink] in
            var watched = self.fullSeating(layout, state, for: layout.hostSeat)
            watched.yourSeat = TableSeating.noSeat
            spectators.tableChanged(watched)
            tableSink.yield(self.fullSeating(layout, state, for: layout.hostSeat))
            tableSink.finish()
        }
    }

    /// Welcomes `links` into `match` once it is saved (`HostConfiguration.saveBeforeWelcome`;
    /// at once without one): no guest, spectator or waiter learns of a match
    /// the host could lose to a crash. `also` runs with the WELCOMEs (what
    /// else the match's start tells). A save that fails turns every guest
    /// away (REJECT busy, with why) and stops the host: `waitForGuest` throws `.cannotSave`.
    private func welcomeOnceSaved(_ match: HostedMatch, _ links: [(connection: WireConnection, welcome: Welcome)],
                         also: @escaping () -> Void = {}) {
        // A match resumed from its record is on disk already.
        guard let save = configuration.saveBeforeWelcome, saved == nil else {
            return welcomeSaved(match, links, also: also)
        }
        welcoming = true
        Task {
            let failure = await save(match)
            // Shut down meanwhile: nobody is welcomed, so the record of the match goes too.
            if failure == nil, self.isShutDown, let forget = self.configuration.forgetUnwelcomed { await forget(match) }
            self.saveCalledBack(match, links, failure: failure, also: also)
        }
    }

    private func saveCalledBack(_ match: HostedMatch, _ links: [(connection: WireConnection, welcome: Welcome)],
                                failure: String?, also: @escaping () -> Void) {
        welcoming = false
        guard let failure else { return welcomeSaved(match, links, also: also) }
        let sentence = "The host could not save the match, so it cannot start: \(failure)"
        for link in links {
            link.connection.send(.reject(.busy, sentence: sentence))
            report(link.connection.peerDescription, .rejected(.busy, sentence: sentence))
            link.connection.close()
        }
        saveFailure = failure
        shutdown()
    }

    private func welcomeSaved(_ match: HostedMatch, _ links: [(connection: WireConnection, welcome: Welcome)],
                              also: () -> Void) {
        guard !isShutDown else {
            for link in links { link.connection.close() }
            for waiter in waiters { waiter.resume(returning: nil) }
            waiters = []
            return
        }
        for link in links {
            link.connection.send(.welcome(link.welcome))
            report(link.connection.peerDescription, .admitted(name: match.initialState.seats[link.welcome.seat].name,
                                                              seat: link.welcome.seat))
        }
        also()
        spectators.begin(match.initialState)
        hosted = match
        for waiter in waiters { waiter.resume(returning: match) }
        waiters = []
    }

    /// The full table's TABLE for the guest at `seat`, from the match's own seats.
    private func fullSeating(_ layout: TableLayout, _ state: MatchState, for seat: SeatIndex) -> TableSeating {
        var table = seating(layout, for: seat)
        for index in table.seats.indices where table.seats[index].kind == .free {
            table.seats[index] = .init(kind: .guest, name: state.seats[index].name)
        }
        return table
    }

    /// The WELCOME for `state`, with this host's timers and the match's own turn timeout.
    private func welcome(for state: MatchState, guestSeat: SeatIndex, token: SeatToken, hello: Hello) -> Welcome {
        let timeouts = configuration.timeouts
        let settings = SessionSettings(
            turnTimeoutSeconds: state.turnTimeout,
            heartbeatIntervalMilliseconds: timeouts.heartbeatInterval.wireMilliseconds,
            heartbeatTimeoutMilliseconds: timeouts.heartbeatTimeout.wireMilliseconds,
            confirmationTimeoutMilliseconds: timeouts.confirmation.wireMilliseconds)
        // Protocol 4 (a move's message) is for two seats: a table keeps protocol 2 (section 13).
        let versions = FrameFormat.supportedVersions.filter { state.seats.count == 2 || $0 < FrameFormat.messagesVersion }
        let version = versions.first { hello.protocolVersions.contains($0) } ?? FrameFormat.version
        return Welcome(protocolVersion: version, seat: guestSeat, seatToken: token, settings: settings,
                       hostAppVersion: configuration.appVersion, matchBlob: MatchBlob.encode(state))
    }

    /// Sends WELCOME and hands the connection to the guest's `RemoteGuest`.
    private func admit(welcome: Welcome, connection: WireConnection) {
        guard let state = try? MatchBlob.decode(welcome.matchBlob) else { return }  // encoded just above
        let remote = RemoteGuest(connection: connection, seat: welcome.seat, initial: state,
                                 timeouts: configuration.timeouts, clock: configuration.clock,
                                 talk: talk, protocolVersion: welcome.protocolVersion)
        if !remote.speaksTalk {
            talk.turnOff(because: "\(remote.name)'s parlor speaks protocol 1, which has no table talk.")
        }
        remote.takeOver()
        var match = HostedMatch(
            initialState: state, hostSeat: 1 - welcome.seat, guestSeat: welcome.seat,
            hostPlayerID: state.seats[1 - welcome.seat].playerID, seatToken: welcome.seatToken, remote: remote,
            controllerConfiguration: MatchController.Configuration(confirmationTimeout: configuration.timeouts.confirmation,
                                                                   clock: configuration.clock).talking(through: talk))
        match.spectators = spectators
        welcomeOnceSaved(match, [(connection, welcome)])
    }

    /// The first guest of a saved table is back (`parlor resume` on the host):
    /// the match starts again with that guest's link and every other guest's
    /// seat away (a link not there yet), so it is kept for the grace period
    /// and taken back with its own token (`reattach`) in whatever order the
    /// guests come; one that does not come back in time counts as quit while
    /// three or more seats still play (docs/PROTOCOL.md section 16).
    private func admitSavedTable(_ saved: SavedHostMatch, welcome: Welcome, connection: WireConnection) {
        guard let state = try? MatchBlob.decode(welcome.matchBlob) else { return }  // encoded just above
        let seats = saved.guestTokens.keys.sorted()
        let remotes = seats.map { seat in
            let link = seat == welcome.seat ? connection : WireConnection.absent("\(state.seats[seat].name), not back yet")
            // Every seat of a table speaks protocol 2 (section 16): talk is relayed to and heard from each, as before the host stopped.
            let remote = RemoteGuest(connection: link, seat: seat, initial: state,
                                     timeouts: configuration.timeouts, clock: configuration.clock,
                                     talk: talk, protocolVersion: FrameFormat.tableVersion)
            remote.takeOver()
            return remote
        }
        connection.send(.welcome(welcome))
        guard let first = remotes.first, let firstToken = saved.guestTokens[first.seat] else { return }
        var match = HostedMatch(
            initialState: state, hostSeat: saved.hostSeat, guestSeat: first.seat,
            hostPlayerID: state.seats[saved.hostSeat].playerID, seatToken: firstToken, remote: first,
            controllerConfiguration: MatchController.Configuration(confirmationTimeout: configuration.timeouts.confirmation,
                                                                   clock: configuration.clock).talking(through: talk))
        match.guests = remotes
        match.seatTokens = seats.compactMap { saved.guestTokens[$0] }
        match.botSeats = saved.botSeats.sorted()
        // Spectators watch a resumed table as they watched it before.
        match.spectators = spectators
        spectators.begin(state)
        hosted = match
        report(connection.peerDescription, .admitted(name: state.seats[welcome.seat].name, seat: welcome.seat))
        for waiter in waiters { waiter.resume(returning: match) }
        waiters = []
    }

    /// The rematch both sides agreed to: a new match of the same game with
    /// seats swapped, a new id and seat token, WELCOME over `connection` once
    /// it is saved (`HostConfiguration.saveBeforeWelcome`); a save that fails
    /// sends GOODBYE cannotSave with the reason instead, and there is no rematch.
    func startRematch(after previous: HostedMatch, on connection: WireConnection) async -> RematchOutcome<HostedMatch> {
        let old = previous.initialState
        let hostSeat = previous.guestSeat  // swapped
        let guestSeat = previous.hostSeat
        var seats = old.seats.map { Seat(playerID: $0.playerID, name: $0.name) }
        seats.swapAt(0, 1)
        // A rematch is a new match: a fresh seed for a game with chance.
        let state = MatchState(matchID: MatchID.random(), gameType: gameType, seats: seats,
                               turnTimeout: old.turnTimeout, now: configuration.clock())
        var hello = Hello(appVersion: configuration.appVersion, playerID: seats[guestSeat].playerID, playerName: seats[guestSeat].name)
        // The version the guest's first WELCOME chose: a guest that offered only 1 cannot read a 2 (section 11).
        hello.protocolVersions = [previous.remote.protocolVersion]
        let welcome = welcome(for: state, guestSeat: guestSeat, token: SeatToken.random(), hello: hello)
        let remote = RemoteGuest(connection: connection, seat: guestSeat, initial: state,
                                 timeouts: configuration.timeouts, clock: configuration.clock,
                                 talk: talk, protocolVersion: welcome.protocolVersion)
        var match = HostedMatch(
            initialState: state, hostSeat: hostSeat, guestSeat: guestSeat,
            hostPlayerID: state.seats[hostSeat].playerID, seatToken: welcome.seatToken, remote: remote,
            controllerConfiguration: MatchController.Configuration(confirmationTimeout: configuration.timeouts.confirmation,
                                                                   clock: configuration.clock).talking(through: talk))
        match.spectators = spectators
        if let save = configuration.saveBeforeWelcome, let failure = await save(match) {
            connection.send(.goodbye(.goodbyeCannotSave, sentence: "The host could not save the rematch: \(failure)", finalBlob: []))
            connection.close()
            return .over(.cannotSave(failure))
        }
        remote.takeOver()
        connection.send(.welcome(welcome))
        spectators.begin(state)
        hosted = match
        report(connection.peerDescription, .admitted(name: remote.name, seat: guestSeat))
        return .newMatch(match)
    }

    private func report(_ peer: String, _ outcome: HandshakeOutcome) {
        reportSink.yield(ConnectionReport(peer: peer, outcome: outcome))
    }

    /// A wrong passcode in protocol 3's handshake (the channel refused it before any frame).
    nonisolated func reportWrongPasscode(from peer: String) {
        reportSink.yield(ConnectionReport(peer: peer, outcome: .rejected(.passcodeWrong, sentence: PasscodeSentences.wrong)))
    }
}
