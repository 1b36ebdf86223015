import Bots
import Games
import Match

/// Who plays this side's seat of a match made by `TurnBasedLAN`.
public enum TurnBasedPlayer<G: Game>: Sendable {
    /// Your code, through `TurnBasedMatch.endTurn(with:)` (the default).
    case caller
    /// parlor's bot at `level` (easy, medium or hard), which searches any registered game.
    case bot(BotLevel)
    /// Your strategy, asked on each of the seat's turns, off the match's
    /// threads; it returns the move to play (nil: none, and the seat waits).
    case strategy(@Sendable (G) -> Move?)

    /// The name a bot seat of the host's table takes: "Easy bot", "Medium
    /// bot", "Hard bot" for parlor's bots, "Bot" for a strategy; nil for
    /// `.caller`, which cannot play a bot seat.
    var botName: String? {
        switch self {
        case .caller: nil
        case .bot(let level): level.playerName
        case .strategy: "Bot"
        }
    }

    /// The names of the host's bot seats for `bots`, in order: a name taken by
    /// an earlier bot gets the next number ("Easy bot", "Easy bot 2"); nil when
    /// one of them is `.caller`.
    static func botNames(_ bots: [TurnBasedPlayer<G>]) -> [String]? {
        var names: [String] = []
        for bot in bots {
            guard let base = bot.botName else { return nil }
            let uses = bots.prefix(names.count).filter { $0.botName == base }.count
            names.append(uses == 0 ? base : "\(base) \(uses + 1)")
        }
        return names
    }

    /// parlor's bot's level, kept in a saved table so a resume plays the seat
    /// again as it was; nil for `.caller` and `.strategy`.
    var level: BotLevel? {
        if case .bot(let level) = self { level } else { nil }
    }

    /// The seat's participant, and the voice `quit()` speaks through.
    func seat(_ playerID: PlayerID) -> (seated: any Participant, voice: LocalParticipant) {
        let seated: BotParticipant
        switch self {
        case .caller:
            let local = LocalParticipant(playerID: playerID)
            return (local, local)
        case .bot(let level):
            seated = BotParticipant(playerID: playerID, timedStrategy: Bot(level: level, seed: .random(in: 0...UInt64.max)).timedStrategy())
        case .strategy(let choose):
            seated = BotParticipant(playerID: playerID) { game, _ in (game as? G).flatMap(choose) }
        }
        return (seated, LocalParticipant(speakingFor: seated))
    }
}
