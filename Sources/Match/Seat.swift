import Games

/// How a seat's match ended, as GameKit names them.
public enum Outcome: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// The match is still going for this seat.
    case none = 0
    /// The seat won: the game named it winner (or gave it `SeatOutcome.won`),
    /// or it was the one seat left when the others quit or ran out of time.
    case won = 1
    /// The seat lost: another seat won, the game's own outcomes said so (or
    /// left it out), or in a draw the game ranked it below the seats that tied.
    case lost = 2
    /// The seat tied: the game ended in a draw with this seat sharing first
    /// place, or the game's own outcomes said so.
    case tied = 3
    /// The player left the match.
    case quit = 4
    /// The player's turn deadline passed.
    case timeExpired = 5

    /// The lowercase camel-case name used in JSON events and docs.
    public var description: String {
        switch self {
        case .none: "none"
        case .won: "won"
        case .lost: "lost"
        case .tied: "tied"
        case .quit: "quit"
        case .timeExpired: "timeExpired"
        }
    }
}

extension Outcome {
    /// The outcome a game's own `SeatOutcome` gives a seat still playing at the end.
    public init(_ outcome: SeatOutcome) {
        switch outcome {
        case .won: self = .won
        case .lost: self = .lost
        case .tied: self = .tied
        }
    }
}

/// Whether a seat is still taking part.
public enum SeatStatus: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// In a match that is still going.
    case playing = 0
    /// Quit or ran out of time; the match may go on for others.
    case left = 1
    /// The match has ended.
    case done = 2

    /// The status as the store's and the JSON's lines say it: "playing", "left" or "done".
    public var description: String {
        switch self {
        case .playing: "playing"
        case .left: "left"
        case .done: "done"
        }
    }
}

/// One player's place in a match.
///
/// A seat's identity is its `playerID`, never its position in some array of
/// participants: the controller finds a participant's seat by this id.
public struct Seat: Hashable, Sendable {
    /// Longest name, in UTF-8 bytes.
    public static let maximumNameBytes = 64

    /// Who sits here, the same on every side for the whole match.
    public var playerID: PlayerID
    /// The player's name as given when the seat was taken (1 to `maximumNameBytes` bytes of UTF-8).
    public var name: String
    /// Playing, left, or done.
    public var status: SeatStatus
    /// How the seat ended (none while it plays).
    public var outcome: Outcome

    /// A seat for `playerID` called `name`, playing with no outcome unless given.
    public init(playerID: PlayerID, name: String, status: SeatStatus = .playing, outcome: Outcome = .none) {
        self.playerID = playerID
        self.name = name
        self.status = status
        self.outcome = outcome
    }

    /// Whether `name` can be a seat name: 1 to 64 UTF-8 bytes, no control characters.
    public static func isValidName(_ name: String) -> Bool {
        let count = name.utf8.count
        guard count >= 1, count <= maximumNameBytes else { return false }
        return !name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format && $0.value == 0x200B }
    }
}
