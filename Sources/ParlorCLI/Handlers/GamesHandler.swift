import Games
import TerminalUI

/// Runs `parlor games`: every game in `GameCatalog.all`, as text or JSON lines.
func runGames(_ options: GamesOptions) -> ExitCode {
    Console.write(options.json ? GamesListing.jsonLines() : GamesListing.text())
    return .success
}

/// What `parlor games` prints, as pure functions of `GameCatalog` for tests.
public enum GamesListing {
    /// One block per game: id and name, then the rule and how moves are
    /// typed, indented under the name and wrapped at 80 columns.
    public static func text(_ games: [any Game.Type] = GameCatalog.all) -> String {
        let width = (games.map { $0.id.count }.max() ?? 0) + 3
        let indent = String(repeating: " ", count: width)
        var blocks: [String] = []
        for game in games {
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
        GameCatalog.all.map { game in
            JSONValue.object([
                ("id", JSONValue(game.id)), ("maxSeats", JSONValue(game.seatRange.upperBound)),
                ("minSeats", JSONValue(game.seatRange.lowerBound)), ("moveHelp", JSONValue(game.moveHelp)),
                ("name", JSONValue(game.displayName)), ("rulesVersion", JSONValue(game.rulesVersion)),
                ("seatCounts", .array(game.seatCounts.map { JSONValue($0) })),
                ("summary", JSONValue(game.summary)),
            ]).encoded + "\n"
        }.joined()
    }
}
