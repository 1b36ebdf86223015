/// Options several commands share, spelled and explained once.
enum CommonOptions {
    static let plain = OptionSpec("plain", help: "Plain text: the board as lines and one move per line on stdin, even on a terminal.")
    static let json = OptionSpec("json", help: "One JSON object per line on stdout, for scripts.")
    static let ascii = OptionSpec("ascii", help: "ASCII pieces and lines, even on a UTF-8 terminal.")
    static let noColor = OptionSpec("no-color", help: "No colour. Setting NO_COLOR does the same.")
    static let noBell = OptionSpec("no-bell", help: "No terminal bell when the turn becomes yours (the settings file's bell = no does the same).")
    static let bot = OptionSpec("bot", .required(valueName: "LEVEL"), help: "Let a bot make this side's moves: easy, medium or hard.")
    static let name = OptionSpec(
        "name", short: "n", .required(valueName: "TEXT"),
        help: "The name other players see, 1-32 characters (default: the settings file's name, else your login name, capitalised).")
    static let turnTimeout = OptionSpec(
        "turn-timeout", .required(valueName: "SECONDS"),
        help: "Time allowed for each move, 1-86400 seconds; a player who runs out loses on time (default: no limit).")

    static let heartbeatTimeout = OptionSpec(
        "heartbeat-timeout", .required(valueName: "SECONDS"),
        help: "Treat the other side as gone after this many silent seconds, 1-600 (default: 15).")
    static let grace = OptionSpec(
        "grace", .required(valueName: "SECONDS"),
        help: "How long to wait for the other side to come back after the connection was lost before the match is saved as interrupted, 1-86400 seconds (default: 120).")

    static let allowUnencrypted = OptionSpec(
        "allow-unencrypted",
        help: "Also play with a parlor that speaks only protocol 2, in clear: moves, talk and names cross the network unencrypted, and both screens say so (default: every match is encrypted, and an older parlor is refused).")
    static let rematch = OptionSpec(
        "rematch", .required(valueName: "N"),
        help: "After the match, offer and accept up to N rematches with seats swapped without asking, 0-1000 (default: ask on a terminal, otherwise none).")

    /// `--rematch N`, when given.
    static func rematches(_ arguments: ParsedArguments) throws(UsageError) -> Int? {
        guard let text = arguments.value(rematch) else { return nil }
        return try ValueParser.wholeNumber(text, rematch.source, in: 0...1000)
    }

    /// `--heartbeat-timeout` and `--grace`, when given.
    static func connectionTimeouts(_ arguments: ParsedArguments) throws(UsageError) -> ConnectionTimeouts {
        var timeouts = ConnectionTimeouts()
        if let text = arguments.value(heartbeatTimeout) {
            timeouts.heartbeatTimeout = try ValueParser.seconds(text, heartbeatTimeout.source, in: 1...600)
        }
        if let text = arguments.value(grace) {
            timeouts.grace = try ValueParser.seconds(text, grace.source, in: 1...86_400)
        }
        return timeouts
    }

    /// The options every board-showing command ends with, in help order.
    static let display = [plain, json, ascii, noColor]
    /// `--no-bell`, for the commands that play a match (after `display`).
    static let playing = display + [noBell]
    /// `--plain` and `--json` exclude each other.
    static let outputGroup = [plain.name, json.name]

    /// `--plain`/`--json`/`--ascii`/`--no-color`/`--no-bell` as given; the bell is on unless turned off.
    static func display(_ arguments: ParsedArguments) -> DisplayFlags {
        let output: OutputMode = arguments.flag(json) ? .json : arguments.flag(plain) ? .plain : .automatic
        let settings = arguments.settings
        return DisplayFlags(output: output, ascii: arguments.flag(ascii) || settings.ascii == true,
                            noColor: arguments.flag(noColor) || settings.color == false,
                            bell: !arguments.flag(noBell) && settings.bell != false)
    }

    /// `--bot LEVEL`, when given.
    static func bot(_ arguments: ParsedArguments) throws(UsageError) -> BotLevelChoice? {
        guard let text = arguments.value(bot) else { return nil }
        return try ValueParser.choice(text, bot.source, as: BotLevelChoice.self)
    }

    /// `--name TEXT`, validated, or the settings file's name, or the login name.
    static func playerName(_ arguments: ParsedArguments) throws(UsageError) -> String {
        try ValueParser.playerName(arguments.value(name) ?? arguments.settings.name, name.source, environment: arguments.environment)
    }

    /// Whether a name was chosen (`--name`, or the settings file's), not taken from the login.
    static func nameChosen(_ arguments: ParsedArguments) -> Bool {
        arguments.value(name) != nil || arguments.settings.name != nil
    }

    /// `--turn-timeout SECONDS`, when given.
    static func turnTimeout(_ arguments: ParsedArguments) throws(UsageError) -> Duration? {
        guard let text = arguments.value(turnTimeout) else { return nil }
        return try ValueParser.seconds(text, turnTimeout.source, in: 1...86_400)
    }

    /// `--seat`, whose help (and default) each command words itself.
    static func seat(help: String) -> OptionSpec {
        OptionSpec("seat", .required(valueName: "first|second|random"), help: help)
    }

    /// `--seat` (declared with `seat(help:)`), or `defaultSeat`.
    static func seat(_ arguments: ParsedArguments, _ option: OptionSpec, default defaultSeat: SeatChoice) throws(UsageError) -> SeatChoice {
        guard let text = arguments.value(option) else { return defaultSeat }
        return try ValueParser.choice(text, option.source, as: SeatChoice.self)
    }
}
