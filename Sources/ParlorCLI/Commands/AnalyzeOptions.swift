/// `parlor analyze GAME [MOVES]`: the exact value of a position and of each move.
public struct AnalyzeOptions: ParsableCommand, Hashable {
    /// The game's id; only connect4 can be analysed.
    public var game: String
    /// The moves from the start, as typed in plain mode (connect4: columns 1-7, e.g. "4453").
    public var moves: String
    /// `--json`: one object for scripts.
    public var json: Bool

    /// Options as code would set them.
    public init(game: String = "connect4", moves: String = "", json: Bool = false) {
        self.game = game
        self.moves = moves
        self.json = json
    }

    /// Arguments, flags and help of `parlor analyze`.
    public static let spec = CommandSpec(
        path: ["analyze"],
        abstract: "Print the exact value of a position and of every move.",
        discussion: """
            Plays MOVES from the start and solves the position exactly. A score \
            is for the player making the move: positive wins (22 - n wins with \
            that player's stone n, so larger is sooner), 0 draws, negative loses. \
            Only connect4 can be analysed. Positions in the first few moves can \
            take minutes or more to solve.
            """,
        arguments: [
            ArgumentSpec("GAME", help: "The game: connect4."),
            ArgumentSpec("MOVES", isOptional: true, help: "The moves so far as typed in plain mode, e.g. 4453 (columns 1-7); none for the empty board."),
        ],
        options: [jsonOption]
    )

    static let jsonOption = OptionSpec("json", help: "One JSON object: score, moves (each move and its score) and best.")

    /// Reads `parlor analyze`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        guard let game = arguments.argument(0) else { throw .missingArgument("GAME") }
        self.game = try ValueParser.game(game)
        moves = arguments.argument(1) ?? ""
        json = arguments.flag(Self.jsonOption)
    }

    /// Hands over to `runAnalyze`.
    public func run() async throws -> ExitCode {
        try await runAnalyze(self)
    }
}
