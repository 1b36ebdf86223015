/// `parlor play GAME`: a match at this terminal against a bot or a friend.
public struct PlayOptions: ParsableCommand, Hashable {
    /// The game id, lower-cased; `validate()` checks it against `GameCatalog`.
    public var game: String
    /// `--vs`: who the local player faces (default: a medium bot).
    public var opponent: Opponent
    /// `--seat`: the local player's seat (default: first).
    public var seat: SeatChoice
    /// `--bot LEVEL`: a bot plays the local player's moves too (headless matches).
    public var bot: BotLevelChoice?
    /// `--turn-timeout`: time per move; nil for no limit.
    public var turnTimeout: Duration?
    /// `--seed`: makes bots and the random seat reproducible; nil for a random seed.
    public var seed: UInt64?
    /// `--plain`/`--json`/`--ascii`/`--no-color`.
    public var display: DisplayFlags

    /// Options as code would set them, e.g. for the bare `parlor` default.
    public init(
        game: String, opponent: Opponent = .bot(.medium), seat: SeatChoice = .first, bot: BotLevelChoice? = nil,
        turnTimeout: Duration? = nil, seed: UInt64? = nil, display: DisplayFlags = DisplayFlags()
    ) {
        self.game = game
        self.opponent = opponent
        self.seat = seat
        self.bot = bot
        self.turnTimeout = turnTimeout
        self.seed = seed
        self.display = display
    }

    /// Arguments, flags and help of `parlor play`.
    public static let spec = CommandSpec(
        path: ["play"],
        abstract: "Play a game at this terminal against a bot or a friend.",
        discussion: """
            On a terminal the board fills the screen: arrow keys or digits choose \
            a move, Enter plays it, q then y quits. When stdin or stdout is not a \
            terminal, or with --plain, the board is printed as text and moves are \
            read one per line; /quit quits. Ctrl-C or end of input leaves the match \
            for now: nothing is quit, and 'parlor resume' continues it.

            With --bot the local side is played by a bot too, so a match can run \
            to the end without anyone at the keyboard:

              parlor play connect4 --bot hard --vs bot:easy --json --seed 1
            """,
        arguments: [ArgumentSpec("GAME", help: "The game to play; 'parlor games' lists them.")],
        options: [
            vsOption,
            seatOption,
            CommonOptions.bot,
            CommonOptions.turnTimeout,
            seedOption,
        ] + CommonOptions.display,
        exclusiveGroups: [CommonOptions.outputGroup]
    )

    static let vsOption = OptionSpec(
        "vs", .required(valueName: "bot[:LEVEL]|human"),
        help: "Play a bot of LEVEL easy, medium or hard, or a human at the same keyboard (default: bot:medium).")
    static let seatOption = CommonOptions.seat(help: "Move first, second, or let a coin decide (default: first).")
    static let seedOption = OptionSpec(
        "seed", .required(valueName: "N"),
        help: "Seed bots and the coin with N, 0-18446744073709551615, to repeat a match exactly.")

    /// Reads `parlor play`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        game = (arguments.argument(0) ?? "").lowercased()
        opponent = .bot(.medium)
        if let text = arguments.value(Self.vsOption) { opponent = try ValueParser.opponent(text, Self.vsOption.source) }
        seat = try CommonOptions.seat(arguments, Self.seatOption, default: .first)
        bot = try CommonOptions.bot(arguments)
        turnTimeout = try CommonOptions.turnTimeout(arguments)
        seed = nil
        if let text = arguments.value(Self.seedOption) { seed = try ValueParser.unsignedWholeNumber(text, Self.seedOption.source) }
        display = CommonOptions.display(arguments)
    }

    /// The game must be one `GameCatalog` knows.
    public func validate() throws(UsageError) {
        _ = try ValueParser.game(game)
    }

    /// Hands over to `runPlay`.
    public func run() async throws -> ExitCode {
        try await runPlay(self)
    }
}
