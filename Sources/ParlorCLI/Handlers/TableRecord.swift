import Games
import Match
import Secure
import Session
import Store

/// What a table's host keeps on disk so `parlor resume` can bring the table
/// back (docs/STORE.md formats 3 and 6): every guest seat's token and key and
/// every bot's level, and the way back from that record to a `SavedHostMatch`.
enum TableRecord {
    /// The seats of `hosted` as its host keeps them; empty at two seats
    /// (the record's one `seatToken` is enough there). Bot levels are the
    /// ones `SessionRunner.tableBots` plays them at.
    static func seats(of hosted: HostedMatch, botLevels: [BotLevelChoice]) -> [StoredMatch.TableSeat] {
        let state = hosted.initialState
        guard state.seats.count > 2 else { return [] }
        return state.seats.indices.map { seat in
            if seat == hosted.hostSeat { return StoredMatch.TableSeat(kind: .own) }
            if let index = hosted.botSeats.firstIndex(of: seat) {
                return StoredMatch.TableSeat(kind: .bot, botLevel: level(index, of: botLevels).rawValue)
            }
            let guest = zip(hosted.guests, hosted.seatTokens).first { $0.0.seat == seat }
            return StoredMatch.TableSeat(kind: .guest, seatToken: guest?.1.bytes ?? [], playerKey: guest?.0.peerKey?.bytes)
        }
    }

    /// The level of the host's `index`th bot: `--bots` in order, medium for the seats `--fill-with-bots` gave.
    static func level(_ index: Int, of levels: [BotLevelChoice]) -> BotLevelChoice {
        index < levels.count ? levels[index] : .medium
    }

    /// Why the saved table in `record` cannot be hosted again, or the match
    /// to offer and its bots' levels (in seat order).
    static func saved(_ record: StoredMatch) -> Result<(SavedHostMatch, [BotLevelChoice]), CommandFailure> {
        let state = record.state
        guard !record.tableSeats.isEmpty else {
            return .failure(CommandFailure("match \(state.matchID.short) is a table of \(state.seats.count) saved by an older parlor, "
                                           + "which kept one seat token; it cannot be resumed", exitCode: .dataError))
        }
        var tokens: [SeatIndex: SeatToken] = [:]
        var keys: [SeatIndex: PlayerPublicKey] = [:]
        var bots: [(SeatIndex, BotLevelChoice)] = []
        for (seat, kept) in record.tableSeats.enumerated() {
            switch kept.kind {
            case .own:
                continue
            case .guest:
                guard let token = SeatToken(bytes: kept.seatToken), kept.seatToken.contains(where: { $0 != 0 }) else {
                    return .failure(CommandFailure("match \(state.matchID.short) has no seat token saved for seat \(seat + 1); "
                                                   + "it cannot be resumed", exitCode: .dataError))
                }
                tokens[seat] = token
                if kept.hasPlayerKey, let key = try? PlayerPublicKey(bytes: kept.playerKey) { keys[seat] = key }
            case .bot:
                bots.append((seat, BotLevelChoice(rawValue: kept.botLevel) ?? .medium))
            }
        }
        guard var saved = SavedHostMatch(table: state, hostSeat: record.localSeat, guestTokens: tokens, botSeats: bots.map(\.0)) else {
            return .failure(CommandFailure("match \(state.matchID.short) has no guest seat to wait for; it cannot be resumed",
                                           exitCode: .dataError))
        }
        saved.guestKeys = keys
        return .success((saved, bots.map(\.1)))
    }
}
