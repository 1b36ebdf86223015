import Match
import Store
import TerminalUI

/// Runs `parlor matches`: the saved matches, newest first.
func runMatches(_ options: MatchesOptions) async throws -> ExitCode {
    let (records, problems) = LocalData.matchStore.list()
    Stores.reportProblems(problems)
    if options.json {
        for record in records {
            Console.write(MatchSummary.json(record).encoded + "\n")
        }
        return .success
    }
    guard !records.isEmpty else {
        Console.write("No saved matches yet. Start one with 'parlor play GAME' or 'parlor host GAME'.\n")
        return .success
    }
    var rows = [["ID", "GAME", "OPPONENT", "TURN", "STATE", "OUTCOME", "LAST ACTIVITY"]]
    for record in records {
        rows.append([record.state.matchID.short, record.state.gameID, record.opponentNames.joined(separator: ", "),
                     Stores.whoseTurn(record), record.phase.description, Stores.outcomeText(record),
                     Stores.timestamp(record.lastActivity)])
    }
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
        let cells = row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }
        Console.write(cells.joined(separator: "  ") + "\n")
    }
    return .success
}

/// One saved match as `parlor matches --json` prints it, keys sorted.
enum MatchSummary {
    /// `place` (1 is first) only where the game ranks players.
    static func json(_ record: StoredMatch) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("game", JSONValue(record.state.gameID)), ("hash", JSONValue(JSONEvents.hex16(record.state.stateHash))),
            ("id", JSONValue(record.state.matchID.hex)), ("lastActivity", JSONValue(record.lastActivity)),
            ("moves", JSONValue(record.state.moves.count)), ("opponents", JSONValue(record.opponentNames)),
            ("outcome", JSONValue(Stores.outcome(record))), ("role", JSONValue(record.role.description)),
            ("seat", JSONValue(record.localSeat)), ("sequence", JSONValue(Int(record.state.sequence))),
            ("state", JSONValue(record.phase.description)), ("turn", JSONValue(Stores.whoseTurn(record))),
        ]
        if let place = Stores.place(record) { fields.insert(("place", JSONValue(place)), at: 7) }
        return .object(fields)
    }
}
