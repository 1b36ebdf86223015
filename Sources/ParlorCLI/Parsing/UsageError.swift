/// Where a value on the command line came from, for error messages.
public enum ValueSource: Sendable, Equatable {
    /// An option, by its long flag as typed, e.g. `--port`.
    case option(String)
    /// A positional argument, by its name in the usage line, e.g. `TARGET`.
    case argument(String)
}

/// What a refused value should have looked like.
public enum ValueExpectation: Sendable, Equatable {
    /// A whole number in the range.
    case wholeNumber(ClosedRange<Int>)
    /// A whole number from 0 to `UInt64.max` (seeds).
    case unsignedWholeNumber
    /// A number of seconds, decimals allowed, in the range.
    case seconds(ClosedRange<Double>)
    /// One of the listed words, with the nearest one when a typo is likely.
    case oneOf([String], suggestion: String?)
    /// A player name, refused for this reason.
    case playerName(PlayerNameProblem)
    /// A passcode, refused for this reason.
    case passcode(PasscodeProblem)
    /// A join target, refused for this reason.
    case joinTarget(JoinTargetProblem)
    /// A saved match's id.
    case matchID
    /// A number of seats that `game` is played with, one of `counts`.
    case seatCount(game: String, counts: [Int])
    /// One player for each of this many other seats, or one for all of them.
    case otherSeats(Int)
    /// At most this many bot levels at a table of `seats` (one seat is the host's, one a guest's);
    /// `game` is played by `counts` players, which says whether a larger table would have room.
    case botSeats(max: Int, seats: Int, game: String, counts: [Int])
}

/// Everything that can be wrong with a command line.
///
/// Cases carry data; `message` is the one place that turns them into the
/// sentence after "Error: ". The usage line and the help pointer are added by
/// `UsageFailure.rendered`, so every usage error reads the same.
public enum UsageError: Error, Sendable, Equatable {
    /// The first word is not a command. `suggestion` is a command name or, when
    /// the word is a game id, the full `play` command line.
    case unknownCommand(String, suggestion: String?)
    /// A command group such as `bench` was given no subcommand.
    case missingSubcommand(group: String, choices: [String])
    /// A flag this command does not have.
    case unknownOption(String, suggestion: String?)
    /// An option that needs a value came last or was followed by another flag.
    case missingValue(option: String, valueName: String)
    /// A flag was given a value with `=`, e.g. `--ascii=yes`.
    case unexpectedValue(option: String)
    /// A required positional argument is missing.
    case missingArgument(String)
    /// More positional arguments than the command takes. `hint` explains a
    /// likely cause (a value meant for an optional-value option).
    case unexpectedArgument(String, hint: String?)
    /// Two options of one exclusive group were both given, in command-line order.
    case mutuallyExclusive(String, String)
    /// A value was refused.
    case invalidValue(ValueSource, value: String, expected: ValueExpectation)
    /// A game id that `GameCatalog` does not know.
    case unknownGame(String, suggestion: String?, known: [String])
    /// An option that works only with another one (or without it); `why` is the sentence that says so.
    case optionNeeds(String, why: String)

    /// The sentence after "Error: ", saying what was wrong and, where it
    /// helps, what to type instead.
    public var message: String {
        switch self {
        case .unknownCommand(let word, let suggestion):
            return "unknown command '\(shown(word))'." + didYouMean(suggestion)
        case .missingSubcommand(let group, let choices):
            return "'parlor \(group)' needs one of: \(choices.joined(separator: ", "))."
        case .unknownOption(let flag, let suggestion):
            return "unknown option '\(shown(flag))'." + didYouMean(suggestion)
        case .missingValue(let option, let valueName):
            return "option '\(option)' needs a value (\(valueName))."
        case .unexpectedValue(let option):
            return "option '\(option)' does not take a value."
        case .missingArgument(let name):
            return "missing argument \(name)."
        case .unexpectedArgument(let word, let hint):
            return "unexpected argument '\(shown(word))'." + (hint.map { " " + $0 } ?? "")
        case .mutuallyExclusive(let first, let second):
            return "'\(first)' and '\(second)' cannot be used together."
        case .invalidValue(let source, let value, let expected):
            let subject = switch source {
            case .option(let flag): "'\(flag)'"
            case .argument(let name): name
            }
            return "invalid value '\(shown(value))' for \(subject): \(Self.describe(expected))"
        case .unknownGame(let game, let suggestion, let known):
            if let suggestion { return "unknown game '\(shown(game))'. Did you mean '\(suggestion)'?" }
            return "unknown game '\(shown(game))'. Known games: \(known.joined(separator: ", "))."
        case .optionNeeds(let option, let why):
            return "'\(option)' \(why)"
        }
    }

    /// A word from the command line made safe to print: control characters
    /// are shown escaped so an error cannot drive the terminal.
    private func shown(_ word: String) -> String { Text.escapingUnprintable(word) }

    private func didYouMean(_ suggestion: String?) -> String {
        suggestion.map { " Did you mean '\($0)'?" } ?? ""
    }

    private static func describe(_ expected: ValueExpectation) -> String {
        switch expected {
        case .wholeNumber(let range):
            return "expected a whole number from \(range.lowerBound) to \(range.upperBound)."
        case .unsignedWholeNumber:
            return "expected a whole number from 0 to \(UInt64.max)."
        case .seconds(let range):
            return "expected a number of seconds from \(format(range.lowerBound)) to \(format(range.upperBound))."
        case .oneOf(let choices, let suggestion):
            return "expected \(list(choices))." + (suggestion.map { " Did you mean '\($0)'?" } ?? "")
        case .playerName(let problem):
            return problem.explanation
        case .passcode(let problem):
            return problem.explanation
        case .joinTarget(let problem):
            return problem.explanation
        case .matchID:
            return "expected a match id as 'parlor matches' lists it (letters, digits, '-' and '_')."
        case .seatCount(let game, let counts):
            return "\(game) is played by " + Self.list(counts.map(String.init)) + " players."
        case .otherSeats(let count):
            return "expected \(count) comma-separated players, one for each other seat, or one for all of them."
        case .botSeats(0, let seats, let game, let counts):
            let larger = counts.filter { $0 > seats }.map(String.init)
            let room = larger.isEmpty
                ? "To play against a bot, run 'parlor play \(game) --vs bot:LEVEL'."
                : "--seats \(list(larger)) leaves room for bots."
            return "a table of \(seats) has no seat for --bots: one seat is yours and the other a guest's. "
                + "--bot LEVEL has a bot play your own seat. " + room
        case .botSeats(let most, let seats, _, _):
            return "expected at most \(most) comma-separated levels (easy, medium or hard): a table of \(seats) keeps one seat "
                + "for you and at least one for a guest."
        }
    }

    /// `a or b`, `a, b or c`.
    private static func list(_ words: [String]) -> String {
        words.count <= 2 ? words.joined(separator: " or ") : words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
    }

    /// `3` rather than `3.0`, `0.1` as is.
    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// A usage error together with the command it happened in, which decides the
/// usage line and the help pointer.
public struct UsageFailure: Error, Sendable, Equatable {
    /// What was wrong.
    public let error: UsageError
    /// The command being parsed; nil for the top level (`parlor plya`).
    public let command: CommandSpec?
    /// For a command group (`parlor bench`), its name; nil otherwise.
    public let group: String?

    /// Pairs an error with the command whose usage explains it.
    public init(_ error: UsageError, command: CommandSpec?, group: String? = nil) {
        self.error = error
        self.command = command
        self.group = group
    }

    /// The three parts every usage error prints on stderr: `Error: …`, the
    /// usage line (wrapped at 80 columns), `See 'parlor help …'.`
    public var rendered: String {
        let usage: String
        let helpTopic: String
        if let command {
            usage = HelpRenderer.usage(for: command, prefix: "Usage: ")
            helpTopic = "parlor help " + command.name
        } else if let group {
            usage = HelpRenderer.groupUsage(group, prefix: "Usage: ")
            helpTopic = "parlor help " + group
        } else {
            usage = "Usage: " + HelpRenderer.rootUsage
            helpTopic = "parlor help"
        }
        return "Error: \(error.message)\n\(usage)\nSee '\(helpTopic)'.\n"
    }
}
