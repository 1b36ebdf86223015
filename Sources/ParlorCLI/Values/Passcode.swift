/// Why a passcode was refused.
public enum PasscodeProblem: Error, Sendable, Hashable {
    /// Fewer than `Passcode.minimumLength` characters.
    case tooShort
    /// More than `Passcode.maximumLength` characters.
    case tooLong
    /// A character other than an ASCII letter, digit or `-`.
    case badCharacter

    /// The sentence an error shows.
    public var explanation: String {
        switch self {
        case .tooShort: "a code is at least \(Passcode.minimumLength) characters."
        case .tooLong: "a code is at most \(Passcode.maximumLength) characters."
        case .badCharacter: "a code is made of letters, digits and '-' only."
        }
    }
}

/// The passcode a host may require (`--code`) and a guest must then give.
///
/// Codes are read aloud across a room and typed on another machine, so they
/// are short and plain ASCII; comparison is the session layer's business.
public enum Passcode {
    /// The shortest code accepted.
    public static let minimumLength = 4
    /// The longest code accepted.
    public static let maximumLength = 32

    /// The code as typed, or the reason it cannot be used.
    public static func validated(_ text: String) throws(PasscodeProblem) -> String {
        if !text.unicodeScalars.allSatisfy({ $0.isASCII && (isAlphanumeric($0) || $0 == "-") }) {
            throw .badCharacter
        }
        if text.count < minimumLength { throw .tooShort }
        if text.count > maximumLength { throw .tooLong }
        return text
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}

/// What `parlor host --code` asked for.
public enum PasscodeRequest: Sendable, Hashable {
    /// Bare `--code`: the host makes up a code and prints it.
    case generate
    /// `--code=CODE`: this code.
    case given(String)
}
