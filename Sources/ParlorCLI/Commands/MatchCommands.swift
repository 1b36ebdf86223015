/// `parlor matches`: list the saved matches.
public struct MatchesOptions: ParsableCommand, Hashable {
    /// `--json`: one object per match.
    public var json: Bool

    /// Options as code would set them.
    public init(json: Bool = false) { self.json = json }

    /// Arguments, flags and help of `parlor matches`.
    static let jsonOption = OptionSpec("json", help: "One JSON object per line, one per match.")

    public static let spec = CommandSpec(
        path: ["matches"],
        abstract: "List saved matches.",
        discussion: """
            Every match this user plays is saved under $XDG_DATA_HOME/parlor \
            (~/.local/share/parlor by default) after each turn. The list shows \
            each match's id, game, opponent, whose turn it is, its state (playing, \
            interrupted, ended), the outcome and the last activity. A damaged file \
            is reported by name and skipped.
            """,
        options: [jsonOption]
    )

    /// Reads `parlor matches`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag(Self.jsonOption)
    }

    /// Hands over to `runMatches`.
    public func run() async throws -> ExitCode {
        try await runMatches(self)
    }
}

/// `parlor replay ID`: show a saved match move by move.
public struct ReplayOptions: ParsableCommand, Hashable {
    /// The match id (or a unique prefix), as `parlor matches` lists it.
    public var id: String
    /// `--plain`/`--json`/`--ascii`/`--no-color`.
    public var display: DisplayFlags

    /// Options as code would set them.
    public init(id: String, display: DisplayFlags = DisplayFlags()) {
        self.id = id
        self.display = display
    }

    /// Arguments, flags and help of `parlor replay`.
    public static let spec = CommandSpec(
        path: ["replay"],
        abstract: "Show a saved match move by move.",
        discussion: """
            On a terminal the boards are shown one move at a time; in plain mode \
            and with --json, the move list is printed.
            """,
        arguments: [ArgumentSpec("ID", help: "The match's id, or a prefix of it that matches one match.")],
        options: CommonOptions.display,
        exclusiveGroups: [CommonOptions.outputGroup]
    )

    /// Reads `parlor replay`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        id = try ValueParser.matchID(arguments.argument(0) ?? "", .argument("ID"))
        display = CommonOptions.display(arguments)
    }

    /// Hands over to `runReplay`.
    public func run() async throws -> ExitCode {
        try await runReplay(self)
    }
}

/// `parlor forget ID`: delete a saved match.
public struct ForgetOptions: ParsableCommand, Hashable {
    /// The match id (or a unique prefix).
    public var id: String
    /// `--yes`: do not ask first.
    public var yes: Bool

    /// Options as code would set them.
    public init(id: String, yes: Bool = false) {
        self.id = id
        self.yes = yes
    }

    /// Arguments, flags and help of `parlor forget`.
    static let yesOption = OptionSpec("yes", short: "y", help: "Delete without asking.")

    public static let spec = CommandSpec(
        path: ["forget"],
        abstract: "Delete a saved match.",
        discussion: "On a terminal parlor asks before deleting; elsewhere it deletes only with --yes.",
        arguments: [ArgumentSpec("ID", help: "The match's id, or a prefix of it that matches one match.")],
        options: [yesOption]
    )

    /// Reads `parlor forget`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        id = try ValueParser.matchID(arguments.argument(0) ?? "", .argument("ID"))
        yes = arguments.flag(Self.yesOption)
    }

    /// Hands over to `runForget`.
    public func run() async throws -> ExitCode {
        try await runForget(self)
    }
}

/// `parlor resume [ID|HOST:PORT]`: pick up an interrupted match.
public struct ResumeOptions: ParsableCommand, Hashable {
    /// The match or host to resume; nil for the most recent interrupted match.
    public var target: ResumeTarget?
    /// `--bot LEVEL`: a bot plays this side's moves.
    public var bot: BotLevelChoice?
    /// `--plain`/`--json`/`--ascii`/`--no-color`.
    public var display: DisplayFlags
    /// `--grace`: how long to try to reach the other side (and to wait for it if it drops).
    public var timeouts: ConnectionTimeouts = ConnectionTimeouts()
    /// `--rematch N`: rematches to offer and accept without asking; nil to ask on a terminal.
    public var rematches: Int?
    /// `--away-bot SECONDS`: on a table's host, as for `parlor host`.
    public var awayBotAfter: Duration?

    /// Options as code would set them.
    public init(target: ResumeTarget? = nil, bot: BotLevelChoice? = nil, display: DisplayFlags = DisplayFlags()) {
        self.target = target
        self.bot = bot
        self.display = display
    }

    /// Arguments, flags and help of `parlor resume`.
    public static let spec = CommandSpec(
        path: ["resume"],
        abstract: "Resume an interrupted match.",
        discussion: """
            On the side that hosted the match, parlor listens again (on the same port \
            when it is free), advertises the match with its id, and waits for the \
            other player. On the guest's side, it connects to the host's saved \
            address, or to HOST:PORT, or finds the match on the LAN by its id, \
            retrying for the grace period, and takes its seat back with the seat \
            token it was given. The host's copy of the match wins. Without an \
            argument, the most recently interrupted match is resumed.
            """,
        arguments: [ArgumentSpec("ID|HOST:PORT", isOptional: true, help: "A match id from 'parlor matches', or the host's address.")],
        options: [CommonOptions.bot, CommonOptions.heartbeatTimeout, CommonOptions.grace, CommonOptions.rematch,
                  HostOptions.awayBotOption] + CommonOptions.playing,
        exclusiveGroups: [CommonOptions.outputGroup]
    )

    /// Reads `parlor resume`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        target = nil
        if let text = arguments.argument(0) { target = try ValueParser.resumeTarget(text, .argument("ID|HOST:PORT")) }
        bot = try CommonOptions.bot(arguments)
        display = CommonOptions.display(arguments)
        timeouts = try CommonOptions.connectionTimeouts(arguments)
        rematches = try CommonOptions.rematches(arguments)
        awayBotAfter = try HostOptions.awayBot(arguments)
    }

    /// Hands over to `runResume`.
    public func run() async throws -> ExitCode {
        try await runResume(self)
    }
}
