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
    let dial: Dialer
    switch options.target {
    case .address(let host, let port)?:
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        do { connection = try await TCPConnection.connect(host: host, port: port, timeout: .seconds(5)) } catch {
            throw ConnectFailure(target: shown, error: error)
        }
        peerAddress = shown
        dial = SessionRunner.dialer(host: host, port: port)
    case .name(let name)?:
        (connection, peerAddress) = try await ServiceFinder.reach(name: name, json: presentation.isJSON)
        dial = SessionRunner.dialer(addresses: connection.remote.map { [$0] } ?? [])
    case nil:
        // A picker on a terminal; a usage error otherwise (ServiceFinder.swift).
        (connection, peerAddress) = try await ServiceFinder.reach(name: nil, json: presentation.isJSON)
        dial = SessionRunner.dialer(addresses: connection.remote.map { [$0] } ?? [])
    }

    let playerName = options.bot.map(\.playerName) ?? options.name
    let hello = Hello(appVersion: ParlorVersion.current, playerID: LocalData.playerID, playerName: playerName)
    let guestOptions = SessionRunner.guestOptions(grace: options.timeouts.grace, dial: dial)
    let joined: JoinedMatch
    do { joined = try await Guest.join(over: connection.byteStream(), hello: hello, options: guestOptions) } catch {
        throw JoinFailure(error: error)
    }
    announcer.say("Joined \(joined.hostName)'s \(joined.initialState.game.gameDisplayName) at \(peerAddress).", event: .object([
        ("event", "joined"), ("host", .string(joined.hostName)), ("seat", .int(Int64(joined.seat))),
        ("match", .string(joined.initialState.matchID.hex)), ("address", .string(peerAddress)),
    ]))

    let record = StoredMatch(state: joined.initialState, role: .guest, localSeat: joined.seat, lastActivity: wallClockMilliseconds(),
                             peerAddress: peerAddress, seatToken: joined.seatToken.bytes)
    let exit = try await SessionRunner.playAsGuest(joined, record: record, bot: options.bot, presentation: presentation,
                                                   rematches: options.rematches)
    return exit.exitCode
}
