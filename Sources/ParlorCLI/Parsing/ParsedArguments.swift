import Games

/// What an optional-value option (`--code [CODE]`) was given.
public enum OptionalValue: Sendable, Equatable {
    /// Not on the command line.
    case absent
    /// Given bare: `--code`.
    case bare
    /// Given with `=`: `--code=1234`.
    case value(String)
}

/// A command line split into positional arguments and options by a
/// `CommandSpec`, before any value is converted.
///
/// Rules (the man page repeats them):
/// - `--name value` and `--name=value`; `-p value` for short aliases;
/// - a required value is the next word unless that word looks like an
///   option (`-x`, `--x`; a negative number is fine); use `--name=-x` then;
/// - an optional value (`--code [CODE]`) is `--code=CODE`, or the next word
///   unless that word looks like an option or is needed as one of the
///   command's required arguments: `host connect4 --code 1234` gives the
///   code 1234, `host --code connect4` a bare `--code` and the game
///   connect4 (`ParsedArguments.init`);
/// - an option given twice keeps the last value;
/// - `--` ends options: every word after it is positional;
/// - `-h` or `--help` anywhere before `--` asks for help, whatever else is wrong.
public struct ParsedArguments: Sendable {
    /// The command the words were parsed for.
    public let spec: CommandSpec
    /// Positional words, in order.
    public let positionals: [String]
    /// The process environment, for defaults such as `--name` from `USER`.
    public let environment: [String: String]
    /// The settings file's defaults (flags win over them).
    public let settings: Settings
    /// Long option name -> the value given last (nil for flags and bare optional values).
    private let values: [String: String?]

    /// Whether `words` ask for help (`-h` or `--help` before any `--`).
    public static func asksForHelp(_ words: [String]) -> Bool {
        for word in words {
            if word == "--" { return false }
            if word == "-h" || word == "--help" { return true }
        }
        return false
    }

    /// Splits `words` (the words after the command's name) by `spec`.
    ///
    /// Throws the first problem found, in command-line order; exclusive
    /// groups and the number of positionals are checked after all words.
    public init(_ words: [String], spec: CommandSpec, environment: [String: String] = [:],
                settings: Settings = Settings()) throws(UsageError) {
        self.spec = spec
        self.environment = environment
        self.settings = settings
        var positionals: [String] = []
        var values: [String: String?] = [:]
        var order: [String] = []
        // Words after a bare optional-value option, taken as its value unless
        // a required argument needs them (decided once all words are read).
        var tentative: [(option: String, word: String, position: Int)] = []
        var index = 0
        var optionsEnded = false

        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !Self.looksLikeOption(word) {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let option: OptionSpec
            var attached: String?
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let name: Substring
                if let equals = body.firstIndex(of: "=") {
                    name = body[..<equals]
                    attached = String(body[body.index(after: equals)...])
                } else {
                    name = body
                }
                guard let found = spec.option(named: String(name)) else {
                    throw .unknownOption("--" + String(name), suggestion: Self.suggestion(for: "--" + String(name), in: spec))
                }
                option = found
            } else {
                let letters = word.dropFirst()
                guard letters.count == 1, let letter = letters.first, let found = spec.option(short: letter) else {
                    throw .unknownOption(word, suggestion: Self.suggestion(for: word, in: spec))
                }
                option = found
            }

            switch option.kind {
            case .flag:
                if attached != nil { throw .unexpectedValue(option: option.longFlag) }
                values[option.name] = .some(nil)
            case .required(let valueName):
                if let attached {
                    values[option.name] = attached
                } else if index < words.count, !Self.looksLikeOption(words[index]) {
                    values[option.name] = words[index]
                    index += 1
                } else {
                    throw .missingValue(option: option.longFlag, valueName: valueName)
                }
            case .optional:
                values[option.name] = .some(attached)
                tentative.removeAll { $0.option == option.name }  // given again: the last one counts
                if attached == nil, index < words.count, !Self.looksLikeOption(words[index]) {
                    tentative.append((option.name, words[index], positionals.count))
                    values[option.name] = .some(words[index])
                    index += 1
                }
            }
            order.append(option.name)
        }

        for group in spec.exclusiveGroups {
            let given = order.filter(group.contains).reduce(into: [String]()) { seen, name in
                if !seen.contains(name) { seen.append(name) }
            }
            if given.count >= 2 { throw .mutuallyExclusive("--" + given[0], "--" + given[1]) }
        }
        let required = spec.arguments.filter { !$0.isOptional }
        // A word a required argument needs is that argument, not an option's value.
        for taken in tentative where positionals.count < required.count {
            positionals.insert(taken.word, at: min(taken.position, positionals.count))
            values[taken.option] = .some(nil)
        }
        if positionals.count < required.count {
            throw .missingArgument(required[positionals.count].name)
        }
        if positionals.count > spec.arguments.count {
            throw .unexpectedArgument(positionals[spec.arguments.count], hint: nil)
        }
        self.positionals = positionals
        self.values = values
    }

    /// Whether `option`, a flag, was given.
    ///
    /// Options are looked up by their spec, not by a string, so a name is
    /// written once (in the `OptionSpec` the command declares) and a typo
    /// cannot compile.
    public func flag(_ option: OptionSpec) -> Bool {
        values[option.name] != nil
    }

    /// The value of `option`, a required-value option, or nil when it was not given.
    public func value(_ option: OptionSpec) -> String? {
        values[option.name] ?? nil
    }

    /// What `option`, an optional-value option, was given.
    public func optionalValue(_ option: OptionSpec) -> OptionalValue {
        switch values[option.name] {
        case .none: .absent
        case .some(.none): .bare
        case .some(.some(let value)): .value(value)
        }
    }

    /// Looks an option up by a name written a second time: a typo returns nil silently.
    @available(*, deprecated, message: "declare the option as a static OptionSpec and pass that")
    public func flag(_ name: String) -> Bool { values[name] != nil }

    /// Looks an option up by a name written a second time: a typo returns nil silently.
    @available(*, deprecated, message: "declare the option as a static OptionSpec and pass that")
    public func value(_ name: String) -> String? { values[name] ?? nil }

    /// The positional argument at `index`, or nil when it was left out.
    public func argument(_ index: Int) -> String? {
        index < positionals.count ? positionals[index] : nil
    }

    /// `-x`, `--x` and `--` are options; `-`, `-5` and `-0.5` are not.
    static func looksLikeOption(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word.count > 1 else { return false }
        let rest = word.dropFirst()
        let isNumber = rest.allSatisfy { $0 == "." || ($0.isASCII && $0.isNumber) }
        return !isNumber
    }

    /// The closest long flag of `spec` (or `--help`) to a mistyped one.
    static func suggestion(for flag: String, in spec: CommandSpec) -> String? {
        let candidates = spec.options.map(\.longFlag) + ["--help"]
        return Suggestion.nearest(to: flag, among: candidates)
    }
}

/// "Did you mean" for commands, flags and enumerated values.
public enum Suggestion {
    /// The candidate closest to `word` by `GameCatalog.editDistance`
    /// (case-insensitive), when it is as close as `GameCatalog.suggestion`
    /// requires for games: at most max(2, half the candidate's length) edits.
    public static func nearest(to word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        let scored = candidates.map { ($0, GameCatalog.editDistance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, best.0.count / 2) ? best.0 : nil
    }
}
