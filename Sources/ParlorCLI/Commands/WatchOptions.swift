/// `parlor watch TARGET`: watch a game on the LAN without a seat.
public struct WatchOptions: ParsableCommand, Hashable {
    /// Where to go; nil when no TARGET was given (a picker on a terminal).
    public var target: JoinTarget?
    /// `--name`: the name the host's log shows for this spectator.
    public var name: String
    /// `--code CODE`: the passcode the host asks spectators for.
    public var passcode: String?
    /// `--plain`/`--json`/`--ascii`/`--no-color`.
    public var display: DisplayFlags

    /// Options as code would set them.
    public init(target: JoinTarget?, name: String, passcode: String? = nil, display: DisplayFlags = DisplayFlags()) {
        self.target = target
        self.name = name
        self.passcode = passcode
        self.display = display
    }

    /// Arguments, flags and help of `parlor watch`.
    public static let spec = CommandSpec(
        path: ["watch"],
        abstract: "Watch a game on the LAN without taking a seat.",
        discussion: """
            TARGET is as for 'parlor join': HOST:PORT, [IPv6]:PORT, or a game's \
            name as 'parlor browse' lists it. You may start watching before the \
            match begins, during it, or after its end, and see the same board and \
            seats as the players; nothing you type moves. q leaves.
            """,
        arguments: [ArgumentSpec("TARGET", isOptional: true, help: "HOST:PORT, [IPv6]:PORT, or a game's name or unique prefix.")],
        options: [CommonOptions.name, codeOption] + CommonOptions.display,
        exclusiveGroups: [CommonOptions.outputGroup]
    )

    static let codeOption = OptionSpec(
        "code", .required(valueName: "CODE"),
        help: "The passcode the host gave spectators; without it, parlor asks on a terminal when the host needs one.")

    /// Reads `parlor watch`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        target = nil
        if let text = arguments.argument(0) { target = try ValueParser.joinTarget(text, .argument("TARGET")) }
        name = try CommonOptions.playerName(arguments)
        passcode = nil
        if let text = arguments.value(Self.codeOption) { passcode = try ValueParser.passcode(text, Self.codeOption.source) }
        display = CommonOptions.display(arguments)
    }

    /// Hands over to `runWatch`.
    public func run() async throws -> ExitCode {
        try await runWatch(self)
    }
}
