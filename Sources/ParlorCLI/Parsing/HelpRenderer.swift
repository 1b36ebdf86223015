/// A group of subcommands without a run of its own, such as `bench`.
public struct CommandGroup: Sendable, Equatable {
    /// The group's word, e.g. `bench`.
    public let name: String
    /// One line for `parlor help`.
    public let abstract: String
    /// Paragraphs for `parlor help bench`.
    public let discussion: String

    /// Describes a group.
    public init(name: String, abstract: String, discussion: String) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
    }
}

/// Renders `--help` pages and usage lines from specs, at 80 columns.
///
/// Everything here is a pure function of the specs, so golden tests can
/// compare the output byte for byte.
public enum HelpRenderer {
    /// The terminal width help is wrapped to.
    public static let width = 80
    /// Where option and argument help starts.
    static let helpColumn = 28

    /// The usage line of the top level.
    public static let rootUsage = "parlor [COMMAND] [OPTIONS]"

    /// The usage line of `spec`, wrapped at 80 columns, continuation lines
    /// indented under the command.
    public static func usage(for spec: CommandSpec, prefix: String) -> String {
        wrapTerms(["parlor"] + spec.usageTerms, prefix: prefix)
    }

    /// The usage line of a command group: `parlor bench turns|bots|render [OPTIONS]`.
    public static func groupUsage(_ group: String, prefix: String) -> String {
        let children = CommandRegistry.specs.filter { $0.path.count == 2 && $0.path[0] == group }.map { $0.path[1] }
        return prefix + "parlor \(group) \(children.joined(separator: "|")) [OPTIONS]"
    }

    /// `parlor play --help`.
    public static func help(for spec: CommandSpec) -> String {
        var out = "OVERVIEW: \(spec.abstract)\n\n"
        if !spec.discussion.isEmpty { out += paragraphs(spec.discussion) + "\n" }
        out += usage(for: spec, prefix: "USAGE: ") + "\n"
        if !spec.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in spec.arguments {
                out += column(argument.name, argument.help)
            }
        }
        out += "\nOPTIONS:\n"
        for option in spec.options {
            let label = (option.shortFlag.map { $0 + ", " } ?? "") + option.synopsis
            out += column(label, option.help)
        }
        out += column("-h, --help", "Show this help.")
        return out
    }

    /// `parlor help bench`.
    public static func help(for group: CommandGroup) -> String {
        var out = "OVERVIEW: \(group.abstract)\n\n"
        if !group.discussion.isEmpty { out += paragraphs(group.discussion) + "\n" }
        out += groupUsage(group.name, prefix: "USAGE: ") + "\n\nCOMMANDS:\n"
        for spec in CommandRegistry.specs where spec.path.first == group.name && spec.path.count > 1 {
            out += column(spec.path.dropFirst().joined(separator: " "), spec.abstract)
        }
        out += "\nSee 'parlor help \(group.name) COMMAND' for a command's options.\n"
        return out
    }

    /// `parlor help` and `parlor --help`: every command with its abstract.
    public static func rootHelp() -> String {
        var out = "OVERVIEW: Turn-based board games, peer to peer on the LAN.\n\n"
        out += paragraphs("""
            Play a bot at this terminal, or host a game on the local network and \
            let a friend join it from theirs. No server, no account: games find each \
            other with DNS-SD (Bonjour/avahi), or by address.
            """) + "\n"
        out += "USAGE: \(rootUsage)\n\nCOMMANDS:\n"
        for spec in CommandRegistry.specs {
            out += column(spec.name, spec.abstract)
        }
        out += column("help [COMMAND]", "Show help for a command.")
        out += "\nOPTIONS:\n"
        out += column("-V, --version", "Print parlor's version and exit.")
        out += column("-h, --help", "Show this help.")
        out += "\nSee 'parlor help COMMAND' for a command's options, and parlor(1) for everything.\n"
        return out
    }

    /// Paragraphs separated by blank lines, each wrapped at 80 columns;
    /// lines starting with two spaces (examples) are kept as written.
    static func paragraphs(_ text: String) -> String {
        text.split(separator: "\n\n", omittingEmptySubsequences: true).map { paragraph -> String in
            if paragraph.hasPrefix("  ") { return paragraph + "\n" }
            return wrap(String(paragraph), width: width, indent: "")
        }.joined(separator: "\n")
    }

    /// A label in the left column and wrapped help text in the right; a
    /// label too long for the column gets its help on the next line.
    static func column(_ label: String, _ help: String) -> String {
        let indent = String(repeating: " ", count: helpColumn)
        let wrapped = wrap(help, width: width, indent: indent)
        let left = "  " + label
        if left.count <= helpColumn - 2 {
            return left + String(repeating: " ", count: helpColumn - left.count) + wrapped.dropFirst(helpColumn)
        }
        return left + "\n" + wrapped
    }

    /// Words of `text` filled into lines of at most `width` columns, each
    /// line starting with `indent`; ends with a newline.
    static func wrap(_ text: String, width: Int, indent: String) -> String {
        var lines: [String] = []
        var line = indent
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if line.count > indent.count, line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Usage terms filled into lines of at most 80 columns; a term such as
    /// `[--seat first|second|random]` is never split.
    static func wrapTerms(_ terms: [String], prefix: String) -> String {
        let indent = String(repeating: " ", count: prefix.count + 2)
        var lines: [String] = []
        var line = prefix
        var lineHasTerm = false
        for term in terms {
            if lineHasTerm, line.count + 1 + term.count > width {
                lines.append(line)
                line = indent
                lineHasTerm = false
            }
            line += (lineHasTerm ? " " : "") + term
            lineHasTerm = true
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
