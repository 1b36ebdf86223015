import Games
import Match

/// Where a turn event lands when a player sits at several matches at once:
/// GameKit's four cases of `handleTurnEventForMatch` (the match on screen or
/// another, the turn ours or someone else's).
public enum TurnCase: String, Hashable, Sendable, CaseIterable {
    /// The match on screen, and it is our turn: take the turn (the cursor shows).
    case takeTurn
    /// The match on screen, someone else's turn: draw it again.
    case redraw
    /// Another match, and it is our turn: a notice that says which match and how to switch.
    case notice
    /// Another match, someone else's turn: its list entry changes, nothing else.
    case quietUpdate
}

/// One turn of one match, as the router reads it.
public struct TurnEvent: Hashable, Sendable {
    /// The match whose turn began.
    public var match: MatchID
    /// The seat to move.
    public var seat: SeatIndex
    /// The seats played at this terminal in that match.
    public var localSeats: Set<SeatIndex>
    /// The seat that made the last change, if any (nil at the first turn).
    public var lastMover: SeatIndex?

    /// A turn of `match` for `seat`, with the seats played here and the last mover (nil: none yet).
    public init(match: MatchID, seat: SeatIndex, localSeats: Set<SeatIndex>, lastMover: SeatIndex?) {
        self.match = match
        self.seat = seat
        self.localSeats = localSeats
        self.lastMover = lastMover
    }

    /// The turn began in `state` for `seat`.
    public init(seat: SeatIndex, state: MatchState, localSeats: Set<SeatIndex>) {
        self.init(match: state.matchID, seat: seat, localSeats: localSeats, lastMover: state.moves.last?.seat)
    }

    /// Whether the seat to move is played here.
    public var isOurs: Bool { localSeats.contains(seat) }

    /// Whether the turn became ours because another seat moved: the one time
    /// the bell rings (not at the first turn, and not when our own seats take
    /// turns one after another at a hot seat).
    public var becameOurs: Bool {
        guard isOurs, let lastMover else { return false }
        return !localSeats.contains(lastMover)
    }
}

/// What to do with a turn event. Pure: no terminal, no clock.
public struct TurnRouting: Hashable, Sendable {
    /// Which of the four cases.
    public var turnCase: TurnCase
    /// Ring the terminal bell (when the bell is on and the turn became ours).
    public var ringsBell: Bool
    /// Set the terminal title to say it is our turn (any turn that is ours).
    public var setsTitle: Bool

    /// Sorts `event` into the four cases, with `onScreen` the match shown now
    /// (nil: the lobby or the list of matches is shown, so every match is "another").
    /// `ringsOnScreen` false: a turn that comes back on screen does not ring
    /// (an offline match, whose bots answer while the person looks on); another match's still does.
    public static func route(_ event: TurnEvent, onScreen: MatchID?, bell: Bool, ringsOnScreen: Bool = true) -> TurnRouting {
        let shown = event.match == onScreen
        let turnCase: TurnCase = switch (shown, event.isOurs) {
        case (true, true): .takeTurn
        case (true, false): .redraw
        case (false, true): .notice
        case (false, false): .quietUpdate
        }
        let rings = bell && event.becameOurs && (ringsOnScreen || !shown)
        return TurnRouting(turnCase: turnCase, ringsBell: rings, setsTitle: event.isOurs)
    }
}

/// The words a player reads about a match at the desk: its label, the
/// notice for another match, the terminal title, and the JSON turn event.
public enum TurnNotices {
    /// The key that switches to the match that waits for you.
    public static let switchKeyName = "Tab"

    /// The other players' names at `state` for a player at `localSeats`: "Bo", "Bo and Cy", "Bo, Cy and Di".
    public static func opponents(_ state: MatchState, localSeats: Set<SeatIndex>) -> String {
        let names = state.seats.indices.filter { !localSeats.contains($0) }.map { sanitized(state.seats[$0].name) }
        switch names.count {
        case 0: return "nobody"
        case 1: return names[0]
        default: return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        }
    }

    /// "Connect Four vs Bo (1a2b3c4d)": which match, as the list and the notices name it.
    public static func label(_ state: MatchState, localSeats: Set<SeatIndex>) -> String {
        "\(state.game.gameDisplayName) vs \(opponents(state, localSeats: localSeats)) (\(state.matchID.short))"
    }

    /// "It's your turn in Connect Four vs Bo (1a2b3c4d): Bo played 4. Press Tab to switch."
    /// The line shown under the board (or the lobby) for another match;
    /// `moreWaiting` other matches that wait for us add "(2 more wait)".
    public static func yourTurnElsewhere(_ state: MatchState, localSeats: Set<SeatIndex>, moreWaiting: Int = 0) -> String {
        var text = "It's your turn in \(label(state, localSeats: localSeats))"
        if let last = state.moves.last, !localSeats.contains(last.seat), state.seats.indices.contains(last.seat) {
            text += ": \(sanitized(state.seats[last.seat].name)) played \(state.game.notation(for: last.move))"
        }
        let more = moreWaiting > 0 ? " (\(moreWaiting) more wait\(moreWaiting == 1 ? "s" : ""))" : ""
        return text + ". Press \(switchKeyName) to switch\(more)."
    }

    /// The terminal title while it is our turn: "parlor — your turn: connect4 vs Bo";
    /// "parlor" when no match waits for us.
    public static func title(waiting state: MatchState?, localSeats: Set<SeatIndex>, unicode: Bool) -> String {
        guard let state else { return "parlor" }
        return "parlor \(unicode ? "\u{2014}" : "-") your turn: \(state.gameID) vs \(opponents(state, localSeats: localSeats))"
    }

    /// The escape sequence that sets the window title to `title` (OSC 2, ended
    /// by ST rather than BEL, so the only BEL a terminal gets is the bell's).
    /// Control characters in the title are replaced.
    public static func titleSequence(_ title: String) -> [UInt8] {
        Array("\u{1B}]2;".utf8) + Array(sanitized(title).utf8) + Array("\u{1B}\\".utf8)
    }

    /// Saves the window title on the terminal's title stack (xterm, tmux), before parlor sets its own.
    public static let pushTitle: [UInt8] = Array("\u{1B}[22;2t".utf8)
    /// Puts the saved window title back.
    public static let popTitle: [UInt8] = Array("\u{1B}[23;2t".utf8)

    /// `{"event":"turn","match":…,"game":…,"seat":N,"name":…,"yours":true,"case":"notice","sequence":S}`:
    /// one line per turn of every match at the desk, with the case the router chose.
    public static func json(_ event: TurnEvent, routing: TurnRouting, state: MatchState) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("event", "turn"), ("match", JSONValue(state.matchID.hex)), ("game", JSONValue(state.gameID)),
            ("seat", JSONValue(event.seat)),
            ("name", JSONValue(state.seats.indices.contains(event.seat) ? state.seats[event.seat].name : "")),
            ("yours", .bool(event.isOurs)), ("case", JSONValue(routing.turnCase.rawValue)),
            ("bell", .bool(routing.ringsBell)), ("sequence", JSONValue(Int(state.sequence))),
        ]
        if state.deadline > 0 { fields.append(("deadline", .int(state.deadline))) }
        return .object(fields)
    }
}

/// The window title of a one-match full screen: "parlor — your turn: connect4 vs Bo"
/// while a seat played here is to move (not when every seat is), "parlor" otherwise.
struct WindowTitle {
    let unicode: Bool
    private var shown: String?

    init(unicode: Bool) { self.unicode = unicode }

    /// The bytes that set the title after `event`, or nil when it stays as it is.
    mutating func update(after event: MatchEvent, localSeats: Set<SeatIndex>) -> [UInt8]? {
        let state: MatchState
        switch event {
        case .started(let current), .turnBegan(_, let current), .adopted(let current), .ended(let current), .failed(_, let current):
            state = current
        default:
            return nil
        }
        let ours = state.activeSeat.map { localSeats.contains($0) } ?? false
        let waiting = ours && localSeats.count < state.seats.count
        let title = TurnNotices.title(waiting: waiting ? state : nil, localSeats: localSeats, unicode: unicode)
        guard title != shown else { return nil }
        shown = title
        return TurnNotices.titleSequence(title)
    }
}
