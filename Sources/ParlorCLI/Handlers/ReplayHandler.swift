import Foundation
import Games
import Match
import Store
import TerminalUI

/// Runs `parlor replay ID`: the boards move by move on a terminal, else the
/// move list (plain, JSON) of a saved match.
func runReplay(_ options: ReplayOptions, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> ExitCode {
    let records = try Stores.findOne(options.id, in: LocalData.matchStore)
    // When this store keeps both sides of a match, show the one furthest along
    // (the host's, or a guest's that saw the same end).
    guard let record = records.max(by: { $0.state.sequence < $1.state.sequence }) else { return .failure }
    let state = record.state
    let texts = state.moveNotations
    if options.display.output == .automatic {
        let isTTY = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        let detected = TerminalUI.DisplayOptions.detect(environment: environment, isTTY: isTTY,
                                                         noColorFlag: !options.display.colorAllowed(environment: environment),
                                                         asciiFlag: options.display.ascii)
        if !detected.prefersPlainMode,
           await ReplayScreen.run(positions: state.replayPositions, notations: texts, options: detected) {
            return .success
        }
    }
    if options.display.output == .json {
        for (index, played) in state.moves.enumerated() {
            Console.write(ReplayJSON.move(index: index, seat: played.seat, name: state.seats[played.seat].name,
                                          move: played.move, notation: texts[index], message: played.message).encoded + "\n")
        }
        Console.write(ReplayJSON.end(state).encoded + "\n")
        return .success
    }
    Console.write("Match \(state.matchID.short): \(state.gameID), "
        + state.seats.enumerated().map { "\($1.name) (seat \($0 + 1))" }.joined(separator: " vs ") + "\n")
    for (index, played) in state.moves.enumerated() {
        // A move's message as the other side saw it: `3. Ana: 4 — 'Your move'`.
        let said = played.message.map { " \(options.display.ascii ? "--" : "—") '\($0.text)'" } ?? ""
        Console.write("\(index + 1). \(state.seats[played.seat].name): \(texts[index])\(said)\n")
    }
    Console.write(replayResultLine(state) + "\n")
    return .success
}

/// The plain replay's last line: every seat's outcome as the match settled it
/// (several may have won, when the game ended with outcomes of its own), its
/// place at a table of three or more where the game ranks:
/// `Result: Ana lost, Bo won, Cy won.` A match not over says so, who is to
/// move, and who has left already: `Not over: 4 moves so far, Bo to move (Cy quit).`
func replayResultLine(_ state: MatchState) -> String {
    guard state.isEnded else {
        let moves = "\(state.moves.count) move\(state.moves.count == 1 ? "" : "s") so far"
        let next = state.activeSeat.map { ", \(state.seats[$0].name) to move" } ?? ""
        let gone = state.seats.filter { $0.outcome != .none }.map { "\($0.name) \($0.outcome.description)" }
        return "Not over: " + moves + next + (gone.isEmpty ? "" : " (\(gone.joined(separator: ", ")))") + "."
    }
    let places = MatchText.tablePlacements(state)
    let outcomes = state.seats.indices.map { seat in
        let player = state.seats[seat]
        return "\(player.name) \(player.outcome == .none ? "still playing" : player.outcome.description)"
            + (places.map { " (\(MatchText.ordinal($0[seat])))" } ?? "")
    }
    return "Result: " + outcomes.joined(separator: ", ") + "."
}

/// The `replay --json` lines, keys sorted.
enum ReplayJSON {
    /// `{"event":"move","index":…,"message":…,"move":…,"name":…,"notation":…,"seat":…}`; `message` only
    /// for a move that came with one.
    static func move(index: Int, seat: Int, name: String, move: Move, notation: String, message: TurnMessage? = nil) -> JSONValue {
        .object([("event", "move"), ("index", JSONValue(index))] + (message.map { [("message", JSONValue($0.text))] } ?? [])
                + [("move", JSONEvents.moveValue(move)), ("name", JSONValue(name)), ("notation", JSONValue(notation)), ("seat", JSONValue(seat))])
    }

    /// `{"event":"end","hash":…,"moves":…,"outcomes":[{"name":…,"outcome":…,"place":…,"seat":…}],"sequence":…}`;
    /// `place` only where the game ranks players.
    static func end(_ state: MatchState) -> JSONValue {
        let places = state.placements
        let outcomes = state.seats.enumerated().map { seat, player in
            JSONValue.object([("name", JSONValue(player.name)), ("outcome", JSONValue(player.outcome.description))]
                + (places.map { [("place", JSONValue($0[seat]))] } ?? []) + [("seat", JSONValue(seat))])
        }
        return .object([("event", "end"), ("hash", JSONValue(JSONEvents.hex16(state.stateHash))),
                        ("moves", JSONValue(state.moves.count)), ("outcomes", .array(outcomes)),
                        ("sequence", JSONValue(Int(state.sequence)))])
    }
}
