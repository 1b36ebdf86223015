/// Why a player name was refused.
public enum PlayerNameProblem: Error, Sendable, Hashable {
    /// Nothing but spaces.
    case empty
    /// More than `PlayerName.maximumCharacters` characters.
    case tooLong
    /// More than `PlayerName.maximumBytes` bytes of UTF-8.
    case tooManyBytes
    /// A control character, line break, or text-direction override.
    case unprintable

    /// The sentence an error shows.
    public var explanation: String {
        switch self {
        case .empty: "a name needs at least one visible character."
        case .tooLong: "a name is at most \(PlayerName.maximumCharacters) characters."
        case .tooManyBytes: "a name is at most \(PlayerName.maximumBytes) bytes of UTF-8."
        case .unprintable: "a name cannot contain control characters, line breaks or direction overrides."
        }
    }
}

/// The name a player is shown by, e.g. on the other side of a LAN match.
///
/// Names travel to other machines and are printed on their terminals, so a
/// name must not be able to move a cursor or reverse text there.
public enum PlayerName {
    /// The longest name, in characters (grapheme clusters).
    public static let maximumCharacters = 32
    /// The longest name in bytes, so a name of 32 emoji cannot blow up a frame.
    public static let maximumBytes = 128
    /// The name used when the login name is unknown or unusable.
    public static let fallback = "Player"

    /// The name with surrounding spaces removed, or the reason it cannot be used.
    public static func validated(_ text: String) throws(PlayerNameProblem) -> String {
        let trimmed = Text.trimmingWhitespace(text)
        if trimmed.unicodeScalars.contains(where: Text.isUnprintable) { throw .unprintable }
        if trimmed.isEmpty { throw .empty }
        if trimmed.count > maximumCharacters { throw .tooLong }
        if trimmed.utf8.count > maximumBytes { throw .tooManyBytes }
        return trimmed
    }

    /// The default `--name`: the login name from `USER` (then `LOGNAME`) with
    /// its first letter capitalised, or "Player" when neither gives a valid name.
    public static func defaultName(environment: [String: String]) -> String {
        for key in ["USER", "LOGNAME"] {
            guard let login = environment[key], let first = login.first else { continue }
            let capitalised = first.uppercased() + login.dropFirst()
            if let name = try? validated(capitalised) { return name }
        }
        return fallback
    }
}

/// Small text helpers shared by the value parsers.
enum Text {
    /// Control characters (C0, C1, DEL), line and paragraph separators, and
    /// the bidirectional embedding, override and isolate characters.
    static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` without leading and trailing whitespace.
    static func trimmingWhitespace(_ text: String) -> String {
        var slice = Substring(text)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }

    /// `text` with unprintable characters shown as `\u{1B}`, so echoing a bad
    /// value in an error cannot drive the terminal.
    static func escapingUnprintable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if isUnprintable(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
