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
    guard let target = options.target else {
        throw UsageError.missingArgument("TARGET")
    }

    let connection: TCPConnection
    let peerAddress: String
    let dial: Dialer
    switch target {
    case .address(let host, let port):
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        do { connection = try await TCPConnection.connect(host: host, port: port, timeout: .seconds(5)) } catch {
            throw ConnectFailure(target: shown, error: error)
        }
        peerAddress = shown
        dial = SessionRunner.dialer(host: host, port: port)
    case .name(let name):
        let service = try await ServiceFinder.find(name: name)
        let addresses = service.addresses.compactMap { try? SocketAddress(ipAddress: $0.host, port: service.port) }
        guard !addresses.isEmpty else {
            throw CommandFailure("\"\(service.name)\" was found but none of its addresses could be used")
        }
        do { connection = try await TCPConnection.connect(addresses: addresses, timeout: .seconds(5)) } catch {
            throw ConnectFailure(target: "\"\(service.name)\"", error: error)
        }
        peerAddress = connection.remoteAddress
        dial = SessionRunner.dialer(addresses: connection.remote.map { [$0] } ?? addresses)
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

/// Finds an advertised game by name (exact, or a unique case-insensitive prefix).
enum ServiceFinder {
    static func find(name: String, timeout: Duration = .seconds(3)) async throws -> DiscoveredService {
        let events = DNSSDDirectory().browse(type: parlorServiceType)
        var found: [String: DiscoveredService] = [:]
        let deadline = ContinuousClock.now + timeout
        let lowered = name.lowercased()
        let collector = Task { () -> Result<[String: DiscoveredService], DiscoveryError> in
            var seen: [String: DiscoveredService] = [:]
            for await event in events {
                switch event {
                case .found(let service), .updated(let service):
                    seen[service.name] = service
                    if service.name.lowercased() == lowered { return .success(seen) }
                case .lost(let instance): seen[instance.name] = nil
                case .failed(let error): return .failure(error)
                }
                if ContinuousClock.now >= deadline { break }
            }
            return .success(seen)
        }
        let timer = Task { try? await Task.sleep(until: deadline); collector.cancel() }
        defer { timer.cancel() }
        switch await collector.value {
        case .failure(let error):
            throw CommandFailure("""
                cannot look up \"\(name)\" on the LAN: \(error)
                Ask the host for the address it printed and use 'parlor join ADDRESS:PORT'.
                """, exitCode: .serviceUnavailable)
        case .success(let seen): found = seen
        }
        if let exact = found.values.first(where: { $0.name.lowercased() == lowered }) { return exact }
        let matches = found.values.filter { $0.name.lowercased().hasPrefix(lowered) }
        if matches.count == 1, let only = matches.first { return only }
        if matches.count > 1 {
            throw CommandFailure("\"\(name)\" matches several games: "
                + matches.map { "\"\($0.name)\"" }.sorted().joined(separator: ", ") + "; give more of the name")
        }
        let known = found.values.map { "\"\($0.name)\"" }.sorted()
        throw CommandFailure("no game called \"\(name)\" was found on the LAN"
            + (known.isEmpty ? " (no games found at all; see 'parlor browse')" : "; games found: " + known.joined(separator: ", ")))
    }
}
