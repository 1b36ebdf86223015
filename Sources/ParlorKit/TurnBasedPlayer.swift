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
