/// How an option takes its value on the command line.
public enum OptionValueKind: Sendable, Equatable {
    /// A flag: present or absent, never a value (`--ascii`).
    case flag
    /// Always a value, either `--port 7477` or `--port=7477`. The associated
    /// text names the value in help and usage (`N`).
    case required(valueName: String)
    /// A value that may be left out: `--code` alone, `--code=1234`, or
    /// `--code 1234` when the next word does not look like an option and no
    /// required argument needs it, so `parlor host --code connect4` still
    /// means game `connect4` with a generated code (`ParsedArguments`).
    case optional(valueName: String)
}

/// One option a command accepts, as its help and the man page describe it.
public struct OptionSpec: Sendable, Equatable {
    /// The long name without dashes, e.g. `turn-timeout`.
    public let name: String
    /// A one-letter alias, e.g. `p` for `-p`, where one is worth remembering.
    public let short: Character?
    /// Flag, required value or optional value.
    public let kind: OptionValueKind
    /// One or two sentences for `--help`, defaults included.
    public let help: String

    /// Describes an option.
    public init(_ name: String, short: Character? = nil, _ kind: OptionValueKind = .flag, help: String) {
        self.name = name
        self.short = short
        self.kind = kind
        self.help = help
    }

    /// `--name`, as typed.
    public var longFlag: String { "--" + name }
    /// Where a value of this option came from, for error messages: `--name`.
    public var source: ValueSource { .option(longFlag) }
    /// `-p`, as typed, when there is a short alias.
    public var shortFlag: String? { short.map { "-" + String($0) } }

    /// The option with its value as usage and help show it: `--port N`,
    /// `--code[=CODE]` (the `=` is required for an optional value).
    public var synopsis: String {
        switch kind {
        case .flag: longFlag
        case .required(let valueName): "\(longFlag) \(valueName)"
        case .optional(let valueName): "\(longFlag)[=\(valueName)]"
        }
    }
}

/// One positional argument, e.g. `GAME`.
public struct ArgumentSpec: Sendable, Equatable {
    /// The name in capitals, as usage shows it.
    public let name: String
    /// One or two sentences for `--help`.
    public let help: String
    /// Whether the argument may be left out.
    public let isOptional: Bool

    /// Describes a positional argument.
    public init(_ name: String, isOptional: Bool = false, help: String) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
    }
}

/// Everything the parser, `--help`, the usage line and the man page test
/// know about one command.
///
/// A spec is data, so help text, usage and error messages are all rendered
/// from the same description and cannot drift apart.
public struct CommandSpec: Sendable, Equatable {
    /// The words after `parlor`, e.g. `["play"]` or `["bench", "turns"]`.
    public let path: [String]
    /// One line for `parlor help`.
    public let abstract: String
    /// Paragraphs for `--help`, separated by blank lines.
    public let discussion: String
    /// Positional arguments, in order. Optional ones come last.
    public let arguments: [ArgumentSpec]
    /// Options, in the order help lists them. `--help` is added by the parser.
    public let options: [OptionSpec]
    /// Sets of long option names of which at most one may be given;
    /// the usage line shows each set as `[--plain|--json]`.
    public let exclusiveGroups: [[String]]

    /// Describes a command.
    public init(
        path: [String], abstract: String, discussion: String = "",
        arguments: [ArgumentSpec] = [], options: [OptionSpec] = [], exclusiveGroups: [[String]] = []
    ) {
        self.path = path
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.exclusiveGroups = exclusiveGroups
    }

    /// `play` or `bench turns`.
    public var name: String { path.joined(separator: " ") }

    /// The option with this long name, if the command has one.
    public func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// The option with this one-letter alias, if the command has one.
    public func option(short: Character) -> OptionSpec? {
        options.first { $0.short == short }
    }

    /// The pieces of the usage line after `parlor`, one per argument or option,
    /// with exclusive groups merged into `[--plain|--json]`.
    public var usageTerms: [String] {
        var terms = path
        for argument in arguments {
            terms.append(argument.isOptional ? "[\(argument.name)]" : argument.name)
        }
        var done = Set<String>()
        for option in options where !done.contains(option.name) {
            if let group = exclusiveGroups.first(where: { $0.contains(option.name) }) {
                let members = group.compactMap { self.option(named: $0) }
                terms.append("[" + members.map(\.synopsis).joined(separator: "|") + "]")
                done.formUnion(group)
            } else {
                terms.append("[\(option.synopsis)]")
                done.insert(option.name)
            }
        }
        return terms
    }
}
