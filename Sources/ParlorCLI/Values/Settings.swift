import Foundation

/// The settings file, `$XDG_CONFIG_HOME/parlor/config` (default
/// `~/.config/parlor/config`): defaults a player sets once. Flags win over it.
///
/// One `key = value` a line; blank lines and lines starting with `#` are
/// skipped, and so is a ` #` comment after a value; a value may be put in
/// double quotes (then `#` is part of it); a key given twice keeps the last value. Keys (the man page's FILES section lists them too):
///
///     name  = Ana        # the name other players see (like --name)
///     color = no         # yes or no; no is like --no-color
///     ascii = yes        # yes or no; yes is like --ascii
///     bell  = no         # yes or no (default yes); no is like --no-bell
///     bot   = hard       # easy, medium or hard: the level of 'bot' in --vs, and of play's default opponent
///     port  = 7600       # the port host tries first, 1-65535 (default 7477)
///
/// A line that does not read is an error that names the file and the line:
/// nothing is guessed.
public struct Settings: Sendable, Hashable {
    public var name: String?
    public var color: Bool?
    public var ascii: Bool?
    public var bell: Bool?
    public var bot: BotLevelChoice?
    public var port: UInt16?

    public init() {}

    /// Every key, in the order the man page and errors list them.
    public static let keys = ["name", "color", "ascii", "bell", "bot", "port"]

    /// Where the file is: `$XDG_CONFIG_HOME/parlor/config` when that is an
    /// absolute path, else `$HOME/.config/parlor/config`; nil without either.
    public static func path(environment: [String: String]) -> String? {
        if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") { return base + "/parlor/config" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/parlor/config" }
        return nil
    }

    /// The settings in the file, or none when there is no file.
    public static func load(environment: [String: String]) throws(SettingsError) -> Settings {
        guard let path = path(environment: environment) else { return Settings() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return Settings() }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(path: path, line: nil, problem: "it cannot be read (is it a regular file you may read?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SettingsError(path: path, line: nil, problem: "it is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// Reads the text of a settings file; `path` is for errors only.
    public static func parse(_ text: String, path: String) throws(SettingsError) -> Settings {
        var settings = Settings()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = Text.trimmingWhitespace(String(raw))
            if line.isEmpty || line.hasPrefix("#") { continue }
            func fail(_ problem: String) -> SettingsError { SettingsError(path: path, line: index + 1, problem: problem) }
            guard let equals = line.firstIndex(of: "=") else {
                throw fail("'\(Text.escapingUnprintable(line))' is not 'key = value'")
            }
            let key = Text.trimmingWhitespace(String(line[..<equals])).lowercased()
            var value = Text.trimmingWhitespace(String(line[line.index(after: equals)...]))
            if value.hasPrefix("\"") {
                // "a value", then nothing or a comment.
                let rest = value.dropFirst()
                guard let close = rest.firstIndex(of: "\""),
                      Text.trimmingWhitespace(String(rest[rest.index(after: close)...])).first.map({ $0 == "#" }) ?? true else {
                    throw fail("the value of \(key) has no closing '\"', or something other than a comment after it")
                }
                value = String(rest[..<close])
            } else if let comment = value.range(of: " #") ?? value.range(of: "\t#") {
                value = Text.trimmingWhitespace(String(value[..<comment.lowerBound]))
            }
            let shown = "'\(Text.escapingUnprintable(value))'"
            func yesNo() throws(SettingsError) -> Bool {
                switch value.lowercased() {
                case "yes", "true", "on", "1": return true
                case "no", "false", "off", "0": return false
                default: throw fail("\(shown) for \(key) is not yes or no")
                }
            }
            switch key {
            case "name":
                do { settings.name = try PlayerName.validated(value) } catch { throw fail("\(shown) for name: \(error.explanation.dropLast())") }
            case "color", "colour": settings.color = try yesNo()
            case "ascii": settings.ascii = try yesNo()
            case "bell": settings.bell = try yesNo()
            case "bot":
                guard let level = BotLevelChoice(rawValue: value.lowercased()) else { throw fail("\(shown) for bot is not easy, medium or hard") }
                settings.bot = level
            case "port":
                guard let number = Int(value), (1...65_535).contains(number) else {
                    throw fail("\(shown) for port is not a whole number from 1 to 65535")
                }
                settings.port = UInt16(number)
            default:
                let hint = Suggestion.nearest(to: key, among: keys).map { " (did you mean '\($0)'?)" } ?? ""
                throw fail("unknown key '\(Text.escapingUnprintable(key))'\(hint); the keys are \(keys.joined(separator: ", "))")
            }
        }
        return settings
    }
}

/// A settings file that does not read: which file, which line, what is wrong.
public struct SettingsError: Error, UserFacingError, Hashable {
    public let path: String
    /// 1-based; nil when the whole file is the problem.
    public let line: Int?
    public let problem: String

    public var exitCode: ExitCode { .usage }
    public var message: String {
        let place = line.map { "\(path), line \($0)" } ?? path
        return "the settings file \(place): \(problem); fix it, or see FILES in 'man parlor'"
    }
}
