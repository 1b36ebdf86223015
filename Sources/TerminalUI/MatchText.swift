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

    /// A seat's score in words where the game keeps one, for the seat list:
    /// "3 boxes", "12 discs"; nil for games without a score (and
    /// Chinese checkers, whose board notes carry each seat's pegs home).
    public static func scoreWords(_ state: MatchState, seat: SeatIndex) -> String? {
        guard let scores = state.game.scores, scores.indices.contains(seat) else { return nil }
        let score = scores[seat]
        switch state.gameID {
        case DotsAndBoxes.id: return score == 1 ? "1 box" : "\(score) boxes"
        case Reversi.id: return score == 1 ? "1 disc" : "\(score) discs"
        case ChineseCheckers.id: return nil  // the board's own notes say "N/10" by each point
        default: return "score \(score)"
        }
    }

    /// Whether a frontend shows a seat's presence (away, back) in `state`: at a
    /// table. At two seats the link's notice ("Bo is not responding — …") says it.
    public static func showsPresence(_ state: MatchState) -> Bool { state.seats.count > 2 }

    /// "Bo is away (the seat is kept 60 s)." or "Bo is back.": a seat's player at a table.
    public static func presenceLine(_ state: MatchState, seat: SeatIndex, away: Bool, graceLeft: Duration) -> String {
        let who = name(state, seat: seat)
        guard away else { return "\(who) is back." }
        return "\(who) is away (the seat is kept \(wholeSecondsUp(graceLeft)) s)."
    }

    /// Whole seconds, rounded up.
    static func wholeSecondsUp(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds + (attoseconds > 0 ? 1 : 0))
    }

    /// `Result: Ana (X) won, Bot (O) lost.`; at a table of three or more, in
    /// order of place where the game ranks: `Result: 1st Bo (O) won, 2nd Ana (X) lost, 3rd Cy (A) quit.`
    public static func resultLine(_ state: MatchState, options: DisplayOptions) -> String {
        let places = tablePlacements(state)
        let order = places.map { places in state.seats.indices.sorted { (places[$0], $0) < (places[$1], $1) } }
            ?? Array(state.seats.indices)
        let parts = order.map { seat in
            let place = places.map { ordinal($0[seat]) + " " } ?? ""
            return "\(place)\(label(state, seat: seat, options: options)) \(outcomeWords(state.seats[seat].outcome))"
        }
        return "Result: " + parts.joined(separator: ", ") + "."
    }

    /// The places worth showing: `MatchState.placements` at a table of three
    /// or more (with two seats, won and lost say it all).
    public static func tablePlacements(_ state: MatchState) -> [Int]? {
        state.seats.count >= 3 ? state.placements : nil
    }

    /// `1st`, `2nd`, `3rd`, `4th` … `8th`.
    public static func ordinal(_ place: Int) -> String {
        switch place % 100 {
        case 11, 12, 13: return "\(place)th"
        default: break
        }
        switch place % 10 {
        case 1: return "\(place)st"
        case 2: return "\(place)nd"
        case 3: return "\(place)rd"
        default: return "\(place)th"
        }
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
        // Several winners: a game that ends with outcomes of its own (Game.outcomes).
        if winners.count > 1 {
            let base = listed(winners.map { label(state, seat: $0, options: options) }) + " win"
            return why.isEmpty ? base + "." : base + " (\(why))."
        }
        if state.seats.allSatisfy({ $0.outcome == .tied }) { return "It's a draw." }
        let tied = state.seats.indices.filter { state.seats[$0].outcome == .tied }
        if tied.count > 1 {
            let base = listed(tied.map { label(state, seat: $0, options: options) }) + " share first place"
            return why.isEmpty ? base + "." : base + " (\(why))."
        }
        // Everyone still at the table lost together (a game's own outcomes: a cooperative game lost).
        let stayed = state.seats.indices.filter { !leavers.contains($0) }
        if state.isEnded, !stayed.isEmpty, stayed.allSatisfy({ state.seats[$0].outcome == .lost }) {
            return why.isEmpty ? "Nobody wins." : "Nobody wins (\(why))."
        }
        if !why.isEmpty { return "The match is over: \(why)." }
        return state.isEnded ? "The match is over." : "The match is not over."
    }

    /// `Ana`, `Ana and Bo`, `Ana, Bo and Cy`.
    static func listed(_ names: [String]) -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
    }

    /// The exact command that continues `state` on a machine that keeps a side of it.
    public static func resumeCommand(_ state: MatchState) -> String { "parlor resume \(state.matchID.short)" }

    /// "You stopped watching Connect Four (Ana vs Bo, move 12).": a spectator's last line after leaving a match that goes on.
    public static func stoppedWatching(_ state: MatchState) -> String {
        let players = state.seats.indices.map { name(state, seat: $0) }.joined(separator: " vs ")
        return "You stopped watching \(state.game.gameDisplayName) (\(players), move \(state.moves.count + 1))."
    }

    /// What happens next after the match stopped on this side without being
    /// over: whether it can continue, this side's exact `parlor resume` line,
    /// and what the other side must do. `localSeats` names the other player.
    public static func whatNext(_ state: MatchState, failure: MatchFailure, localSeats: Set<SeatIndex>) -> String {
        let command = resumeCommand(state)
        guard failure.isResumable else {
            return "The match cannot continue; 'parlor replay \(state.matchID.short)' shows the moves this side kept."
        }
        // A spectator has no seat to resume: the players do it.
        if localSeats.isEmpty { return "The match is not over: the players can continue it, and you can watch it again then." }
        let others = state.seats.indices.filter { !localSeats.contains($0) }
        let who = TurnNotices.opponents(state, localSeats: localSeats)
        return "The match is not over and can continue: run '\(command)' here, "
            + (others.count == 1 ? "and \(who) must run '\(command)' on the other machine."
                                 : "and \(who) must each run '\(command)' where they play.")
    }

    /// How a stopped match reads once it is over on this side: the result and
    /// the winner, or, when it stopped early, why and what happens next.
    public static func endingLines(_ state: MatchState, failure: MatchFailure?, localSeats: Set<SeatIndex>,
                                   options: DisplayOptions) -> [String] {
        if let failure, !state.isEnded {
            return ["Match stopped: \(sanitized(failure.description)).", whatNext(state, failure: failure, localSeats: localSeats)]
        }
        return [resultLine(state, options: options), winnerLine(state, options: options)]
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

    /// A played move as a sentence: `Bot (O) played 4.`, or with the message
    /// sent with it `Ana (X) played 4 — 'Your move'` (a message holds no control
    /// character, so it is shown as it came).
    public static func moveLine(_ state: MatchState, move: PlayedMove, options: DisplayOptions) -> String {
        let played = "\(label(state, seat: move.seat, options: options)) played \(state.game.notation(for: move.move))"
        guard let message = move.message else { return played + "." }
        return played + " \(options.unicode ? "—" : "--") '\(message.text)'"
    }

    /// `…` or `...` depending on Unicode.
    static func ellipsis(_ options: DisplayOptions) -> String { options.unicode ? "…" : "..." }
}
