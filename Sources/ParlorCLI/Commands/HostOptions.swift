import Session
import Games
import Match

/// `parlor host GAME`: host a match on the LAN and wait for a player.
public struct HostOptions: ParsableCommand, Hashable {
    /// The TCP port tried first when `--port` is not given. If it is taken,
    /// the host falls back to a free port chosen by the system and says so.
    public static let defaultPort: UInt16 = 7477

    /// The game id, lower-cased; `validate()` checks it against `GameCatalog`.
    public var game: String
    /// `--port`: nil means `defaultPort` with fallback to a free port; a
    /// given port is used exactly (taken is an error); 0 lets the system choose.
    public var port: UInt16?
    /// The port tried first when `--port` is not given: the settings file's
    /// `port`, else `defaultPort`; taken, the host falls back to a free one.
    public var preferredPort: UInt16 = HostOptions.defaultPort
    /// `--name`: the host player's name, validated (default from `USER`).
    public var name: String
    /// `--seat`: the host's seat (default: random).
    public var seat: SeatChoice
    /// `--turn-timeout`: time per move, enforced by the host; nil for no limit.
    public var turnTimeout: Duration?
    /// `--bot LEVEL`: a bot plays the host's moves.
    public var bot: BotLevelChoice?
    /// `--code`: require a passcode; nil for an open game.
    public var passcode: PasscodeRequest?
    /// `--plain`/`--json`/`--ascii`/`--no-color`.
    public var display: DisplayFlags
    /// `--heartbeat-timeout`/`--grace`.
    public var timeouts: ConnectionTimeouts = ConnectionTimeouts()
    /// `--rematch N`: rematches to offer and accept without asking; nil to ask on a terminal.
    public var rematches: Int?
    /// `--hints`: both sides may use the hint key (advertised as TXT `hints=1`).
    public var hints = false
    /// `--seats N`: seats at the table (default 2); `validate()` checks the game's counts.
    public var seats = 2
    /// `--bots LEVEL[,LEVEL...]`: that many seats go to the host's bots from the start.
    public var bots: [BotLevelChoice] = []
    /// `--fill-with-bots SECONDS`: after this long with a guest seated, the empty
    /// seats go to medium bots and the match starts; nil waits until every seat is taken.
    public var fillWithBotsAfter: Duration?
    /// `--no-talk`: refuse every line of table talk (docs/PROTOCOL.md section 18).
    public var noTalk = false
    /// `--tables N`: serve up to N tables at once from this process, each guest
    /// at a table of its own against the host's `--bot`; nil for one match.
    public var tables: Int?
    /// `--spectators N`: spectators allowed at once; 0 forbids watching.
    public var spectators = SpectatorGallery.defaultLimit
    /// `--watch-code CODE|none`: the code spectators prove; nil asks for `--code`'s, "" for none.
    public var watchCode: String?
    /// `--away-bot SECONDS`: at a table, a guest away this long has a medium bot
    /// play their seat until they are back; nil lets the seat wait for them.
    public var awayBotAfter: Duration?
    /// `--allow-unencrypted`: also admit guests that speak only parlor protocol 2 (in clear); each is announced as not private.
    public var allowUnencrypted = false

    /// Options as code would set them.
    public init(
        game: String, port: UInt16? = nil, name: String, seat: SeatChoice = .random, turnTimeout: Duration? = nil,
        bot: BotLevelChoice? = nil, passcode: PasscodeRequest? = nil, display: DisplayFlags = DisplayFlags()
    ) {
        self.game = game
        self.port = port
        self.name = name
        self.seat = seat
        self.turnTimeout = turnTimeout
        self.bot = bot
        self.passcode = passcode
        self.display = display
    }

    /// Arguments, flags and help of `parlor host`.
    public static let spec = CommandSpec(
        path: ["host"],
        abstract: "Host a game on the LAN and wait for a player to join.",
        discussion: """
            The game is advertised on the local network with DNS-SD, so 'parlor \
            browse' and 'parlor join NAME' find it. parlor also prints a 'parlor \
            join ADDRESS:PORT' line for each address of this machine, for networks \
            without multicast and for SSH port forwards. The host keeps the \
            authoritative copy of the match.

            A table of more than two seats starts when every seat is taken; each \
            'parlor join' takes a free seat, and --bots gives seats to bots:

              parlor host dots-and-boxes --seats 4 --bots easy
            """,
        arguments: [ArgumentSpec("GAME", help: "The game to host; 'parlor games' lists them.")],
        options: [
            portOption,
            CommonOptions.name,
            seatOption,
            CommonOptions.turnTimeout,
            CommonOptions.bot,
            codeOption,
            CommonOptions.heartbeatTimeout,
            CommonOptions.grace,
            CommonOptions.rematch,
            hintsOption,
            seatsOption,
            botsOption,
            fillOption,
            noTalkOption,
            tablesOption,
            spectatorsOption,
            watchCodeOption,
            awayBotOption,
            CommonOptions.allowUnencrypted,
        ] + CommonOptions.playing,
        exclusiveGroups: [CommonOptions.outputGroup]
    )

    static let portOption = OptionSpec(
        "port", short: "p", .required(valueName: "N"),
        help: "Listen on TCP port N, 0-65535; 0 lets the system choose (default: the settings file's port, else 7477, or a free port when that is taken).")
    static let hintsOption = OptionSpec(
        "hints", help: "Allow the hint key (h) on both sides; the advertisement tells joining players (default: no hints).")
    static let seatsOption = OptionSpec(
        "seats", .required(valueName: "N"),
        help: "Seats at the table, one of the game's player counts that 'parlor games' shows; the match starts when every seat is taken (default: 2).")
    static let botsOption = OptionSpec(
        "bots", .required(valueName: "LEVEL[,LEVEL...]"),
        help: "Give one seat to a bot of each LEVEL (easy, medium or hard) from the start; at least one seat stays for a guest (default: none).")
    static let fillOption = OptionSpec(
        "fill-with-bots", .required(valueName: "SECONDS"),
        help: "Once a guest is seated and SECONDS have passed, give the empty seats to medium bots and start (default: wait until every seat is taken).")
    static let noTalkOption = OptionSpec(
        "no-talk", help: "Turn table talk off: every line anyone says is refused, and they are told so (default: talk is on; it is never saved).")
    static let tablesOption = OptionSpec(
        "tables", .required(valueName: "N"),
        help: "Serve up to N tables at once (1-\(HostOptions.tablesLimit)) on one port: each guest plays the host's --bot at a table of its own; needs --bot, two seats, no --rematch (default: one match).")
    /// The most tables one host process serves.
    public static let tablesLimit = 4096
    static let spectatorsOption = OptionSpec(
        "spectators", .required(valueName: "N"),
        help: "Let at most N people watch with 'parlor watch', 0-1000; 0 lets nobody watch (default: \(SpectatorGallery.defaultLimit)).")
    static let watchCodeOption = OptionSpec(
        "watch-code", .required(valueName: "CODE"),
        help: "The passcode spectators must prove, 4-32 letters, digits or '-', or 'none' to let anyone watch (default: the --code passcode, if any).")
    static let awayBotOption = OptionSpec(
        "away-bot", .required(valueName: "SECONDS"),
        help: "At a table of three or more, once a guest has been away SECONDS, a medium bot plays their seat until they are back with their seat token (default: the seat waits for them; on the full screen, b does it at once).")
    static let seatOption = CommonOptions.seat(help: "Move first, second, or let a coin decide (default: random).")
    static let codeOption = OptionSpec(
        "code", .optional(valueName: "CODE"),
        help: "Require a passcode to join: --code alone makes one up and prints it, --code CODE or --code=CODE uses CODE (4-32 letters, digits or '-'); a following word that is the game, or starts with '-', is not taken as the code.")

    /// Reads `parlor host`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        game = ValueParser.gameID(arguments.argument(0) ?? "")
        port = nil
        if let text = arguments.value(Self.portOption) {
            port = UInt16(try ValueParser.wholeNumber(text, Self.portOption.source, in: 0...65_535))
        }
        preferredPort = arguments.settings.port ?? Self.defaultPort
        name = try CommonOptions.playerName(arguments)
        seat = try CommonOptions.seat(arguments, Self.seatOption, default: .random)
        turnTimeout = try CommonOptions.turnTimeout(arguments)
        bot = try CommonOptions.bot(arguments)
        switch arguments.optionalValue(Self.codeOption) {
        case .absent: passcode = nil
        case .bare: passcode = .generate
        case .value(let text): passcode = .given(try ValueParser.passcode(text, Self.codeOption.source))
        }
        display = CommonOptions.display(arguments)
        timeouts = try CommonOptions.connectionTimeouts(arguments)
        rematches = try CommonOptions.rematches(arguments)
        hints = arguments.flag(Self.hintsOption)
        allowUnencrypted = arguments.flag(CommonOptions.allowUnencrypted)
        noTalk = arguments.flag(Self.noTalkOption)
        if let text = arguments.value(Self.seatsOption) {
            seats = try ValueParser.seats(text, Self.seatsOption.source, game: game)
        }
        if let text = arguments.value(Self.botsOption) {
            var levels: [BotLevelChoice] = []
            for word in text.split(separator: ",", omittingEmptySubsequences: false) {
                levels.append(try ValueParser.choice(String(word), Self.botsOption.source, as: BotLevelChoice.self))
            }
            guard levels.count <= seats - 2 else {
                let counts = GameCatalog.game(id: game)?.seatCounts ?? []
                throw .invalidValue(Self.botsOption.source, value: text,
                                    expected: .botSeats(max: max(0, seats - 2), seats: seats, game: game, counts: counts))
            }
            bots = levels
        }
        if let text = arguments.value(Self.fillOption) {
            fillWithBotsAfter = .seconds(try ValueParser.wholeNumber(text, Self.fillOption.source, in: 0...86_400))
        }
        if let text = arguments.value(Self.tablesOption) {
            tables = try ValueParser.wholeNumber(text, Self.tablesOption.source, in: 1...Self.tablesLimit)
        }
        if let text = arguments.value(Self.spectatorsOption) {
            spectators = try ValueParser.wholeNumber(text, Self.spectatorsOption.source, in: 0...1000)
        }
        if let text = arguments.value(Self.watchCodeOption) {
            watchCode = text.lowercased() == "none" ? "" : try ValueParser.passcode(text, Self.watchCodeOption.source)
        }
        awayBotAfter = try Self.awayBot(arguments)
    }

    /// `--away-bot SECONDS` as given to `host` or `resume`, or nil.
    static func awayBot(_ arguments: ParsedArguments) throws(UsageError) -> Duration? {
        guard let text = arguments.value(awayBotOption) else { return nil }
        return .seconds(try ValueParser.wholeNumber(text, awayBotOption.source, in: 0...86_400))
    }

    /// The game must be one `GameCatalog` knows.
    public func validate() throws(UsageError) {
        _ = try ValueParser.game(game)
        guard let gameType = GameCatalog.game(id: game) else { return }
        guard gameType.seatCounts.contains(seats) else {
            throw .invalidValue(Self.seatsOption.source, value: String(seats),
                                expected: .seatCount(game: gameType.id, counts: gameType.seatCounts))
        }
        if tables != nil {
            // Nobody can play many tables at one terminal: the host's seat at each is a bot.
            guard bot != nil else {
                throw .optionNeeds("--tables", why: "needs --bot LEVEL: the host's seat at every table is played by that bot.")
            }
            guard seats == 2, bots.isEmpty, fillWithBotsAfter == nil else {
                throw .optionNeeds("--tables", why: "serves two-seat tables only; leave out --seats, --bots and --fill-with-bots.")
            }
            guard rematches == nil else {
                throw .optionNeeds("--tables", why: "cannot be used with --rematch: a table that ends frees its place for the next guest.")
            }
        }
    }

    /// Hands over to `runHost`.
    public func run() async throws -> ExitCode {
        try await runHost(self)
    }
}
