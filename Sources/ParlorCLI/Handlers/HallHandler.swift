import Bots
import Discovery
import Foundation
import Games
import Match
import Session
import Store
import Synchronization
import TerminalUI

/// Runs `parlor host GAME --bot LEVEL --tables N`: one process, one port and
/// one advertisement for up to N tables, each guest playing the host's bot at
/// a table of its own (docs/PROTOCOL.md, section 19). Every table has its own
/// match id, store record, timeouts and resume; `--json` prints every table's
/// events with its match id and table number. Ends on Ctrl-C, SIGTERM or
/// SIGHUP (every match in play is left for now, resumable with `parlor resume`).
func runHall(_ options: HostOptions, limit: Int, resuming saved: [StoredMatch] = []) async throws -> ExitCode {
    guard let gameType = GameCatalog.game(id: options.game) else {
        throw CommandFailure("unknown game '\(options.game)'", exitCode: .usage)
    }
    guard let level = options.bot else { throw CommandFailure("--tables needs --bot LEVEL", exitCode: .usage) }
    let passcode = try HostSetup.passcode(options.passcode)
    let presentation = MatchPresentation(flags: options.display)
    let announcer = Announcer(json: presentation.isJSON)
    let soft = (try? DescriptorLimit.raise()) ?? 1024
    let needed = Hall.descriptorsNeeded(tables: limit)
    guard soft >= needed else {
        throw CommandFailure("--tables \(limit) needs about \(needed) open files (\(Hall.descriptorsPerTable) per table and "
                             + "\(Hall.descriptorReserve) to spare); this process may open \(soft) (see 'ulimit -n'): "
                             + "ask for at most \(Hall.tablesFitting(descriptors: soft)) tables, or raise the limit", exitCode: .usage)
    }
    do { try LocalData.matchStore.checkWritable() } catch {
        throw CommandFailure("matches cannot be saved here: \(error)", exitCode: .ioError)
    }
    let listener = try HostSetup.listen(options, preferring: saved.first?.listenPort, quiet: presentation.isJSON)
    defer { listener.close() }
    let port = listener.port
    let configuration = HostSetup.configuration(options, game: gameType, passcode: passcode)
    let savedMatches = saved.compactMap { record in
        SeatToken(bytes: record.seatToken).map { SavedHostMatch(state: record.state, hostSeat: record.localSeat, seatToken: $0) }
    }
    let hall: TableHall
    do { hall = try TableHall(configuration: configuration, limit: limit, resuming: savedMatches) } catch {
        throw CommandFailure("\(error)", exitCode: .usage)
    }
    let acceptor = Task { await hall.serve(listener) }
    defer { acceptor.cancel() }

    let board = HallBoard(limit: limit)
    let advertising = await HallAdvertising.start(game: gameType, host: options.name, limit: limit, needsCode: passcode != nil,
                                                  hints: options.hints, port: port)
    let codeArgument = passcode.map { " --code \($0)" } ?? ""
    let joinLines = LAN.joinLines(port: port).map { $0 + codeArgument }
    announcer.say("", event: .object([
        ("event", "listening"), ("port", .int(Int64(port))), ("game", .string(gameType.id)), ("tables", .int(Int64(limit))),
        ("join", .array(joinLines.map { .string($0) } + [.string("parlor join localhost:\(port)" + codeArgument)])),
        ("passcode", passcode.map { .string($0) } ?? .null),
        ("service", advertising.name.map { .string($0) } ?? .null),
        ("discovery", advertising.problem.map { .string($0.description) } ?? .null),
        ("resuming", .array(saved.map { .string($0.state.matchID.hex) })),
    ]))
    if !presentation.isJSON {
        let listed = advertising.name.map { " as \"\($0)\"" } ?? ""
        announcer.say("Hosting \(gameType.displayName)\(listed) on port \(port): up to \(limit) tables, "
                      + "each guest against \(level.playerName) at a table of their own.")
        if let problem = advertising.problem { Console.writeError("parlor: not advertised on the LAN: \(LAN.discoveryAdvice(problem))\n") }
        if let passcode { announcer.say("Passcode: \(passcode)   (every guest needs it; moves are not encrypted)") }
        if !saved.isEmpty { announcer.say("Waiting for the guests of \(saved.count) saved table\(saved.count == 1 ? "" : "s") to come back.") }
        announcer.say("Players can join with:")
        for line in joinLines { announcer.say("  " + line) }
        announcer.say("  parlor join localhost:\(port)\(codeArgument)   (on this machine)")
        announcer.say("(Ctrl-C to stop; matches in play are saved and 'parlor resume' brings them back.)")
    }

    // Sixteen writer threads for every table's saves: a thread per table would cost
    // a thread's memory each, and one would make every table wait for every sync.
    let writers = (0..<Hall.writerCount).map { _ in DurableWriter() }
    // On the full screen the table list says it all: no lines under it.
    let dropped: (@Sendable (String) -> Void)? = if presentation.isFullScreen { { _ in } } else { nil }
    let tableAnnouncer = Announcer(json: presentation.isJSON, sink: dropped)
    let context = Hall.Context(options: options, level: level, port: port, announcer: tableAnnouncer, board: board,
                               hall: hall, writers: writers, saved: Dictionary(saved.map { ($0.state.matchID, $0) }) { first, _ in first })
    let refusals = Task { await Hall.relay(hall.reports, context: context) }
    defer { refusals.cancel() }
    // Saved tables wait for their guests as long as one match would (--grace); then their places go to new guests.
    let grace = configuration.timeouts.grace
    let giveUp = saved.isEmpty ? nil : Task {
        try? await Task.sleep(for: grace)
        guard !Task.isCancelled else { return }
        for id in await hall.releaseSavedTablesStillWaiting() {
            let text = "The guest of match \(id.short) did not come back within \(grace.components.seconds) s; "
                + "the match stays interrupted here, and 'parlor resume \(id.short)' continues it."
            announcer.say(text, event: .object([("event", "notice"), ("match", .string(id.hex)), ("text", .string(text))]))
        }
    }
    defer { giveUp?.cancel() }
    let stop = Hall.StopSignal()
    let watcher = SignalWatcher(signals: SignalWatcher.terminating) { number in stop.fire(number) }
    defer { watcher.cancel() }
    let screen = HallScreenRefresh.start(board: board, game: gameType.displayName, port: port, advertising: advertising,
                                         fullScreen: presentation.isFullScreen, display: options.display) { stop.fire(SIGINT) }

    let signal = await withTaskGroup(of: Int32?.self) { group -> Int32 in
        group.addTask {
            for await table in hall.admissions {
                let tablePlay = Task { await Hall.play(table, context: context, stop: stop) }
                stop.track(tablePlay)
            }
            return nil
        }
        group.addTask { await stop.wait() }
        let number = await group.next() ?? nil
        group.cancelAll()
        return number ?? SIGTERM
    }
    screen.stop()
    await hall.shutdown()
    await stop.waitForTables()
    await advertising.withdraw()
    for writer in writers { writer.finish() }
    if !presentation.isJSON { announcer.say("Stopped hosting; \(board.inPlayCount) table(s) were left for now: 'parlor resume' brings them back.") }
    return ExitCode(endedBy: signal)
}

/// The pieces of a hall's run: playing one table, the numbers it lives by.
enum Hall {
    /// Open files a table costs: the guest's socket, the match's journal and its lock.
    static let descriptorsPerTable: UInt64 = 4
    /// Open files kept for everything else (listener, epoll, the daemon's socket, handshakes).
    static let descriptorReserve: UInt64 = 128
    /// Writer threads shared by every table's saves.
    static let writerCount = 16

    static func descriptorsNeeded(tables: Int) -> UInt64 { UInt64(tables) * descriptorsPerTable + descriptorReserve }
    static func tablesFitting(descriptors: UInt64) -> UInt64 {
        descriptors > descriptorReserve ? (descriptors - descriptorReserve) / descriptorsPerTable : 0
    }

    /// What every table's play needs from the run.
    struct Context: Sendable {
        let options: HostOptions
        let level: BotLevelChoice
        let port: UInt16
        let announcer: Announcer
        let board: HallBoard
        let hall: TableHall
        let writers: [DurableWriter]
        /// The saved record of each resumed match, by id.
        let saved: [MatchID: StoredMatch]
    }

    /// Plays table `table` to its end against the host's bot, saving every
    /// state before its guest sees it, then frees the table. Left for now
    /// (GOODBYE leaving, record interrupted) when the hall stops first.
    static func play(_ table: HallTable, context: Context, stop: StopSignal) async {
        let hosted = table.match
        let id = hosted.initialState.matchID
        let bot = BotParticipant(playerID: hosted.hostPlayerID, minimumThinkTime: .zero,
                                 strategy: botStrategy(context.level, seed: freshSeed()))
        let controller = hosted.makeController(with: bot, bots: [])
        var record = context.saved[id] ?? StoredMatch(state: hosted.initialState, role: .host, localSeat: hosted.hostSeat,
                                                      lastActivity: wallClockMilliseconds(), seatToken: hosted.seatToken.bytes,
                                                      listenPort: context.port)
        record.listenPort = context.port
        let writer = context.writers[table.number % context.writers.count]
        let recorder = MatchRecorder(store: LocalData.matchStore, record: record, writer: writer)
        SessionRunner.record(hosted, with: recorder)
        let events = await controller.events()
        let recording = await recorder.follow(controller)
        let tag: [(String, JSONValue)] = [("match", .string(id.hex)), ("table", .int(Int64(table.number)))]
        context.board.seat(table.number, state: hosted.initialState, hostSeat: hosted.hostSeat, controller: controller)
        context.announcer.say("Table \(table.number): \(hosted.guestName) \(table.resumed ? "is back" : "sat down") (match \(id.short)).",
                              event: .object([("event", "joined"), ("name", .string(hosted.guestName)),
                                              ("seat", .int(Int64(hosted.guestSeat))), ("resumed", .bool(table.resumed))] + tag))
        do { try await controller.start() } catch {
            context.announcer.say("Table \(table.number): could not start: \(error)", event: tagged(.object([("event", "error"), ("kind", "start"), ("reason", .string("\(error)"))]), tag))
            await context.hall.release(table.number)
            return
        }
        let announcer = context.announcer
        let board = context.board
        let hostSeat = hosted.hostSeat
        let number = table.number
        let following = Task { () -> Bool in
            var ended = false
            for await event in events {
                if let state = event.state { board.update(number, state: state) }
                if let json = Self.json(event, hostSeat: hostSeat) { announcer.say("", event: tagged(json, tag)) }
                if case .ended(let end) = event {
                    ended = true
                    if !announcer.json {
                        announcer.say("Table \(number): \(MatchText.resultLine(end, options: .plainText(unicode: false))) "
                                      + "(match \(id.short), \(end.moves.count) moves).")
                    }
                }
            }
            return ended
        }
        let watcher = stop.onStop {
            Task {
                guard await !controller.isStopped else { return }
                await TableLink(guests: hosted.guests).leaveForNow("leaving, may resume")
                await recorder.markInterrupted()
                following.cancel()
            }
        }
        let ended = await following.value
        watcher.cancel()
        guard await controller.isStopped else {
            // Left for now: the record says interrupted, and `parlor resume` brings the table back.
            recording.cancel()
            return
        }
        await recording.value
        if let problem = recorder.problems.last {
            Console.writeError("parlor: table \(number): the match could not be saved: \(problem)\n")
        }
        if ended {
            // The guest acknowledges the end at once; one that is away learns it when it comes back.
            for guest in hosted.guests { _ = await guest.finalDelivery(within: .seconds(30)) }
        }
        board.free(number)
        await context.hall.release(table.number)
    }

    /// The JSON line of a table's event (the host's own `--json` events), nil for what a hall does not print.
    static func json(_ event: MatchEvent, hostSeat: SeatIndex) -> JSONValue? {
        switch event {
        case .started(let state): JSONEvents.started(state, localSeats: [hostSeat])
        case .committed(let change, let state): JSONEvents.committed(change, state)
        case .rolledBack(let change, let reason, let state): JSONEvents.rolledBack(change, reason: reason, state)
        case .presence(let seat, let away, let graceLeft): .object([("event", away ? "away" : "back"), ("seat", JSONValue(seat)),
                                                                    ("graceLeft", JSONValue(Int(graceLeft.components.seconds)))])
        case .ended(let state): JSONEvents.end(state)
        case .failed(let failure, let state): JSONEvents.error(failure, state)
        case .notice(let text): JSONEvents.notice(text)
        case .talk(let line): JSONEvents.talk(line)
        case .turnBegan, .awaitingConfirmation, .adopted, .talkRefused, .standIn: nil
        }
    }

    /// `value` with `tag` (match id, table) after its `"event"`.
    static func tagged(_ value: JSONValue, _ tag: [(String, JSONValue)]) -> JSONValue {
        guard case .object(var fields) = value else { return value }
        fields.removeAll { field in tag.contains { $0.0 == field.0 } }
        fields.insert(contentsOf: tag, at: min(1, fields.count))
        return .object(fields)
    }

    /// Prints what the hall refused itself (the tables' own refusals too): `{"event":"refused",…}`.
    static func relay(_ reports: AsyncStream<HallReport>, context: Context) async {
        for await report in reports {
            guard case .rejected(let reason, let sentence) = report.report.outcome else { continue }
            var fields: [(String, JSONValue)] = [("event", "refused"), ("from", .string(report.report.address)),
                                                 ("reason", .string("\(reason)")), ("sentence", .string(sentence))]
            if let table = report.table { fields.append(("table", .int(Int64(table)))) }
            let place = report.table.map { "table \($0)" } ?? "the hall"
            context.announcer.say("Refused a guest from \(report.report.address) at \(place): \(sentence)", event: .object(fields))
        }
    }

    /// The hall's stop: the first terminating signal, and every table's play that must finish first.
    final class StopSignal: Sendable {
        private struct State {
            var signal: Int32?
            var waiters: [CheckedContinuation<Int32?, Never>] = []
            var handlers: [UInt64: @Sendable () -> Void] = [:]
            var nextHandler: UInt64 = 0
            var tables: [Task<Void, Never>] = []
        }

        private let state = Mutex(State())

        var fired: Bool { state.withLock { $0.signal != nil } }

        func fire(_ number: Int32) {
            let (waiters, handlers) = state.withLock { state -> ([CheckedContinuation<Int32?, Never>], [@Sendable () -> Void]) in
                guard state.signal == nil else { return ([], []) }
                state.signal = number
                defer { state.waiters = [] }
                return (state.waiters, Array(state.handlers.values))
            }
            for handler in handlers { handler() }
            for waiter in waiters { waiter.resume(returning: number) }
        }

        func wait() async -> Int32? {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Int32? in
                    if state.signal == nil { state.waiters.append(continuation) }
                    return state.signal
                }
                if let now { continuation.resume(returning: now) }
            }
        }

        /// Runs `handler` when the stop fires (at once if it has); cancel the result to forget it.
        func onStop(_ handler: @escaping @Sendable () -> Void) -> StopHandler {
            let (id, firedAlready) = state.withLock { state -> (UInt64, Bool) in
                state.nextHandler += 1
                if state.signal == nil { state.handlers[state.nextHandler] = handler }
                return (state.nextHandler, state.signal != nil)
            }
            if firedAlready { handler() }
            return StopHandler { [self] in _ = state.withLock { $0.handlers.removeValue(forKey: id) } }
        }

        func track(_ task: Task<Void, Never>) {
            state.withLock { state in
                state.tables.removeAll { $0.isCancelled }
                state.tables.append(task)
            }
        }

        /// Waits (at most 10 s) for every table's play to finish its leaving.
        func waitForTables() async {
            let tables = state.withLock { $0.tables }
            let deadline = ContinuousClock.now + .seconds(10)
            for table in tables {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { return }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await table.value }
                    group.addTask { try? await Task.sleep(for: left) }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    struct StopHandler: Sendable {
        let cancelling: @Sendable () -> Void
        func cancel() { cancelling() }
    }
}

extension MatchEvent {
    /// The state the event carries, if any.
    var state: MatchState? {
        switch self {
        case .started(let state), .turnBegan(_, let state), .committed(_, let state), .rolledBack(_, _, let state),
             .adopted(let state), .ended(let state), .failed(_, let state): state
        case .awaitingConfirmation(_, let tentative): tentative
        case .notice, .presence, .talk, .talkRefused, .standIn: nil
        }
    }
}

/// The hall's one advertisement: one service for every table, TXT `tables`
/// saying how many are in play of how many (docs/PROTOCOL.md, section 19).
struct HallAdvertising: Sendable {
    let advertisement: (any ServiceAdvertisement)?
    let problem: DiscoveryError?
    var game: any Game.Type = Connect4.self
    var host = ""
    var limit = 1
    var needsCode = false
    var hints = false
    var name: String? { advertisement?.name }

    static func start(game: any Game.Type, host: String, limit: Int, needsCode: Bool, hints: Bool, port: UInt16) async -> HallAdvertising {
        do {
            let txt = try txtRecord(game: game, host: host, inPlay: 0, limit: limit, needsCode: needsCode, hints: hints)
            let name = LAN.serviceName(host: host, game: game)
            let advertisement = try await DNSSDDirectory().advertise(ServiceRegistration(name: name, port: port, txt: txt))
            return HallAdvertising(advertisement: advertisement, problem: nil, game: game, host: host, limit: limit,
                                   needsCode: needsCode, hints: hints)
        } catch let error as DiscoveryError {
            return HallAdvertising(advertisement: nil, problem: error)
        } catch {
            return HallAdvertising(advertisement: nil, problem: .invalidRegistration("\(error)"))
        }
    }

    /// The TXT record: a free seat while a table is free ("open", seats 1/2), "playing" once every table is.
    static func txtRecord(game: any Game.Type, host: String, inPlay: Int, limit: Int, needsCode: Bool, hints: Bool) throws -> TXTRecord {
        let full = inPlay >= limit
        var info = LAN.serviceInfo(game: game, host: host, seatsTaken: full ? 2 : 1, playing: full, matchID: "",
                                   needsCode: needsCode, hints: hints)
        info.tables = (inPlay: min(inPlay, limit), limit: limit)
        return try info.txtRecord()
    }

    func withdraw() async { await advertisement?.withdraw() }

    /// Says `inPlay` tables of the limit are taken now.
    func update(inPlay: Int) async {
        guard let advertisement, let txt = try? Self.txtRecord(game: game, host: host, inPlay: inPlay, limit: limit,
                                                                needsCode: needsCode, hints: hints) else { return }
        try? await advertisement.update(txt: txt)
    }
}

/// What the host's table list shows, kept as every table's events come.
final class HallBoard: Sendable {
    private struct Line {
        var state: MatchState
        var hostSeat: SeatIndex
        /// The table's match, for the screen that opens the table.
        let controller: MatchController
    }

    let limit: Int
    private let lines = Mutex<[Int: Line]>([:])

    init(limit: Int) { self.limit = limit }

    func seat(_ table: Int, state: MatchState, hostSeat: SeatIndex, controller: MatchController) {
        lines.withLock { $0[table] = Line(state: state, hostSeat: hostSeat, controller: controller) }
    }

    /// The match played at `table` now, nil when the table is free.
    func controller(_ table: Int) -> MatchController? {
        lines.withLock { $0[table]?.controller }
    }

    func update(_ table: Int, state: MatchState) {
        lines.withLock { $0[table]?.state = state }
    }

    func free(_ table: Int) {
        _ = lines.withLock { $0.removeValue(forKey: table) }
    }

    /// Tables whose match is not over.
    var inPlayCount: Int { lines.withLock { $0.values.filter { !$0.state.isEnded }.count } }

    /// Every table's line, by number.
    func rows() -> [HallScreen.Row] {
        lines.withLock { lines in
            lines.keys.sorted().compactMap { number in
                guard let line = lines[number] else { return nil }
                let state = line.state
                let players = state.seats.map(\.name).joined(separator: " vs ")
                let status: String
                if state.isEnded {
                    status = MatchText.resultLine(state, options: .plainText(unicode: false))
                } else if let seat = state.game.activeSeat {
                    status = "\(state.seats[seat].name) to move"
                } else {
                    status = "playing"
                }
                return HallScreen.Row(table: number, players: players, moves: state.moves.count, status: status,
                                      matchID: state.matchID.hex)
            }
        }
    }
}

/// Redraws the host's table list on the full screen twice a second, and keeps
/// the advertisement's `tables` count current.
enum HallScreenRefresh {
    struct Running {
        let task: Task<Void, Never>
        let screen: HallScreen?

        /// Stops redrawing and gives the terminal back.
        func stop() {
            task.cancel()
            screen?.close()
        }
    }

    static func start(board: HallBoard, game: String, port: UInt16, advertising: HallAdvertising, fullScreen: Bool,
                      display: DisplayFlags, onQuit: @escaping @Sendable () -> Void) -> Running {
        let environment = ProcessInfo.processInfo.environment
        let options = TerminalUI.DisplayOptions.detect(environment: environment, isTTY: true,
                                                       noColorFlag: !display.colorAllowed(environment: environment),
                                                       asciiFlag: display.ascii)
        let screen = fullScreen ? try? HallScreen(options: options, tables: { board.controller($0) }, onQuit: onQuit) : nil
        let task = Task {
            var advertised = 0
            while !Task.isCancelled {
                let inPlay = board.inPlayCount
                if let screen {
                    screen.show(title: "parlor: \(game) on port \(port), \(inPlay) of \(board.limit) tables in play",
                                rows: board.rows())
                }
                if inPlay != advertised {
                    advertised = inPlay
                    await advertising.update(inPlay: inPlay)
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        return Running(task: task, screen: screen)
    }
}
