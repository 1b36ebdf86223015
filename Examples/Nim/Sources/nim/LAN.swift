import Games
import Match
import NimRules
import ParlorKit
import Secure
import Session
import Store

/// Sent in HELLO and WELCOME, for logs and "please update" hints.
let appVersion = "nim-example 1"

/// `nim host`: listens on `port`, waits for one guest, plays the match, saving every move.
/// Every connection is encrypted and proves a player key (protocol 3). `game`
/// is `Nim`, `RandomNim` or `MisereNim`; for `RandomNim` parlor draws the seed here, the host.
func hostMatch<G: Game>(_ game: G.Type, port: UInt16, bot: Bool, home: NimHome) async throws {
    let key = try home.playerKey()
    let table = try await TurnBasedLAN.host(G.self, as: "Host", port: port,
                                            security: .encrypted(SecureChannelOptions(identity: key)),
                                            advertise: false, store: home.store, appVersion: appVersion)
    print("Hosting Nim on port \(table.port); your key is \(key.fingerprint)")
    let match = try await table.waitForMatch(playedBy: bot ? .bot(.hard) : .caller)
    let guest = await match.participants.first { !$0.isLocal }
    print("\(guest?.name ?? "?") joined, key \(guest?.key.map { "\($0.fingerprint)" } ?? "none")")
    sayDealtHeaps(await match.state.replayPositions[0])  // as dealt: parlor's bot may have moved already
    let final = try await playToTheEnd(match, bot: bot)
    home.saidSaved(final)
    // Leave only once the guest has the final state: closing at once could
    // roll back its last move (docs/LIBRARY.md, the contract's third rule).
    await match.leave()
}

/// `nim host --tables N`: a classroom's host: up to `tables` guests at once,
/// each at a table of its own against parlor's hard bot, behind one port;
/// a table is free again once its match is over. Prints each table's guest
/// and end; runs until it is stopped (Ctrl-C).
func hostTables<G: Game>(_ game: G.Type, port: UInt16, tables: Int, home: NimHome) async throws {
    let key = try home.playerKey()
    let hall = try await TurnBasedLAN.hostTables(G.self, as: "Host", tables: tables, playedBy: .bot(.hard), port: port,
                                                 security: .encrypted(SecureChannelOptions(identity: key)),
                                                 advertise: false, store: home.store, appVersion: appVersion)
    print("Hosting Nim on port \(hall.port) at up to \(tables) tables, each guest against the bot; your key is \(key.fingerprint)")
    await withTaskGroup(of: Void.self) { group in
        for await table in hall.tables {
            group.addTask {
                let guest = await table.match.participants.first { !$0.isLocal }
                print("Table \(table.number): \(guest?.name ?? "?") sat down")
                _ = await table.match.finished()
                let final = await table.match.state
                print("Table \(table.number): \(endLine(final)) State hash: \(String(final.stateHash, radix: 16))")
            }
        }
    }
}

/// `nim join HOST:PORT`: joins a hosted match over protocol 3 and plays it, saving every move.
func joinMatch<G: Game>(_ game: G.Type, host: String, port: UInt16, bot: Bool, home: NimHome) async throws {
    let match = try await TurnBasedLAN.join(G.self, host: host, port: port, as: "Guest",
                                            security: .encrypted(SecureChannelOptions(identity: try home.playerKey())),
                                            store: home.store, playedBy: bot ? .bot(.hard) : .caller, appVersion: appVersion)
    let host = await match.participants.first { !$0.isLocal }
    print("Joined \(host?.name ?? "?"), key \(host?.key.map { "\($0.fingerprint)" } ?? "none")")
    sayDealtHeaps(await match.state.replayPositions[0])  // the host's seed, adopted from its WELCOME
    let final = try await playToTheEnd(match, bot: bot)
    home.saidSaved(final)
}

/// Plays a LAN match to its end through parlor's front door: prints each
/// move, the winner and the final hash (equal on both sides); on this side's
/// turn, the person typing on stdin moves (with `bot`, parlor's bot plays the seat itself).
func playToTheEnd<G: Game>(_ match: TurnBasedMatch<G>, bot: Bool) async throws -> MatchState {
    var typed = bot ? nil : typedLines().makeAsyncIterator()
    for await event in match.events {
        switch event {
        case .turnBegan(let participant, let game) where participant.isLocal && !bot:
            while true {
                guard let move = await askForMove(in: game, typed: &typed) else {
                    try? await match.quit()
                    break
                }
                do {
                    try await match.endTurn(with: move)
                    break
                } catch .matchOver {
                    break  // the other side left meanwhile
                } catch {
                    print("That move did not count (\(error)); type it again.")
                }
            }
        case .turnEnded(let participant, let move?, _, let game):
            print("\(participant.name) \(took(move)): heaps \(heaps(of: game))")
        default:
            break
        }
    }
    // With a store, the final state is on disk once `finished` returns.
    _ = await match.finished()
    let final = await match.state
    print(endLine(final))
    print("State hash: \(String(final.stateHash, radix: 16))")
    return final
}

/// The heaps of a Nim game of any of the three kinds, as a person reads them: "3 1 5".
func heaps(of game: any Game) -> String {
    ((game as? Nim)?.heaps ?? (game as? RandomNim)?.heaps ?? (game as? MisereNim)?.heaps ?? []).map(String.init).joined(separator: " ")
}

/// `nim watch HOST:PORT`: a spectator; prints the match as it stands, each
/// move as it is played, and the end. Encrypted, with this player's key.
func watchMatch<G: Game>(_ game: G.Type, host: String, port: UInt16, home: NimHome) async throws {
    let watch = try await TurnBasedLAN.watch(G.self, host: host, port: port, as: "Spectator",
                                             security: .encrypted(SecureChannelOptions(identity: try home.playerKey())),
                                             appVersion: appVersion)
    print("Watching \(await watch.participants.map(\.name).joined(separator: " vs ")): heaps \(heaps(of: await watch.game))")
    for await event in watch.events {
        if case .turnEnded(let participant, let move?, _, let game) = event {
            print("\(participant.name) \(took(move)): heaps \(heaps(of: game))")
        }
    }
    let final = await watch.state
    print(endLine(final))
    print("State hash: \(String(final.stateHash, radix: 16))")
}

/// `nim resume [ID]`: takes an unfinished LAN match saved here back up, as
/// the host (waiting for the guest on the match's port) or as the guest
/// (dialing the host where it was), and plays it to its end.
func resumeMatch(_ id: String?, bot: Bool, home: NimHome) async throws {
    let unfinished = home.store.list().matches.filter { $0.phase != .ended && $0.role != .offline }
    let chosen = unfinished.filter { id == nil || $0.state.matchID.hex.hasPrefix(id!.lowercased()) }
    guard chosen.count == 1, let record = chosen.first else {
        throw NothingToResume(description: chosen.isEmpty ? "there is no unfinished match to resume" + (id.map { " with id \($0)" } ?? "")
                                                           : "\(chosen.count) unfinished matches: say which, by id")
    }
    let variant: any Game.Type = record.state.game(as: RandomNim.self) != nil ? RandomNim.self
        : record.state.game(as: MisereNim.self) != nil ? MisereNim.self : Nim.self
    try await resume(variant, record, bot: bot, home: home)
}

/// Why `nim resume` found no one match to take back up: exit 1 with the sentence.
struct NothingToResume: Error, CustomStringConvertible {
    var description: String
}

private func resume<G: Game>(_ game: G.Type, _ record: StoredMatch, bot: Bool, home: NimHome) async throws {
    let security = ChannelSecurity.encrypted(SecureChannelOptions(identity: try home.playerKey()))
    let match: TurnBasedMatch<G>
    if record.role == .host {
        let table = try await TurnBasedLAN.resume(G.self, hosting: record, store: home.store, security: security,
                                                  advertise: false, appVersion: appVersion)
        print("Resuming match \(record.state.matchID.short) on port \(table.port) (move \(record.state.moves.count)); waiting for the guest")
        match = try await table.waitForMatch(playedBy: bot ? .bot(.hard) : .caller)
    } else {
        print("Resuming match \(record.state.matchID.short) (move \(record.state.moves.count)); dialing \(record.peerAddress)")
        match = try await TurnBasedLAN.resume(G.self, joined: record, store: home.store, security: security,
                                              lookOnTheLAN: false, playedBy: bot ? .bot(.hard) : .caller, appVersion: appVersion)
    }
    print("Back at heaps \(heaps(of: await match.game))")
    let final = try await playToTheEnd(match, bot: bot)
    home.saidSaved(final)
    await match.leave()
}
