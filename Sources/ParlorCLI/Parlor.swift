import Foundation
import Games
import Synchronization

/// Every command and command group, in the order `parlor help` lists them.
///
/// To add a flag to a command:
/// 1. add an `OptionSpec` to the command's `spec` (shared ones live in
///    `CommonOptions`), with an exclusive group if it excludes another flag;
/// 2. read it into a field in the command's `init(parsing:)`, converting
///    with a `ValueParser` function so bad values get the standard error;
/// 3. add it to man/parlor.1: the command's SYNOPSIS line (`.Op Fl -name Ar value`)
///    and its `.Ss` subsection (`.It Fl -name Ar value`); ManPageTests fail until you do;
/// 4. for `play` and `host`, refresh the golden help with
///    `PARLOR_UPDATE_GOLDEN=1 swift test --filter HelpTests` and review the diff.
///
/// To add a command: a struct conforming to `ParsableCommand`, a handler in
/// Handlers/, its type in `commands` below, and its man page entries.
public enum CommandRegistry {
    /// The runnable commands. Add a new command's type here.
    public static let commands: [any ParsableCommand.Type] = [
        PlayOptions.self, HostOptions.self, JoinOptions.self, WatchOptions.self, BrowseOptions.self, GamesOptions.self,
        MatchesOptions.self, ReplayOptions.self, ResumeOptions.self, ForgetOptions.self, IdOptions.self, ForgetPlayerOptions.self, DoctorOptions.self,
        AnalyzeOptions.self,
        BenchTurnsOptions.self, BenchBotsOptions.self, BenchSoakOptions.self, BenchRenderOptions.self, BenchTablesOptions.self,
        BenchStartupOptions.self,
        VersionOptions.self, CompletionsOptions.self,
    ]

    /// Words that only group subcommands.
    public static let groups: [CommandGroup] = [
        CommandGroup(
            name: "bench", abstract: "Measure parlor's speed and its bots' strength.",
            discussion: "Each benchmark prints its figures; none of them is a pass-or-fail test.")
    ]

    /// The specs of `commands`, in the same order.
    public static var specs: [CommandSpec] { commands.map { $0.spec } }

    /// The command whose path is `path`, if any.
    static func command(path: [String]) -> (any ParsableCommand.Type)? {
        commands.first { $0.spec.path == path }
    }

    /// Every word that may follow `parlor`, for "did you mean".
    static var topLevelWords: [String] {
        var words: [String] = []
        for spec in specs where !words.contains(spec.path[0]) { words.append(spec.path[0]) }
        return words + ["help"]
    }
}

/// What a command line asks for, once parsed and validated.
public enum Invocation: Sendable {
    /// `parlor` with no words.
    case bare
    /// `parlor help`, `parlor --help`, `parlor -h`.
    case rootHelp
    /// `parlor --version`, `parlor -V`.
    case version
    /// `parlor help play`, `parlor play --help`.
    case help(CommandSpec)
    /// `parlor help bench`, `parlor bench --help`.
    case groupHelp(CommandGroup)
    /// A command, parsed and validated, ready to run.
    case command(any ParsableCommand)
}

/// An error a handler throws for a person to read.
///
/// Handlers (and the modules under them, through extensions in ParlorCLI)
/// conform their error enums to this so `Parlor.run` can print
/// `Error: <message>` and exit with the right code, in one place.
public protocol UserFacingError: Error {
    /// How the process should end.
    var exitCode: ExitCode { get }
    /// What happened, why, and what to do next, in a sentence or two.
    var message: String { get }
}

/// The `parlor` command line: parse, validate, run, and render every error.
public enum Parlor {
    /// The process entry point: runs the command line and exits with its code.
    ///
    /// `main.swift` calls `start()` (synchronous) and then `main(pending)`; this
    /// form does both.
    public static func main() async -> Never {
        await main(start())
    }

    /// The synchronous part of the entry point: what finishes without tasks
    /// (help, the version, usage errors, a `SynchronousCommand` such as
    /// `parlor games`) finishes here and exits, before any task starts, so
    /// start-up spins up no thread of the cooperative pool for it.
    public static func start() -> Pending {
        // A reader of stdout or stderr that goes away (`parlor host --json | head`)
        // must not kill the process by SIGPIPE: each write then fails with EPIPE,
        // which the frontends take as the terminal lost (the match is left for now).
        signal(SIGPIPE, SIG_IGN)
        switch prepare(arguments: Array(CommandLine.arguments.dropFirst()),
                       environment: ProcessInfo.processInfo.environment) {
        case .finished(let code): exit(code.rawValue)
        case .pending(let pending): return pending
        }
    }

    /// Runs what `start()` left and exits with its code.
    public static func main(_ pending: Pending) async -> Never {
        let code = await pending.run()
        exit(code.rawValue)
    }

    /// A parsed command line that still has asynchronous work to do.
    public struct Pending: Sendable {
        fileprivate let invocation: Invocation
        fileprivate let settings: Settings

        /// Runs it and turns whatever it throws into a message and an exit code.
        public func run() async -> ExitCode {
            switch invocation {
            case .command(let command):
                return await report(command: type(of: command).spec) { try await command.run() }
            default:
                return await report(command: nil) { [settings] in try await runBare(settings: settings) }
            }
        }
    }

    /// What `prepare` leaves: an exit code, or work for tasks.
    enum Prepared {
        case finished(ExitCode)
        case pending(Pending)
    }

    /// What `parlor --version`, `-V` and `parlor version` print.
    static var versionLine: String { "parlor \(ParlorVersion.current)\n" }

    /// Parses `arguments` (without the program name) into an invocation.
    ///
    /// Throws a `UsageFailure`, whose `rendered` text is what the user sees.
    /// Pure apart from reading `environment`: no output, no I/O.
    public static func parse(_ arguments: [String], environment: [String: String] = [:],
                             settings: Settings = Settings()) throws(UsageFailure) -> Invocation {
        guard let first = arguments.first else { return .bare }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "-h", "--help":
            return .rootHelp
        case "--version", "-V":
            if let extra = rest.first { throw UsageFailure(.unexpectedArgument(extra, hint: nil), command: nil) }
            return .version
        case "help":
            return try helpTopic(rest)
        default:
            break
        }
        if ParsedArguments.looksLikeOption(first) {
            throw UsageFailure(.unknownOption(first, suggestion: Suggestion.nearest(to: first, among: ["--help", "--version", "-V"])), command: nil)
        }
        if let group = CommandRegistry.groups.first(where: { $0.name == first }) {
            return try parseGroup(group, rest, environment: environment, settings: settings)
        }
        guard let type = CommandRegistry.command(path: [first]) else {
            throw UsageFailure(.unknownCommand(first, suggestion: commandSuggestion(for: first)), command: nil)
        }
        return try parseCommand(type, rest, environment: environment, settings: settings)
    }

    /// Parses, runs, prints, and returns the exit code. Help and the version go
    /// to stdout; every error goes to stderr, rendered here and nowhere else.
    public static func run(arguments: [String], environment: [String: String]) async -> ExitCode {
        switch prepare(arguments: arguments, environment: environment) {
        case .finished(let code): return code
        case .pending(let pending): return await pending.run()
        }
    }

    /// Parses, reads the settings a command needs, and finishes everything that
    /// needs no task: help, the version, errors, and `SynchronousCommand`s.
    static func prepare(arguments: [String], environment: [String: String]) -> Prepared {
        var invocation: Invocation
        do {
            invocation = try parse(arguments, environment: environment)
        } catch {
            Console.writeError(error.rendered)
            return .finished(.usage)
        }
        // The settings file is read only for what runs (help and the version
        // work whatever it says), and the words are read again with its defaults.
        var settings = Settings()
        switch invocation {
        case .command, .bare:
            do { settings = try Settings.load(environment: environment) } catch {
                Console.writeError("Error: \(error.message)\n")
                return .finished(error.exitCode)
            }
            if settings != Settings() {
                do { invocation = try parse(arguments, environment: environment, settings: settings) } catch {
                    Console.writeError(error.rendered)
                    return .finished(.usage)
                }
            }
        default: break
        }
        switch invocation {
        case .rootHelp:
            Console.write(HelpRenderer.rootHelp())
            return .finished(.success)
        case .version:
            Console.write(versionLine)
            return .finished(.success)
        case .help(let spec):
            Console.write(HelpRenderer.help(for: spec))
            return .finished(.success)
        case .groupHelp(let group):
            Console.write(HelpRenderer.help(for: group))
            return .finished(.success)
        case .command(let command as any SynchronousCommand):
            return .finished(reportNow(command: type(of: command).spec) { try command.runNow() })
        case .bare, .command:
            return .pending(Pending(invocation: invocation, settings: settings))
        }
    }

    /// Runs `body` and turns whatever it throws into a message and an exit code.
    static func report(command: CommandSpec?, _ body: () async throws -> ExitCode) async -> ExitCode {
        do {
            return try await body()
        } catch {
            return exitCode(for: error, command: command)
        }
    }

    /// `report` for a command that runs without tasks.
    static func reportNow(command: CommandSpec?, _ body: () throws -> ExitCode) -> ExitCode {
        do {
            return try body()
        } catch {
            return exitCode(for: error, command: command)
        }
    }

    /// Prints what `error` says and returns the exit code it calls for.
    private static func exitCode(for error: any Error, command: CommandSpec?) -> ExitCode {
        do {
            throw error
        } catch let error as UsageError {
            Console.writeError(UsageFailure(error, command: command).rendered)
            return .usage
        } catch let error as UsageFailure {
            Console.writeError(error.rendered)
            return .usage
        } catch let error as any UserFacingError {
            Console.writeError("Error: \(error.message)\n")
            return error.exitCode
        } catch let stopped as Stopped {
            Console.writeError(stopped.message + "\n")
            return .interrupted
        } catch is CancellationError {
            return .interrupted
        } catch {
            Console.writeError("Error: internal error: \(error)\nPlease report this as a bug in parlor.\n")
            return .internalError
        }
    }

    private static func parseCommand(
        _ type: any ParsableCommand.Type, _ words: [String], environment: [String: String], settings: Settings
    ) throws(UsageFailure) -> Invocation {
        let spec = type.spec
        if ParsedArguments.asksForHelp(words) { return .help(spec) }
        do {
            let arguments = try ParsedArguments(words, spec: spec, environment: environment, settings: settings)
            let command = try type.init(parsing: arguments)
            try command.validate()
            return .command(command)
        } catch {
            throw UsageFailure(error, command: spec)
        }
    }

    private static func parseGroup(_ group: CommandGroup, _ words: [String], environment: [String: String],
                                   settings: Settings) throws(UsageFailure) -> Invocation {
        let children = CommandRegistry.specs.filter { $0.path.first == group.name }.map { $0.path[1] }
        guard let first = words.first, !ParsedArguments.looksLikeOption(first) else {
            if ParsedArguments.asksForHelp(words) { return .groupHelp(group) }
            if let first = words.first, first != "--" {
                throw UsageFailure(.unknownOption(first, suggestion: Suggestion.nearest(to: first, among: ["--help"])), command: nil, group: group.name)
            }
            throw UsageFailure(.missingSubcommand(group: group.name, choices: children), command: nil, group: group.name)
        }
        guard let type = CommandRegistry.command(path: [group.name, first]) else {
            let suggestion = Suggestion.nearest(to: first, among: children).map { "\(group.name) \($0)" }
            throw UsageFailure(.unknownCommand("\(group.name) \(first)", suggestion: suggestion), command: nil, group: group.name)
        }
        return try parseCommand(type, Array(words.dropFirst()), environment: environment, settings: settings)
    }

    private static func helpTopic(_ words: [String]) throws(UsageFailure) -> Invocation {
        guard let first = words.first else { return .rootHelp }
        if let group = CommandRegistry.groups.first(where: { $0.name == first }) {
            guard words.count > 1 else { return .groupHelp(group) }
            guard let type = CommandRegistry.command(path: [first, words[1]]) else {
                let children = CommandRegistry.specs.filter { $0.path.first == first }.map { $0.path[1] }
                let suggestion = Suggestion.nearest(to: words[1], among: children).map { "\(first) \($0)" }
                throw UsageFailure(.unknownCommand("\(first) \(words[1])", suggestion: suggestion), command: nil)
            }
            if words.count > 2 { throw UsageFailure(.unexpectedArgument(words[2], hint: nil), command: nil) }
            return .help(type.spec)
        }
        if first == "help" { return .rootHelp }
        guard let type = CommandRegistry.command(path: [first]) else {
            throw UsageFailure(.unknownCommand(first, suggestion: commandSuggestion(for: first)), command: nil)
        }
        if words.count > 1 { throw UsageFailure(.unexpectedArgument(words[1], hint: nil), command: nil) }
        return .help(type.spec)
    }

    /// The nearest command name, or `parlor play GAME` when the word is a game.
    private static func commandSuggestion(for word: String) -> String? {
        if let game = GameCatalog.game(named: word) { return "parlor play \(game.id)" }
        return Suggestion.nearest(to: word, among: CommandRegistry.topLevelWords)
    }
}

/// Where commands write. stdout goes through `print`'s buffer, so it stays
/// in order with handlers that use `print`; stderr is written unbuffered.
enum Console {
    /// Writes `text` to stdout as is (no newline added), or hands it to the diversion while one takes it.
    static func write(_ text: String) {
        if let divert = diversion.withLock({ $0 }), divert(text) { return }
        print(text, terminator: "")
    }

    /// While the lobby's desk owns the screen, what would be printed on it
    /// goes to the desk's line instead (see `DeskSeats.openDesk`); the closure
    /// returns false once the desk has given the terminal back.
    static func divert(to sink: (@Sendable (String) -> Bool)?) {
        diversion.withLock { $0 = sink }
    }

    private static let diversion = Mutex<(@Sendable (String) -> Bool)?>(nil)

    /// Writes `text` to stderr as is (no newline added); a closed stderr loses the text, nothing else.
    static func writeError(_ text: String) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress! + written, bytes.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }
}
