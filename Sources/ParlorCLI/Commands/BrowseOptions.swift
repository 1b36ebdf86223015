/// How long `parlor browse` looks.
public enum BrowseDuration: Sendable, Hashable {
    /// List what was found after this long, then exit.
    case timeout(Duration)
    /// Keep the list live until interrupted.
    case watch
}

/// `parlor browse`: list the games hosted on the LAN.
public struct BrowseOptions: ParsableCommand, Hashable {
    /// How long browse waits when neither `--timeout` nor `--watch` is given.
    public static let defaultTimeout: Duration = .seconds(3)

    /// `--game`: only games with this id; nil for all.
    public var game: String?
    /// `--json`: one object per service event.
    public var json: Bool
    /// `--timeout SECONDS` or `--watch` (default: 3 seconds).
    public var duration: BrowseDuration

    /// Options as code would set them.
    public init(game: String? = nil, json: Bool = false, duration: BrowseDuration = .timeout(BrowseOptions.defaultTimeout)) {
        self.game = game
        self.json = json
        self.duration = duration
    }

    /// Arguments, flags and help of `parlor browse`.
    public static let spec = CommandSpec(
        path: ["browse"],
        abstract: "List the games hosted on the LAN.",
        discussion: """
            Open games come first. Games this parlor cannot join (another \
            protocol version, an unknown game) are listed with the reason.
            """,
        options: [
            gameOption, jsonOption, timeoutOption, watchOption,
        ],
        exclusiveGroups: [[timeoutOption.name, watchOption.name]]
    )

    static let gameOption = OptionSpec("game", short: "g", .required(valueName: "G"), help: "Only list games of this kind, e.g. connect4.")
    static let jsonOption = OptionSpec("json", help: "One JSON object per line for each service that appears, changes or goes away.")
    static let timeoutOption = OptionSpec(
        "timeout", short: "t", .required(valueName: "SECONDS"),
        help: "Look for this long, 0.1-3600 seconds, then print the list and exit (default: 3).")
    static let watchOption = OptionSpec("watch", short: "w", help: "Keep the list live until interrupted.")

    /// Reads `parlor browse`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        game = arguments.value(Self.gameOption).map(ValueParser.gameID)
        json = arguments.flag(Self.jsonOption)
        if arguments.flag(Self.watchOption) {
            duration = .watch
        } else if let text = arguments.value(Self.timeoutOption) {
            duration = .timeout(try ValueParser.seconds(text, Self.timeoutOption.source, in: 0.1...3600))
        } else {
            duration = .timeout(Self.defaultTimeout)
        }
    }

    /// A `--game` must be one `GameCatalog` knows.
    public func validate() throws(UsageError) {
        if let game { _ = try ValueParser.game(game) }
    }

    /// Hands over to `runBrowse`.
    public func run() async throws -> ExitCode {
        try await runBrowse(self)
    }
}
