#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Match

/// A saved match's facts as `parlor matches` shows them (the table and its
/// JSON), from the state and the seat this side plays; ParlorCLI reads the
/// record from the store.
public enum SavedMatchText {
    /// "yours", the opponent's name, or "-" when the match is over.
    public static func whoseTurn(_ state: MatchState, localSeat: Int) -> String {
        guard let seat = state.activeSeat else { return "-" }
        return seat == localSeat ? "yours" : state.seats[seat].name
    }

    /// The local seat's outcome, or "-" while the match goes on.
    public static func outcome(_ state: MatchState, localSeat: Int) -> String {
        let outcome = state.seats[localSeat].outcome
        return outcome == .none ? "-" : outcome.description
    }

    /// The local seat's place at the end (1 is first), where the game ranks; nil otherwise.
    public static func place(_ state: MatchState, localSeat: Int) -> Int? {
        state.placements.flatMap { $0.indices.contains(localSeat) ? $0[localSeat] : nil }
    }

    /// `won`, or `lost (3rd)` at a table of three or more.
    public static func outcomeText(_ state: MatchState, localSeat: Int) -> String {
        guard let places = MatchText.tablePlacements(state), places.indices.contains(localSeat) else {
            return outcome(state, localSeat: localSeat)
        }
        return outcome(state, localSeat: localSeat) + " (\(MatchText.ordinal(places[localSeat])))"
    }

    /// Local time as `YYYY-MM-DD HH:MM`.
    public static func timestamp(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min)
    }

    /// `rows` (the first is the header) as lines of columns two spaces apart; the last column is not padded.
    public static func columns(_ rows: [[String]]) -> [String] {
        guard let first = rows.first else { return [] }
        let widths = first.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
