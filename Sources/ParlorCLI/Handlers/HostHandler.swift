import Bots
import Discovery
import Foundation
import Games
import Match
import ParlorKit
import Session
import Store
import TerminalUI

/// Runs `parlor host GAME`: listens on IPv4 and IPv6, advertises the game with
/// DNS-SD (when a daemon runs), waits for a guest, and plays as the
/// authoritative turn holder.
///
/// With `desk`, the match is one of several at the lobby's desk: the lobby
/// says where to join while it waits, the wait stops when the lobby is left,
/// and nothing is printed or read from the terminal here.
func runHost(_ options: HostOptions, desk: MatchDesk? = nil) async throws -> ExitCode {
    guard let gameType = GameCatalog.game(id: options.game) else {
        throw CommandFailure("unknown game '\(options.game)'", exitCode: .usage)
    }
    if let tables = options.tables { return try await runHall(options, limit: tables) }
    let passcode = try HostSetup.passcode(options.passcode)
    var presentation = desk.map { MatchPresentation(desk: $0) } ?? MatchPresentation(flags: options.display)
    if options.hints { presentation.allowHints() }
    // At the desk the one line that matters is said in the lobby (below); the rest is not printed.
    let dropped: (@Sendable (String) -> Void)? = if desk == nil { nil } else { { _ in } }
    let announcer = Announcer(json: presentation.isJSON, sink: dropped)
    _ = try? DescriptorLimit.raise()
    // A store nothing can be saved in (read-only, not ours): say so before any guest is welcomed.
    _ = try LocalData.writableMatchStore()

    // Listen first: the port decides the join lines and the advertisement.
    // At the desk the lobby says where to join; a port taken is not worth a line over its screen.
    let listener = try HostSetup.listen(options, quiet: presentation.isJSON || desk != nil)
    defer { listener.close() }
    let port = listener.port

    var configuration = HostSetup.configuration(options, game: gameType, passcode: passcode)
    // What the store keeps of the match: saved before any guest is welcomed into it (Session's saveBeforeWelcome).
    let settings = HostSetup.settings(options, configuration: configuration)
    let firstSave = SavedBeforeWelcome(store: LocalData.matchStore) { hosted in
        StoredMatch(state: hosted.initialState, role: .host, localSeat: hosted.hostSeat,
                    lastActivity: wallClockMilliseconds(), seatToken: hosted.seatToken.bytes, listenPort: port,
                    tableSeats: TableRecord.seats(of: hosted, botLevels: options.bots.map(\.level)), hostSettings: settings,
                    // A two-seat match keeps its guest's key: a resumed host takes the seat back only for it.
                    peerKey: hosted.guests.count == 1 ? hosted.remote.peerKey?.bytes : nil)
    }
    firstSave.install(in: &configuration, forgetFailed: LocalData.sayNotRemoved)
    let host: MatchHost
    do { host = try MatchHost(configuration: configuration) } catch {
        if case .passcodeUnavailable = error { throw CommandFailure("\(error)", exitCode: .internalError) }
        throw CommandFailure("\(error)", exitCode: .usage)
    }

    let security = try LocalChannel.hosting(allowClear: options.allowUnencrypted) { _ in
        announcer.say(LocalChannel.notPrivate, event: JSONEvents.notice("not private: the guest speaks parlor protocol 2 or older, in clear"))
    }
    let acceptor = Task { await host.serve(listener, security: security) }
    defer { acceptor.cancel() }

    // Advertise on the LAN; without DNS-SD the game is still reachable by address.
    let hostedGame = LAN.hostedGame(gameType, host: options.name, seatsTotal: options.seats, needsCode: passcode != nil,
                                    hints: options.hints, allowsClear: options.allowUnencrypted)
    // The TXT facts as the match stands, with the spectators' (TXT watch, section 17).
    let facts: @Sendable (Int, Bool, String) -> ParlorServiceInfo = { taken, playing, matchID in
        LAN.watched(hostedGame.serviceInfo(seatsTaken: taken, playing: playing, matchID: matchID), by: host)
    }
    let advertised = await HostedListing.advertise(facts(1 + options.bots.count, false, ""), as: hostedGame.serviceName,
                                                   port: port, in: DNSSDDirectory())
    let serviceName = advertised.requestedName
    let advertisement = advertised.advertisement
    let discoveryProblem = advertised.problem
    let listedLater = LAN.sayWhenListed(advertised, with: announcer)
    defer { listedLater?.cancel() }
    // Withdrawn on every way out below, and by a signal while waiting (see LANListing).
    let listing = LANListing(advertisement: advertisement)

    // With a code, every join line carries it: the host reads one line aloud or pastes it.
    let join = LAN.joinCommands(port: port, passcode: passcode)
    let ssh = LAN.sshHint(port: port) + LAN.codeArgument(passcode)
    announcer.say("", event: JSONEvents.listening(
        port: port, game: gameType.id, offer: .match(join: join.lan + [join.here], passcode: passcode, ssh: ssh),
        service: advertised.name, discovery: discoveryProblem?.description))
    if !presentation.isJSON {
        if let advertisement, discoveryProblem == nil {
            announcer.say("Hosting \(gameType.displayName) as \"\(advertisement.name)\" on port \(port).")
            if advertisement.name != serviceName {
                announcer.say("(\"\(serviceName)\" was taken on this network, so the game is listed as \"\(advertisement.name)\".)")
            }
        } else {
            announcer.say("Hosting \(gameType.displayName) on port \(port).")
            if desk == nil { Console.writeError(LAN.notListedLine(advertised)) }
        }
        if let passcode {
            announcer.say("Passcode: \(passcode)   (only players who know it can take the seat)")
        }
        if options.hints { announcer.say("Hints are on: either player can press h for the best move.") }
        if options.noTalk { announcer.say("Table talk is off: lines anyone says are refused.") }
        LAN.sayJoinCommands(join, with: announcer)
        announcer.say("Through SSH: " + ssh)
        let stop = "(\(Terminal.isInteractive ? "q, Esc or " : "")Ctrl-C to stop)"
        if options.seats > 2 {
            let early = Terminal.isInteractive ? " Press b to give the empty seats to bots and start once a guest is seated." : ""
            announcer.say("A table of \(options.seats): it starts when every seat is taken.\(early) Waiting for players to join… " + stop)
        } else {
            announcer.say("Waiting for a player to join… " + stop)
        }
    }
    // "2 of 4 seated" on the screen and in the advertisement while the table fills.
    let seating = options.seats > 2 ? Task {
        for await table in host.tableChanges {
            announcer.say(table.summary, event: tableEvent(table))
            await advertised.update(facts(table.taken, false, ""))
        }
    } : nil
    defer { seating?.cancel() }
    // "N watching" in the advertisement as spectators come and go (TXT watch, section 17).
    let watching = advertisement == nil ? nil : Task {
        for await _ in host.spectators.changes {
            let playing = await host.hasGuest
            await advertised.update(facts(await host.seatsTaken, playing, await host.matchID?.hex ?? ""))
        }
    }
    defer { watching?.cancel() }
    // --fill-with-bots (and b, below): with a guest seated, the empty seats go to medium bots.
    let botCount = options.bots.count
    let fillerName: @Sendable (Int) -> String = { "Medium bot \($0 + 1 + botCount)" }
    let filler = options.fillWithBotsAfter.map { wait in
        Task {
            try? await Task.sleep(for: wait)
            guard !Task.isCancelled else { return }
            await host.fillEmptySeatsWithBotsOnceSeated(fillerName)
        }
    }
    defer { filler?.cancel() }

    // While it waits, the host hears of every wrong passcode: someone is trying.
    let notices = passcode == nil ? nil : Task { await WrongPasscodeNotices.relay(host.reports, to: announcer) }
    let hosted: HostedMatch
    // At a table that fills, b starts early: the empty seats go to medium bots (as --fill-with-bots does).
    let fillsEarly = options.seats > 2
    let fillKey: @Sendable (Key) async -> Void = { key in
        guard fillsEarly, key == .character("b") || key == .character("B") else { return }
        let filled = await host.fillEmptySeatsWithBots(fillerName)
        if !filled { announcer.say("Nobody has taken a seat yet: b starts with bots once a guest is seated.") }
    }
    let keys: WaitingKeys?
    if presentation.isJSON || desk != nil {
        keys = nil
    } else {
        keys = WaitingKeys.watch(onStop: { await host.shutdown() }, other: fillKey)
    }
    let waiting = desk.map { desk in
        let code = passcode.map { ", passcode \($0)" } ?? ""
        let line = "'\(join.lan.first ?? join.here)'"
        return desk.whileWaiting("Hosting \(gameType.displayName) on port \(port)\(code): players join with \(line). Waiting for a player\u{2026}") {
            await host.shutdown()
        }
    }
    do { hosted = try await listing.waitForGuest(of: host, watchingSignals: desk == nil) } catch {
        if let waiting { desk?.doneWaiting(waiting) }
        notices?.cancel()
        if desk != nil {
            await listing.withdraw()
            return .success
        }
        if keys?.finish() == true {
            announcer.say("Stopped hosting; nobody joined.")
            return .success
        }
        throw error
    }
    keys?.finish()
    if let waiting { desk?.doneWaiting(waiting) }
    notices?.cancel()
    // The full screen owns the terminal from here: a listing that comes later is not said over it.
    if presentation.isFullScreen { listedLater?.cancel() }
    for guest in hosted.guests where presentation.isJSON {
        announcer.say("", event: JSONEvents.guestJoined(name: guest.name, seat: guest.seat, match: hosted.initialState.matchID.hex,
                                                        key: guest.peerKey?.fingerprint.description))
    }
    if !presentation.isJSON { announcer.say("\(hosted.guestNames) joined.") }
    for guest in hosted.guests {
        guard let key = guest.peerKey else { continue }
        let meeting = KnownPeople.meet(name: guest.name, key: key)
        if !presentation.isJSON { announcer.say(KnownPeople.line(name: guest.name, key: key, meeting: meeting)) }
    }
    filler?.cancel()
    await advertised.update(facts(options.seats, true, hosted.initialState.matchID.hex))

    let exit: FrontendExit
    do {
        exit = try await SessionRunner.playAsHost(hosted, host: host, record: firstSave.record(hosted), saves: firstSave,
                                                  bot: options.bot, presentation: presentation,
                                                  grace: configuration.timeouts.grace, rematches: options.rematches, botLevels: options.bots,
                                                  awayBot: options.awayBotAfter)
    } catch {
        await listing.withdraw()
        throw error
    }
    await listing.withdraw()
    await host.shutdown()
    return exit.exitCode
}

/// `{"event":"table","taken":2,"seats":[{"kind":"host","name":"Ana"},…]}`: who sits where while a table fills.
func tableEvent(_ table: TableSeating) -> JSONValue {
    let kinds: [TableSeating.Kind: String] = [.free: "free", .host: "host", .guest: "guest", .bot: "bot"]
    return .object([
        ("event", "table"), ("taken", .int(Int64(table.taken))), ("total", .int(Int64(table.seats.count))),
        ("seats", .array(table.seats.map { .object([("kind", .string(kinds[$0.kind] ?? "?")), ("name", .string($0.name))]) })),
    ])
}

/// "A wrong passcode from 192.0.2.7." on the host's screen, and
/// `{"event":"wrongPasscode","from":"192.0.2.7"}` with `--json`, for each
/// proof the host checked and found wrong.
enum WrongPasscodeNotices {
    static func relay(_ reports: AsyncStream<ConnectionReport>, to announcer: Announcer) async {
        for await report in reports {
            guard case .rejected(.passcodeWrong, _) = report.outcome else { continue }
            announcer.say(text(from: report.address), event: JSONEvents.wrongPasscode(from: report.address))
        }
    }

    static func text(from address: String) -> String { "A wrong passcode from \(address)." }
}

/// What `parlor host` and its many-table form (`--tables`) set up the same way.
enum HostSetup {
    /// The passcode of `--code`: none, the one given, or a fresh one.
    static func passcode(_ request: PasscodeRequest?) throws -> String? {
        switch request {
        case nil: return nil
        case .given(let code)?: return code
        case .generate?:
            do { return try PasscodeKey.generateCode() } catch {
                throw CommandFailure("could not make up a passcode: \(error)", exitCode: .internalError)
            }
        }
    }

    /// Listens on `--port` exactly, else on `preferring` (a saved port) or the preferred port, falling back to a free one
    /// (said on stderr unless `quiet`).
    static func listen(_ options: HostOptions, preferring saved: UInt16? = nil, quiet: Bool) throws -> TCPListener {
        do {
            if let port = options.port { return try TCPListener.listen(port: port) }
            let preferredPort = saved.flatMap { $0 == 0 ? nil : $0 } ?? options.preferredPort
            let (opened, preferred) = try TCPListener.listen(preferredPort: preferredPort)
            if !preferred && !quiet {
                Console.writeError("parlor: port \(preferredPort) is taken; listening on \(opened.port) instead\n")
            }
            return opened
        } catch {
            if case .addressInUse(let port) = error {
                throw CommandFailure("port \(port) is already in use; pick another with --port, or leave --port out to use a free one")
            }
            throw CommandFailure("could not listen: \(error)", exitCode: .ioError)
        }
    }

    /// The host's configuration from its options.
    /// What the record keeps of `options` so `parlor resume` hosts the match the same way.
    static func settings(_ options: HostOptions, configuration: HostConfiguration) -> StoredMatch.HostSettings {
        let spectatorCode: String? = switch configuration.watchCode {
        case nil: configuration.passcode
        case ""?: nil
        case let code?: code
        }
        return StoredMatch.HostSettings(
            talk: configuration.talk, hints: options.hints, spectators: configuration.spectators, spectatorCode: spectatorCode,
            awayBotSeconds: options.awayBotAfter.map { UInt32(clamping: $0.components.seconds) },
            graceSeconds: options.timeouts.grace.map { UInt32(clamping: $0.components.seconds) },
            heartbeatTimeoutSeconds: options.timeouts.heartbeatTimeout.map { UInt32(clamping: $0.components.seconds) })
    }

    static func configuration(_ options: HostOptions, game gameType: any Game.Type, passcode: String?) -> HostConfiguration {
        let seatPreference: HostConfiguration.SeatPreference
        switch options.seat {
        case .first: seatPreference = .first
        case .second: seatPreference = .second
        case .random: seatPreference = .random(seed: freshSeed())
        }
        var configuration = HostConfiguration(gameID: gameType.id, hostName: options.name, hostPlayerID: LocalData.playerID,
                                              seatPreference: seatPreference, appVersion: ParlorVersion.current)
        configuration.turnTimeoutSeconds = options.turnTimeout.map { UInt32(max(1, $0.components.seconds)) } ?? 0
        configuration.timeouts = LAN.sessionTimeouts(options.timeouts)
        configuration.passcode = passcode
        configuration.seats = options.seats
        configuration.talk = !options.noTalk
        configuration.spectators = options.spectators
        configuration.watchCode = options.watchCode
        // Known players: a known name with another key is refused. One match prints each guest's key
        // when it starts, and remembers it then; a host of many tables remembers at the door.
        configuration.judgePlayer = KnownPeople.judgeGuest(remembering: options.tables != nil)
        configuration.botNames = options.bots.enumerated().map { index, level in
            options.bots.count == 1 ? level.playerName : "\(level.playerName) \(index + 1)"
        }
        return configuration
    }
}
