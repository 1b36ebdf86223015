import Games
import Match

/// `parlor play GAME`: a match at this terminal against a bot or a friend.
public struct PlayOptions: ParsableCommand, Hashable {
    /// The game id, lower-cased; `validate()` checks it against `GameCatalog`.
    public var game: String
    /// `--seats`: how many seats the table has (default 2); `validate()` checks
    /// it against the game's seat counts.
    public var seats: Int
    /// `--vs`: who takes the other seats, in seat order, or one entry for all
    /// of them (default: a medium bot).
    public var opponents: [Opponent]
    /// `--seat`: the local player's seat (default: first).
    public var seat: SeatChoice
    /// `--seat N`: the local player's seat by number, 1 to `seats`; when set it
    /// decides instead of `seat`.
    public var seatNumber: Int?
    /// `--bot LEVEL`: a bot plays the local player's moves too (headless matches).
    public var bot: BotLevelChoice?
    /// `--turn-timeout`: time per move; nil for no limit.
    public var turnTimeout: Duration?
    /// `--seed`: makes bots and the random seat reproducible; nil for a random seed.
    public var seed: UInt64?
    /// `--plain`/`--json`/`--ascii`/`--no-color`.
    public var display: DisplayFlags
    /// `--name` (or the settings file's name): the local player's name; nil for the login name.
    public var name: String?

    /// Options as code would set them, e.g. for the bare `parlor` default.
    public init(
        game: String, seats: Int = 2, opponents: [Opponent] = [.bot(.medium)], seat: SeatChoice = .first,
        seatNumber: Int? = nil, bot: BotLevelChoice? = nil, turnTimeout: Duration? = nil, seed: UInt64? = nil,
        display: DisplayFlags = DisplayFlags(), name: String? = nil
    ) {
        self.name = name
        self.seatNumber = seatNumber
        self.game = game
        self.seats = seats
        self.opponents = opponents
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

            A table of more than two seats mixes bots and hot-seat players; \
            --vs names the other seats in order, or one entry fills them all:

              parlor play dots-and-boxes --seats 4 --vs bot:easy,human,bot:hard
            """,
        arguments: [ArgumentSpec("GAME", help: "The game to play; 'parlor games' lists them.")],
        options: [
            seatsOption,
            vsOption,
            seatOption,
            CommonOptions.name,
            CommonOptions.bot,
            CommonOptions.turnTimeout,
            seedOption,
        ] + CommonOptions.playing,
        exclusiveGroups: [CommonOptions.outputGroup]
    )

    static let seatsOption = OptionSpec(
        "seats", .required(valueName: "N"),
        help: "Seats at the table, one of the game's player counts that 'parlor games' shows (default: 2).")
    static let vsOption = OptionSpec(
        "vs", .required(valueName: "WHO[,WHO...]"),
        help: "Who takes the other seats, in order: bot[:LEVEL] (easy, medium or hard, or the level alone; bot alone is the settings file's level, else medium) or human (or friend: hot seat at this keyboard); one WHO fills every other seat (default: bot).")
    static let seatOption = OptionSpec(
        "seat", .required(valueName: "first|second|random|N"),
        help: "Move first, second, from seat N of the table, or let a coin decide the seat (default: first).")
    static let seedOption = OptionSpec(
        "seed", .required(valueName: "N"),
        help: "Seed bots and the coin with N, 0-18446744073709551615, to repeat a match exactly.")

    /// Reads `parlor play`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        game = ValueParser.gameID(arguments.argument(0) ?? "")
        seats = 2
        if let text = arguments.value(Self.seatsOption) {
            seats = try ValueParser.seats(text, Self.seatsOption.source, game: game)
        }
        let level = arguments.settings.bot ?? .medium
        opponents = [.bot(level)]
        if let text = arguments.value(Self.vsOption) {
            opponents = try ValueParser.opponents(text, Self.vsOption.source, defaultLevel: level)
            guard opponents.count == 1 || opponents.count == seats - 1 else {
                throw .invalidValue(Self.vsOption.source, value: text, expected: .otherSeats(seats - 1))
            }
        }
        seatNumber = nil
        if let text = arguments.value(Self.seatOption), text.first?.isNumber == true {
            seatNumber = try ValueParser.wholeNumber(text, Self.seatOption.source, in: 1...seats)
            seat = .first
        } else {
            seat = try CommonOptions.seat(arguments, Self.seatOption, default: .first)
        }
        bot = try CommonOptions.bot(arguments)
        turnTimeout = try CommonOptions.turnTimeout(arguments)
        seed = nil
        if let text = arguments.value(Self.seedOption) { seed = try ValueParser.unsignedWholeNumber(text, Self.seedOption.source) }
        display = CommonOptions.display(arguments)
        name = CommonOptions.nameChosen(arguments) ? try CommonOptions.playerName(arguments) : nil
    }

    /// The game must be one `GameCatalog` knows, played by `seats` players.
    /// (`init(parsing:)` has checked that `--vs` names one player for every
    /// other seat or one for all.)
    public func validate() throws(UsageError) {
        _ = try ValueParser.game(game)
        guard let gameType = GameCatalog.game(id: game) else { return }
        guard gameType.seatCounts.contains(seats) else {
            throw .invalidValue(Self.seatsOption.source, value: String(seats),
                                expected: .seatCount(game: gameType.id, counts: gameType.seatCounts))
        }
    }

    /// Who sits in each of the other seats, in order: `--vs` as given, or its
    /// one entry repeated for every other seat.
    public var otherSeats: [Opponent] {
        opponents.count == 1 ? Array(repeating: opponents[0], count: max(1, seats - 1)) : opponents
    }

    /// Hands over to `runPlay`.
    public func run() async throws -> ExitCode {
        try await runPlay(self)
    }
}
