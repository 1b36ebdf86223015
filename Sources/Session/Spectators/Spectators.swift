import Dispatch
import Foundation
import Games
import Glibc
import Match
import Secure
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
///
/// **The fan-out** (what 50 spectators cost the players, `parlor bench turns
/// --spectators`): the controller's callback only hands the committed state
/// on, through a queue of its own (`Queue`, a lock held only to add or take
/// jobs): nothing the players wait for takes the spectators' lock or waits
/// for their writes. The frame is encoded once, on the gallery's own thread,
/// and every link gets the same buffer (one write each, no copy per link).
/// That thread starts with the first spectator, runs at a lower priority
/// than the rest of the host (nice + 5), waits `gatherTime` after it is woken
/// so that changes committed close together leave in one write per link,
/// writes outside the lock, and writes only after the save that reveals a
/// change, whose callbacks have sent the guests' frames (CONFIRM, the push)
/// first. With nobody watching there is no thread: the gallery only keeps
/// the newest revealed state for whoever comes.
public final class SpectatorGallery: Participant {
    /// Spectators a host allows by default (`--spectators`).
    public static let defaultLimit = 16
    /// Bytes that may wait for one spectator before it is dropped: four of the largest frames.
    public static let defaultQueueLimit = 1 << 20

    /// A fresh id that is no seat's: the controller never takes a change from it.
    public let playerID = PlayerID.random()
    /// False: the gallery only shows the match.
    public var isAuthority: Bool { false }
    /// It shows spectators committed changes only (`stateChanged`).
    public var takesDeliveries: Bool { false }
    /// Spectators allowed at once; 0 forbids watching.
    public let limit: Int
    /// Bytes that may wait for one spectator before it is dropped.
    public let queueLimit: Int

    private struct Link {
        var connection: WireConnection
        var name: String
        /// Whether its parlor reads a move's message (its WATCH offered protocol 4);
        /// else it is shown every state without them (`MatchState.withoutMessages`).
        var readsTurnMessages: Bool
        /// When it gets a HEARTBEAT, and when it is silent (no grace: it is let go then).
        var liveness: Liveness
        /// Ticks `liveness` (the process's `LivenessClock`); let go, and so disarmed, with the link.
        var timer: LivenessClock.Timer
    }

    private struct State {
        var links: [UInt64: Link] = [:] {
            didSet {
                if links.count != oldValue.count {
                    counts.yield(links.count)
                    settled.bump()
                }
            }
        }
        let counts: AsyncStream<Int>.Continuation
        /// Bumped whenever someone comes or goes, and when the fan-out thread stops (`endDelivered`).
        let settled: SettleSignal
        var nextID: UInt64 = 0
        /// The newest state spectators may see (saved, when saving is on); nil before a match begins.
        var revealed: MatchState?
        /// The match ended: GOODBYE(matchOver) once the final state is revealed.
        var final: MatchState?
        /// A rematch may follow this match: at its end the spectators stay for
        /// the next match's STATE, and get GOODBYE only when the series is over.
        var staysForRematch = false
        /// Who sits where while a table fills (TABLE with no seat of its own), until its match begins.
        var seating: TableSeating?
        var dropped: [String] = []
        /// Table talk (section 18): where a spectator's own lines are judged, the
        /// controller that relays them, and relayed lines waiting for the change they follow.
        var talk: TableTalk?
        var controller: MatchController?
        var heldTalk: [TalkLine] = []
        /// The table's seats that are away now (or played by a stand-in bot), as SEAT
        /// tells them: a spectator gets them as a guest does, and one who arrives gets them at once.
        var away: [SeatIndex: SeatPresence] = [:]
        /// The final state, once spectators may see it (saved, when saving is on).
        func finalRevealed() -> MatchState? {
            guard let final, let revealed, revealed.matchID == final.matchID, revealed.sequence == final.sequence else { return nil }
            return final
        }
        /// Links told goodbye whose last bytes may not have left this process yet.
        var closing: [WireConnection] = []
        /// While the fan-out thread works through its jobs: what the links get, sent after in one write each.
        var outbox: Outbox?
        /// Run once the fan-out thread's writes have gone out (`drain`).
        var afterFlush: [@Sendable () -> Void] = []
    }

    /// What one round of the fan-out thread sends: the frames every link
    /// gets, joined once, and the few meant for one link only, each with
    /// where among the shared bytes it falls.
    private struct Outbox {
        var shared: [UInt8] = []
        var own: [UInt64: [(at: Int, bytes: [UInt8])]] = [:]

        /// All of it for `id`, in order: the shared buffer itself when there is nothing of its own.
        func bytes(for id: UInt64) -> [UInt8] {
            guard let own = own[id] else { return shared }
            var bytes: [UInt8] = [], from = 0
            for (at, frame) in own {
                bytes += shared[from..<at]
                bytes += frame
                from = at
            }
            return bytes + shared[from...]
        }
    }

    /// The players' side of the gallery: the save each change waits for, and
    /// the jobs handed to the fan-out thread in commit order. Its lock is held
    /// only to read the save or to add or take jobs (lock order: `state`, then this).
    private struct Queue {
        var persist: RemoteGuest.Persist?
        var jobs: [@Sendable (inout State) -> Void] = []
        /// Whether the fan-out thread runs (from the first job with someone watching until nobody is and nothing waits).
        var running = false
    }

    /// How long the fan-out thread gathers changes before it writes them.
    static let gatherTime: Duration = .milliseconds(2)
    /// Wakes the fan-out thread.
    private let wake = DispatchSemaphore(value: 0)

    /// Each spectator's heartbeats and silence: no grace, a silent spectator is let go.
    private let timing: Liveness.Settings
    private let appVersion: String
    private let clock: @Sendable () -> Int64
    private let state: Mutex<State>
    private let queue = Mutex(Queue())
    /// The same signal as `State.settled`, to wait on outside the lock.
    private let settled: SettleSignal
    /// The number watching, each time it changes (the newest only), for the host's TXT record.
    public let changes: AsyncStream<Int>

    /// A gallery for at most `limit` spectators, with the host's heartbeat timers.
    init(limit: Int, queueLimit: Int = SpectatorGallery.defaultQueueLimit, timeouts: SessionTimeouts, appVersion: String,
         clock: @escaping @Sendable () -> Int64) {
        self.limit = max(0, limit)
        self.queueLimit = queueLimit
        self.timing = Liveness.Settings(interval: timeouts.heartbeatInterval, timeout: timeouts.heartbeatTimeout, grace: .zero)
        self.appVersion = appVersion
        self.clock = clock
        let (changes, sink) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.changes = changes
        self.settled = SettleSignal()
        self.state = Mutex(State(counts: sink, settled: settled))
    }

    /// Spectators watching now.
    public var count: Int { state.withLock { $0.links.count } }

    /// Whether one more spectator may watch.
    var hasRoom: Bool { state.withLock { $0.links.count < limit } }

    /// Why spectators were dropped so far ("Cy: fell too far behind"), oldest first.
    public var droppedReasons: [String] { state.withLock { $0.dropped } }

    /// Has every change wait for `save` before spectators see it (the table's one save per state).
    public func persistBeforeSending(asynchronously save: @escaping RemoteGuest.Persist) {
        queue.withLock { $0.persist = save }
    }

    /// Sends `message` to every spectator (a message every link at the table gets).
    public func relay(_ message: Message) {
        let bytes = message.encoded
        enqueue { [self] state in broadcast(bytes, &state) }
    }

    // MARK: Admission and links

    /// Takes over an admitted spectator's connection: WATCHING with the match as
    /// it stands (the final state and GOODBYE if it has ended), then every change.
    func admit(_ connection: WireConnection, name: String, readsTurnMessages: Bool = true) {
        connection.markHeard()
        state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            let timer = LivenessClock.shared.timer { [weak self] in self?.heartbeatTick(id) }
            let link = Link(connection: connection, name: name, readsTurnMessages: readsTurnMessages,
                            liveness: Liveness(settings: timing, now: .now), timer: timer)
            state.links[id] = link
            connection.setHandler { [weak self] inbound in
                self?.receive(inbound, from: id)
                return nil
            }
            let blob = state.revealed.map { Self.blob(of: $0, for: link) } ?? []
            connection.send(.watching(SpectatorWelcome(
                protocolVersion: FrameFormat.tableVersion, heartbeatIntervalMilliseconds: timing.interval.wireMilliseconds,
                heartbeatTimeoutMilliseconds: timing.timeout.wireMilliseconds, hostAppVersion: appVersion,
                watching: UInt16(clamping: state.links.count), matchBlob: blob)))
            if state.revealed == nil, let seating = state.seating { connection.send(.table(seating)) }
            for presence in state.away.values.sorted(by: { $0.seat < $1.seat }) { connection.send(.seat(presence)) }
            if let final = state.finalRevealed(), !state.staysForRematch {
                sayGoodbye(id, final: final, &state)
            } else {
                armHeartbeats(id, now: .now, &state)
            }
        }
    }

    // MARK: The fan-out

    /// Runs `job` in commit order with the state: on the fan-out thread while
    /// anyone watches (started here for the first), else at once (there is nobody to write to).
    /// While that thread runs, this takes only the queue's lock.
    private func enqueue(_ job: @escaping @Sendable (inout State) -> Void) {
        let queued = queue.withLock { queue -> Bool in
            guard queue.running else { return false }
            queue.jobs.append(job)
            return true
        }
        if queued {
            wake.signal()
            return
        }
        let start = state.withLock { state -> FanOutStart in
            let start = queue.withLock { queue -> FanOutStart in
                if !queue.running && state.links.isEmpty { return .ranHere }
                queue.jobs.append(job)
                if queue.running { return .signal }
                queue.running = true
                return .thread
            }
            if start == .ranHere {
                job(&state)
                runAfterFlush(&state)
            }
            return start
        }
        switch start {
        case .thread:
            let thread = Thread { [self] in fanOut() }
            thread.name = "parlor-spectators"
            thread.start()
        case .signal: wake.signal()
        case .ranHere: break
        }
    }

    private enum FanOutStart { case signal, ranHere, thread }

    /// The fan-out thread: gathers, runs the jobs, then one write per link
    /// outside the lock; ends once nobody watches and nothing waits.
    private func fanOut() {
        if let thread = LinuxCalls.table?.getTID() {
            // Per thread on Linux: this thread only yields to the host's others.
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            _ = setpriority(which, id_t(thread), min(19, getpriority(which, id_t(thread)) + 5))
        }
        var first = true
        while true {
            if !first { wake.wait() }
            first = false
            var gather = timespec(tv_sec: 0, tv_nsec: Int(Self.gatherTime.components.attoseconds / 1_000_000_000))
            nanosleep(&gather, nil)
            let jobs = queue.withLock { queue in
                defer { queue.jobs = [] }
                return queue.jobs
            }
            let writes = state.withLock { state -> [(id: UInt64, connection: WireConnection, bytes: [UInt8])] in
                state.outbox = Outbox()
                for job in jobs { job(&state) }
                let outbox = state.outbox ?? Outbox()
                state.outbox = nil
                return state.links.compactMap { id, link in
                    let bytes = outbox.bytes(for: id)
                    return bytes.isEmpty ? nil : (id, link.connection, bytes)
                }
            }
            for write in writes { write.connection.sendRaw(write.bytes) }
            let more = state.withLock { state -> Bool in
                for write in writes {
                    if let link = state.links[write.id] { checkBound(write.id, link, &state) }
                }
                runAfterFlush(&state)
                let more = queue.withLock { queue -> Bool in
                    guard queue.jobs.isEmpty && state.links.isEmpty else { return true }
                    queue.running = false
                    return false
                }
                if !more { settled.bump() }
                return more
            }
            if !more { return }
        }
    }

    private func runAfterFlush(_ state: inout State) {
        let after = state.afterFlush
        state.afterFlush = []
        for done in after { done() }
    }

    /// `match`'s blob as `link` can read it: without the moves' messages for an older parlor.
    private static func blob(of match: MatchState, for link: Link) -> [UInt8] {
        MatchBlob.encode(link.readsTurnMessages ? match : match.withoutMessages)
    }

    /// The frame `message` makes of `match`'s blob to every link, each given
    /// the blob it can read (one encoding for all while nobody needs another).
    private func broadcast(_ match: MatchState, as message: ([UInt8]) -> Message, _ state: inout State) {
        let full = message(MatchBlob.encode(match)).encoded
        guard match.hasMessages, state.links.values.contains(where: { !$0.readsTurnMessages }) else {
            return broadcast(full, &state)
        }
        let plain = message(MatchBlob.encode(match.withoutMessages)).encoded
        for (id, link) in state.links { send(link.readsTurnMessages ? full : plain, to: id, &state) }
    }

    /// The same encoded frame to every link.
    private func broadcast(_ bytes: [UInt8], _ state: inout State) {
        if state.outbox != nil {
            state.outbox!.shared += bytes
            return
        }
        for id in Array(state.links.keys) { send(bytes, to: id, &state) }
    }

    /// A table's seating changed while it fills (`yourSeat` is `TableSeating.noSeat`): every spectator
    /// gets it as TABLE, as each seated guest does, the last time just before the match's STATE.
    func tableChanged(_ seating: TableSeating) {
        enqueue { [self] state in
            state.seating = seating
            if !state.links.isEmpty { broadcast(Message.table(seating).encoded, &state) }
        }
    }

    /// A match begins (the first, or a rematch): every spectator gets its first state as STATE.
    func begin(_ match: MatchState) {
        enqueue { [self] state in
            state.revealed = match
            state.final = nil
            state.staysForRematch = false
            state.away = [:]
            if !state.links.isEmpty { broadcast(match, as: { .state(blob: $0) }, &state) }
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
                if let revealed = state.revealed { send(.state(blob: Self.blob(of: revealed, for: link)), to: id, &state) }
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
                    } else if let talk, case .off(let why) = talk.availability {
                        TalkCheck.Refusal(reason: .talkOff, sentence: why)
                    } else {
                        // Talk is on, but a line is relayed in the match's order, which has not begun.
                        TalkCheck.Refusal(reason: .talkNotYet, sentence: "Table talk opens when the match begins.")
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
        send(message.encoded, to: id, &state)
    }

    /// Sends one encoded frame: into the link's share of the outbox on the fan-out thread, else at once.
    private func send(_ bytes: [UInt8], to id: UInt64, _ state: inout State) {
        guard let link = state.links[id] else { return }
        if state.outbox != nil {
            let at = state.outbox!.shared.count
            state.outbox!.own[id, default: []].append((at, bytes))
            return
        }
        link.connection.sendRaw(bytes)
        checkBound(id, link, &state)
    }

    private func checkBound(_ id: UInt64, _ link: Link, _ state: inout State) {
        if link.connection.queuedByteCount > queueLimit {
            drop(id, .goodbyeTooSlow, "You fell too far behind the match (over \(queueLimit) bytes waited for you); watch again to catch up.",
                 &state)
        }
    }

    /// What the outbox holds for `id`, written now (before its last frame and close).
    private func flushLink(_ id: UInt64, _ link: Link, _ state: inout State) {
        guard let outbox = state.outbox else { return }
        link.connection.sendRaw(outbox.bytes(for: id))
    }

    private func drop(_ id: UInt64, _ reason: ReasonCode, _ sentence: String, _ state: inout State) {
        guard let link = state.links.removeValue(forKey: id) else { return }
        flushLink(id, link, &state)
        link.connection.send(.goodbye(reason, sentence: String(sentence.prefix(200)), finalBlob: []))
        link.connection.close()
        state.closing.removeAll { $0.queuedByteCount == 0 }
        state.closing.append(link.connection)
        state.dropped.append("\(link.name): " + (reason == .goodbyeTooSlow ? "fell too far behind" : sentence))
    }

    private func sayGoodbye(_ id: UInt64, final: MatchState, _ state: inout State) {
        guard let link = state.links.removeValue(forKey: id) else { return }
        flushLink(id, link, &state)
        link.connection.send(.goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: Self.blob(of: final, for: link)))
        link.connection.close()
        state.closing.removeAll { $0.queuedByteCount == 0 }
        state.closing.append(link.connection)
    }

    /// Arms spectator `id`'s timer for the next instant its liveness can act at.
    private func armHeartbeats(_ id: UInt64, now: ContinuousClock.Instant, _ state: inout State) {
        guard let link = state.links[id] else { return }
        link.timer.schedule(at: link.liveness.nextTick(lastHeard: link.connection.lastHeard, open: true, now: now),
                            tolerance: link.liveness.tolerance)
    }

    /// Spectator `id`'s timer fired: a HEARTBEAT (its queue checked against the bound after it), the
    /// spectator let go for its silence, or nothing yet. A closed connection is the reader's to report.
    private func heartbeatTick(_ id: UInt64) {
        state.withLock { state in
            guard var link = state.links[id] else { return }
            let now = ContinuousClock.now
            let actions = link.liveness.tick(now: now, lastHeard: link.connection.lastHeard, open: true)
            state.links[id] = link
            if actions.contains(.graceExpired) {
                drop(id, .goodbyeSilence, "No word from you for \(timing.timeout.roundedUpSeconds) s.", &state)
                return
            }
            if actions.contains(.sendHeartbeat) { send(.heartbeat(senderTime: UInt64(clamping: clock())), to: id, &state) }
            armHeartbeats(id, now: now, &state)
        }
    }

    // MARK: Participant

    /// Keeps `controller`, through which the spectators' lines of table talk are relayed in the match's order.
    public func attach(to controller: MatchController) {
        state.withLock { $0.controller = controller }
    }

    /// Spectators hear the table's talk and may say lines, judged by `talk` as any link's.
    func hearTalk(through talk: TableTalk) {
        state.withLock { $0.talk = talk }
    }
    /// Nothing: the gallery has no seat.
    public func turnBegan(_ state: MatchState) {}
    /// Nothing: never called, since `takesDeliveries` is false; spectators see changes once committed (`stateChanged`).
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {}

    /// A committed change, a seat away or back, or a line of talk: queued for every
    /// spectator, written on the gallery's thread after the save that reveals it.
    public func stateChanged(_ newState: MatchState, event: MatchEvent) {
        // A guest of a table went away, came back, or a bot stands in: SEAT, as another guest gets it (section 17).
        if let presence = SeatPresence.told(by: event, in: newState) {
            enqueue { [self] state in
                state.away[presence.seat] = presence.away ? presence : nil
                if !newState.isEnded { broadcast(Message.seat(presence).encoded, &state) }
            }
            return
        }
        if case .talk(let line) = event {
            // After the change it follows, as on the guests' links: held until that change is revealed.
            enqueue { [self] state in
                if let revealed = state.revealed, revealed.sequence >= line.afterSequence, state.heldTalk.isEmpty {
                    broadcast(Message.talk(.relayed(line)).encoded, &state)
                } else {
                    state.heldTalk.append(line)
                }
            }
            return
        }
        // Nothing else on the controller's actor: the frame is made on the fan-out thread.
        guard case .committed(let change, let committed) = event else { return }
        guard let persist = queue.withLock({ $0.persist }) else {
            enqueue { [self] state in reveal(committed, change, &state) }
            return
        }
        // Nothing reveals a state before it is saved; a failed save reveals nothing (the guests' links pause).
        persist(committed) { [self] error in
            if error == nil { enqueue { [self] state in reveal(committed, change, &state) } }
        }
    }

    /// Waits (at most `limit`) until every spectator watching when the match
    /// ended has been told the end (or why it stopped) and those last bytes
    /// have left this process, so that a host that exits next does not cut
    /// them off. At once when nobody watches.
    ///
    /// Woken by what it waits for: the last spectator gone and the fan-out
    /// thread stopped (`State.settled`), then each goodbye's connection
    /// emptying its send queue (`WireConnection.waitUntilSent`).
    public func endDelivered(within limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while true {
            // The count is read with what it guards, under the lock its bumps happen under:
            // whatever settles after this check ends the wait at once.
            let (mark, idle, closing) = state.withLock { state -> (UInt64, Bool, [WireConnection]) in
                state.closing.removeAll { $0.queuedByteCount == 0 }
                return (settled.count, state.links.isEmpty && queue.withLock { $0.jobs.isEmpty && !$0.running },
                        state.closing)
            }
            let left = deadline - ContinuousClock.now
            if (idle && closing.isEmpty) || left <= .zero { return }
            guard idle else {
                await settled.wait(beyond: mark, limit: left)
                continue
            }
            for connection in closing { await connection.waitUntilSent(within: deadline - ContinuousClock.now) }
            // Sent, or out of time (the next round returns), or a transport that cannot tell.
            state.withLock { state in state.closing.removeAll { waited in closing.contains { $0 === waited } } }
        }
    }

    /// Waits until every change handed over so far has gone out to the spectators (tests).
    func drain() {
        let done = DispatchSemaphore(value: 0)
        enqueue { state in state.afterFlush.append { done.signal() } }
        done.wait()
    }

    private func reveal(_ committed: MatchState, _ change: MatchChange, _ state: inout State) {
        guard let revealed = state.revealed, revealed.matchID == committed.matchID, committed.sequence > revealed.sequence else { return }
        state.revealed = committed
        if !state.links.isEmpty {
            broadcast(committed, as: { ChangeMessageKind(change).message(sequence: committed.sequence, blob: $0) }, &state)
        }
        while let line = state.heldTalk.first, line.afterSequence <= committed.sequence {
            state.heldTalk.removeFirst()
            broadcast(Message.talk(.relayed(line)).encoded, &state)
        }
        sayGoodbyeAtTheEnd(&state)
    }

    /// GOODBYE(matchOver) to everyone once the final state is revealed, unless they stay for a rematch.
    private func sayGoodbyeAtTheEnd(_ state: inout State) {
        guard let final = state.finalRevealed(), !state.staysForRematch else { return }
        for id in Array(state.links.keys) { sayGoodbye(id, final: final, &state) }
    }

    /// A rematch may follow the match being played (the host's series keeps
    /// the guests' connections too): at its end the spectators are kept, see
    /// the next match begin as STATE, and are told GOODBYE by `seriesOver`.
    public func keepForRematch() {
        enqueue { state in state.staysForRematch = true }
    }

    /// The host's series is over (no rematch, or it stopped): spectators
    /// still kept for a rematch get the end now, and this waits (at most
    /// `limit`, as `endDelivered`) until it has left the process.
    public func seriesOver(within limit: Duration) async {
        enqueue { [self] state in
            state.staysForRematch = false
            sayGoodbyeAtTheEnd(&state)
        }
        await endDelivered(within: limit)
    }

    /// At a normal end every spectator is sent the end, then GOODBYE; a match that
    /// stopped (interrupted, it may be resumed) lets them go with GOODBYE and no end.
    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {
        enqueue { [self] state in ended(final, failure: failure, &state) }
    }

    private func ended(_ final: MatchState, failure: MatchFailure?, _ state: inout State) {
        guard let failure else {
            state.final = final
            sayGoodbyeAtTheEnd(&state)
            return
        }
        // Interrupted on the host (it may be resumed): spectators are let go without an end.
        for id in Array(state.links.keys) {
            drop(id, .goodbyeSilence, "The match stopped on the host: \(failure)", &state)
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
    /// The host's identity key, proved by protocol 3's handshake (nil in clear).
    public var hostKey: PlayerPublicKey? = nil

    /// The match as the host first shows it: at once when WATCHING carried
    /// it, else when the host's STATE arrives (the match begins); nil when
    /// the link ended first (`feed.failure` says why).
    public func firstState() async -> MatchState? { await feed.match(after: nil) }

    /// The next match after `previous` ended, when the players start a
    /// rematch (the host's STATE of a new match); nil when the host says
    /// goodbye instead, or the link ends.
    public func nextMatch(after previous: MatchID) async -> MatchState? { await feed.match(after: previous) }

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
                return WatchedMatch(welcome: welcome, feed: feed, hostKey: (connection.stream as? SecureByteStream)?.peer)
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
        /// Who waits for a match other than the one they name (nil: for any first one).
        var waiters: [(after: MatchID?, continuation: CheckedContinuation<MatchState?, Never>)] = []
        var failure: String?
        var ended = false
        /// When the host gets a HEARTBEAT and when it is silent (no grace: the watching ends then).
        var liveness: Liveness
        /// Ticks `liveness` (the process's `LivenessClock`); nil once the watching ends.
        var timer: LivenessClock.Timer?
        var seating: TableSeating?
        /// What came before the controller started (blobs after the first state, and
        /// talk): shown in order when it does, so a line still follows its change.
        var backlog: [Pending] = []
    }

    /// One thing the host sent before the controller started.
    private enum Pending {
        case blob([UInt8])
        case talk(TalkLine)
        /// A seat away (or back) before the controller started: the host tells a late spectator at once.
        case presence(SeatPresence)
    }

    /// Who sits where while the table fills (TABLE, before its match begins), newest last.
    public let seatings: AsyncStream<TableSeating>
    private let seatingSink: AsyncStream<TableSeating>.Continuation
    private let connection: WireConnection
    private let clock: @Sendable () -> Int64
    private let state: Mutex<State>

    init(connection: WireConnection, first: MatchState?, interval: Duration, timeout: Duration,
         clock: @escaping @Sendable () -> Int64, failure: String? = nil) {
        self.connection = connection
        self.clock = clock
        let liveness = Liveness(settings: Liveness.Settings(interval: interval, timeout: timeout, grace: .zero), now: .now)
        self.state = Mutex(State(latest: first, failure: failure, liveness: liveness))
        (seatings, seatingSink) = AsyncStream<TableSeating>.makeStream(bufferingPolicy: .bufferingNewest(16))
        // WATCHING carried the match (it had begun): no seating will come, and
        // whoever follows the seatings must not wait for the next move to learn it.
        if first != nil { seatingSink.finish() }
        guard failure == nil else { return }
        connection.setHandler { [weak self] inbound in
            switch inbound {
            // A sign of life (heard as the bytes came) or nothing to a spectator: done on the loop's thread.
            case .message(.heartbeat), .message(.turnRejected): nil
            default: { [weak self] in await self?.receive(inbound) }
            }
        }
        connection.markHeard()
        let timer = LivenessClock.shared.timer { [weak self] in self?.heartbeatTick() }
        state.withLock { state in
            guard !state.ended else { return }
            state.timer = timer
            arm(timer, state.liveness, now: .now)
        }
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
        let waiters = state.withLock { state -> [CheckedContinuation<MatchState?, Never>] in
            state.ended = true
            state.timer = nil
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        seatingSink.finish()
        connection.send(.goodbye(.goodbyeLeaving, sentence: "stopped watching", finalBlob: []))
        connection.close()
    }

    /// The newest match that is not `previous` (nil: the first one), once the
    /// host sends it; nil when the link ends first.
    func match(after previous: MatchID?) async -> MatchState? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> MatchState?? in
                if let latest = state.latest, latest.matchID != previous { return .some(latest) }
                if state.failure != nil || state.ended { return .some(nil) }
                state.waiters.append((previous, continuation))
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
        // Each change that came meanwhile is shown as that change (a bot's quick answer is not skipped).
        while true {
            let next = state.withLock { state -> (pending: Pending, seat: WatchedSeat?)? in
                guard !state.backlog.isEmpty else {
                    state.controller = controller
                    return nil
                }
                return (state.backlog.removeFirst(), state.authority)
            }
            guard let next else { break }
            switch next.pending {
            case .blob(let blob):
                if let seat = next.seat, let match = try? MatchBlob.decode(blob) { await show(blob, match, in: controller, from: seat) }
            case .talk(let line):
                await controller.relayTalk(line)
            case .presence(let presence):
                await controller.reportPresence(seat: presence.seat, away: presence.away,
                                                graceLeft: .milliseconds(presence.graceLeftMilliseconds))
            }
        }
        let (latest, seat) = state.withLock { ($0.latest, $0.authority) }
        guard let latest, let seat else { return }
        let shown = await controller.state
        if shown.sequence != latest.sequence || shown.matchID != latest.matchID { await controller.adopt(latest, from: seat) }
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
            // One that comes before the controller started (a late spectator is told which seats are away
            // right after WATCHING) waits in the backlog, in order, as talk does.
            let controller = state.withLock { state -> MatchController? in
                if state.controller == nil { state.backlog.append(.presence(presence)) }
                return state.controller
            }
            if let controller {
                await controller.reportPresence(seat: presence.seat, away: presence.away,
                                                graceLeft: .milliseconds(presence.graceLeftMilliseconds))
            }
        case .message(.talk(.relayed(let line))):
            // A line said at the table: shown between the same moves as on the players' screens;
            // one that comes before the controller started waits in the backlog behind its change.
            let controller = state.withLock { state -> MatchController? in
                if state.controller == nil { state.backlog.append(.talk(line)) }
                return state.controller
            }
            if let controller { await controller.relayTalk(line) }
        case .message(.talk(.refused(let reason, let sentence))):
            if let controller = state.withLock({ $0.controller }) {
                await controller.reportTalkRefused(TalkCheck.Refusal(reason: reason, sentence: sentence).talkRefusal)
            }
        case .message(.table(let seating)):
            // A table that fills: who sits where so far (the match's STATE follows the last one).
            // The same seating twice (one sent as it came in, one of the change it raced) is shown once.
            let new = state.withLock { state -> Bool in
                guard state.latest == nil, state.seating != seating else { return false }
                state.seating = seating
                return true
            }
            if new { seatingSink.yield(seating) }
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
        let (ready, controller, seat) = state.withLock { state -> ([(CheckedContinuation<MatchState?, Never>, MatchState?)], MatchController?, WatchedSeat?) in
            if let latest = state.latest, latest.matchID == match.matchID, match.sequence < latest.sequence { return ([], nil, nil) }
            if let latest = state.latest, latest.matchID != match.matchID, state.controller != nil {
                // Another match while one is shown: a rematch once that one has ended, else not to be believed.
                guard latest.isEnded, !final else { return ([], nil, nil) }
                state.controller = nil
                state.authority = nil
                state.backlog = []
            } else if state.latest != nil, state.controller == nil {
                state.backlog.append(.blob(blob))
            }
            state.latest = match
            if final { state.ended = true }
            var ready: [(CheckedContinuation<MatchState?, Never>, MatchState?)] = []
            state.waiters.removeAll { waiter in
                if waiter.after != match.matchID { ready.append((waiter.continuation, match)) } else if final { ready.append((waiter.continuation, nil)) } else { return false }
                return true
            }
            return (ready, state.controller, state.authority)
        }
        for (waiter, match) in ready { waiter.resume(returning: match) }
        seatingSink.finish()
        if let controller, let seat { await show(blob, match, in: controller, from: seat) }
        if final {
            state.withLock { $0.timer = nil }
            connection.close()
        }
    }

    /// One change on from what is shown: committed as that change, so the screen tells
    /// the move as a player's screen does; anything else replaces the state whole.
    private func show(_ blob: [UInt8], _ match: MatchState, in controller: MatchController, from seat: WatchedSeat) async {
        if let successor = await controller.state.successor(decoding: blob),
           case .committed = await controller.submit(successor, from: seat) {
            return
        }
        await controller.adopt(match, from: seat)
    }

    private func stop(_ why: String) async {
        let (waiters, controller) = state.withLock { state -> ([CheckedContinuation<MatchState?, Never>], MatchController?) in
            guard !state.ended else { return ([], nil) }
            state.ended = true
            state.failure = why
            state.timer = nil
            defer { state.waiters = [] }
            return (state.waiters.map(\.continuation), state.controller)
        }
        connection.close()
        for waiter in waiters { waiter.resume(returning: nil) }
        seatingSink.finish()
        await controller?.fail(.connectionLost(why))
    }

    /// Arms `timer` for the next instant `liveness` can act at.
    private func arm(_ timer: LivenessClock.Timer, _ liveness: Liveness, now: ContinuousClock.Instant) {
        timer.schedule(at: liveness.nextTick(lastHeard: connection.lastHeard, open: true, now: now), tolerance: liveness.tolerance)
    }

    /// The timer fired, on the loop's thread: a HEARTBEAT, the watching stopped for the host's
    /// silence, or nothing yet. A closed connection is the reader's to report (`stop`).
    private func heartbeatTick() {
        let now = ContinuousClock.now
        let (actions, timeout) = state.withLock { state -> ([Liveness.Action], Duration) in
            guard !state.ended, let timer = state.timer else { return ([], .zero) }
            let actions = state.liveness.tick(now: now, lastHeard: connection.lastHeard, open: true)
            if !actions.contains(.graceExpired) { arm(timer, state.liveness, now: now) }
            return (actions, state.liveness.settings.timeout)
        }
        if actions.contains(.graceExpired) {
            let why = "no word from the host for \(timeout.roundedUpSeconds) s"
            Task { await self.stop(why) }
        } else if actions.contains(.sendHeartbeat) {
            connection.send(.heartbeat(senderTime: UInt64(clamping: clock())))
        }
    }
}

/// The seat through which a spectator's controller takes the host's states:
/// the authority of the watched copy. It never proposes anything.
public final class WatchedSeat: Participant {
    /// The player id of the seat the host's states arrive through.
    public let playerID: PlayerID
    /// True: the host's copy is the match; the spectator's controller adopts it.
    public var isAuthority: Bool { true }
    private let feed: SpectatorFeed

    init(playerID: PlayerID, feed: SpectatorFeed) {
        self.playerID = playerID
        self.feed = feed
    }

    /// Hands `controller` to the feed, which adopts the host's states into it from now on.
    public func attach(to controller: MatchController) {
        let feed = self.feed
        Task { await feed.attached(controller) }
    }
    /// Nothing: a spectator never moves.
    public func turnBegan(_ state: MatchState) {}
    /// Always throws `DeliveryError.rejected`: a spectator cannot move.
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {
        throw DeliveryError.rejected(SpectatorGallery.cannotMove)
    }
    /// Nothing: the feed drives the controller.
    public func stateChanged(_ newState: MatchState, event: MatchEvent) {}
    /// Nothing to stop here: the feed ends with the host's link.
    public func matchEnded(_ final: MatchState, failure: MatchFailure?) {}
}
