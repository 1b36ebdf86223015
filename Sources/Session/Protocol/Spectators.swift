import Dispatch
import Games
import Match
import Synchronization

/// The spectators of one host (docs/PROTOCOL.md, section 17): every link
/// admitted with WATCH, the match as they have seen it, and what they get.
///
/// It sits in the host's match controller as a participant without a seat
/// (its player id is in no seat, so it can never submit a change), and so
/// hears every committed change in the one commit order. Each change is
/// sent to every spectator only once it is saved (the same write-ahead save
/// the guest links wait for, `persistBeforeSending`), as TURN or QUIT with
/// the committed blob, exactly as a guest gets another seat's change.
///
/// A spectator's outbound queue is bounded (`queueLimit`): a spectator that
/// reads slowly or not at all is dropped with GOODBYE(tooSlow) once more than
/// that is waiting for it, and nothing the host sends a player ever waits for
/// a spectator (sends only queue). What a spectator sends never reaches the
/// match: TURN, QUIT and STATE are answered TURN_REJECTED(spectatorCannotMove).
///
/// `relay(_:)` sends one message to every spectator, for messages every link
/// at the table gets (table talk).
public final class SpectatorGallery: Participant {
    /// Spectators a host allows by default (`--spectators`).
    public static let defaultLimit = 16
    /// Bytes that may wait for one spectator before it is dropped: four of the largest frames.
    public static let defaultQueueLimit = 1 << 20

    /// A fresh id that is no seat's: the controller never takes a change from it.
    public let playerID = PlayerID.random()
    public var isAuthority: Bool { false }
    /// Spectators allowed at once; 0 forbids watching.
    public let limit: Int
    /// Bytes that may wait for one spectator before it is dropped.
    public let queueLimit: Int

    private struct Link {
        var connection: WireConnection
        var name: String
    }

    private struct State {
        var links: [UInt64: Link] = [:] {
            didSet { if links.count != oldValue.count { counts.yield(links.count) } }
        }
        let counts: AsyncStream<Int>.Continuation
        var nextID: UInt64 = 0
        /// The newest state spectators may see (saved, when saving is on); nil before a match begins.
        var revealed: MatchState?
        /// The match ended: GOODBYE(matchOver) once the final state is revealed.
        var final: MatchState?
        var persist: RemoteGuest.Persist?
        var ticker: Task<Void, Never>?
        var dropped: [String] = []
        /// Table talk (section 18): where a spectator's own lines are judged, the
        /// controller that relays them, and relayed lines waiting for the change they follow.
        var talk: TableTalk?
        var controller: MatchController?
        var heldTalk: [TalkLine] = []
    }

    private let interval: Duration
    private let silence: Duration
    private let appVersion: String
    private let clock: @Sendable () -> Int64
    private let state: Mutex<State>
    /// The number watching, each time it changes (the newest only), for the host's TXT record.
    public let changes: AsyncStream<Int>
    /// Where changes go out to spectators, in commit order: never on the
    /// controller's actor or the store's writer, so the players never wait for them.
    private let queue = DispatchQueue(label: "parlor.spectators", qos: .utility)

    /// A gallery for at most `limit` spectators, with the host's heartbeat timers.
    init(limit: Int, queueLimit: Int = SpectatorGallery.defaultQueueLimit, timeouts: SessionTimeouts, appVersion: String,
         clock: @escaping @Sendable () -> Int64) {
        self.limit = max(0, limit)
        self.queueLimit = queueLimit
        self.interval = timeouts.heartbeatInterval
        self.silence = timeouts.heartbeatTimeout
        self.appVersion = appVersion
        self.clock = clock
        let (changes, sink) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.changes = changes
        self.state = Mutex(State(counts: sink))
    }

    /// Spectators watching now.
    public var count: Int { state.withLock { $0.links.count } }

    /// Whether one more spectator may watch.
    var hasRoom: Bool { state.withLock { $0.links.count < limit } }

    /// Why spectators were dropped so far ("Cy: fell too far behind"), oldest first.
    public var droppedReasons: [String] { state.withLock { $0.dropped } }

    /// Has every change wait for `save` before spectators see it (the table's one save per state).
    public func persistBeforeSending(asynchronously save: @escaping RemoteGuest.Persist) {
        state.withLock { $0.persist = save }
    }

    /// Sends `message` to every spectator (a message every link at the table gets).
    public func relay(_ message: Message) {
        state.withLock { state in
            for id in Array(state.links.keys) { send(message, to: id, &state) }
        }
    }

    // MARK: Admission and links

    /// Takes over an admitted spectator's connection: WATCHING with the match as
    /// it stands (the final state and GOODBYE if it has ended), then every change.
    func admit(_ connection: WireConnection, name: String) {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            let id = state.nextID
            state.links[id] = Link(connection: connection, name: name)
            connection.setHandler { [weak self] inbound in self?.receive(inbound, from: id) }
            let blob = state.revealed.map { MatchBlob.encode($0) } ?? []
            connection.send(.watching(SpectatorWelcome(
                protocolVersion: FrameFormat.tableVersion, heartbeatIntervalMilliseconds: interval.wireMilliseconds,
                heartbeatTimeoutMilliseconds: silence.wireMilliseconds, hostAppVersion: appVersion,
                watching: UInt16(clamping: state.links.count), matchBlob: blob)))
            if let final = state.final, state.revealed?.sequence == final.sequence { sayGoodbye(id, final: final, &state) }
            return id
        }
        connection.markHeard()
        _ = id
        startTicker()
    }

    /// A match begins (the first, or a rematch): every spectator gets its first state as STATE.
    func begin(_ match: MatchState) {
        state.withLock { state in
            state.revealed = match
            state.final = nil
            for id in Array(state.links.keys) { send(.state(blob: MatchBlob.encode(match)), to: id, &state) }
        }
    }

    private func receive(_ inbound: Inbound, from id: UInt64) {
        state.withLock { state in
            guard let link = state.links[id] else { return }
            switch inbound {
            case .message(.heartbeat):
                return
            case .message(.turn(let sequence, _)), .message(.quit(let sequence, _)):
                send(.turnRejected(sequence: sequence, reason: .spectatorCannotMove, sentence: Self.cannotMove), to: id, &state)
            case .message(.state):
                send(.turnRejected(sequence: 0, reason: .spectatorCannotMove, sentence: Self.cannotMove), to: id, &state)
            case .message(.stateRequest):
                if let revealed = state.revealed { send(.state(blob: MatchBlob.encode(revealed)), to: id, &state) }
            case .message(.goodbye):
                state.links[id] = nil
                link.connection.close()
            case .message(.talk(.say(let bytes))):
                // Judged as any link's line, with the spectator's role; a refusal goes back to it alone.
                let speaker = TalkLine(role: .spectator, seat: nil, name: link.name, text: "")
                let (talk, controller) = (state.talk, state.controller)
                let connection = link.connection
                Task {
                    let refusal: TalkCheck.Refusal? = if let talk, let controller {
                        await talk.hear(bytes, from: speaker, link: ObjectIdentifier(connection), in: controller)
                    } else {
                        TalkCheck.Refusal(reason: .talkOff, sentence: TableTalk.turnedOff)
                    }
                    if let refusal { connection.send(.talk(.refused(refusal.reason, sentence: refusal.sentence))) }
                }
            case .message(let other):
                drop(id, .goodbyeProtocolError, "a spectator may send only HEARTBEAT, STATE_REQUEST, TALK and GOODBYE, not \(other.type)", &state)
            case .frameError(let error):
                drop(id, .goodbyeProtocolError, "\(error)", &state)
            case .messageError(let error):
                drop(id, .goodbyeProtocolError, "\(error)", &state)
            case .closed:
                state.links[id] = nil
            }
        }
    }

    static let cannotMove = "Spectators cannot change the match: you are watching."

    /// Sends one frame to one spectator, dropping it when too much waits for it already.
    private func send(_ message: Message, to id: UInt64, _ state: inout State) {
        guard let link = state.links[id] else { return }
        link.connection.send(message)
        if link.connection.queuedByteCount > queueLimit {
            drop(id, .goodbyeTooSlow, "You fell too far behind the match (over \(queueLimit) bytes waited for you); watch again to catch up.",
                 &state)
        }
    }

    private func drop(_ id: UInt64, _ reason: ReasonCode, _ sentence: String, _ state: inout State) {
        guard let link = state.links.removeValue(forKey: id) else { return }
        link.connection.send(.goodbye(reason, sentence: String(sentence.prefix(200)), finalBlob: []))
        link.connection.close()
        state.dropped.append("\(link.name): " + (reason == .goodbyeTooSlow ? "fell too far behind" : sentence))
    }

    private func sayGoodbye(_ id: UInt64, final: MatchState, _ state: inout State) {
        guard let link = state.links.removeValue(forKey: id) else { return }
        link.connection.send(.goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: MatchBlob.encode(final)))
        link.connection.close()
    }

    /// HEARTBEAT to every spectator each interval; one silent for the heartbeat timeout is let go.
    private func startTicker() {
        state.withLock { state in
            guard state.ticker == nil else { return }
            let interval = self.interval
            state.ticker = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { return }
                    guard let self, self.tick() else { return }
                }
            }
        }
    }

    private func tick() -> Bool {
        state.withLock { state in
            guard !state.links.isEmpty else {
                state.ticker = nil
                return false
            }
            for (id, link) in state.links {
                if ContinuousClock.now - link.connection.lastHeard > silence {
                    drop(id, .goodbyeSilence, "No word from you for \(silence.roundedUpSeconds) s.", &state)
                } else {
                    send(.heartbeat(senderTime: UInt64(clamping: clock())), to: id, &state)
                }
            }
            return true
        }
    }

    // MARK: Participant

    public func attach(to controller: MatchController) {
        state.withLock { $0.controller = controller }
    }

    /// Spectators hear the table's talk and may say lines, judged by `talk` as any link's.
    func hearTalk(through talk: TableTalk) {
        state.withLock { $0.talk = talk }
    }
    public func turnBegan(_ state: MatchState) {}
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {}

    public func stateChanged(_ newState: MatchState, event: MatchEvent) {
        if case .talk(let line) = event {
            // After the change it follows, as on the guests' links: held until that change is revealed.
            queue.async { [self] in
                state.withLock { state in
                    if let revealed = state.revealed, revealed.sequence >= line.afterSequence, state.heldTalk.isEmpty {
                        for id in Array(state.links.keys) { send(.talk(.relayed(line)), to: id, &state) }
                    } else {
                        state.heldTalk.append(line)
                    }
                }
            }
            return
        }
        guard case .committed(let change, let committed) = event else { return }
        let frame = ChangeMessageKind(change).message(sequence: committed.sequence, blob: MatchBlob.encode(committed))
        guard let persist = state.withLock({ $0.persist }) else {
            queue.async { [self] in reveal(committed, frame) }
            return
        }
        // Nothing reveals a state before it is saved; a failed save reveals nothing (the guests' links pause).
        persist(committed) { [self] error in
            if error == nil { queue.async { [self] in reveal(committed, frame) } }
        }
    }

    /// Waits until every change handed over so far has gone out to the spectators (tests).
    func drain() { queue.sync {} }

    private func reveal(_ committed: MatchState, _ frame: Message) {
        state.withLock { state in
            guard let revealed = state.revealed, revealed.matchID == committed.matchID, committed.sequence > revealed.sequence else { return }
            state.revealed = committed
            for id in Array(state.links.keys) { send(frame, to: id, &state) }
            while let line = state.heldTalk.first, line.afterSequence <= committed.sequence {
                state.heldTalk.removeFirst()
                for id in Array(state.links.keys) { send(.talk(.relayed(line)), to: id, &state) }
            }
            if let final = state.final, final.sequence == committed.sequence {
                for id in Array(state.links.keys) { sayGoodbye(id, final: final, &state) }
            }
        }
    }

    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {
        queue.async { [self] in ended(final, failure: failure) }
    }

    private func ended(_ final: MatchState, failure: MatchFailure?) {
        state.withLock { state in
            guard let failure else {
                state.final = final
                if state.revealed?.sequence == final.sequence {
                    for id in Array(state.links.keys) { sayGoodbye(id, final: final, &state) }
                }
                return
            }
            // Interrupted on the host (it may be resumed): spectators are let go without an end.
            for id in Array(state.links.keys) {
                drop(id, .goodbyeSilence, "The match stopped on the host: \(failure)", &state)
            }
        }
    }
}

// MARK: - The spectator's side

/// A match this side watches (`parlor watch`): the link to the host and,
/// once the match has begun, the state to show. Build a controller with
/// `makeController(for:)` from `firstState()`: it has no local seat, so
/// nothing typed here can move; every state comes from the host.
public struct WatchedMatch: Sendable {
    /// The host's WATCHING.
    public let welcome: SpectatorWelcome
    /// The host's link, feeding the controller.
    public let feed: SpectatorFeed

    /// The match as the host first shows it: at once when WATCHING carried
    /// it, else when the host's STATE arrives (the match begins); nil when
    /// the link ended first (`feed.failure` says why).
    public func firstState() async -> MatchState? { await feed.firstState() }

    /// A controller for `state` in which every seat is the host's: one seat
    /// is the feed's authority (it adopts each state the host sends), the
    /// rest relay. Start it with `start()`.
    public func makeController(for state: MatchState) -> MatchController {
        let seats: [any Participant] = state.seats.indices.map { index in
            index == 0 ? feed.authority(for: state) as any Participant : RelayedSeat(playerID: state.seats[index].playerID)
        }
        var configuration = MatchController.Configuration()
        configuration.talk = SpectatorTalkOutlet(feed: feed)
        return MatchController(state: state, participants: seats, configuration: configuration)
    }
}

/// A spectator's own lines of table talk (section 18): TALK say to the host,
/// which judges them as any link's and relays them with the spectator's name.
struct SpectatorTalkOutlet: TalkOutlet {
    let feed: SpectatorFeed
    var speaksWithoutSeat: Bool { true }

    func say(_ text: String, seat: SeatIndex, in controller: MatchController) async {
        feed.say(text)
    }
}

/// Watching a host (`parlor watch HOST:PORT`).
public enum Spectator {
    /// Sends WATCH (HELLO's layout; `hello.watching` is set here), proves the
    /// code when asked and returns once WATCHING arrives. A REJECT is final.
    public static func watch(over stream: any ByteStream, hello: Hello,
                             options: GuestOptions = GuestOptions()) async throws(JoinError) -> WatchedMatch {
        var hello = hello
        hello.watching = true
        hello.matchID = nil
        hello.seatToken = nil
        let connection = WireConnection(stream: stream)
        let attempt = JoinAttempt<WatchedMatch>(
            hello: hello, connection: connection, options: options,
            accepted: { connection, welcome, _, _ in
                // A HELLO's answer to a WATCH: not a host that knows spectators.
                connection.close()
                return WatchedMatch(welcome: SpectatorWelcome(protocolVersion: welcome.protocolVersion, heartbeatIntervalMilliseconds: 3000,
                                                              heartbeatTimeoutMilliseconds: 15000, hostAppVersion: welcome.hostAppVersion,
                                                              watching: 1, matchBlob: []),
                                    feed: SpectatorFeed(connection: connection, first: nil, interval: .seconds(3), timeout: .seconds(15),
                                                        clock: options.clock, failure: "the host sent WELCOME to a WATCH"))
            },
            watched: { connection, welcome, match in
                let feed = SpectatorFeed(connection: connection, first: match,
                                         interval: .milliseconds(welcome.heartbeatIntervalMilliseconds),
                                         timeout: .milliseconds(welcome.heartbeatTimeoutMilliseconds), clock: options.clock)
                return WatchedMatch(welcome: welcome, feed: feed)
            })
        return try await attempt.run().get()
    }
}

/// The spectator's link to the host: takes every state the host sends (TURN,
/// QUIT, STATE, the end's GOODBYE) as a whole state and has the controller
/// adopt it, so a spectator's copy is always the host's; heartbeats both
/// ways, and a host silent for the heartbeat timeout ends the watching.
public final class SpectatorFeed: Sendable {
    private struct State {
        var latest: MatchState?
        var controller: MatchController?
        var authority: WatchedSeat?
        var waiters: [CheckedContinuation<MatchState?, Never>] = []
        var failure: String?
        var ended = false
        var ticker: Task<Void, Never>?
    }

    private let connection: WireConnection
    private let interval: Duration
    private let timeout: Duration
    private let clock: @Sendable () -> Int64
    private let state: Mutex<State>

    init(connection: WireConnection, first: MatchState?, interval: Duration, timeout: Duration,
         clock: @escaping @Sendable () -> Int64, failure: String? = nil) {
        self.connection = connection
        self.interval = interval
        self.timeout = timeout
        self.clock = clock
        self.state = Mutex(State(latest: first, failure: failure))
        guard failure == nil else { return }
        connection.setHandler { [weak self] inbound in await self?.receive(inbound) }
        connection.markHeard()
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                guard let self, await self.tick() else { return }
            }
        }
        state.withLock { $0.ticker = ticker }
    }

    /// Why watching stopped before the end, if it did.
    public var failure: String? { state.withLock { $0.failure } }

    /// Says a line to the table (TALK say); the host's answer comes back as a relayed line or a refusal.
    func say(_ text: String) {
        guard !state.withLock({ $0.ended }) else { return }
        connection.send(.talk(.say(Array(text.utf8))))
    }

    /// Leaves: GOODBYE(leaving) to the host, then close.
    public func leave() {
        let ticker = state.withLock { state -> Task<Void, Never>? in
            state.ended = true
            return state.ticker
        }
        ticker?.cancel()
        connection.send(.goodbye(.goodbyeLeaving, sentence: "stopped watching", finalBlob: []))
        connection.close()
    }

    func firstState() async -> MatchState? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> MatchState?? in
                if let latest = state.latest { return .some(latest) }
                if state.failure != nil || state.ended { return .some(nil) }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func authority(for match: MatchState) -> WatchedSeat {
        let seat = WatchedSeat(playerID: match.seats[0].playerID, feed: self)
        state.withLock { $0.authority = seat }
        return seat
    }

    /// The controller started: it catches up with what arrived meanwhile.
    func attached(_ controller: MatchController) async {
        let (latest, seat) = state.withLock { state -> (MatchState?, WatchedSeat?) in
            state.controller = controller
            return (state.latest, state.authority)
        }
        guard let latest, let seat else { return }
        await controller.adopt(latest, from: seat)
    }

    private func receive(_ inbound: Inbound) async {
        switch inbound {
        case .message(.turn(_, let blob)), .message(.quit(_, let blob)), .message(.state(let blob)):
            await take(blob, final: false)
        case .message(.goodbye(.goodbyeMatchOver, _, let blob)) where !blob.isEmpty:
            await take(blob, final: true)
        case .message(.goodbye(let reason, let sentence, _)):
            await stop("the host let us go: \(reason.shown(with: sentence))")
        case .message(.seat(let presence)):
            if let controller = state.withLock({ $0.controller }) {
                await controller.reportPresence(seat: presence.seat, away: presence.away,
                                                graceLeft: .milliseconds(presence.graceLeftMilliseconds))
            }
        case .message(.talk(.relayed(let line))):
            // A line said at the table: shown between the same moves as on the players' screens.
            if let controller = state.withLock({ $0.controller }) { await controller.relayTalk(line) }
        case .message(.talk(.refused(let reason, let sentence))):
            if let controller = state.withLock({ $0.controller }) {
                await controller.reportTalkRefused(TalkCheck.Refusal(reason: reason, sentence: sentence).talkRefusal)
            }
        case .message(.heartbeat), .message(.turnRejected):
            return
        case .message(let other):
            connection.send(.goodbye(.goodbyeProtocolError, sentence: "a spectator does not expect \(other.type)", finalBlob: []))
            await stop("the host sent \(other.type), which a spectator does not expect")
        case .frameError(let error):
            await stop("the host broke the protocol: \(error)")
        case .messageError(let error):
            await stop("the host broke the protocol: \(error)")
        case .closed(let why, _):
            await stop("the host closed the connection" + (why.map { " (\($0))" } ?? ""))
        }
    }

    /// A whole state from the host: the first one ends `firstState()`'s wait; a
    /// later one of the same match replaces the controller's (it must keep every move).
    private func take(_ blob: [UInt8], final: Bool) async {
        let match: MatchState
        do { match = try MatchBlob.decode(blob) } catch {
            connection.send(.goodbye(.goodbyeProtocolError, sentence: "invalid match blob", finalBlob: []))
            await stop("the host sent an invalid match: \(error)")
            return
        }
        let (waiters, controller, seat) = state.withLock { state -> ([CheckedContinuation<MatchState?, Never>], MatchController?, WatchedSeat?) in
            if let latest = state.latest, latest.matchID == match.matchID, match.sequence < latest.sequence { return ([], nil, nil) }
            if let latest = state.latest, latest.matchID != match.matchID, state.controller != nil { return ([], nil, nil) }
            state.latest = match
            if final { state.ended = true }
            defer { state.waiters = [] }
            return (state.waiters, state.controller, state.authority)
        }
        for waiter in waiters { waiter.resume(returning: match) }
        if let controller, let seat {
            // One change on from what is shown: commit it as that change, so the screen tells
            // the move as a player's screen does; anything else replaces the state whole.
            var committed = false
            if let successor = await controller.state.successor(decoding: blob),
               case .committed = await controller.submit(successor, from: seat) {
                committed = true
            }
            if !committed { await controller.adopt(match, from: seat) }
        }
        if final {
            state.withLock { $0.ticker }?.cancel()
            connection.close()
        }
    }

    private func stop(_ why: String) async {
        let (waiters, controller, ticker) = state.withLock { state -> ([CheckedContinuation<MatchState?, Never>], MatchController?, Task<Void, Never>?) in
            guard !state.ended else { return ([], nil, nil) }
            state.ended = true
            state.failure = why
            defer { state.waiters = [] }
            return (state.waiters, state.controller, state.ticker)
        }
        ticker?.cancel()
        connection.close()
        for waiter in waiters { waiter.resume(returning: nil) }
        await controller?.fail(.connectionLost(why))
    }

    private func tick() async -> Bool {
        if state.withLock({ $0.ended }) { return false }
        if ContinuousClock.now - connection.lastHeard > timeout {
            await stop("no word from the host for \(timeout.roundedUpSeconds) s")
            return false
        }
        connection.send(.heartbeat(senderTime: UInt64(clamping: clock())))
        return true
    }
}

/// The seat through which a spectator's controller takes the host's states:
/// the authority of the watched copy. It never proposes anything.
public final class WatchedSeat: Participant {
    public let playerID: PlayerID
    public var isAuthority: Bool { true }
    private let feed: SpectatorFeed

    init(playerID: PlayerID, feed: SpectatorFeed) {
        self.playerID = playerID
        self.feed = feed
    }

    public func attach(to controller: MatchController) {
        let feed = self.feed
        Task { await feed.attached(controller) }
    }
    public func turnBegan(_ state: MatchState) {}
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {
        throw DeliveryError.rejected(SpectatorGallery.cannotMove)
    }
    public func stateChanged(_ newState: MatchState, event: MatchEvent) {}
    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {}
}
