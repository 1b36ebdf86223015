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
    if options.passcode != nil {
        throw CommandFailure("passcodes (--code) are not supported by this parlor yet", exitCode: .usage)
    }
    let presentation = MatchPresentation(flags: options.display)
    let announcer = Announcer(json: presentation.isJSON)
    let connection: TCPConnection
    let peerAddress: String
    switch options.target {
    case .address(let host, let port)?:
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        do { connection = try await TCPConnection.connect(host: host, port: port, timeout: .seconds(5)) } catch {
            throw ConnectFailure(target: shown, error: error)
        }
        peerAddress = shown
    case .name(let name)?:
        (connection, peerAddress) = try await ServiceFinder.reach(name: name, json: presentation.isJSON)
    case nil:
        // A picker on a terminal; a usage error otherwise (ServiceFinder.swift).
        (connection, peerAddress) = try await ServiceFinder.reach(name: nil, json: presentation.isJSON)
    }

    let playerName = options.bot.map(\.playerName) ?? options.name
    let hello = Hello(appVersion: ParlorVersion.current, playerID: LocalData.playerID, playerName: playerName)
    var guestOptions = GuestOptions()
    if let grace = options.timeouts.grace { guestOptions.grace = grace }
    let joined: JoinedMatch
    do { joined = try await Guest.join(over: connection.byteStream(), hello: hello, options: guestOptions) } catch {
        throw JoinFailure(error: error)
    }
    announcer.say("Joined \(joined.hostName)'s \(joined.initialState.game.gameDisplayName) at \(peerAddress).", event: .object([
        ("event", "joined"), ("host", .string(joined.hostName)), ("seat", .int(Int64(joined.seat))),
        ("match", .string(joined.initialState.matchID.hex)), ("address", .string(peerAddress)),
    ]))

    var locals: [LocalParticipant] = []
    let me: any Participant
    if let bot = options.bot {
        me = BotParticipant(playerID: joined.playerID, minimumThinkTime: presentation.botPause,
                            strategy: botStrategy(bot, seed: freshSeed()))
    } else {
        let local = LocalParticipant(playerID: joined.playerID)
        locals.append(local)
        me = local
    }
    let controller = joined.makeController(with: me)
    let recorder = MatchRecorder(store: LocalData.matchStore, record: StoredMatch(
        state: joined.initialState, role: .guest, localSeat: joined.seat, lastActivity: wallClockMilliseconds(),
        peerAddress: peerAddress, seatToken: joined.seatToken.bytes))
    let exit = try await presentation.play(controller, locals: locals, recorder: recorder)
    return exit.exitCode
}
