/// How strong a bot plays, as `--bot LEVEL` and `--vs bot:LEVEL` spell it.
///
/// Kept here rather than in Bots so the command line does not decide how
/// bots are built; the handlers map it onto the Bots module's own type.
public enum BotLevelChoice: String, Sendable, Hashable, CaseIterable {
    /// Takes a win in one, blocks a loss in one, otherwise plays at random.
    case easy
    /// A short search.
    case medium
    /// The strongest search parlor has.
    case hard
}

/// Which seat the local player asks for.
public enum SeatChoice: String, Sendable, Hashable, CaseIterable {
    /// Seat 0: moves first.
    case first
    /// Seat 1: moves second.
    case second
    /// Decided by a coin toss when the match starts.
    case random
}

/// Who `parlor play` sets the local player against.
public enum Opponent: Sendable, Hashable, CustomStringConvertible {
    /// A bot of this level.
    case bot(BotLevelChoice)
    /// Another person at the same keyboard (hot seat).
    case human

    /// Every spelling `--vs` accepts, in the order errors list them (a level
    /// alone, `easy`, is accepted too, as `bot:easy`).
    public static let spellings = ["bot"] + BotLevelChoice.allCases.map { "bot:\($0.rawValue)" } + ["human", "friend"]

    /// Parses `bot`, `bot:LEVEL`, a level alone, or `human` (also `friend`:
    /// "play against a bot or a friend"), case-insensitive; nil otherwise.
    /// `bot` alone is a bot of `defaultLevel` (the settings file's `bot`, else medium).
    public init?(parsing text: String, defaultLevel: BotLevelChoice = .medium) {
        let lowered = text.lowercased()
        if lowered == "human" || lowered == "friend" { self = .human; return }
        if lowered == "bot" { self = .bot(defaultLevel); return }
        if let level = BotLevelChoice(rawValue: lowered) { self = .bot(level); return }
        guard lowered.hasPrefix("bot:"), let level = BotLevelChoice(rawValue: String(lowered.dropFirst(4))) else {
            return nil
        }
        self = .bot(level)
    }

    /// `bot:medium` or `human`, as `--vs` spells it.
    public var description: String {
        switch self {
        case .bot(let level): "bot:\(level.rawValue)"
        case .human: "human"
        }
    }
}

/// How a command shows a match or a list.
public enum OutputMode: Sendable, Hashable {
    /// Full screen on a terminal; plain text when stdin or stdout is not a TTY.
    case automatic
    /// `--plain`: text lines and a prompt, one move per line, whatever the terminal.
    case plain
    /// `--json`: one JSON object per line on stdout, for scripts.
    case json
}

/// The display flags shared by every command that shows a board.
public struct DisplayFlags: Sendable, Hashable {
    /// Full screen, plain or JSON.
    public var output: OutputMode
    /// `--ascii`: ASCII pieces and lines even on a UTF-8 terminal.
    public var ascii: Bool
    /// `--no-color`: no colour even on a colour terminal.
    public var noColor: Bool
    /// Ring the terminal bell when the turn becomes this side's (on unless `--no-bell` or the settings file's `bell = no`).
    public var bell: Bool

    /// Display options as given on the command line.
    public init(output: OutputMode = .automatic, ascii: Bool = false, noColor: Bool = false, bell: Bool = true) {
        self.output = output
        self.ascii = ascii
        self.noColor = noColor
        self.bell = bell
    }

    /// Whether colour may be used: not with `--no-color`, and not when
    /// `NO_COLOR` is set to anything but the empty string (no-color.org).
    public func colorAllowed(environment: [String: String]) -> Bool {
        if noColor { return false }
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        return true
    }
}

/// `--heartbeat-timeout` and `--grace`: how long a silent or vanished peer is waited for.
public struct ConnectionTimeouts: Sendable, Hashable {
    /// nil: the default (15 s).
    public var heartbeatTimeout: Duration?
    /// nil: the default (120 s).
    public var grace: Duration?

    public init(heartbeatTimeout: Duration? = nil, grace: Duration? = nil) {
        self.heartbeatTimeout = heartbeatTimeout
        self.grace = grace
    }
}
