import Discovery
import Foundation
import Games
import Match
import ParlorKit
import Secure
import Session
import Store
import Synchronization
import TerminalUI

/// Why there is nothing to resume, with the command that helps next.
private func resumeFailure(_ refusal: ResumeRefusal) -> any Error {
    switch refusal {
    case .store(let failure): StoreFailure(error: failure)
    case .nothingInterrupted: CommandFailure(refusal.description + "; 'parlor matches' lists the saved ones")
    case .nothingJoined: CommandFailure(refusal.description + "; see 'parlor matches'")
    case .over(let id): CommandFailure(refusal.description + "; see 'parlor replay \(id.short)'")
    case .nothingSaved, .inPlay: CommandFailure(refusal.description)
    }
}

/// Runs `parlor resume [ID|HOST:PORT]`: picks the saved match, then either
/// hosts it again (this side was the host) or gets back to its host (this
/// side was the guest). Either side may be the one that restarted: a host
/// still running within its grace period takes a resuming guest back, and a
/// guest still running reconnects by itself to a resumed host.
///
/// Which record: with an ID, that match (the host's record when this store
/// holds both sides); with HOST:PORT, the most recent interrupted guest
/// record; with nothing, the most recently interrupted match. A match played
/// offline continues on this machine (`ResumeOffline`).
/// With `desk`, the match is one of several at the lobby's desk (the lobby's `r`).
func runResume(_ options: ResumeOptions, desk: MatchDesk? = nil) async throws -> ExitCode {
    let store = LocalData.matchStore
    Stores.reportProblems(store.list().problems)
    // The claim is held until this process is done with the match, so a second resume is refused.
    let (record, claim): (StoredMatch, MatchClaim)
    do { (record, claim) = try store.claimForResume(options.target?.request ?? .newest) } catch {
        throw resumeFailure(error)
    }
    defer { claim.release() }
    let presentation = desk.map { MatchPresentation(desk: $0) } ?? MatchPresentation(flags: options.display)
    switch record.role {
    case .host:
        // A table of a many-table host: every unfinished table of that process comes back together.
        let siblings = store.siblingTables(of: record)
        if !siblings.isEmpty, desk != nil {
            throw CommandFailure("match \(record.state.matchID.short) is a table of a many-table host: "
                                 + "run 'parlor resume \(record.state.matchID.short)' in a terminal of its own")
        }
        if !siblings.isEmpty { return try await HallResume.run(record, claim: claim, siblings: siblings, options: options, store: store) }
        return try await ResumeAsHost.run(record, options: options, presentation: presentation)
    case .guest:
        var address: (host: String, port: UInt16)?
        if case .address(let host, let port)? = options.target { address = (host, port) }
        return try await ResumeAsGuest.run(record, address: address, options: options, presentation: presentation)
    case .offline:
        return try await ResumeOffline.run(record, presentation: presentation)
    }
}

extension ResumeTarget {
    /// What the store is asked for.
    var request: ResumeRequest {
        switch self {
        case .address: .newestJoined
        case .match(let id): .match(id)
        }
    }
}

/// `parlor resume` on the host's side: listen, advertise the match id, wait for its guest.
enum ResumeAsHost {
    static func run(_ record: StoredMatch, options: ResumeOptions, presentation: MatchPresentation) async throws -> ExitCode {
        let state = record.state
        // The match is hosted as it was started (format 4 keeps it; older records take the defaults);
        // a flag given to resume wins.
        let settings = record.hostSettings ?? StoredMatch.HostSettings()
        var presentation = presentation
        if settings.hints { presentation.allowHints() }
        let seconds = { (value: UInt32?) in value.map { Duration.seconds(Int64($0)) } }
        let timeouts = ConnectionTimeouts(heartbeatTimeout: options.timeouts.heartbeatTimeout ?? seconds(settings.heartbeatTimeoutSeconds),
                                          grace: options.timeouts.grace ?? seconds(settings.graceSeconds))
        let awayBot = options.awayBotAfter ?? seconds(settings.awayBotSeconds)
        let announcer = Announcer(json: presentation.isJSON)
        guard let gameType = GameCatalog.game(id: state.gameID) else {
            throw CommandFailure("this parlor does not know the game '\(state.gameID)'", exitCode: .dataError)
        }
        guard record.hasSeatToken, let token = SeatToken(bytes: record.seatToken) else {
            throw CommandFailure("match \(state.matchID.short) has no seat token saved (it was saved by an older parlor); it cannot be resumed",
                                 exitCode: .dataError)
        }
        _ = try? DescriptorLimit.raise()
        let listener = try listen(preferring: record.listenPort, json: presentation.isJSON)
        defer { listener.close() }
        let port = listener.port
        let hostSeat = record.localSeat
        // A table: every guest comes back with its own token, in any order, and the host's bots play their seats again.
        let (saved, botLevels): (SavedHostMatch, [BotLevelChoice])
        if state.seats.count > 2 {
            switch TableRecord.saved(record) {
            case .success(let table): (saved, botLevels) = (table.match, table.botLevels.map { BotLevelChoice(rawValue: $0?.rawValue ?? "") ?? .medium })
            case .failure(let problem): throw CommandFailure(problem.description, exitCode: .dataError)
            }
        } else {
            (saved, botLevels) = (SavedHostMatch(twoSeat: record, token: token), [])
        }
        let guestSeats = saved.guestTokens.keys.sorted()
        let guestName = Self.names(guestSeats.map { state.seats[$0].name })
        var configuration = HostConfiguration(gameID: gameType.id, hostName: state.seats[hostSeat].name,
                                              hostPlayerID: state.seats[hostSeat].playerID, appVersion: ParlorVersion.current)
        configuration.turnTimeoutSeconds = state.turnTimeout
        configuration.timeouts = LAN.sessionTimeouts(timeouts)
        configuration.seats = state.seats.count
        configuration.talk = settings.talk
        configuration.spectators = settings.spectators
        configuration.watchCode = settings.spectatorCode ?? ""
        configuration.judgePlayer = KnownPeople.judgeGuest(remembering: true)
        let host: MatchHost
        do {
            host = try MatchHost(configuration: configuration, resuming: saved)
        } catch {
            throw CommandFailure("\(error)", exitCode: .dataError)
        }
        let security = try LocalChannel.hosting()
        let acceptor = Task { await host.serve(listener, security: security) }
        defer { acceptor.cancel() }

        // Advertise with the match id in TXT `match`, so the guest finds it by id;
        // without DNS-SD the guest still comes back by address.
        let hostedGame = LAN.hostedGame(gameType, host: configuration.hostName, seatsTotal: state.seats.count, hints: settings.hints)
        let advertised = await HostedListing.advertise(hostedGame.serviceInfo(seatsTaken: 1, playing: true, matchID: state.matchID.hex),
                                                       as: hostedGame.serviceName, port: port, in: DNSSDDirectory())
        let advertisement = advertised.advertisement
        let discoveryProblem = advertised.problem
        let listedLater = LAN.sayWhenListed(advertised, with: announcer)
        defer { listedLater?.cancel() }
        // Withdrawn on every way out below, and by a signal while waiting (see LANListing).
        let listing = LANListing(advertisement: advertisement)

        let id = state.matchID.hex
        let grace = configuration.timeouts.grace
        let resume = LAN.commands("parlor resume", port: port)
        announcer.say("", event: JSONEvents.listening(
            port: port, game: gameType.id,
            offer: .resume(match: id, commands: ["parlor resume \(id)"] + resume.lan + [resume.here]),
            service: advertised.name, discovery: discoveryProblem?.description))
        if !presentation.isJSON {
            announcer.say(state.isEnded
                ? "Match \(state.matchID.short) (\(gameType.displayName) against \(guestName)) is over here; serving its end on port \(port) for \(guestName)'s copy."
                : "Resuming \(gameType.displayName) match \(state.matchID.short) against \(guestName) on port \(port) (move \(state.moves.count)).")
            if discoveryProblem != nil { Console.writeError(LAN.notListedLine(advertised)) }
            announcer.say("\(guestName) can continue with:")
            announcer.say("  parlor resume \(state.matchID.short)")
            LAN.sayCommands(resume, with: announcer)
            announcer.say("Waiting up to \(grace.components.seconds) s for \(guestName)… (\(Terminal.isInteractive ? "q, Esc or " : "")Ctrl-C to stop)")
        }

        // Bounded: --grace, as for a guest that went away during the match.
        let deadline = Task {
            try await Task.sleep(for: grace)
            await host.shutdown()
        }
        defer { deadline.cancel() }
        let hosted: HostedMatch
        // At the lobby's desk the lobby reads the keys.
        let keys = presentation.isJSON || presentation.frontend is DeskFrontend ? nil : WaitingKeys.watch { await host.shutdown() }
        do { hosted = try await listing.waitForGuest(of: host) } catch {
            if keys?.finish() == true {
                throw CommandFailure("stopped waiting for \(guestName); the match stays \(state.isEnded ? "over" : "interrupted") here, and 'parlor resume \(state.matchID.short)' continues it",
                                     exitCode: .temporaryFailure)
            }
            let text = state.isEnded
                ? "\(guestName) did not come back within \(grace.components.seconds) s to learn the end; the match stays over here"
                : "\(guestName) did not come back within \(grace.components.seconds) s; the match stays interrupted"
            throw CommandFailure(text, exitCode: .temporaryFailure)
        }
        keys?.finish()
        deadline.cancel()
        if presentation.isFullScreen { listedLater?.cancel() }
        // Each guest once, as it is back: at a table the first starts the match again and the others follow in any order
        // (one that drops and comes back later is told by the away and back notices).
        let backs = Task {
            var back: Set<Int> = []
            for await report in host.reports {
                guard case .admitted(let name, let seat) = report.outcome, back.insert(seat).inserted else { continue }
                announcer.say("\(name) is back.", event: JSONEvents.guestJoined(name: name, seat: seat, match: id, resumed: true))
            }
        }
        defer { backs.cancel() }
        var updated = record
        updated.listenPort = port
        let exit: FrontendExit
        do {
            exit = try await SessionRunner.playAsHost(hosted, host: host, record: updated, bot: options.bot,
                                                      presentation: presentation, grace: configuration.timeouts.grace,
                                                      rematches: options.rematches, botLevels: botLevels,
                                                      awayBot: awayBot)
        } catch {
            await listing.withdraw()
            throw error
        }
        await listing.withdraw()
        await host.shutdown()
        return exit.exitCode
    }

    /// "Bo", "Bo and Cy", "Bo, Cy and Di".
    static func names(_ names: [String]) -> String {
        guard names.count > 1, let last = names.last else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// The saved port when it is free, else the default port, else any free one.
    private static func listen(preferring saved: UInt16, json: Bool) throws -> TCPListener {
        if saved != 0 {
            do { return try TCPListener.listen(port: saved) } catch {
                if !json { Console.writeError("parlor: port \(saved) is taken now; listening on another port\n") }
            }
        }
        do {
            return try TCPListener.listen(preferredPort: HostOptions.defaultPort).0
        } catch {
            throw CommandFailure("could not listen: \(error)", exitCode: .ioError)
        }
    }
}

/// `parlor resume` on the guest's side: reach the host, take the seat back.
enum ResumeAsGuest {
    static func run(_ record: StoredMatch, address: (host: String, port: UInt16)?, options: ResumeOptions,
                    presentation: MatchPresentation) async throws -> ExitCode {
        let state = record.state
        let announcer = Announcer(json: presentation.isJSON)
        guard record.hasSeatToken, let token = SeatToken(bytes: record.seatToken) else {
            throw CommandFailure("match \(state.matchID.short) has no seat token saved; it cannot be resumed", exitCode: .dataError)
        }
        guard let game = GameVersion.local(state.gameID) else {
            throw CommandFailure("this parlor does not know the game '\(state.gameID)'", exitCode: .dataError)
        }
        let seat = state.seats[record.localSeat]
        let hostName = state.seats[Guest.presumedHostSeat(in: state, guestSeat: record.localSeat)].name
        let hello = Hello(appVersion: ParlorVersion.current, playerID: seat.playerID, playerName: seat.name, games: [game],
                          matchID: state.matchID, seatToken: token)

        // Where the host is: the address given; else the host advertising this
        // match id on the LAN (it may have had to take another port), else the
        // saved address (no DNS-SD, or multicast does not reach).
        var chosen = address
        if chosen == nil, let saved = try? JoinTarget(parsing: record.peerAddress), case .address(let host, let port) = saved {
            chosen = (host, port)
        }
        let target = chosen
        let lookOnTheLAN = address == nil
        let reached = AddressBox()
        // The host we played: a known name with another key is refused before the seat token leaves.
        let savedKey = record.hasPeerKey ? try? PlayerPublicKey(bytes: record.peerKey) : nil
        let channel = GuestChannel(try LocalChannel.connecting(expectingHost: hostName, key: savedKey))
        let dial = Listing.dialer(toHostOf: state.matchID.hex, lookOnTheLAN: lookOnTheLAN, address: target,
                                  security: { channel.security }, reached: { reached.set($0) })

        var guestOptions = SessionRunner.guestOptions(grace: options.timeouts.grace, dial: dial)
        guestOptions.clock = wallClockMilliseconds
        let grace = guestOptions.grace
        if !presentation.isJSON {
            let where_ = target.map { "\($0.host):\($0.port)" } ?? "on the LAN"
            announcer.say("Resuming \(state.game.gameDisplayName) match \(state.matchID.short) against \(hostName) (\(where_))…")
        }
        let lastReminder = ReminderClock()
        let joined: JoinedMatch
        do {
            joined = try await Guest.resume(dial: dial, hello: hello, saved: state, options: guestOptions) { attempt, error, left in
                // Nothing to wait for once the grace is spent: the failure below says what happened.
                guard left >= .seconds(1), attempt == 1 || lastReminder.due(every: .seconds(10)) else { return }
                let text = "waiting for \(hostName) to come back (\(left.components.seconds) s left): \(error)"
                announcer.say(text, event: JSONEvents.notice(text))
            }
        } catch {
            switch error {
            case .desync(let why):
                throw CommandFailure("could not resume: \(why)", exitCode: .dataError)
            case .rejoin(.refused(let why)):
                // Say who answered: at a saved address that may be another parlor that took the port.
                let answered = reached.value.map { " at \($0)" } ?? ""
                throw CommandFailure("could not resume match \(state.matchID.short)\(answered): \(why)")
            default:
                throw CommandFailure("could not resume match \(state.matchID.short) within \(grace.components.seconds) s: \(error)",
                                     exitCode: .temporaryFailure)
            }
        }
        let address = reached.value ?? record.peerAddress
        announcer.say("Back in \(hostName)'s match at \(address) (move \(joined.initialState.moves.count)).", event: JSONEvents.joinedHost(
            joined.hostName, seat: joined.seat, match: state.matchID.hex, address: address, resumed: true))
        var updated = record
        updated.peerAddress = address
        // A record from before format 5 learns the key of the host it came back to.
        if !updated.hasPeerKey, let key = joined.remote.peerKey { updated.peerKey = key.bytes }
        let exit = try await SessionRunner.playAsGuest(joined, record: updated, bot: options.bot, presentation: presentation,
                                                       rematches: options.rematches)
        return exit.exitCode
    }
}

/// The address a dial reached, set from the dialer's task.
final class AddressBox: Sendable {
    private let stored = Mutex<String?>(nil)
    func set(_ value: String) { stored.withLock { $0 = value } }
    var value: String? { stored.withLock { $0 } }
}

/// Says when a reminder is due again.
final class ReminderClock: Sendable {
    private let last = Mutex<ContinuousClock.Instant>(.now)
    func due(every interval: Duration) -> Bool {
        last.withLock { last in
            guard ContinuousClock.now - last >= interval else { return false }
            last = .now
            return true
        }
    }
}
