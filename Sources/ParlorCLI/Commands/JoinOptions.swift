/// `parlor join TARGET`: join a game on the LAN by address or by name.
public struct JoinOptions: ParsableCommand, Hashable {
    /// Where to go; nil when no TARGET was given (a picker on a terminal).
    public var target: JoinTarget?
    /// `--name`: the guest player's name, validated (default from `USER`).
    public var name: String
    /// Whether `name` was chosen (`--name` or the settings file) rather than
    /// taken from the login: with `--bot`, a chosen name is kept, as on host;
    /// otherwise the guest is named after the bot ("Easy bot").
    public var nameChosen = false
    /// `--bot LEVEL`: a bot plays the guest's moves.
    public var bot: BotLevelChoice?
    /// `--code CODE`: the passcode the host asked for.
    public var passcode: String?
    /// `--plain`/`--json`/`--ascii`/`--no-color`.
    public var display: DisplayFlags
    /// `--grace` (the heartbeat timeout is the host's, sent in WELCOME).
    public var timeouts: ConnectionTimeouts = ConnectionTimeouts()
    /// `--rematch N`: rematches to offer and accept without asking; nil to ask on a terminal.
    public var rematches: Int?
    /// `--allow-unencrypted`: when the host speaks only parlor protocol 2, join it in clear, saying so.
    public var allowUnencrypted = false

    /// Options as code would set them.
    public init(
        target: JoinTarget?, name: String, bot: BotLevelChoice? = nil, passcode: String? = nil,
        display: DisplayFlags = DisplayFlags()
    ) {
        self.target = target
        self.name = name
        self.bot = bot
        self.passcode = passcode
        self.display = display
    }

    /// Arguments, flags and help of `parlor join`.
    public static let spec = CommandSpec(
        path: ["join"],
        abstract: "Join a game on the LAN by address or by name.",
        discussion: """
            TARGET is HOST:PORT, [IPv6]:PORT (a link-local address may name its \
            interface, [fe80::1%eth0]:7477), or the name of a game as 'parlor \
            browse' lists it: exactly, or a prefix that matches one game only, \
            in any case. Without TARGET on a terminal, parlor lets you pick one \
            of the games it finds.
            """,
        arguments: [ArgumentSpec("TARGET", isOptional: true, help: "HOST:PORT, [IPv6]:PORT, or a game's name or unique prefix.")],
        options: [
            CommonOptions.name,
            CommonOptions.bot,
            codeOption,
            CommonOptions.grace,
            CommonOptions.rematch,
            CommonOptions.allowUnencrypted,
        ] + CommonOptions.playing,
        exclusiveGroups: [CommonOptions.outputGroup]
    )

    static let codeOption = OptionSpec(
        "code", .required(valueName: "CODE"),
        help: "The passcode the host gave you; without it, parlor asks on a terminal when the host needs one.")

    /// Reads `parlor join`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        target = nil
        if let text = arguments.argument(0) { target = try ValueParser.joinTarget(text, .argument("TARGET")) }
        name = try CommonOptions.playerName(arguments)
        nameChosen = CommonOptions.nameChosen(arguments)
        bot = try CommonOptions.bot(arguments)
        passcode = nil
        if let text = arguments.value(Self.codeOption) { passcode = try ValueParser.passcode(text, Self.codeOption.source) }
        display = CommonOptions.display(arguments)
        timeouts = try CommonOptions.connectionTimeouts(arguments)
        rematches = try CommonOptions.rematches(arguments)
        allowUnencrypted = arguments.flag(CommonOptions.allowUnencrypted)
    }

    /// Hands over to `runJoin`.
    public func run() async throws -> ExitCode {
        try await runJoin(self)
    }
}
