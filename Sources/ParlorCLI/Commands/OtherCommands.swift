/// `parlor games`: the games parlor knows.
public struct GamesOptions: SynchronousCommand, Hashable {
    /// `--json`: one object per game.
    public var json: Bool

    /// Options as code would set them.
    public init(json: Bool = false) { self.json = json }

    /// Arguments, flags and help of `parlor games`.
    static let jsonOption = OptionSpec("json", help: "One JSON object per line, one per game.")

    public static let spec = CommandSpec(
        path: ["games"],
        abstract: "List the games parlor knows, with their rules.",
        discussion: "For each game: the id to type after 'parlor play', its name, one line of rules, and how a move is typed in plain mode.",
        options: [jsonOption]
    )

    /// Reads `parlor games`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag(Self.jsonOption)
    }

    /// Hands over to `runGames`.
    public func run() async throws -> ExitCode {
        try runNow()
    }

    /// Hands over to `runGames`, without a task (see `SynchronousCommand`).
    public func runNow() throws -> ExitCode {
        runGames(self)
    }
}

/// `parlor doctor`: check that LAN play works on this machine.
public struct DoctorOptions: ParsableCommand, Hashable {
    /// `--json`: one object per check.
    public var json: Bool

    /// Options as code would set them.
    public init(json: Bool = false) { self.json = json }

    /// Arguments, flags and help of `parlor doctor`.
    static let jsonOption = OptionSpec("json", help: "One JSON object per line, one per check.")

    public static let spec = CommandSpec(
        path: ["doctor"],
        abstract: "Check that LAN discovery and play work on this machine.",
        discussion: """
            Checks the DNS-SD library and the avahi daemon, lists the interfaces \
            with multicast, publishes a test service and browses for it, and names \
            the ports a firewall must allow: UDP 5353 for discovery and the game's \
            TCP port.
            """,
        options: [jsonOption]
    )

    /// Reads `parlor doctor`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag(Self.jsonOption)
    }

    /// Hands over to `runDoctor`.
    public func run() async throws -> ExitCode {
        try await runDoctor(self)
    }
}

/// `parlor id`: this player's key fingerprint, to compare with other players.
public struct IdOptions: ParsableCommand, Hashable {
    /// `--json`: one object with the fingerprint, the public key and the file.
    public var json: Bool

    /// Options as code would set them.
    public init(json: Bool = false) { self.json = json }

    static let jsonOption = OptionSpec("json", help: "One JSON object: the fingerprint, its short form, the public key and the key file.")

    /// Arguments, flags and help of `parlor id`.
    public static let spec = CommandSpec(
        path: ["id"],
        abstract: "Show your player key's fingerprint, to compare with other players.",
        discussion: """
            Every connection proves your player key, made on first use in \
            $XDG_DATA_HOME/parlor/player.key (readable by you alone). Read the \
            fingerprint aloud, or compare it on both screens: the same \
            fingerprint is the same player. Each quarter ends in a check \
            symbol, so a mistyped symbol is caught.
            """,
        options: [jsonOption]
    )

    /// Reads `parlor id`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag(Self.jsonOption)
    }

    /// Hands over to `runId`.
    public func run() async throws -> ExitCode {
        try await runId(self)
    }
}

/// `parlor forget-player NAME|FINGERPRINT`: forget a remembered player's key.
public struct ForgetPlayerOptions: ParsableCommand, Hashable {
    /// The name (any case) or the fingerprint of the player to forget.
    public var player: String

    /// Options as code would set them.
    public init(player: String) { self.player = player }

    /// Arguments, flags and help of `parlor forget-player`.
    public static let spec = CommandSpec(
        path: ["forget-player"],
        abstract: "Forget a player's key, to accept a new one.",
        discussion: """
            parlor remembers the key of every player it meets \
            ($XDG_DATA_HOME/parlor/known_players) and refuses a known name with \
            another key. When a player really has a new key (a new machine, a \
            lost key file), forget the old one; the next meeting remembers the new.
            """,
        arguments: [ArgumentSpec("PLAYER", help: "The player's name as remembered (any case), or the fingerprint.")]
    )

    /// Reads `parlor forget-player`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        guard let player = arguments.argument(0), !player.allSatisfy(\.isWhitespace) else { throw .missingArgument("PLAYER") }
        self.player = player
    }

    /// Hands over to `runForgetPlayer`.
    public func run() async throws -> ExitCode {
        try await runForgetPlayer(self)
    }
}

/// `parlor bench turns`: the cost of a turn over loopback.
public struct BenchTurnsOptions: ParsableCommand, Hashable {
    /// `--count`: how many turns to time (default 1000).
    public var count: Int
    /// `--dir`: where the bench's store goes (default: beside the user's store).
    public var directory: String?
    /// `--spectators N`: also time the full turn with N spectators watching (0: not).
    public var spectators = 0

    /// Options as code would set them.
    public init(count: Int = 1000, directory: String? = nil) {
        self.count = count
        self.directory = directory
    }

    /// Arguments, flags and help of `parlor bench turns`.
    static let countOption = OptionSpec("count", short: "c", .required(valueName: "N"), help: "Turns to time, 1-1000000 (default: 1000).")
    static let directoryOption = OptionSpec("dir", .required(valueName: "DIR"),
                                            help: "Keep the bench's store in a fresh directory inside DIR (default: the data directory, $XDG_DATA_HOME/parlor).")
    static let spectatorsOption = OptionSpec("spectators", .required(valueName: "N"),
                                             help: "Also time the full turn with nobody watching and with N spectators watching from a process of their own, 1-1000, paced and flat out, and print the ratios against the 10% goal (default: not).")

    public static let spec = CommandSpec(
        path: ["bench", "turns"],
        abstract: "Time a durable turn against the floor of the same bytes.",
        discussion: "Plays N guest turns between a real host and guest on 127.0.0.1, each saving the match to a store on disk as parlor host and parlor join do, then the same turns with no store (the protocol alone), and in the same run the floor: a plain blocking socket ping-pong of the same bytes, and that with one durable append (write and fdatasync) on the store's file system, taken in turns a slice at a time; and, as breakdowns rather than floors, the same bytes echoed through parlor's own event loop, and the same turns (with the stores and without) on one plain thread per side, with parlor's frames, validation and stores but no event loop or tasks. Prints p50, p99 and the ratio of each to its floor, then eight matches committing a turn at once with one writer (one sync for the turns queued together) and with a writer each. Ctrl-C stops it within a turn and removes its store (exit status 130).",
        options: [countOption, directoryOption, spectatorsOption]
    )

    /// Reads `parlor bench turns`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        count = 1000
        if let text = arguments.value(Self.countOption) { count = try ValueParser.wholeNumber(text, Self.countOption.source, in: 1...1_000_000) }
        directory = arguments.value(Self.directoryOption)
        if let text = arguments.value(Self.spectatorsOption) {
            spectators = try ValueParser.wholeNumber(text, Self.spectatorsOption.source, in: 1...1000)
        }
    }

    /// Hands over to `runBenchTurns`.
    public func run() async throws -> ExitCode {
        try await runBenchTurns(self)
    }
}

/// `parlor bench bots`: hard against medium (Cube Four: against the hard
/// of earlier releases), counted; Connect Four also measured against its solver.
public struct BenchBotsOptions: ParsableCommand, Hashable {
    /// `--games`: how many games to play (default 100).
    public var games: Int
    /// `--game`: which game (default connect4).
    public var game: String
    /// `--positions`: where to write connect4's solver positions (one per line), if anywhere.
    public var positionsFile: String?
    /// `--seed`: the seed of the games' openings (default 2026, the same games every run).
    public var seed: UInt64

    /// Options as code would set them.
    public init(games: Int = 100, game: String = "connect4", positionsFile: String? = nil, seed: UInt64 = 2026) {
        self.games = games
        self.game = game
        self.positionsFile = positionsFile
        self.seed = seed
    }

    /// Arguments, flags and help of `parlor bench bots`.
    static let gamesOption = OptionSpec("games", .required(valueName: "N"), help: "Games to play, 1-10000 (default: 100).")
    static let gameOption = OptionSpec("game", short: "g", .required(valueName: "G"), help: "The game to play (default: connect4).")
    static let positionsOption = OptionSpec(
        "positions", .required(valueName: "FILE"),
        help: "connect4: also write the solver's positions to FILE, one a line: the set, then the moves (columns 1-7).")
    static let seedOption = OptionSpec(
        "seed", .required(valueName: "N"),
        help: "Seed of the games' openings, 0-1000000000 (default: 2026, the same games every run; another seed plays other games).")

    public static let spec = CommandSpec(
        path: ["bench", "bots"],
        abstract: "Play the hard bot against another bot and count the results.",
        discussion: """
            Games start from varied openings (two random moves; tic-tac-toe at \
            most one), the two bots taking turns to move first. The opponent is \
            the medium bot, and in cube4 the hard bot of earlier releases, with \
            the goal of 90% wins and every move under 1 s. Prints wins, losses, \
            draws and hard's time per move (mean, 99th percentile and longest; \
            the other's mean and longest), and for cube4 the load average \
            the times were taken under. For connect4 it also \
            prints each level's share of moves keeping the exact value on \
            positions after 8-12, 14-20 and 28-34 random moves, and the exact \
            solver's mean time per position on them (and the slowest), without \
            and with the opening book.
            """,
        options: [
            gamesOption,
            gameOption,
            positionsOption,
            seedOption,
        ]
    )

    /// Reads `parlor bench bots`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        games = 100
        if let text = arguments.value(Self.gamesOption) { games = try ValueParser.wholeNumber(text, Self.gamesOption.source, in: 1...10_000) }
        game = arguments.value(Self.gameOption).map(ValueParser.gameID) ?? "connect4"
        positionsFile = arguments.value(Self.positionsOption)
        seed = 2026
        if let text = arguments.value(Self.seedOption) {
            seed = UInt64(try ValueParser.wholeNumber(text, Self.seedOption.source, in: 0...1_000_000_000))
        }
    }

    /// The game must be one `GameCatalog` knows.
    public func validate() throws(UsageError) {
        _ = try ValueParser.game(game)
    }

    /// Hands over to `runBenchBots`.
    public func run() async throws -> ExitCode {
        try await runBenchBots(self)
    }
}

/// `parlor bench soak`: many bot matches over loopback, every final state compared.
public struct BenchSoakOptions: ParsableCommand, Hashable {
    /// `--matches`: how many matches to play (default 100).
    public var matches: Int
    /// `--game`: which game; nil plays every game in turn.
    public var game: String?

    /// Options as code would set them.
    public init(matches: Int = 100, game: String? = nil) {
        self.matches = matches
        self.game = game
    }

    /// Arguments, flags and help of `parlor bench soak`.
    static let matchesOption = OptionSpec("matches", short: "n", .required(valueName: "N"), help: "Matches to play, 1-1000000 (default: 100).")
    static let gameOption = OptionSpec("game", short: "g", .required(valueName: "G"), help: "The game to play (default: every game in turn).")

    public static let spec = CommandSpec(
        path: ["bench", "soak"],
        abstract: "Play many bot matches over loopback and check that both sides agree.",
        discussion: """
            Plays N matches between two random-move bots, each a host and a guest \
            talking TCP over 127.0.0.1 in this one process, four at a time. Compares \
            the final state hash of host and guest after every match, and prints the \
            matches played, turns per second, desyncs, failed matches, open file \
            descriptors and peak memory. Exits 1 if any match desynced or failed.
            """,
        options: [
            matchesOption,
            gameOption,
        ]
    )

    /// Reads `parlor bench soak`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        matches = 100
        if let text = arguments.value(Self.matchesOption) { matches = try ValueParser.wholeNumber(text, Self.matchesOption.source, in: 1...1_000_000) }
        game = arguments.value(Self.gameOption).map(ValueParser.gameID)
    }

    /// The game, if given, must be one `GameCatalog` knows.
    public func validate() throws(UsageError) {
        if let game { _ = try ValueParser.game(game) }
    }

    /// Hands over to `runBenchSoak`.
    public func run() async throws -> ExitCode {
        try await runBenchSoak(self)
    }
}

/// `parlor bench render`: the cost of drawing boards.
public struct BenchRenderOptions: ParsableCommand, Hashable {
    /// Options as code would set them.
    public init() {}

    /// Arguments, flags and help of `parlor bench render`.
    public static let spec = CommandSpec(
        path: ["bench", "render"],
        abstract: "Time drawing boards for the terminal.",
        discussion: "Draws a connect4 and a cube4 screen at 80x24 many times, off screen, and prints the time per frame and the bytes each redraw writes, for a full redraw and for the redraw after one move."
    )

    /// `parlor bench render` takes no options.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {}

    /// Hands over to `runBenchRender`.
    public func run() async throws -> ExitCode {
        try await runBenchRender(self)
    }
}

/// `parlor bench startup`.
public struct BenchStartupOptions: ParsableCommand, Hashable {
    /// Options as code would set them.
    public init() {}

    /// Arguments, flags and help of `parlor bench startup`.
    public static let spec = CommandSpec(
        path: ["bench", "startup"],
        abstract: "Time starting parlor against a trivial Swift binary.",
        discussion: "Runs 'parlor games', 'parlor --version' and parlor-trivial (a Swift program that prints one line, built beside parlor with the Swift runtime in shared libraries) 20 times each, interleaved, and prints the median time from spawn to exit of each and its ratio to the trivial binary's. The goal for both is 1.5 times or less. It also says whether this parlor has the Swift runtime and Foundation linked in, as a release build does."
    )

    /// `parlor bench startup` takes no options.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {}

    /// Hands over to `runBenchStartup`.
    public func run() async throws -> ExitCode {
        try await runBenchStartup(self)
    }
}
