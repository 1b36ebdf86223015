import Foundation
import Games

/// Runs `parlor games`: every game in `GameCatalog.all`, as text or JSON lines.
func runGames(_ options: GamesOptions) async throws -> ExitCode {
    Console.write(options.json ? GamesListing.jsonLines() : GamesListing.text())
    return .success
}

/// What `parlor games` prints, as pure functions of `GameCatalog` for tests.
public enum GamesListing {
    /// One block per game: id and name, then the rule and how moves are
    /// typed, indented under the name and wrapped at 80 columns.
    public static func text() -> String {
        let width = (GameCatalog.all.map { $0.id.count }.max() ?? 0) + 3
        let indent = String(repeating: " ", count: width)
        var blocks: [String] = []
        for game in GameCatalog.all {
            var block = game.id + String(repeating: " ", count: width - game.id.count) + game.displayName + "\n"
            block += HelpRenderer.wrap(game.summary, width: HelpRenderer.width, indent: indent)
            block += HelpRenderer.wrap("Players: " + players(game.seatCounts), width: HelpRenderer.width, indent: indent)
            block += HelpRenderer.wrap("Moves: " + game.moveHelp, width: HelpRenderer.width, indent: indent)
            blocks.append(block)
        }
        return blocks.joined(separator: "\n") + "\nStart one with 'parlor play GAME' or 'parlor host GAME'.\n"
    }

    /// `2`, `2-4`, or `2, 3, 4 or 6`: the seat counts a game takes, as a person reads them.
    public static func players(_ counts: [Int]) -> String {
        guard let first = counts.first, let last = counts.last else { return "" }
        if counts == Array(first...last) { return first == last ? "\(first)" : "\(first)-\(last)" }
        return counts.dropLast().map(String.init).joined(separator: ", ") + " or \(last)"
    }

    /// One JSON object per line and per game, keys sorted:
    /// `id`, `maxSeats`, `minSeats`, `moveHelp`, `name`, `rulesVersion`, `seatCounts`, `summary`.
    public static func jsonLines() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = ""
        for game in GameCatalog.all {
            let entry = Entry(
                id: game.id, name: game.displayName, summary: game.summary, moveHelp: game.moveHelp,
                rulesVersion: game.rulesVersion, minSeats: game.seatRange.lowerBound, maxSeats: game.seatRange.upperBound,
                seatCounts: game.seatCounts)
            // Encoding a struct of strings and integers cannot fail; skip rather than trap if it ever does.
            guard let data = try? encoder.encode(entry), let line = String(data: data, encoding: .utf8) else { continue }
            out += line + "\n"
        }
        return out
    }

    /// The JSON shape of one game.
    struct Entry: Codable {
        var id: String
        var name: String
        var summary: String
        var moveHelp: String
        var rulesVersion: Int
        var minSeats: Int
        var maxSeats: Int
        var seatCounts: [Int]
    }
}
