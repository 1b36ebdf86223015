import Games

/// One line of table talk as everyone at the table sees it (docs/PROTOCOL.md
/// section 18): who said it and after which committed change.
///
/// Talk is not part of the match: it is never in the match blob and never
/// saved. The host checks a line and relays it; every side shows it.
public struct TalkLine: Hashable, Sendable {
    /// Whether the speaker holds a seat or only watches.
    public enum Role: UInt8, Hashable, Sendable, CustomStringConvertible {
        /// A seated player (the host's own player too).
        case player = 0
        /// Someone watching the table without a seat.
        case spectator = 1

        /// "player" or "spectator", as the JSON's lines say it.
        public var description: String {
            switch self {
            case .player: "player"
            case .spectator: "spectator"
            }
        }
    }

    /// The speaker's role.
    public var role: Role
    /// The speaker's seat, 0-based; nil for a spectator.
    public var seat: SeatIndex?
    /// The speaker's name.
    public var name: String
    /// What was said: checked by the host (`TalkCheck` in Session).
    public var text: String
    /// The committed sequence the line follows: it was said after change
    /// `afterSequence` and before the next one. The host's controller stamps it.
    public var afterSequence: UInt32

    /// A line; `seat` is nil exactly for a spectator.
    public init(role: Role, seat: SeatIndex?, name: String, text: String, afterSequence: UInt32 = 0) {
        self.role = role
        self.seat = role == .player ? seat : nil
        self.name = name
        self.text = text
        self.afterSequence = afterSequence
    }
}

/// Why a line of table talk was not relayed, as the speaker is told.
public struct TalkRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The reason code (docs/PROTOCOL.md section 6, 400-499).
    public var code: UInt16
    /// The code's camel-case name, for JSON ("talkTooLong"), or "reason N".
    public var name: String
    /// The sentence for the speaker.
    public var sentence: String

    /// A refusal with its code, name and sentence.
    public init(code: UInt16, name: String, sentence: String) {
        self.code = code
        self.name = name
        self.sentence = sentence
    }

    /// The refusal as a person reads it.
    public var description: String { sentence }
}

/// Where a local player's lines of table talk go: set in the controller's
/// configuration by the session (the host's checks and relay, or the guest's
/// link to the host). Offline matches have none.
public protocol TalkOutlet: Sendable {
    /// `seat`'s local player says `text` in the match `controller` runs. The
    /// outcome comes back as a match event: `.talk` once relayed (through
    /// `controller.relayTalk`), `.talkRefused` otherwise.
    func say(_ text: String, seat: SeatIndex, in controller: MatchController) async
    /// Whether a side with no seat of its own may talk through it (a spectator):
    /// `seat` is then ignored, and the host names the sender.
    var speaksWithoutSeat: Bool { get }
}

extension TalkOutlet {
    /// No: a side with no seat has nothing to speak for, unless the outlet says so.
    public var speaksWithoutSeat: Bool { false }
}
