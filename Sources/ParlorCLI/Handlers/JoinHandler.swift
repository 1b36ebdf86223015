import Bots
import Discovery
import Foundation
import Games
import Match
import Session
import Store
import TerminalUI

/// Runs `parlor join TARGET`: connects to a host by address or by its
/// advertised name, and plays through a `RemoteParticipant` for the host's seat.
func runJoin(_ options: JoinOptions) async throws -> ExitCode {
    var presentation = MatchPresentation(flags: options.display)
    let announcer = Announcer(json: presentation.isJSON)
    let connection: TCPConnection
    let peerAddress: String
    let dial: Dialer
    var needsPasscode = false
    // Only the advertisement says whether the host allows hints: joined by address, there are none.
    var hintsAllowed = false
    switch options.target {
    case .address(let host, let port)?:
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        do { connection = try await TCPConnection.connect(host: host, port: port, timeout: .seconds(5)) } catch {
            throw ConnectFailure(target: shown, error: error)
        }
        peerAddress = shown
        dial = SessionRunner.dialer(host: host, port: port)
    case .name(let name)?:
        (connection, peerAddress, needsPasscode, hintsAllowed) = try await ServiceFinder.reach(name: name, json: presentation.isJSON)
        dial = SessionRunner.dialer(addresses: connection.remote.map { [$0] } ?? [])
    case nil:
        // A picker on a terminal; a usage error otherwise (ServiceFinder.swift).
        (connection, peerAddress, needsPasscode, hintsAllowed) = try await ServiceFinder.reach(name: nil, json: presentation.isJSON)
        dial = SessionRunner.dialer(addresses: connection.remote.map { [$0] } ?? [])
    }

    let playerName = options.bot.map(\.playerName) ?? options.name
    let hello = Hello(appVersion: ParlorVersion.current, playerID: LocalData.playerID, playerName: playerName)
    var guestOptions = SessionRunner.guestOptions(grace: options.timeouts.grace, dial: dial)
    guestOptions.passcode = options.passcode
    var stream: any ByteStream = connection.byteStream()
    if needsPasscode && guestOptions.passcode == nil {
        // The advertisement says so: ask before the handshake, on a fresh
        // connection afterwards (the host would not wait while someone types).
        stream.close()
        guestOptions.passcode = try await PasscodeQuestion.ask(host: peerAddress)
        stream = try await redial(dial, shown: peerAddress)
    }
    let joined: JoinedMatch
    do {
        joined = try await Guest.join(over: stream, hello: hello, options: guestOptions)
    } catch .passcodeNeeded where guestOptions.passcode == nil {
        // Joined by address: only the host's CHALLENGE told us. Ask once, then try once more.
        guestOptions.passcode = try await PasscodeQuestion.ask(host: peerAddress)
        let again = try await redial(dial, shown: peerAddress)
        do {
            joined = try await Guest.join(over: again, hello: hello, options: guestOptions)
        } catch {
            throw JoinFailure(error: error)
        }
    } catch {
        throw JoinFailure(error: error)
    }
    announcer.say("Joined \(joined.hostName)'s \(joined.initialState.game.gameDisplayName) at \(peerAddress).", event: .object([
        ("event", "joined"), ("host", .string(joined.hostName)), ("seat", .int(Int64(joined.seat))),
        ("match", .string(joined.initialState.matchID.hex)), ("address", .string(peerAddress)),
    ]))

    if hintsAllowed {
        presentation.allowHints()
        announcer.say("The host allows hints: press h for the best move.")
    }

    let record = StoredMatch(state: joined.initialState, role: .guest, localSeat: joined.seat, lastActivity: wallClockMilliseconds(),
                             peerAddress: peerAddress, seatToken: joined.seatToken.bytes)
    let exit = try await SessionRunner.playAsGuest(joined, record: record, bot: options.bot, presentation: presentation,
                                                   rematches: options.rematches)
    return exit.exitCode
}

/// Opens a new connection to the host for a second handshake.
private func redial(_ dial: Dialer, shown: String) async throws -> any ByteStream {
    do { return try await dial(.seconds(5)) } catch { throw ConnectFailure(target: shown, error: error) }
}

/// Asking the person at the terminal for the host's passcode.
enum PasscodeQuestion {
    /// The code typed at a terminal without echo. Without a terminal it fails
    /// with a usage error (exit 64) that says to pass `--code`; Ctrl-C or
    /// Ctrl-D at the prompt ends parlor as interrupted (exit 130).
    static func ask(host: String) async throws -> String {
        guard isInteractiveTerminal else {
            throw CommandFailure("\(host) needs a passcode; ask its host for the code and join with --code CODE", exitCode: .usage)
        }
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Result<SecretPrompt.Answer, TerminalError>, Never>) in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(TerminalError) in try SecretPrompt.ask("Passcode for \(host): ") })
            }
            thread.name = "parlor-passcode-prompt"
            thread.start()
        }
        switch answer {
        case .success(.line(let typed)):
            do { return try Passcode.validated(typed.trimmingCharacters(in: .whitespaces)) } catch {
                throw CommandFailure("that is not a passcode: \(error.explanation)", exitCode: .usage)
            }
        case .success(.cancelled):
            throw CommandFailure("no passcode given", exitCode: .interrupted)
        case .failure(let error):
            throw CommandFailure("\(host) needs a passcode and it cannot be asked for here (\(error)); join with --code CODE", exitCode: .usage)
        }
    }
}
