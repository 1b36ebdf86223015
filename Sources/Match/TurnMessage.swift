/// A short message sent with a move ("Your move, Ana"), GameKit's
/// `GKTurnBasedMatch.message`: the next seat sees it with the move, and it
/// is part of the match (saved, resumed, replayed and hashed; the match blob's
/// format 4, docs/PROTOCOL.md section 5, "Turn messages").
///
/// Every value is valid: the text is checked once, where it is made, and a
/// text that breaks a rule is refused with `TurnMessageError`, never cut or
/// cleaned to fit.
public struct TurnMessage: Hashable, Sendable, CustomStringConvertible {
    /// The most UTF-8 bytes a message may have (a tweet's 140).
    public static let maximumBytes = 140

    /// The text, exactly as given.
    public let text: String

    /// `text` as a message, or throws when it is empty or only white space,
    /// longer than `maximumBytes` bytes of UTF-8, or holds a control
    /// character (Unicode category Cc: an escape code, a tab, a newline).
    public init(_ text: String) throws(TurnMessageError) {
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { throw .empty }
        guard text.utf8.count <= Self.maximumBytes else { throw .tooLong(bytes: text.utf8.count) }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .controlCharacter
        }
        self.text = text
    }

    /// Reads a message's bytes from a blob: nil when they are not UTF-8 or
    /// break a rule of `init(_:)`.
    init?(bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self), let message = try? TurnMessage(text) else { return nil }
        self = message
    }

    /// The text itself, as given and unquoted: "Your move, Ana".
    public var description: String { text }
}

/// Why a text cannot be a turn message; `description` says what to change.
public enum TurnMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing but white space (or nothing at all).
    case empty
    /// More than `TurnMessage.maximumBytes` bytes of UTF-8.
    case tooLong(bytes: Int)
    /// A control character: an escape code, a tab, a newline.
    case controlCharacter

    /// What is wrong and what to change, in lower case: "a message with a
    /// move holds at most 140 bytes of UTF-8; this one has 152: shorten it".
    public var description: String {
        switch self {
        case .empty: "a message with a move needs some text"
        case .tooLong(let bytes):
            "a message with a move holds at most \(TurnMessage.maximumBytes) bytes of UTF-8; this one has \(bytes): shorten it"
        case .controlCharacter: "a message with a move cannot hold a control character (an escape code, a tab or a newline)"
        }
    }
}
