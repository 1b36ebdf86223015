import Games

/// Why the controller undid a change it had applied tentatively.
public enum RollbackReason: Hashable, Sendable, CustomStringConvertible {
    /// No confirmation arrived within the confirmation timeout.
    case confirmationTimeout
    /// The receiving side refused the change; the text says why.
    case rejected(String)
    /// The transport failed while delivering the change.
    case transportFailed(String)
    /// The authoritative side moved on first (its change or state arrived while ours was pending).
    case superseded

    /// What happened, in lower case for a sentence to carry: "no confirmation
    /// arrived in time", "the move was refused: <why>", "the move could not
    /// be sent: <why>", "the other side's state arrived first".
    public var description: String {
        switch self {
        case .confirmationTimeout: "no confirmation arrived in time"
        case .rejected(let why): "the move was refused: \(why)"
        case .transportFailed(let why): "the move could not be sent: \(why)"
        case .superseded: "the other side's state arrived first"
        }
    }
}

/// Why a delivery failed; thrown by `Participant.deliver`.
public enum DeliveryError: Error, Hashable, Sendable {
    /// The receiving side refused the change.
    case rejected(String)
    /// The transport failed.
    case transportFailed(String)
}

/// A failure that stops a match on this side, such as two peers disagreeing.
public enum MatchFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The authoritative peer sent something that does not follow from our state.
    case desync(String)
    /// The connection to the other side is gone for good.
    case connectionLost(String)

    /// The failure, its kind first: "desync: <why>" or "connection lost: <why>".
    public var description: String {
        switch self {
        case .desync(let why): "desync: \(why)"
        case .connectionLost(let why): "connection lost: \(why)"
        }
    }

    /// Whether the match can go on later with `parlor resume` (the one place
    /// that decides it: the exit status, the saved phase and the ending text follow it).
    public var isResumable: Bool {
        if case .connectionLost = self { return true }
        return false
    }
}

/// Someone who sits at a seat: a human at this terminal, a bot, or a remote peer.
///
/// The controller talks to every kind of participant through this protocol
/// and has no branch for any particular kind (the participant strategy).
/// A participant's seat is found by `playerID` in the authoritative state.
///
/// Calls come from whichever caller is performing the controller's queue
/// (any thread), one at a time and in commit order; implementations must
/// return quickly from the synchronous ones, never wait for the controller
/// there, and do their work elsewhere.
public protocol Participant: AnyObject, Sendable {
    /// The player id of the seat this participant plays.
    var playerID: PlayerID { get }
    /// Whether this participant speaks for the authoritative copy of the
    /// match (e.g. the host, seen from a guest). The controller then leaves
    /// turn deadlines to it and accepts its `adopt` calls.
    var isAuthority: Bool { get }
    /// Whether `deliver` passes changes on (to a peer, who confirms them).
    /// False for a participant whose `deliver` does nothing: when no receiver
    /// of a change takes deliveries, the controller commits it at once,
    /// with no delivery task and no confirmation deadline.
    var takesDeliveries: Bool { get }
    /// Whether the side this participant stands for reads a message sent
    /// with a move (`TurnMessage`; the match blob's format 4). True for
    /// everything in this process; a remote peer's participant says false
    /// when its parlor is older (docs/PROTOCOL.md section 13, protocol 4), and
    /// the controller then refuses every move with a message, so no peer is
    /// ever sent a blob it cannot read.
    var readsTurnMessages: Bool { get }

    /// Called once by `MatchController.start()`, before any turn begins.
    func attach(to controller: MatchController)
    /// It is this participant's seat's turn in `state`. Answer later with
    /// `MatchController.submit`.
    func turnBegan(_ state: MatchState)
    /// Another seat's change was applied tentatively: pass it on (a remote
    /// participant sends it to its peer and returns when the peer confirms).
    /// Return to accept it; throw `DeliveryError` to have it rolled back.
    /// Cancelled when the confirmation timeout fires.
    func deliver(_ change: MatchChange, resulting state: MatchState) async throws
    /// The committed state changed by `event` (commit, rollback or adoption).
    func stateChanged(_ state: MatchState, event: MatchEvent)
    /// The match is over (or failed); stop any work for it.
    func matchEnded(_ state: MatchState, failure: MatchFailure?)
}

extension Participant {
    /// False by default: true only for the one that stands for the host, on
    /// a guest's or a spectator's side.
    public var isAuthority: Bool { false }
    /// True by default: the controller waits for `deliver` to return before
    /// it commits; say false when `deliver` does nothing, to commit at once.
    public var takesDeliveries: Bool { true }
    /// True by default: everything in this process reads turn messages.
    public var readsTurnMessages: Bool { true }
    /// Nothing by default: enough for a participant that never submits.
    public func attach(to controller: MatchController) {}
    /// Accepts at once by default: nothing to pass on.
    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {}
    /// Nothing by default: enough for a participant that keeps no copy of the state.
    public func stateChanged(_ state: MatchState, event: MatchEvent) {}
    /// Nothing by default: enough for a participant with no work of its own to stop.
    public func matchEnded(_ state: MatchState, failure: MatchFailure?) {}
}

/// A participant that can pass a change on without a task of its own: the
/// controller starts the delivery inline, on the thread that performs the
/// change's actions, and the participant calls back once with the verdict
/// from wherever it learns it (a LAN link: the reader that saw CONFIRM). The
/// controller then commits or rolls back inline on that thread, with no task
/// in between. Used in a two-seat match, where the change has one receiver;
/// otherwise, and whenever `startDelivery` returns nil, the controller calls
/// `deliver` in a task as for any participant.
public protocol DeliversInline: Participant {
    /// Starts passing `change` on and returns how to cancel it (the
    /// controller settled the change without it), or nil to have the
    /// controller call `deliver` in a task instead. `finished` is called
    /// exactly once, with nil when the change is accepted; it may be called
    /// before `startDelivery` returns. Must not wait.
    func startDelivery(_ change: MatchChange, resulting state: MatchState,
                       finished: @escaping @Sendable (DeliveryError?) -> Void) -> (@Sendable () -> Void)?
}

/// What happens in a match, for user interfaces, JSON output and logs.
public enum MatchEvent: Sendable {
    /// The controller started; `state` is the first committed state.
    case started(MatchState)
    /// `seat` is to move in `state`.
    case turnBegan(seat: SeatIndex, MatchState)
    /// A change was applied tentatively and waits for confirmation.
    case awaitingConfirmation(MatchChange, tentative: MatchState)
    /// A change was committed.
    case committed(MatchChange, MatchState)
    /// A tentative change was undone; `state` is the restored snapshot.
    case rolledBack(MatchChange, reason: RollbackReason, MatchState)
    /// The authoritative state replaced ours.
    case adopted(MatchState)
    /// A participant has something to tell the player (e.g. connection trouble).
    case notice(String)
    /// `seat`'s player went away (its link dropped; the seat is kept for
    /// `graceLeft`) or came back (`away` false). Nothing in the match changed.
    case presence(seat: SeatIndex, away: Bool, graceLeft: Duration)
    /// A line of table talk was relayed (docs/PROTOCOL.md section 18). Nothing in the match changed.
    case talk(TalkLine)
    /// A line this side's player said was not relayed, and why.
    case talkRefused(TalkRefusal)
    /// A bot named `bot` plays `seat` for its away player (a table's host
    /// handed it over), or with nil, the player has the seat back. Nothing in the match changed.
    case standIn(seat: SeatIndex, bot: String?)
    /// The match ended; every seat has its outcome.
    case ended(MatchState)
    /// The match stopped on this side because of a failure.
    case failed(MatchFailure, MatchState)
}

extension MatchEvent {
    /// The match state the event carries (the tentative one while a change
    /// awaits confirmation); nil for events where nothing in the match changed.
    public var state: MatchState? {
        switch self {
        case .started(let state), .turnBegan(_, let state), .committed(_, let state), .rolledBack(_, _, let state),
             .adopted(let state), .ended(let state), .failed(_, let state): state
        case .awaitingConfirmation(_, let tentative): tentative
        case .notice, .presence, .talk, .talkRefused, .standIn: nil
        }
    }
}

/// Why `MatchController.submit` refused a change without applying it.
public enum SubmitRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The participant has no seat in this match.
    case notAParticipant
    /// The change is for a seat that is not the participant's.
    case notYourSeat
    /// A change is awaiting confirmation; input is refused until it resolves.
    case awaitingConfirmation
    /// The match state refused it.
    case rule(MatchRuleError)
    /// The match has stopped.
    case matchOver
    /// The authoritative state given with the change does not match it.
    case authoritativeStateDisagrees
    /// The move came with a message, and a side of the match has a parlor
    /// that cannot read one (`Participant.readsTurnMessages`).
    case messagesUnreadable
    /// The move came with a message at a LAN table of three or more seats,
    /// whose connections never carry one (docs/PROTOCOL.md section 13).
    case messagesNotAtTables

    /// Why, in lower case, as a player reads it: "it is not your turn", "that
    /// move is not allowed", "the match is over", "waiting for the last move
    /// to be confirmed"; for a move the match cannot carry, its value and the
    /// limit it breaks.
    public var description: String {
        switch self {
        case .notAParticipant: "not a participant in this match"
        case .notYourSeat: "that seat is not yours"
        case .awaitingConfirmation: "waiting for the last move to be confirmed"
        case .rule(.notYourTurn): "it is not your turn"
        case .rule(.illegalMove): "that move is not allowed"
        case .rule(.moveNotEncodable(let move)) where move.bytes != nil:
            "that move (\(move.bytes?.count ?? 0) bytes) is not one this game's matches can carry: "
                + "too long for the game's move limit or for the match's \(MatchBlob.maximumSize)-byte data, or the game's moves are numbers"
        case .rule(.moveNotEncodable(let move)):
            "that move's encoding (\(move.rawValue)) is outside \(Move.wireRange.lowerBound)...\(Move.wireRange.upperBound), "
                + "which a saved or sent match cannot carry (a game's moves must fit Move.wireRange)"
        case .rule(.matchEnded), .matchOver: "the match is over"
        case .rule(let error): "refused: \(error)"
        case .authoritativeStateDisagrees: "the state sent with the move does not match it"
        case .messagesUnreadable:
            "a message cannot go with a move in this match: the other side's parlor is older and cannot read one; play the move without it"
        case .messagesNotAtTables:
            "a message cannot go with a move at a table of three or more (only a two-seat match on the LAN carries one); "
                + "play the move without it (table talk reaches the whole table)"
        }
    }
}

/// The fate of a submitted change.
public enum SubmitResult: Sendable {
    /// Applied and confirmed; the new committed state.
    case committed(MatchState)
    /// Refused before anything was applied.
    case rejected(SubmitRejection)
    /// Applied tentatively, then undone.
    case rolledBack(RollbackReason)
}
