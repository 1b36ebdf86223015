import Bots
import Discovery
import Foundation
import Games
import Match
import ParlorKit
import Session
import Store
import TerminalUI

/// Runs `parlor join TARGET`: connects to a host by address or by its
/// advertised name, and plays through a `RemoteParticipant` for the host's seat.
///
/// With `desk`, the match is one of several at the lobby's desk: what would
/// be printed goes to the lobby's line, and a passcode is asked for there.
func runJoin(_ options: JoinOptions, desk: MatchDesk? = nil) async throws -> ExitCode {
    var presentation = desk.map { MatchPresentation(desk: $0) } ?? MatchPresentation(flags: options.display)
    let sink: (@Sendable (String) -> Void)? = if let desk { { text in desk.say(text) } } else { nil }
    let announcer = Announcer(json: presentation.isJSON, sink: sink)
    // Refused before a seat is taken: a guest that cannot save could never take it back.
    _ = try LocalData.writableMatchStore()
    let reached = try await ReachedHost.reach(options.target, json: presentation.isJSON)
    let (connection, peerAddress, dial, needsPasscode, gameName, hintsAllowed) =
        (reached.connection, reached.peerAddress, reached.dial, reached.needsPasscode, reached.gameName, reached.hintsAllowed)

    // Refused before the handshake takes a seat: with no input at all it would be left at once.
    if options.bot == nil && Terminal.hasNoInput(STDIN_FILENO) {
        connection.close()
        throw CommandFailure("there is no input to play from (standard input is empty), so no seat was taken; "
                             + "join from a terminal, pipe the moves in, or let a bot play with --bot LEVEL", exitCode: .usage)
    }
    let playerName = options.nameChosen ? options.name : options.bot.map(\.playerName) ?? options.name
    let hello = Hello(appVersion: ParlorVersion.current, playerID: LocalData.playerID, playerName: playerName)
    var guestOptions = SessionRunner.guestOptions(grace: options.timeouts.grace, dial: dial)
    guestOptions.passcode = options.passcode
    // At a table that fills, who is seated so far: "2 of 4 seated: Ana (host), Bo (you), free, free".
    guestOptions.onTable = { table in announcer.say(table.summary, event: tableEvent(table)) }
    var question = PasscodeQuestion(game: gameName, address: peerAddress, channel: reached.channel, use: .seat)
    question.desk = desk
    reached.channel.prove(guestOptions.passcode, for: .seat)
    var stream: any ByteStream = reached.channel.security.connecting(connection.byteStream())
    if needsPasscode && guestOptions.passcode == nil {
        // The advertisement says so: ask before the handshake, on a fresh
        // connection afterwards (the host would not wait while someone types).
        stream.close()
        guestOptions.passcode = try await question.ask()
        reached.channel.prove(guestOptions.passcode, for: .seat)
        stream = try await redial(dial, shown: peerAddress)
    }
    let firstStream = stream
    let joined: JoinedMatch
    do {
        joined = try await question.handshake(first: stream, options: &guestOptions, dial: dial) { stream, options throws(JoinError) in
            try await Guest.join(over: stream, hello: hello, options: options)
        }
    } catch where options.allowUnencrypted && (firstStream as? SecureByteStream)?.failure?.meansOlderPeer == true {
        // The host runs a parlor from before protocol 3; the player allowed clear frames, and is told.
        reached.channel.fallBackToClear()
        announcer.say(LocalChannel.notPrivate, event: JSONEvents.notice("not private: the host speaks parlor protocol 2 or older, in clear"))
        stream = try await redial(dial, shown: peerAddress)
        joined = try await question.handshake(first: stream, options: &guestOptions, dial: dial) { stream, options throws(JoinError) in
            try await Guest.join(over: stream, hello: hello, options: options)
        }
    }
    let hostKey = joined.remote.peerKey?.fingerprint
    let meeting = joined.remote.peerKey.map { KnownPeople.meet(name: joined.hostName, key: $0) }
    if let key = joined.remote.peerKey, case .changed(let old)? = meeting {
        throw CommandFailure(KnownPeople.hostRefusal(name: joined.hostName, key: key, old: old))
    }
    // Nothing is shown of the match before it is on disk: a guest killed after
    // "Joined" keeps a record that `parlor resume` finishes.
    let saves = FirstSaves(store: LocalData.matchStore)
    let record: StoredMatch
    do { record = try await saves.saveJoined(joined, peerAddress: peerAddress) } catch {
        throw CommandFailure("\(error)", exitCode: .ioError)
    }
    announcer.say("Joined \(joined.hostName)'s \(joined.initialState.game.gameDisplayName) at \(peerAddress).", event: JSONEvents.joinedHost(
        joined.hostName, seat: joined.seat, match: joined.initialState.matchID.hex, address: peerAddress, key: hostKey?.description))
    if let key = joined.remote.peerKey, let meeting, !presentation.isJSON {
        announcer.say(KnownPeople.line(name: joined.hostName, key: key, meeting: meeting))
    }

    if hintsAllowed {
        presentation.allowHints()
        announcer.say("The host allows hints: press h for the best move.")
    }

    let exit = try await SessionRunner.playAsGuest(joined, record: record, saves: saves, bot: options.bot,
                                                   presentation: presentation, rematches: options.rematches)
    return exit.exitCode
}

/// A host reached by address or by its advertised name (`join` and `watch`).
struct ReachedHost {
    var connection: TCPConnection
    var peerAddress: String
    var dial: Dialer
    /// How this and every later connection to the host is set up (protocol 3's channel; clear after `--allow-unencrypted` fell back).
    var channel: GuestChannel
    var needsPasscode = false
    /// The advertised name ("Ana's Connect Four") when reached by name: what the passcode prompt names.
    var gameName: String?
    /// Only the advertisement says whether the host allows hints: reached by address, there are none.
    var hintsAllowed = false

    /// Connects to `target`: an address, a name (DNS-SD), or a picker on a terminal when nil.
    static func reach(_ target: JoinTarget?, json: Bool, watching: Bool = false) async throws -> ReachedHost {
        // The key first: a player whose key cannot be used learns it before anything connects.
        let channel = GuestChannel(try LocalChannel.connecting())
        switch target {
        case .address(let host, let port)?:
            let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            let connection: TCPConnection
            do { connection = try await TCPConnection.connect(host: host, port: port, timeout: .seconds(5)) } catch {
                throw ConnectFailure(target: shown, error: error)
            }
            return ReachedHost(connection: connection, peerAddress: shown, dial: SessionRunner.dialer(host: host, port: port, channel: channel),
                               channel: channel)
        case .name(let name)?:
            let (connection, peerAddress, needsPasscode, gameName, hintsAllowed) = try await ServiceFinder.reach(name: name, json: json, watching: watching)
            return ReachedHost(connection: connection, peerAddress: peerAddress,
                               dial: SessionRunner.dialer(addresses: connection.remote.map { [$0] } ?? [], channel: channel),
                               channel: channel, needsPasscode: needsPasscode, gameName: gameName, hintsAllowed: hintsAllowed)
        case nil:
            // A picker on a terminal; a usage error otherwise (ServiceFinder.swift).
            let (connection, peerAddress, needsPasscode, gameName, hintsAllowed) = try await ServiceFinder.reach(name: nil, json: json, watching: watching)
            return ReachedHost(connection: connection, peerAddress: peerAddress,
                               dial: SessionRunner.dialer(addresses: connection.remote.map { [$0] } ?? [], channel: channel),
                               channel: channel, needsPasscode: needsPasscode, gameName: gameName, hintsAllowed: hintsAllowed)
        }
    }
}

/// Opens a new connection to the host for a second handshake.
func redial(_ dial: Dialer, shown: String) async throws -> any ByteStream {
    do { return try await dial(.seconds(5)) } catch { throw ConnectFailure(target: shown, error: error) }
}

/// Asking the person at the terminal for the host's passcode.
struct PasscodeQuestion {
    /// Wrong codes a person at a terminal may type before `join` gives up.
    static let tries = 3
    /// The pauses before trying a host that shed the connection again (1.4 s in all).
    static let shedPauses: [Duration] = [.milliseconds(200), .milliseconds(400), .milliseconds(800)]

    /// The advertised name of the game, when joined by name or picked from the list.
    var game: String?
    /// The host's address as shown.
    var address: String
    /// The lobby's desk, which asks over its screen (its key reader owns the terminal); nil: the terminal is asked.
    var desk: MatchDesk?
    /// The channel of every connection to the host: a code typed here is proved in its handshake (protocol 3).
    var channel: GuestChannel?
    /// What the code is for.
    var use: PasscodeUse = .seat

    init(game: String?, address: String, channel: GuestChannel? = nil, use: PasscodeUse = .seat) {
        self.game = game
        self.address = address
        self.channel = channel
        self.use = use
    }

    /// What the prompt and the messages call the host: the game's advertised
    /// name, or (joined by address, when the game is not known before the
    /// code is proved) "the game at ADDRESS".
    var what: String {
        game.map { "\"\(Text.escapingUnprintable($0))\"" } ?? "the game at \(address)"
    }

    /// The prompt: "Passcode for "Ana's Connect Four": ".
    var prompt: String { "Passcode for \(what): " }

    /// Runs the handshake `attempt` over `first`, and again over a fresh
    /// connection after asking for the code: when the host says it needs one we
    /// do not have (joined by address, only its answer tells us: REJECT
    /// passcodeRequired, or a protocol-2 host's CHALLENGE), and on a terminal
    /// after a wrong one, up to `tries` in all.
    ///
    /// A host shedding load (REJECT busy, or a connection closed before any
    /// answer: a host at its open-files limit closes what it cannot take) is
    /// tried again after `shedPauses`, so a guest arriving just after a flood
    /// of connections gets its seat instead of an error.
    func handshake<Joined>(first: any ByteStream, options: inout GuestOptions, dial: Dialer,
                           _ attempt: (any ByteStream, GuestOptions) async throws(JoinError) -> Joined) async throws -> Joined {
        var stream = first
        var wrongTries = 0
        var shed = 0
        while true {
            do {
                return try await attempt(stream, options)
            } catch .rejected(.busy, _) where shed < Self.shedPauses.count, .connectionClosed where shed < Self.shedPauses.count {
                try await Task.sleep(for: Self.shedPauses[shed])
                shed += 1
            } catch .passcodeNeeded where options.passcode == nil {
                options.passcode = try await ask()
            } catch .rejected(.passcodeRequired, _) where options.passcode == nil {
                options.passcode = try await ask()
            } catch .rejected(.passcodeWrong, _) {
                wrongTries += 1
                guard Terminal.isInteractive, wrongTries < Self.tries else {
                    throw JoinFailure(error: .rejected(.passcodeWrong, ""), wrongTries: wrongTries, watching: use == .watch)
                }
                let wrong = "That passcode is wrong (\(wrongTries) of \(Self.tries) tries)."
                if desk == nil { Console.writeError(wrong + "\n") }
                options.passcode = try await ask(note: wrong)
            } catch {
                throw JoinFailure(error: error, watching: use == .watch)
            }
            channel?.prove(options.passcode, for: use)
            stream = try await redial(dial, shown: address)
        }
    }

    /// The code typed at a terminal without echo. Without a terminal it fails
    /// with a usage error (exit 64) that says to pass `--code`; Ctrl-C or
    /// Ctrl-D at the prompt ends parlor as interrupted (exit 130).
    func ask(note: String? = nil) async throws -> String {
        let host = what
        if let desk, Terminal.isInteractive { return try await ask(at: desk, note: note) }
        guard Terminal.isInteractive else {
            throw CommandFailure("\(host) needs a passcode; ask its host for the code and \(use == .watch ? "watch" : "join") with --code CODE",
                                 exitCode: .usage)
        }
        switch await LinePrompt.secret(prompt) {
        case .success(.line(let typed)):
            do { return try Passcode.validated(typed.trimmingCharacters(in: .whitespaces)) } catch {
                throw CommandFailure("that is not a passcode: \(error.explanation)", exitCode: .usage)
            }
        case .success(.cancelled):
            throw Stopped("Stopped at the passcode prompt: nothing was joined.")
        case .failure(let error):
            throw CommandFailure("\(host) needs a passcode and it cannot be asked for here (\(error)); "
                                 + "\(use == .watch ? "watch" : "join") with --code CODE", exitCode: .usage)
        }
    }

    /// Asks at the lobby's desk, over its screen, until a well-formed code or Esc.
    private func ask(at desk: MatchDesk, note: String?) async throws -> String {
        var note = note
        while true {
            guard let typed = await desk.askSecret(prompt, note: note) else {
                throw CommandFailure("no passcode given for \(what)", exitCode: .interrupted)
            }
            do { return try Passcode.validated(typed.trimmingCharacters(in: .whitespaces)) } catch {
                note = "That is not a passcode: \(error.explanation)."
            }
        }
    }
}
