import Games
import Match

/// A change of the guest's own seat that went out to the host and is not
/// settled yet: the host may have committed it (only its CONFIRM is late or
/// lost), so the host's state may contain it, once, right after `base`.
public struct OwnProposal: Hashable, Sendable {
    /// The committed sequence the change was made on.
    public var base: UInt32
    /// The change (a move or a quit of the guest's seat).
    public var change: MatchChange
    /// The state hash after it, which a CONFIRM for it carries.
    public var resultingHash: UInt64

    /// The guest's `change` made on committed sequence `base`, whose state hash is `resultingHash`.
    public init(base: UInt32, change: MatchChange, resultingHash: UInt64) {
        self.base = base
        self.change = change
        self.resultingHash = resultingHash
    }

    /// Whether CONFIRM(`sequence`, `hash`) is the host's answer to this change.
    public func isConfirmed(by sequence: UInt32, hash: UInt64) -> Bool {
        sequence == base &+ 1 && hash == resultingHash
    }
}

/// The guest's checks that the host does not put words in its mouth. Pure.
///
/// The host is authoritative, but a guest's record must contain no move,
/// quit or time expiry for its own seat that it did not make or that the
/// rules do not allow the host to make (docs/PROTOCOL.md, section 8, "What
/// a guest never believes"). Every state the guest takes from the host as a
/// whole (STATE, the WELCOME of a reconnect or resume, GOODBYE(matchOver)'s
/// final blob) is checked here against what the guest had committed.
public enum GuestRecordCheck {
    /// Checks `adopted` (the host's state) against `known` (the guest's
    /// committed state). `proposal` is the guest's own change that may be
    /// committed on the host; `oneUnsavedChange` allows one change of the
    /// guest's seat after `known` without knowing which, wherever the rules
    /// put it among the others' moves: a guest resuming from disk may have
    /// sent it just before it stopped, and its copy may lack the others'
    /// moves since its last change (it sends a change only once the save of
    /// its previous one is on disk, `RemoteHost.deliver`).
    public static func adoption(_ adopted: MatchState, known: MatchState, guestSeat: SeatIndex,
                                proposal: OwnProposal?, oneUnsavedChange: Bool = false) -> Result<Void, PushDesync> {
        guard adopted.matchID == known.matchID, adopted.gameID == known.gameID,
              adopted.seats.map(\.playerID) == known.seats.map(\.playerID) else {
            return .failure(PushDesync("the host's state is of another match"))
        }
        guard adopted.seed == known.seed else {
            return .failure(PushDesync("the host's state changes the seed the match began with"))
        }
        guard adopted.sequence >= known.sequence, adopted.moves.count >= known.moves.count,
              Array(adopted.moves.prefix(known.moves.count)) == known.moves else {
            return .failure(PushDesync("the host's state drops moves it had confirmed"))
        }
        guard known.seats.indices.contains(guestSeat), adopted.seats.indices.contains(guestSeat) else {
            return .failure(PushDesync("the host's state has no seat \(guestSeat + 1)"))
        }
        let pending = proposal.flatMap { $0.base == known.sequence ? $0.change : nil }
        let first = known.moves.count
        // At a table the host may have let a bot stand in for our seat while we were away
        // (docs/PROTOCOL.md section 16): a whole state may hold moves of ours we never made.
        let standInAllowed = adopted.seats.count > 2
        var unsaved = 0  // moves of our seat taken as the one unsaved change
        for index in first..<adopted.moves.count where adopted.moves[index].seat == guestSeat && !standInAllowed {
            let move = adopted.moves[index].move
            let proposed = index == first && pending == .move(move, by: guestSeat)
            if !proposed, oneUnsavedChange { unsaved += 1 }
            guard proposed || oneUnsavedChange && unsaved == 1 else {
                return .failure(PushDesync("the host's state holds move \(index + 1) for our seat, which we never made"))
            }
        }
        let before = known.seats[guestSeat].outcome
        let after = adopted.seats[guestSeat].outcome
        guard before != after, before != .quit, before != .timeExpired else { return .success(()) }
        switch after {
        case .quit:
            // With two seats it can only be our pending quit, and no move follows it
            // (a quit ends the match); resuming from disk, it may be the one
            // unsaved change, after moves of the host's we never saved. At a
            // table the host also quits the seat of a guest whose grace period
            // ran out while it was away (docs/PROTOCOL.md section 16), and the
            // others play on after it.
            let ourQuit = pending == .quit(guestSeat) && adopted.moves.count == first || oneUnsavedChange && unsaved == 0
            guard adopted.seats.count > 2 || ourQuit else {
                return .failure(PushDesync("the host's state has our seat quit, which we never did"))
            }
        case .timeExpired:
            guard adopted.turnTimeout > 0 else {
                return .failure(PushDesync("the host's state has our time run out in a match without a turn timeout"))
            }
            // At a table the others play on after our time ran out, so whose turn
            // it is now says nothing: there only the turn timeout is checked
            // (a limit of this check, docs/PROTOCOL.md section 8).
            guard adopted.seats.count > 2 || adopted.game.activeSeat == guestSeat else {
                return .failure(PushDesync("the host's state has our time run out while it was not our turn"))
            }
        default:
            break
        }
        return .success(())
    }

    /// Checks a WELCOME for a brand-new match (a first join or a rematch):
    /// it must start empty, every seat playing.
    public static func newMatch(_ state: MatchState) -> Result<Void, PushDesync> {
        guard state.sequence == 0, state.moves.isEmpty,
              state.seats.allSatisfy({ $0.status == .playing && $0.outcome == .none }) else {
            return .failure(PushDesync("a new match must start empty, but it holds \(state.moves.count) moves at change \(state.sequence)"))
        }
        return .success(())
    }

    /// Checks a rematch's WELCOME against the match that ended: a new match
    /// id, the same players with the seats swapped, and an empty start.
    public static func rematch(_ next: MatchState, guestSeat nextSeat: SeatIndex, after previous: MatchState,
                               previousSeat: SeatIndex) -> Result<Void, PushDesync> {
        guard next.matchID != previous.matchID else {
            return .failure(PushDesync("the rematch reuses the id of match \(previous.matchID.short)"))
        }
        guard next.gameID == previous.gameID, next.seats.count == previous.seats.count,
              next.seats.map(\.playerID) == previous.seats.map(\.playerID).reversed(), nextSeat != previousSeat else {
            return .failure(PushDesync("the rematch does not swap the seats"))
        }
        return newMatch(next)
    }
}
