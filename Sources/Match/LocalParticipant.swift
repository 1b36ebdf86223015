import Games
import Synchronization

/// The human at this terminal (or one of two, in hot-seat play).
///
/// The user interface reads the controller's events to know when to ask for
/// a move, then calls `play(_:)` or `quit()`. Input outside this seat's turn,
/// or while a confirmation is awaited, is refused with a reason the UI can show.
public final class LocalParticipant: Participant {
    /// The player id of the seat this participant plays (for one made with
    /// `init(speakingFor:)`, the seated bot's).
    public let playerID: PlayerID
    /// Whether the person here types this seat's moves. False for a seat a bot
    /// plays from here (`--bot`): this participant then only speaks for the
    /// seat (a `/quit`, a `/say`) as the bot the controller seated, and is
    /// attached to the controller by whoever made it (`attach(to:)`).
    public var playsFromInput: Bool { speaksAs == nil }
    /// The seated participant this one speaks as (a bot), or nil for the person's own seat.
    private let speaksAs: (any Participant)?
    private let controllerBox = Mutex<MatchController?>(nil)

    /// A participant for the seat with `playerID`.
    public init(playerID: PlayerID) {
        self.playerID = playerID
        self.speaksAs = nil
    }

    /// A participant that speaks for the seat `seated` plays (a bot at this
    /// terminal's seat): its quits go to the controller as `seated`'s.
    public init(speakingFor seated: any Participant) {
        self.playerID = seated.playerID
        self.speaksAs = seated
    }

    /// The screen follows the controller's events: nothing to confirm.
    public var takesDeliveries: Bool { false }

    /// Keeps `controller` for `play(_:message:)` and `quit()`, which answer
    /// `.rejected(.matchOver)` until then. Called by `MatchController.start()`,
    /// or, for one made with `init(speakingFor:)`, by whoever made it.
    public func attach(to controller: MatchController) {
        controllerBox.withLock { $0 = controller }
    }

    /// Nothing: the user interface learns of the turn from the controller's
    /// `.turnBegan` event and asks the person then.
    public func turnBegan(_ state: MatchState) {}

    /// Plays `move` for this seat, with `message` for the next seat to see
    /// (GameKit's `match.message`, set before `endTurn`).
    ///
    /// A message is refused (`.rejected(.messagesUnreadable)`, nothing played)
    /// when a peer in the match has a parlor that cannot read one; play the
    /// move without it then.
    public func play(_ move: Move, message: TurnMessage? = nil) async -> SubmitResult {
        guard let controller = controllerBox.withLock({ $0 }) else { return .rejected(.matchOver) }
        guard let seat = await controller.state.seat(of: playerID) else { return .rejected(.notAParticipant) }
        return await controller.submit(.move(move, by: seat, message: message), from: speaksAs ?? self)
    }

    /// Quits the match for this seat, in turn or out of turn.
    ///
    /// A quit is valid in any state, so it is not lost to timing: when the
    /// authority's change overtakes it (rolled back as `.superseded`, e.g. the
    /// host's move crossed it on the wire) it is proposed again at once on the
    /// new state, and when another change is still being confirmed, again as
    /// soon as that one is settled; for at most one confirmation timeout.
    public func quit() async -> SubmitResult {
        guard let controller = controllerBox.withLock({ $0 }) else { return .rejected(.matchOver) }
        guard let seat = await controller.state.seat(of: playerID) else { return .rejected(.notAParticipant) }
        let giveUp = ContinuousClock.now + controller.configuration.confirmationTimeout
        while true {
            let result = await controller.submit(.quit(seat), from: speaksAs ?? self)
            switch result {
            case .rolledBack(.superseded):
                guard ContinuousClock.now < giveUp else { return result }
            case .rejected(.awaitingConfirmation):
                guard ContinuousClock.now < giveUp else { return result }
                await controller.untilNothingIsPending()
            default:
                return result
            }
        }
    }
}
