import Games
import Match
import NimRules
import ParlorKit
import Secure
import Session

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
