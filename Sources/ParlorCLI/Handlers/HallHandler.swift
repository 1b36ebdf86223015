import Bots
import Discovery
import Foundation
import Games
import Match
import ParlorKit
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
func runHall(_ options: HostOptions, limit: Int, resuming saved: [StoredMatch] = [],
             claims: [MatchID: MatchClaim] = [:]) async throws -> ExitCode {
    guard let gameType = GameCatalog.game(id: options.game) else {
        throw CommandFailure("unknown game '\(options.game)'", exitCode: .usage)
    }
    guard let level = options.bot else { throw CommandFailure("--tables needs --bot LEVEL", exitCode: .usage) }
    let passcode = try HostSetup.passcode(options.passcode)
    let presentation = MatchPresentation(flags: options.display)
    let announcer = Announcer(json: presentation.isJSON)
    let soft = (try? DescriptorLimit.raise()) ?? 1024
    let needed = TableBudget.descriptorsNeeded(tables: limit)
    guard soft >= needed else {
        let fitting = TableBudget.tablesFitting(descriptors: soft)
        let need = "--tables \(limit) needs about \(needed) open files (\(TableBudget.descriptorsPerTable) per table and "
            + "\(TableBudget.descriptorReserve) to spare)"
        let raise = "'ulimit -n \(needed)' in this shell before parlor"
        throw CommandFailure(fitting == 0
            ? need + ", but this process may open only \(soft), too few for even one table: raise the limit first, e.g. \(raise)"
            : need + "; this process may open \(soft): ask for at most \(fitting) tables, or raise the limit, e.g. \(raise)",
            exitCode: .usage)
    }
    _ = try LocalData.writableMatchStore()
    let listener = try HostSetup.listen(options, preferring: saved.first?.listenPort, quiet: presentation.isJSON)
    defer { listener.close() }
    let port = listener.port
    var configuration = HostSetup.configuration(options, game: gameType, passcode: passcode)
    // A few writer threads for every table's saves (ParlorKit's `TableWriters`).
    let writers = TableWriters()
    // A new table's match is saved before its guest is welcomed into it (Session's saveBeforeWelcome).
    let firstSaves = SavedBeforeWelcome(store: LocalData.matchStore, record: { hosted in
        StoredMatch(state: hosted.initialState, role: .host, localSeat: hosted.hostSeat, lastActivity: wallClockMilliseconds(),
                    seatToken: hosted.seatToken.bytes, listenPort: port)
    }, writer: { hosted in writers.writer(for: hosted.initialState.matchID) })
    firstSaves.install(in: &configuration, forgetFailed: LocalData.sayNotRemoved)
    let savedMatches = saved.compactMap { record in
        SeatToken(bytes: record.seatToken).map { SavedHostMatch(twoSeat: record, token: $0) }
    }
    let hall: TableHall
    do { hall = try TableHall(configuration: configuration, limit: limit, resuming: savedMatches) } catch {
        throw CommandFailure("\(error)", exitCode: .usage)
    }
    let security = try LocalChannel.hosting(allowClear: options.allowUnencrypted) { address in
        announcer.say("A guest at \(address) speaks parlor protocol 2 or older: its match is not private (--allow-unencrypted).")
    }
    let acceptor = Task { await hall.serve(listener, security: security) }
    defer { acceptor.cancel() }

    let board = HallBoard(limit: limit)
    let advertising = await HallListing.start(LAN.hostedGame(gameType, host: options.name, needsCode: passcode != nil, hints: options.hints,
                                                               allowsClear: options.allowUnencrypted),
                                              limit: limit, port: port, in: DNSSDDirectory())
    let join = LAN.joinCommands(port: port, passcode: passcode)
    announcer.say("", event: JSONEvents.listening(
        port: port, game: gameType.id,
        offer: .tables(limit, join: join.lan + [join.here], passcode: passcode, resuming: saved.map(\.state.matchID.hex)),
        service: advertising.name, discovery: advertising.problem?.description))
    if !presentation.isJSON {
        let listed = advertising.name.map { " as \"\($0)\"" } ?? ""
        announcer.say("Hosting \(gameType.displayName)\(listed) on port \(port): up to \(limit) tables, "
                      + "each guest against \(level.playerName) at a table of their own.")
        if advertising.problem != nil { Console.writeError(LAN.notListedLine(advertising.listing)) }
        if let passcode { announcer.say("Passcode: \(passcode)   (every guest needs it)") }
        if !saved.isEmpty { announcer.say("Waiting for the guests of \(saved.count) saved table\(saved.count == 1 ? "" : "s") to come back.") }
        LAN.sayJoinCommands(join, with: announcer)
        announcer.say("(Ctrl-C to stop; matches in play are saved and 'parlor resume' brings them back.)")
    }

    // The full screen takes the terminal at once: what was said above is said again at the top of its list.
    let header: @Sendable (String?) -> [String] = { name in
        var lines = [name.map { "Listed on the LAN as \"\($0)\"." }
            ?? "Not listed on the LAN: " + (advertising.problem.map(LAN.discoveryAdvice) ?? "unknown error")
            + (advertising.listing.isPending ? " (trying again)" : "")]
        if let passcode { lines.append("Passcode: \(passcode) (every guest needs it)") }
        return lines + ["Students join with:"] + (join.lan + [join.here + "   (on this machine)"]).map { "  " + $0 }
    }
    board.setHeader(header(advertising.name))
    // Listed later: the board's top says so, and so do the lines (not under the full screen's list).
    let listedLater = LAN.sayWhenListed(advertising.listing, with: presentation.isFullScreen ? Announcer(json: false) { _ in } : announcer) {
        board.setHeader(header($0))
    }
    defer { listedLater?.cancel() }

    // On the full screen the table list says it all: no lines under it.
    let dropped: (@Sendable (String) -> Void)? = if presentation.isFullScreen { { _ in } } else { nil }
    let tableAnnouncer = Announcer(json: presentation.isJSON, sink: dropped)
    let shows = HallShows(board: board, announcer: tableAnnouncer)
    let context = Hall.Context(options: options, level: level, port: port, announcer: tableAnnouncer, board: board, shows: shows,
                               hall: hall, writers: writers, firstSaves: firstSaves, saved: Dictionary(saved.map { ($0.state.matchID, $0) }) { first, _ in first })
    let refusals = Task { await Hall.relay(hall.reports, context: context) }
    defer { refusals.cancel() }
    // Saved tables wait for their guests as long as one match would (--grace); then their places go to new guests.
    let grace = configuration.timeouts.grace
    let giveUp = saved.isEmpty ? nil : Task {
        try? await Task.sleep(for: grace)
        guard !Task.isCancelled else { return }
        for id in await hall.releaseSavedTablesStillWaiting() {
            // Not played here any more: the record is interrupted again, and resumable alone.
            claims[id]?.release()
            let text = "The guest of match \(id.short) did not come back within \(grace.components.seconds) s; "
                + "the match stays interrupted here, and 'parlor resume \(id.short)' continues it."
            announcer.say(text, event: JSONEvents.tagged(JSONEvents.notice(text), with: [("match", .string(id.hex))]))
        }
    }
    defer { giveUp?.cancel() }
    let stop = HallStop()
    let watcher = SignalWatcher(signals: SignalWatcher.terminating) { number in stop.fire(number) }
    defer { watcher.cancel() }
    let environment = ProcessInfo.processInfo.environment
    let screenOptions = presentation.isFullScreen
        ? TerminalUI.DisplayOptions.detect(environment: environment, isTTY: true,
                                           noColorFlag: !options.display.colorAllowed(environment: environment),
                                           asciiFlag: options.display.ascii)
        : nil
    let screen = HallScreenRefresh.start(board: board, game: gameType.displayName, port: port, fullScreen: screenOptions,
                                         onQuit: { stop.fire(SIGINT) }, inPlayChanged: { await advertising.update(inPlay: $0) })

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
    await shows.finish()
    await advertising.withdraw()
    writers.finish()
    if !presentation.isJSON { announcer.say("Stopped hosting; \(board.inPlayCount) table(s) were left for now: 'parlor resume' brings them back.") }
    return ExitCode(endedBy: signal)
}

/// The pieces of a hall's run: playing one table, relaying refusals.
enum Hall {
    /// What every table's play needs from the run.
    struct Context: Sendable {
        let options: HostOptions
        let level: BotLevelChoice
        let port: UInt16
        let announcer: Announcer
        let board: HallBoard
        /// Every table's lines and board rows, shown by one task.
        let shows: HallShows
        let hall: TableHall
        let writers: TableWriters
        /// The recorders that saved new tables' matches before their WELCOME.
        let firstSaves: SavedBeforeWelcome
        /// The saved record of each resumed match, by id.
        let saved: [MatchID: StoredMatch]
    }

    /// Plays table `table` to its end against the host's bot, saving every
    /// state before its guest sees it, then frees the table. Left for now
    /// (GOODBYE leaving, record interrupted) when the hall stops first.
    static func play(_ table: HallTable, context: Context, stop: HallStop) async {
        let hosted = table.match
        let id = hosted.initialState.matchID
        let bot = BotParticipant(playerID: hosted.hostPlayerID, minimumThinkTime: .zero,
                                 timedStrategy: botStrategy(context.level, seed: freshSeed()))
        let controller = hosted.makeController(with: bot, bots: [])
        var record = context.saved[id] ?? StoredMatch(state: hosted.initialState, role: .host, localSeat: hosted.hostSeat,
                                                      lastActivity: wallClockMilliseconds(), seatToken: hosted.seatToken.bytes,
                                                      listenPort: context.port)
        record.listenPort = context.port
        // A new table's recorder is the one that saved it before its guest was welcomed; a resumed one's is made here.
        let recorder = context.firstSaves.taken(hosted)
            ?? MatchRecorder(store: LocalData.matchStore, record: record, writer: context.writers.writer(for: id))
        recorder.keep(hosted)
        // A table's lines and its row on the board show what is saved.
        let showing = MatchEventFeed()
        let recording = await recorder.follow(controller, showing: showing)
        let tag: [(String, JSONValue)] = [("match", .string(id.hex)), ("table", .int(Int64(table.number)))]
        // Shown by the hall's one task for every table's lines.
        let shown = context.shows.follow(showing, HallShows.Table(number: table.number, id: id, tag: tag, hostSeat: hosted.hostSeat,
                                                                  initial: hosted.initialState))
        context.board.seat(table.number, state: hosted.initialState, hostSeat: hosted.hostSeat, controller: controller)
        context.announcer.say("Table \(table.number): \(hosted.guestName) \(table.resumed ? "is back" : "sat down") (match \(id.short)).",
                              event: JSONEvents.guestJoined(name: hosted.guestName, seat: hosted.guestSeat, match: id.hex,
                                                            resumed: table.resumed, table: table.number))
        do { try await controller.start() } catch {
            context.announcer.say("Table \(table.number): could not start: \(error)", event: JSONEvents.tagged(JSONEvents.error(kind: "start", reason: "\(error)"), with: tag))
            await context.hall.release(table.number)
            return
        }
        let number = table.number
        let shows = context.shows
        let watcher = stop.onStop {
            Task {
                guard await !controller.isStopped else { return }
                await TableLink(guests: hosted.guests).leaveForNow("leaving, may resume")
                await recorder.markInterrupted()
                shows.stopFollowing(shown)
            }
        }
        let ended = await shows.ended(shown)
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
            // The guest acknowledges the end at once; one whose link dropped keeps the table until it
            // comes back with its token and is given the end, for at most 30 s (section 19).
            for guest in hosted.guests { _ = await guest.waitForFinalDelivery(within: TableHall.endHeld) }
        }
        context.board.free(number)
        await context.hall.release(table.number)
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
}
