import Foundation
import Match
import Store

/// `parlor resume` of a many-table host (`parlor host --tables`): every table
/// the same host process saved and left unfinished comes back in one hall, on
/// the saved port, each waiting for its own guest (docs/PROTOCOL.md, section 19).
enum HallResume {
    /// Claims `first`'s siblings too and serves them all as one hall; a sibling
    /// another process holds meanwhile is left to it (and said so).
    /// `claim` is `first`'s, held by the caller; each table's claim is let go
    /// as soon as the hall gives that table up, so `parlor resume ID` can take it alone.
    static func run(_ first: StoredMatch, claim: MatchClaim, siblings: [StoredMatch], options: ResumeOptions,
                    store: MatchStore) async throws -> ExitCode {
        var records = [first]
        var claims: [MatchID: MatchClaim] = [first.state.matchID: claim]
        defer { for claim in claims.values { claim.release() } }
        for sibling in siblings {
            do {
                let (record, claim) = try store.claimForResume(.match(sibling.state.matchID.hex))
                records.append(record)
                claims[record.state.matchID] = claim
            } catch {
                Console.writeError("parlor: table of match \(sibling.state.matchID.short) is not resumed here: \(error)\n")
            }
        }
        let hostSeat = first.localSeat
        let level = options.bot ?? BotLevelChoice.allCases.first { $0.playerName == first.state.seats[hostSeat].name } ?? .medium
        var host = HostOptions(game: first.state.gameID, name: first.state.seats[1 - hostSeat].name, bot: level, display: options.display)
        host.name = first.state.seats[hostSeat].name
        host.timeouts = options.timeouts
        host.tables = records.count
        return try await runHall(host, limit: records.count, resuming: records, claims: claims)
    }
}
