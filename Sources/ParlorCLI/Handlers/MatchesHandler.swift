import Match
import Store

/// Runs `parlor matches`: the saved matches, newest first.
func runMatches(_ options: MatchesOptions) async throws -> ExitCode {
    let (records, problems) = Stores.default.list()
    Stores.reportProblems(problems)
    if options.json {
        for record in records {
            Console.write(JSONLines.line(MatchSummary(record)))
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
                     Stores.whoseTurn(record), record.phase.description, Stores.outcome(record),
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

/// One saved match as `parlor matches --json` prints it.
struct MatchSummary: Encodable {
    var id: String
    var game: String
    var role: String
    var seat: Int
    var opponents: [String]
    var turn: String
    var state: String
    var outcome: String
    var lastActivity: Int64
    var moves: Int
    var sequence: UInt32
    var hash: String

    init(_ record: StoredMatch) {
        id = record.state.matchID.hex
        game = record.state.gameID
        role = record.role.description
        seat = record.localSeat
        opponents = record.opponentNames
        turn = Stores.whoseTurn(record)
        state = record.phase.description
        outcome = Stores.outcome(record)
        lastActivity = record.lastActivity
        moves = record.state.moves.count
        sequence = record.state.sequence
        hash = hex16(record.state.stateHash)
    }
}

/// A 64-bit hash as 16 lowercase hex digits, as JSON events print it.
func hex16(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}
