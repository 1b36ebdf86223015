import Dispatch
import Match

/// A table of a `TableHall` whose guest sat down (new, or back for a saved match).
public struct HallTable: Sendable {
    /// The table's number, 1 to the hall's limit; a freed number is given out again.
    public let number: Int
    /// The table's own host: its handshakes, seats, timeouts and resume.
    public let host: MatchHost
    /// The match at the table, ready for a controller.
    public let match: HostedMatch
    /// Whether the table plays a saved match again (`parlor resume` of a hall).
    public let resumed: Bool
}

/// One connection's handshake result at a hall, with the table it reached (nil: the hall refused it).
public struct HallReport: Sendable {
    /// The table the connection was handed to; nil when the hall itself answered.
    public var table: Int?
    /// What became of the connection.
    public var report: ConnectionReport
}

/// Many tables behind one listening port (`parlor host GAME --tables N`):
/// every table is a `MatchHost` of its own (its own match id, seats, seat
/// tokens, timeouts and resume), and the hall routes each connection to one.
///
/// Routing reads the connection's first frame (at most `peekLimit` bytes,
/// within the handshake timeout) without taking it: a HELLO naming a match
/// id goes to the table that plays that match (a guest coming back); any
/// other first frame (a new guest's HELLO, or bytes that are no HELLO at
/// all, which the table's handshake answers as it always does) goes to the
/// open table: one whose host has no guest and no new guest in its
/// handshake. When there is none, a new table opens, up to `limit`; past it
/// the hall answers REJECT matchFull naming the limit (docs/PROTOCOL.md,
/// section 19). A table whose match is over is given back with
/// `release(_:)`, which frees its slot. A new table's host is made off the
/// hall's actor (with a passcode, deriving its key takes tens of ms), so
/// every other connection is routed meanwhile.
///
/// The tables share the one event-loop thread of the TCP shell: the hall
/// adds no thread, and a table's hostile peer meets its own table's limits.
public actor TableHall {
    private struct Entry {
        var host: MatchHost
        /// The match played here, once the guest sat down (or the saved one).
        var matchID: MatchID?
        /// New guests handed to this table whose handshake has not ended, by peer.
        var inFlight: Set<String> = []
        /// The host reported a guest admitted (its match may not have reached the hall yet).
        var taken = false
        /// A saved match whose guest has not come back yet.
        var awaitingSavedGuest = false
        var watchers: [Task<Void, Never>] = []

        /// Whether a new guest may be handed to this table now.
        var isOpen: Bool { matchID == nil && !taken && inFlight.isEmpty }
    }

    /// How many tables may play at once.
    public let limit: Int
    /// Every table whose guest sat down, in the order they did.
    public nonisolated let admissions: AsyncStream<HallTable>
    private let admissionSink: AsyncStream<HallTable>.Continuation
    /// One report per connection whose handshake ended, at a table or at the hall.
    public nonisolated let reports: AsyncStream<HallReport>
    private let reportSink: AsyncStream<HallReport>.Continuation
    private let configuration: HostConfiguration
    /// How passcode guesses in protocol 3's handshake are paced, over all tables.
    private let guesses: PasscodeGuesses
    private var tables: [Int: Entry] = [:]
    /// Tables whose host is being made (a passcode's key takes tens of ms to
    /// derive): the guest's connection each was opened for, and connections
    /// with no HELLO first that wait for it to answer them.
    private var opening: [Int: (guest: (any ByteStream)?, others: [any ByteStream])] = [:]
    /// Makes a new table's host; off the hall's actor, so routing goes on meanwhile.
    private let makeHost: @Sendable (HostConfiguration) -> MatchHost?
    private var byMatch: [MatchID: Int] = [:]
    private var peeking = 0
    private var isShutDown = false

    /// How long a table whose match ended is kept for a guest that has not
    /// acknowledged the end: one whose link dropped comes back with its token
    /// and is given the end (docs/PROTOCOL.md section 19).
    public static let endHeld: Duration = .seconds(30)

    /// At most this many connections have their first frame read at once; more are refused busy.
    public static let maximumPeeking = 256
    /// The most bytes read while looking for the first frame; a HELLO is far smaller.
    public static let peekLimit = 4096

    /// A hall of up to `limit` tables of `configuration`; `saved` matches
    /// (`parlor resume` of a hall) take their tables first and wait for their guests.
    /// Throws what `MatchHost.init` throws.
    public init(configuration: HostConfiguration, limit: Int, resuming saved: [SavedHostMatch] = []) throws(HostError) {
        try self.init(configuration: configuration, limit: limit, resuming: saved) { try? MatchHost(configuration: $0) }
    }

    /// A hall whose new tables' hosts come from `makeHost` (a test's slow one).
    init(configuration: HostConfiguration, limit: Int, resuming saved: [SavedHostMatch] = [],
         makeHost: @escaping @Sendable (HostConfiguration) -> MatchHost?) throws(HostError) {
        self.makeHost = makeHost
        guard limit >= 1 else { throw .badTable("a hall needs at least one table") }
        guard saved.count <= limit else {
            throw .badTable("\(saved.count) saved matches do not fit in \(limit) tables")
        }
        self.limit = limit
        let guesses = configuration.sharedGuesses ?? PasscodeGuesses(throttle: configuration.passcodeThrottle)
        self.guesses = guesses
        // Every table's host paces its guesses in the hall's one queue.
        var configuration = configuration
        configuration.sharedGuesses = guesses
        self.configuration = configuration
        (admissions, admissionSink) = AsyncStream<HallTable>.makeStream()
        (reports, reportSink) = AsyncStream<HallReport>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        for (index, match) in saved.enumerated() {
            var own = configuration
            own.hostName = match.state.seats[match.hostSeat].name
            own.hostPlayerID = match.state.seats[match.hostSeat].playerID
            own.turnTimeoutSeconds = match.state.turnTimeout
            own.passcode = nil  // a seat token is the key back
            let host = try MatchHost(configuration: own, resuming: match)
            tables[index + 1] = Entry(host: host, matchID: match.state.matchID, awaitingSavedGuest: true)
            byMatch[match.state.matchID] = index + 1
        }
    }

    /// Starts watching the saved tables; `serve` calls it, a test may call it first.
    private var started = false
    private func startWatching() {
        guard !started else { return }
        started = true
        for number in tables.keys.sorted() { watch(number, resumed: true) }
    }

    /// Hands every connection `listener` accepts to `accept`, behind `security`'s
    /// channel, until the listener closes or the task is cancelled.
    /// With protocol 3, the channel checks the hall's passcodes (`HostConfiguration.channelPasscodes`).
    public nonisolated func serve(_ listener: TCPListener, security: ChannelSecurity) async {
        await startWatching()
        let sink = reportSink
        let security = security.checking(configuration.channelPasscodes, guesses: guesses) { peer in
            sink.yield(HallReport(table: nil, report: ConnectionReport(peer: peer, outcome: .rejected(.passcodeWrong, sentence: PasscodeSentences.wrong))))
        }
        for await connection in listener.connections {
            await accept(security.accepting(connection.byteStream()))
        }
    }

    /// Tables with a host now (playing, open, or waiting for a saved match's guest).
    public var tableCount: Int { tables.count }

    /// Tables whose guest sat down and whose match is not released yet.
    public var tablesInPlay: Int { tables.values.filter { $0.matchID != nil }.count }

    /// Whether a new guest would get a table now.
    public var hasRoom: Bool {
        !isShutDown && (tables.count + opening.count < limit || tables.values.contains(where: \.isOpen))
    }

    /// Reads the first frame of `stream` and hands it to its table. Returns at once.
    public func accept(_ stream: any ByteStream) {
        startWatching()
        guard !isShutDown else {
            stream.close()
            return
        }
        guard peeking < Self.maximumPeeking else {
            refuse(stream, .busy, "This host has too many connections starting; try again in a moment.")
            return
        }
        peeking += 1
        let timeout = configuration.timeouts.handshake
        Task { [weak self] in
            let first = await FirstFrame.read(stream, timeout: timeout, limit: Self.peekLimit)
            await self?.route(first)
        }
    }

    /// The table of `number` is done (its match ended and was delivered, or
    /// the guest never came back): its host stops and its slot is free.
    public func release(_ number: Int) async {
        guard let entry = tables.removeValue(forKey: number) else { return }
        if let id = entry.matchID { byMatch[id] = nil }
        for watcher in entry.watchers { watcher.cancel() }
        await entry.host.shutdown()
    }

    /// Gives up on every saved match whose guest has not come back (after the
    /// grace period): their tables close, their records stay as they are, and
    /// their places go to new guests. Returns the match ids given up.
    @discardableResult
    public func releaseSavedTablesStillWaiting() async -> [MatchID] {
        let waiting = tables.filter(\.value.awaitingSavedGuest)
        for number in waiting.keys { await release(number) }
        return waiting.values.compactMap(\.matchID)
    }

    /// Stops every table's admitting (their matches go on until released) and ends `admissions`.
    public func shutdown() async {
        isShutDown = true
        for entry in tables.values { await entry.host.shutdown() }
        admissionSink.finish()
        reportSink.finish()
    }

    // MARK: Routing

    private func route(_ first: FirstFrame) {
        peeking -= 1
        let stream: any ByteStream
        switch first {
        case .gone(let stream, let why):
            reportSink.yield(HallReport(table: nil, report: ConnectionReport(peer: stream.peerDescription, outcome: .dropped(why))))
            return
        case .hello(let hello, let replayed):
            stream = replayed
            if let id = hello.matchID {
                guard let number = byMatch[id], let entry = tables[number] else {
                    refuse(replayed, .matchNotFound, "This host has no match \(id.short) (it may have ended, or be hosted elsewhere).")
                    return
                }
                Task { await entry.host.accept(replayed) }
                return
            }
        case .other(let replayed):
            // No HELLO first: no table's handshake seats it, so any table answers it
            // (a browser gets the plain-HTTP answer, junk its frame error) and none is held for it.
            guard !isShutDown else {
                replayed.close()
                return
            }
            if let host = (openTable() ?? tables.keys.min()).flatMap({ tables[$0]?.host }) {
                Task { await host.accept(replayed) }
            } else if let number = opening.keys.min() {
                opening[number]?.others.append(replayed)
            } else if !openNewTable(for: replayed, guest: false) {
                replayed.close()
            }
            return
        }
        guard !isShutDown else {
            stream.close()
            return
        }
        guard let number = openTable() else {
            if !openNewTable(for: stream) { refuse(stream, .matchFull, Self.fullSentence(limit: limit)) }
            return
        }
        hand(stream, to: number)
    }

    private func hand(_ stream: any ByteStream, to number: Int) {
        tables[number]?.inFlight.insert(stream.peerDescription)
        guard let host = tables[number]?.host else { return }
        Task { await host.accept(stream) }
    }

    /// "All 40 tables on this host are in play …": what a guest past the limit reads.
    public static func fullSentence(limit: Int) -> String {
        "All \(limit) table\(limit == 1 ? "" : "s") on this host are in play (it serves at most \(limit) at once); "
            + "nobody is told when one frees up, so try again in a few minutes."
    }

    /// The open table, if there is one.
    private func openTable() -> Int? {
        tables.filter(\.value.isOpen).keys.min()
    }

    /// Opens a new table for `stream` when the limit allows (false: it does
    /// not). Its host is made on a Dispatch worker, not on this actor nor on
    /// Swift's two-thread pool, since a passcode's key costs 100,000 PBKDF2
    /// rounds; every other connection is routed meanwhile, and `stream` is
    /// handed to the table once its host is there.
    private func openNewTable(for stream: any ByteStream, guest: Bool = true) -> Bool {
        guard tables.count + opening.count < limit,
              let number = (1...limit).first(where: { tables[$0] == nil && opening[$0] == nil }) else { return false }
        opening[number] = guest ? (stream, []) : (nil, [stream])
        let configuration = self.configuration
        let makeHost = self.makeHost
        DispatchQueue.global(qos: .userInitiated).async { [weak self] in
            let host = makeHost(configuration)  // its failure was checked up front
            Task { await self?.opened(number, host) }
        }
        return true
    }

    private func opened(_ number: Int, _ host: MatchHost?) async {
        guard let (guest, others) = opening.removeValue(forKey: number) else { return }
        guard let host, !isShutDown else {
            guest?.close()
            for stream in others { stream.close() }
            await host?.shutdown()
            return
        }
        tables[number] = Entry(host: host)
        watch(number, resumed: false)
        if let guest { hand(guest, to: number) }
        for stream in others { Task { await host.accept(stream) } }
    }

    /// Follows table `number`'s host: its reports, and its guest sitting down.
    private func watch(_ number: Int, resumed: Bool) {
        guard let host = tables[number]?.host else { return }
        let reports = Task { [weak self] in
            for await report in host.reports { await self?.reported(number, report) }
        }
        let seated = Task { [weak self] in
            do {
                let match = try await host.waitForGuest()
                await self?.seated(number, match, resumed: resumed)
            } catch {
                // The table's match could not be saved before its WELCOME: its guest was turned away; the place is free again.
                if case HostError.cannotSave = error { await self?.release(number) }
            }
        }
        tables[number]?.watchers = [reports, seated]
    }

    private func reported(_ number: Int, _ report: ConnectionReport) {
        tables[number]?.inFlight.remove(report.peer)
        if case .admitted = report.outcome { tables[number]?.taken = true }
        reportSink.yield(HallReport(table: number, report: report))
    }

    private func seated(_ number: Int, _ match: HostedMatch, resumed: Bool) {
        guard let host = tables[number]?.host else { return }
        let id = match.initialState.matchID
        tables[number]?.matchID = id
        tables[number]?.inFlight = []
        tables[number]?.awaitingSavedGuest = false
        byMatch[id] = number
        admissionSink.yield(HallTable(number: number, host: host, match: match, resumed: resumed))
    }

    private func refuse(_ stream: any ByteStream, _ reason: ReasonCode, _ sentence: String) {
        let connection = WireConnection(stream: stream)
        connection.send(.reject(reason, sentence: sentence))
        connection.close()
        reportSink.yield(HallReport(table: nil, report: ConnectionReport(peer: stream.peerDescription,
                                                                          outcome: .rejected(reason, sentence: sentence))))
    }
}

/// A connection's first frame, read without taking it: the stream handed on
/// gives every byte again from the start.
enum FirstFrame: Sendable {
    /// A HELLO came first.
    case hello(Hello, any ByteStream)
    /// Something else came first (another message, bytes that are no frame, more than the limit).
    case other(any ByteStream)
    /// The peer closed (or the timeout ran out) before a whole frame came.
    case gone(any ByteStream, String)

    /// Reads `stream` until a whole frame, a framing error, `limit` bytes, its end, or `timeout` (which closes it).
    static func read(_ stream: any ByteStream, timeout: Duration, limit: Int) async -> FirstFrame {
        let replay = ReplayedStream(stream)
        let disarm = LoopAlarm.after(timeout) {
            // As a table's own handshake answers it (sections 7, 12, 19): never a silent close.
            stream.send(Message.reject(.handshakeTimeout, sentence: HostHandshake.noHelloInTime).encoded)
            stream.close()
        }
        defer { disarm() }
        var decoder = FrameDecoder()
        while let event = await replay.take() {
            switch event {
            case .data(let bytes):
                decoder.append(bytes)
                let frame: Frame?
                do { frame = try decoder.next() } catch { return .other(replay.stream()) }
                if let frame {
                    if case .hello(let hello)? = try? Message.decode(frame) { return .hello(hello, replay.stream()) }
                    return .other(replay.stream())
                }
                if replay.taken > limit { return .other(replay.stream()) }
            case .closed(let why):
                if ContinuousClock.now - replay.began >= timeout {
                    return .gone(stream, "no HELLO within \(timeout)")
                }
                return .gone(stream, why ?? (decoder.bufferedByteCount > 0 ? "closed in the middle of a frame" : "closed before a HELLO"))
            }
        }
        return .gone(stream, "closed before a HELLO")
    }
}

/// A byte stream whose first events were read already: `stream()` hands
/// them out again, then the rest as it comes, pulled as before (one reader).
final class ReplayedStream: @unchecked Sendable {
    // One reader at a time: the peek, then whoever reads `stream()`.
    private let original: any ByteStream
    private var iterator: AsyncStream<ByteStreamEvent>.AsyncIterator
    private var kept: [UInt8] = []
    private var ended: ByteStreamEvent?
    private(set) var taken = 0
    let began = ContinuousClock.now

    init(_ original: any ByteStream) {
        self.original = original
        self.iterator = original.events.makeAsyncIterator()
    }

    /// The next event of the original stream, kept for the replay.
    func take() async -> ByteStreamEvent? {
        var iterator = self.iterator
        let event = await iterator.next()
        self.iterator = iterator
        switch event {
        case .data(let bytes)?:
            kept += bytes
            taken += bytes.count
        case .closed?:
            ended = event
        case nil:
            break
        }
        return event
    }

    /// The original stream with the bytes read so far given again first.
    func stream() -> any ByteStream {
        let events = AsyncStream<ByteStreamEvent> { [self] in await self.replayNext() }
        let original = self.original
        return AdaptedByteStream(peerDescription: original.peerDescription, events: events,
                                 send: { original.send($0) }, close: { original.close() },
                                 peerHasClosed: { original.peerHasClosed },
                                 push: { [self] receiver in push(to: receiver) },
                                 resumeReading: { original.resumeReading() })
    }

    /// Push mode: the bytes read already (and the end, if it came) go to
    /// `receiver` first, then the original stream pushes, when it can (else
    /// the rest is pulled from `events`, after them).
    private func push(to receiver: @escaping @Sendable (ByteStreamEvent) -> Bool) -> Bool {
        if !kept.isEmpty {
            let bytes = kept
            kept = []
            _ = receiver(.data(bytes))
        }
        if let ended {
            if !replayedEnd {
                replayedEnd = true
                _ = receiver(ended)
            }
            return true
        }
        return original.push(to: receiver)
    }

    private var replayedEnd = false

    private func replayNext() async -> ByteStreamEvent? {
        if !kept.isEmpty {
            let bytes = kept
            kept = []
            return .data(bytes)
        }
        if let ended {
            guard !replayedEnd else { return nil }
            replayedEnd = true
            return ended
        }
        var iterator = self.iterator
        let event = await iterator.next()
        self.iterator = iterator
        return event
    }
}
