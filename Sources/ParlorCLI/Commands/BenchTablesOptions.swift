/// `parlor bench tables`: one host process with many tables, loaded by many guests.
public struct BenchTablesOptions: ParsableCommand, Hashable {
    /// `--tables`: the table counts to run, in order (default 100 and 1000).
    public var tables: [Int]
    /// `--dir`: where the host's store goes (default: beside the user's store).
    public var directory: String?

    /// Options as code would set them.
    public init(tables: [Int] = [100, 1000], directory: String? = nil) {
        self.tables = tables
        self.directory = directory
    }

    static let tablesOption = OptionSpec("tables", short: "t", .required(valueName: "N[,N...]"),
                                         help: "Table counts to run, each 1-\(HostOptions.tablesLimit) (default: 100,1000).")
    static let directoryOption = OptionSpec("dir", .required(valueName: "DIR"),
                                            help: "Keep the host's store in a fresh directory inside DIR (default: the data directory, $XDG_DATA_HOME/parlor).")

    /// Arguments, flags and help of `parlor bench tables`.
    public static let spec = CommandSpec(
        path: ["bench", "tables"],
        abstract: "Load one many-table host process with many guests over loopback.",
        discussion: "For each N, starts 'parlor host connect4 --bot easy --tables N' as a process of its own (saving every turn to its store, as it always does) and, in this process, N guests over 127.0.0.1 that sit down, wait 15 s (the idle figures), play for 10 s thinking 1-3 s before each move, then play random moves as fast as the host answers. Prints the tables, turns per second, p50 and p99 turn round trip (a guest's move until the bot's answer arrives), the host's resident memory per idle table, its CPU while idle and per turn, and its open descriptors; then, in the same run, the floor (a plain blocking socket ping-pong of a turn's bytes with one durable append on the same file system) and the paced round trip's ratio to it; and the goals. Ctrl-C stops it and its host process at once and removes the host's store (exit status 130).",
        options: [tablesOption, directoryOption]
    )

    /// Reads `parlor bench tables`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        tables = [100, 1000]
        if let text = arguments.value(Self.tablesOption) {
            tables = try text.split(separator: ",", omittingEmptySubsequences: false).map { word throws(UsageError) in
                try ValueParser.wholeNumber(String(word), Self.tablesOption.source, in: 1...HostOptions.tablesLimit)
            }
        }
        directory = arguments.value(Self.directoryOption)
    }

    /// Hands over to `runBenchTables`.
    public func run() async throws -> ExitCode {
        try await runBenchTables(self)
    }
}
