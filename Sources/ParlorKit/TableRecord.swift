import Bots
import Games
import Match
import Secure
import Session
import Store

/// What a table's host keeps on disk so that the table can be hosted again
/// (docs/STORE.md formats 3 and 6): every guest seat's token and key, and
/// every bot's level; and the way back from that record to a
/// `SavedHostMatch`. Decided once, for the front door and the `parlor` command.
public enum TableRecord {
    /// The seats of `hosted` as its host keeps them; empty at two seats (the
    /// record's one `seatToken` is enough there). `botLevels` are the levels
    /// of the host's bots in the order of `hosted.botSeats` (nil: a bot that
    /// is not parlor's, such as a strategy, kept without a level); a bot past
    /// the end of the list plays medium.
    public static func seats(of hosted: HostedMatch, botLevels: [BotLevel?]) -> [StoredMatch.TableSeat] {
        let state = hosted.initialState
        guard state.seats.count > 2 else { return [] }
        return state.seats.indices.map { seat in
            if seat == hosted.hostSeat { return StoredMatch.TableSeat(kind: .own) }
            if let index = hosted.botSeats.firstIndex(of: seat) {
                let level = index < botLevels.count ? botLevels[index] : .medium
                return StoredMatch.TableSeat(kind: .bot, botLevel: level?.rawValue ?? "")
            }
            let guest = zip(hosted.guests, hosted.seatTokens).first { $0.0.seat == seat }
            return StoredMatch.TableSeat(kind: .guest, seatToken: guest?.1.bytes ?? [], playerKey: guest?.0.peerKey?.bytes)
        }
    }

    /// The match the saved table in `record` offers again, with each guest
    /// seat's token and key, and its bots' levels in seat order (nil: a bot
    /// saved without one); or why it cannot be hosted again, as a sentence.
    public static func saved(_ record: StoredMatch) -> Result<(match: SavedHostMatch, botLevels: [BotLevel?]), TableRecordError> {
        let state = record.state
        guard !record.tableSeats.isEmpty else {
            return .failure(TableRecordError("match \(state.matchID.short) is a table of \(state.seats.count) saved by an older parlor, "
                                             + "which kept one seat token; it cannot be resumed"))
        }
        var tokens: [SeatIndex: SeatToken] = [:]
        var keys: [SeatIndex: PlayerPublicKey] = [:]
        var bots: [(SeatIndex, BotLevel?)] = []
        for (seat, kept) in record.tableSeats.enumerated() {
            switch kept.kind {
            case .own:
                continue
            case .guest:
                guard let token = SeatToken(bytes: kept.seatToken), kept.seatToken.contains(where: { $0 != 0 }) else {
                    return .failure(TableRecordError("match \(state.matchID.short) has no seat token saved for seat \(seat + 1); "
                                                     + "it cannot be resumed"))
                }
                tokens[seat] = token
                if kept.hasPlayerKey, let key = try? PlayerPublicKey(bytes: kept.playerKey) { keys[seat] = key }
            case .bot:
                bots.append((seat, BotLevel(rawValue: kept.botLevel)))
            }
        }
        guard var saved = SavedHostMatch(table: state, hostSeat: record.localSeat, guestTokens: tokens, botSeats: bots.map(\.0)) else {
            return .failure(TableRecordError("match \(state.matchID.short) has no guest seat to wait for; it cannot be resumed"))
        }
        saved.guestKeys = keys
        return .success((saved, bots.map(\.1)))
    }
}

/// Why a saved table cannot be hosted again: a sentence for the player,
/// "match 1a2b3c4d has no seat token saved for seat 2; it cannot be resumed".
public struct TableRecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The sentence.
    public var description: String
    init(_ description: String) { self.description = description }
}
