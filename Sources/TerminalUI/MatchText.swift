import Games
import Match

/// The sentences every frontend shows about a match, produced in one place.
public enum MatchText {
    /// A seat's name with its piece, e.g. `Ana (X)`; control characters replaced.
    public static func label(_ state: MatchState, seat: SeatIndex, options: DisplayOptions) -> String {
        guard state.seats.indices.contains(seat) else { return "seat \(seat + 1)" }
        return "\(sanitized(state.seats[seat].name)) (\(Pieces.glyph(seat: seat, gameID: state.gameID, options: options)))"
    }

    /// A seat's name; control characters replaced.
    public static func name(_ state: MatchState, seat: SeatIndex) -> String {
        state.seats.indices.contains(seat) ? sanitized(state.seats[seat].name) : "seat \(seat + 1)"
    }

    /// `Result: Ana (X) won, Bot (O) lost.`
    public static func resultLine(_ state: MatchState, options: DisplayOptions) -> String {
        let parts = state.seats.indices.map { "\(label(state, seat: $0, options: options)) \(outcomeWords(state.seats[$0].outcome))" }
        return "Result: " + parts.joined(separator: ", ") + "."
    }

    /// Who won in plain words: `Ana (X) wins.`, `It's a draw.`, or why the match stopped early.
    public static func winnerLine(_ state: MatchState, options: DisplayOptions) -> String {
        let winners = state.seats.indices.filter { state.seats[$0].outcome == .won }
        let leavers = state.seats.indices.filter { [.quit, .timeExpired].contains(state.seats[$0].outcome) }
        let why = leavers.map { seat in
            "\(name(state, seat: seat)) \(state.seats[seat].outcome == .quit ? "quit" : "ran out of time")"
        }.joined(separator: ", ")
        if winners.count == 1, let winner = winners.first {
            let base = "\(label(state, seat: winner, options: options)) wins"
            return why.isEmpty ? base + "." : base + " (\(why))."
        }
        if state.seats.allSatisfy({ $0.outcome == .tied }) { return "It's a draw." }
        if !why.isEmpty { return "The match is over: \(why)." }
        return state.isEnded ? "The match is over." : "The match is not over."
    }

    /// The outcome as a past-tense word: won, lost, tied, quit, ran out of time.
    public static func outcomeWords(_ outcome: Outcome) -> String {
        switch outcome {
        case .none: "is still playing"
        case .won: "won"
        case .lost: "lost"
        case .tied: "tied"
        case .quit: "quit"
        case .timeExpired: "ran out of time"
        }
    }

    /// What a person types for a move, e.g. `a column, 1-7`.
    public static func moveHelp(_ state: MatchState) -> String { type(of: state.game).moveHelp }

    /// A played move as a sentence: `Bot (O) played 4.`
    public static func moveLine(_ state: MatchState, move: PlayedMove, options: DisplayOptions) -> String {
        "\(label(state, seat: move.seat, options: options)) played \(state.game.notation(for: move.move))."
    }

    /// `…` or `...` depending on Unicode.
    static func ellipsis(_ options: DisplayOptions) -> String { options.unicode ? "…" : "..." }
}
