@preconcurrency import Glibc
import Match
import Secure
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
                     SavedMatchText.whoseTurn(record.state, localSeat: record.localSeat), record.phase.description,
                     SavedMatchText.outcomeText(record.state, localSeat: record.localSeat),
                     SavedMatchText.timestamp(record.lastActivity)])
    }
    // On a terminal the table fits its width: long names are cut, then a row wraps between columns.
    let width = Terminal(output: STDOUT_FILENO).size()?.columns
    for line in SavedMatchText.columns(rows, width: width, shrinkable: [2]) { Console.write(line + "\n") }
    return .success
}

/// One saved match as `parlor matches --json` prints it, keys sorted.
enum MatchSummary {
    /// `place` (1 is first) only where the game ranks players; `message` only
    /// when the latest move came with one.
    static func json(_ record: StoredMatch) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("game", JSONValue(record.state.gameID)), ("hash", JSONValue(JSONEvents.hex16(record.state.stateHash))),
            ("id", JSONValue(record.state.matchID.hex)), ("lastActivity", JSONValue(record.lastActivity)),
            ("moves", JSONValue(record.state.moves.count)), ("opponents", JSONValue(record.opponentNames)),
            ("outcome", JSONValue(SavedMatchText.outcome(record.state, localSeat: record.localSeat))), ("role", JSONValue(record.role.description)),
            ("seat", JSONValue(record.localSeat)), ("sequence", JSONValue(Int(record.state.sequence))),
            ("state", JSONValue(record.phase.description)), ("turn", JSONValue(SavedMatchText.whoseTurn(record.state, localSeat: record.localSeat))),
        ]
        if let place = SavedMatchText.place(record.state, localSeat: record.localSeat) { fields.insert(("place", JSONValue(place)), at: 7) }
        // The latest move's message (GameKit's match.message), where the moves are.
        if let message = record.state.message { fields.insert(("message", JSONValue(message.text)), at: 4) }
        // The other side's key as the encrypted channel proved it (format 5), in the keys' sorted place.
        if record.hasPeerKey, let key = try? PlayerPublicKey(bytes: record.peerKey) {
            fields.insert(("peerKey", JSONValue(key.fingerprint.description)), at: fields.firstIndex { $0.0 > "peerKey" } ?? fields.count)
        }
        return .object(fields)
    }
}
