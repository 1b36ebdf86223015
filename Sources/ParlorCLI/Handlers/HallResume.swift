import Foundation
import Match
import Store

/// `parlor resume` of a many-table host (`parlor host --tables`): every table
/// the same host process saved and left unfinished comes back in one hall, on
/// the saved port, each waiting for its own guest (docs/PROTOCOL.md, section 19).
enum HallResume {
    /// The other unfinished tables of the host process that saved `record`:
    /// host records of two seats written by the same process (`writerPID`) on
    /// the same port. Empty for a host of one match.
    static func siblings(of record: StoredMatch, in store: MatchStore) -> [StoredMatch] {
        guard record.role == .host, record.state.seats.count == 2, record.writerPID != 0 else { return [] }
        return store.list().matches.filter { other in
            other.role == .host && other.phase == .interrupted && other.writerPID == record.writerPID
                && other.listenPort == record.listenPort && other.state.matchID != record.state.matchID
                && other.state.seats.count == 2 && other.hasSeatToken
        }
    }

    /// Claims `first`'s siblings too and serves them all as one hall; a sibling
    /// another process holds meanwhile is left to it (and said so).
    static func run(_ first: StoredMatch, siblings: [StoredMatch], options: ResumeOptions, store: MatchStore) async throws -> ExitCode {
        var records = [first]
        var claims: [MatchClaim] = []
        defer { for claim in claims { claim.release() } }
        for sibling in siblings {
            do {
                let (record, claim) = try store.claimForResume(.match(sibling.state.matchID.hex))
                records.append(record)
                claims.append(claim)
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
        return try await runHall(host, limit: records.count, resuming: records)
    }
}
