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
    ///
    /// Given a `width` (the terminal's), lines longer than it are fitted: the
    /// `shrinkable` columns (names) are cut to no less than their header,
    /// ending in "…", widest first, when that makes them fit; else each row
    /// wraps at a column's start, its rest indented under the second column,
    /// never mid-word.
    public static func columns(_ rows: [[String]], width: Int? = nil, shrinkable: [Int] = []) -> [String] {
        guard let first = rows.first else { return [] }
        var widths = first.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let total = { widths.reduce(0, +) + 2 * (widths.count - 1) }
        // Names are cut only when that makes the lines fit; otherwise they stay whole and the rows wrap.
        let narrowest = widths.indices.map { shrinkable.contains($0) ? min(widths[$0], first[$0].count) : widths[$0] }
        if let width, narrowest.reduce(0, +) + 2 * (widths.count - 1) <= width {
            while total() > width,
                  let widest = shrinkable.filter({ widths[$0] > first[$0].count }).max(by: { widths[$0] < widths[$1] }) {
                widths[widest] -= 1
            }
        }
        return rows.flatMap { row in
            let cells = row.enumerated().map { index, cell in
                let fitted = cell.count > widths[index] ? String(cell.prefix(widths[index] - 1)) + "…" : cell
                return index == row.count - 1 ? fitted : fitted + String(repeating: " ", count: widths[index] - fitted.count)
            }
            guard let width, total() > width else { return [cells.joined(separator: "  ")] }
            return wrapped(cells, width: width, indent: String(repeating: " ", count: widths[0] + 2))
        }
    }

    /// Cells joined two spaces apart, a new line (after `indent`) wherever the next cell would pass `width`.
    private static func wrapped(_ cells: [String], width: Int, indent: String) -> [String] {
        func trimmed(_ line: String) -> String { String(line.reversed().drop { $0 == " " }.reversed()) }
        var lines: [String] = []
        var line = cells.first ?? ""
        for cell in cells.dropFirst() {
            if trimmed(line + "  " + cell).count <= width {
                line += "  " + cell
            } else {
                lines.append(trimmed(line))
                line = indent + cell
            }
        }
        return lines + [trimmed(line)]
    }
}
