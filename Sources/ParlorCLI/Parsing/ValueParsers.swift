import Games
import Match

/// Converts option and argument text into typed values, throwing the
/// `UsageError` that says what was expected.
///
/// Command structs call these from `init(parsing:)` (types) and
/// `validate()` (ranges); none of them prints anything.
enum ValueParser {
    /// A whole number written in decimal digits, in `range`.
    static func wholeNumber(_ text: String, _ source: ValueSource, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard isDigits(text), let value = Int(text), range.contains(value) else {
            throw .invalidValue(source, value: text, expected: .wholeNumber(range))
        }
        return value
    }

    /// A seed: any whole number from 0 to `UInt64.max`.
    static func unsignedWholeNumber(_ text: String, _ source: ValueSource) throws(UsageError) -> UInt64 {
        guard isDigits(text), let value = UInt64(text) else {
            throw .invalidValue(source, value: text, expected: .unsignedWholeNumber)
        }
        return value
    }

    /// Seconds as digits with at most one decimal point (`3`, `2.5`, `.5`),
    /// in `range`. No signs, exponents, hex or `inf`, which `Double(_:)` would take.
    static func seconds(_ text: String, _ source: ValueSource, in range: ClosedRange<Double>) throws(UsageError) -> Duration {
        let dots = text.filter { $0 == "." }.count
        let digits = text.filter { $0 != "." }
        guard dots <= 1, !digits.isEmpty, isDigits(digits), let value = Double(text), range.contains(value) else {
            throw .invalidValue(source, value: text, expected: .seconds(range))
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    /// One of an enumeration's raw values, case-insensitive.
    static func choice<Value: RawRepresentable & CaseIterable>(
        _ text: String, _ source: ValueSource, as type: Value.Type = Value.self
    ) throws(UsageError) -> Value where Value.RawValue == String {
        if let value = Value(rawValue: text.lowercased()) { return value }
        let names = Value.allCases.map(\.rawValue)
        throw .invalidValue(source, value: text, expected: .oneOf(names, suggestion: Suggestion.nearest(to: text, among: names)))
    }

    /// `--vs`: `bot`, `bot:LEVEL` or `human`.
    static func opponent(_ text: String, _ source: ValueSource, defaultLevel: BotLevelChoice = .medium) throws(UsageError) -> Opponent {
        if let opponent = Opponent(parsing: text, defaultLevel: defaultLevel) { return opponent }
        let names = Opponent.spellings
        throw .invalidValue(source, value: text, expected: .oneOf(names, suggestion: Suggestion.nearest(to: text, among: names)))
    }

    /// `--vs` for a table: one or more of `bot`, `bot:LEVEL`, `human`, comma-separated.
    static func opponents(_ text: String, _ source: ValueSource, defaultLevel: BotLevelChoice = .medium) throws(UsageError) -> [Opponent] {
        var list: [Opponent] = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            list.append(try opponent(String(word), source, defaultLevel: defaultLevel))
        }
        return list
    }

    /// The id of the game `text` names (its id, display name or another
    /// common name, as `GameCatalog.game(named:)` decides), with "did you mean".
    static func game(_ text: String) throws(UsageError) -> String {
        if let type = GameCatalog.game(named: text) { return type.id }
        throw .unknownGame(text, suggestion: GameCatalog.suggestion(for: text), known: GameCatalog.all.map { $0.id })
    }

    /// The id of the game `text` names, or `text` lower-cased when it names
    /// none: `init(parsing:)` keeps the word, and `validate()` refuses it with
    /// `game(_:)`'s error, after the errors of the words before it.
    static func gameID(_ text: String) -> String {
        GameCatalog.game(named: text)?.id ?? text.lowercased()
    }

    /// `--seats N`: refused with the game's own player counts when the game is
    /// known ("dots-and-boxes is played by 2, 3 or 4 players"), else with the
    /// range any table has.
    static func seats(_ text: String, _ source: ValueSource, game: String) throws(UsageError) -> Int {
        if isDigits(text), let type = GameCatalog.game(id: game), !type.seatCounts.contains(Int(text) ?? 0) {
            throw .invalidValue(source, value: text, expected: .seatCount(game: type.id, counts: type.seatCounts))
        }
        return try wholeNumber(text, source, in: MatchBlob.seatLimit)
    }

    /// `--name`, trimmed; or the default from the environment when not given.
    static func playerName(_ text: String?, _ source: ValueSource, environment: [String: String]) throws(UsageError) -> String {
        guard let text else { return PlayerName.defaultName(environment: environment) }
        do {
            return try PlayerName.validated(text)
        } catch {
            throw .invalidValue(source, value: text, expected: .playerName(error))
        }
    }

    /// A passcode.
    static func passcode(_ text: String, _ source: ValueSource) throws(UsageError) -> String {
        do {
            return try Passcode.validated(text)
        } catch {
            throw .invalidValue(source, value: text, expected: .passcode(error))
        }
    }

    /// A join target.
    static func joinTarget(_ text: String, _ source: ValueSource) throws(UsageError) -> JoinTarget {
        do {
            return try JoinTarget(parsing: text)
        } catch {
            throw .invalidValue(source, value: text, expected: .joinTarget(error))
        }
    }

    /// A match id.
    static func matchID(_ text: String, _ source: ValueSource) throws(UsageError) -> String {
        guard MatchIDText.isValid(text) else { throw .invalidValue(source, value: text, expected: .matchID) }
        return text
    }

    /// `parlor resume`'s target: `HOST:PORT` / `[IPv6]:PORT` or a match id.
    static func resumeTarget(_ text: String, _ source: ValueSource) throws(UsageError) -> ResumeTarget {
        if case .address(let host, let port) = try? JoinTarget(parsing: text) {
            return .address(host: host, port: port)
        }
        if MatchIDText.isValid(text) { return .match(id: text) }
        // Not an id: if it was meant as an address, say what is wrong with it.
        if text.contains(":") || text.hasPrefix("[") { _ = try joinTarget(text, source) }
        throw .invalidValue(source, value: text, expected: .matchID)
    }

    private static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
