/// A key press, decoded from the bytes a terminal sends in raw mode.
public enum Key: Hashable, Sendable {
    /// An arrow key (`ESC [ A` or `ESC O A`, with or without modifiers).
    case up, down, left, right
    /// Home, End and Delete (the one that deletes forward).
    case home, end, delete
    /// Enter (CR or LF), a lone Esc, Backspace (DEL or Ctrl-H) and Tab.
    case enter, escape, backspace, tab
    /// Ctrl-C (in raw mode it arrives as a byte, not as SIGINT).
    case interrupt
    /// Ctrl-D.
    case endOfTransmission
    /// A printable character: digits, letters, punctuation, any Unicode scalar.
    case character(Character)
    /// Another control byte (Ctrl-A is 1, ...).
    case control(UInt8)
    /// A well-formed escape sequence this decoder has no name for.
    case unknown
}

/// Turns raw terminal bytes into keys; pure, no I/O.
///
/// Escape sequences may arrive split across reads (over SSH they often do),
/// so an incomplete sequence is kept and nothing is returned for it until more
/// bytes come. A lone Escape key is indistinguishable from the start of a
/// sequence: the reader calls `flush()` when no byte followed it within a
/// short delay, and only then is it reported as `.escape`.
public struct KeyDecoder: Sendable {
    /// Longest escape sequence kept while waiting for its end; longer ones are dropped as `.unknown`.
    public static let maximumSequenceLength = 32

    private var buffer: [UInt8] = []
    private var lastWasCarriageReturn = false

    /// A decoder with nothing pending.
    public init() {}

    /// Whether bytes of an unfinished sequence are waiting (the reader then polls with a short timeout).
    public var hasPendingBytes: Bool { !buffer.isEmpty }

    /// Appends `bytes` and returns every key they complete.
    public mutating func feed<C: Sequence>(_ bytes: C) -> [Key] where C.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        var keys: [Key] = []
        while !buffer.isEmpty {
            guard let (key, used) = decodeOne(final: false) else { break }
            buffer.removeFirst(used)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// Gives up waiting for the rest of a sequence: a pending ESC becomes `.escape`
    /// and whatever followed it is decoded as ordinary keys.
    public mutating func flush() -> [Key] {
        var keys: [Key] = []
        while !buffer.isEmpty {
            if let (key, used) = decodeOne(final: true) {
                buffer.removeFirst(used)
                if let key { keys.append(key) }
            } else {
                buffer.removeAll()
                keys.append(.unknown)
            }
        }
        return keys
    }

    /// Decodes the key at the start of the buffer: nil when more bytes are needed,
    /// or the key (nil for a byte that produces none) and how many bytes it used.
    private mutating func decodeOne(final: Bool) -> (Key?, Int)? {
        let first = buffer[0]
        let wasCR = lastWasCarriageReturn
        lastWasCarriageReturn = false
        switch first {
        case 0x1B:
            if buffer.count == 1 { return final ? (.escape, 1) : restore(wasCR) }
            switch buffer[1] {
            case UInt8(ascii: "["): return decodeCSI(final: final, wasCR: wasCR)
            case UInt8(ascii: "O"): return decodeSS3(final: final, wasCR: wasCR)
            default: return (.escape, 1)  // ESC then an ordinary key (Alt+key): report both
            }
        case 0x0D:
            lastWasCarriageReturn = true
            return (.enter, 1)
        case 0x0A:
            return (wasCR ? nil : .enter, 1)  // CR LF from a paste is one Enter
        case 0x03: return (.interrupt, 1)
        case 0x04: return (.endOfTransmission, 1)
        case 0x09: return (.tab, 1)
        case 0x08, 0x7F: return (.backspace, 1)
        case 0x00..<0x20: return (.control(first), 1)
        case 0x20..<0x7F: return (.character(Character(Unicode.Scalar(first))), 1)
        default: return decodeUTF8(final: final, wasCR: wasCR)
        }
    }

    /// Keeps the carriage-return memory when we must wait for more bytes.
    private mutating func restore(_ wasCR: Bool) -> (Key?, Int)? {
        lastWasCarriageReturn = wasCR
        return nil
    }

    /// `ESC [ params final`: arrows (with or without modifiers), Home/End, Delete.
    private mutating func decodeCSI(final: Bool, wasCR: Bool) -> (Key?, Int)? {
        var index = 2
        while index < buffer.count {
            let byte = buffer[index]
            if (0x40...0x7E).contains(byte) {
                let parameters = String(decoding: buffer[2..<index], as: UTF8.self)
                return (Self.csiKey(final: byte, parameters: parameters), index + 1)
            }
            guard (0x20...0x3F).contains(byte) else { return (.unknown, index) }  // malformed: drop what we have
            index += 1
            if index >= Self.maximumSequenceLength { return (.unknown, index) }
        }
        if final { return (.escape, 1) }
        return restore(wasCR)
    }

    private static func csiKey(final: UInt8, parameters: String) -> Key {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameters.split(separator: ";").first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            default: return .unknown
            }
        default: return .unknown
        }
    }

    /// `ESC O x`: arrows in application cursor mode, keypad Enter.
    private mutating func decodeSS3(final: Bool, wasCR: Bool) -> (Key?, Int)? {
        guard buffer.count >= 3 else { return final ? (.escape, 1) : restore(wasCR) }
        let key: Key
        switch buffer[2] {
        case UInt8(ascii: "A"): key = .up
        case UInt8(ascii: "B"): key = .down
        case UInt8(ascii: "C"): key = .right
        case UInt8(ascii: "D"): key = .left
        case UInt8(ascii: "H"): key = .home
        case UInt8(ascii: "F"): key = .end
        case UInt8(ascii: "M"): key = .enter
        default: key = .unknown
        }
        return (key, 3)
    }

    /// A multi-byte UTF-8 character, or `.unknown` for a byte that cannot start or continue one.
    private mutating func decodeUTF8(final: Bool, wasCR: Bool) -> (Key?, Int)? {
        let first = buffer[0]
        let length: Int
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (.unknown, 1)
        }
        var available = 1
        while available < min(length, buffer.count) {
            guard buffer[available] & 0xC0 == 0x80 else { return (.unknown, available) }
            available += 1
        }
        guard available == length else { return final ? (.unknown, available) : restore(wasCR) }
        let text = String(decoding: buffer[0..<length], as: UTF8.self)
        guard let character = text.first, text.unicodeScalars.first?.value != 0xFFFD else { return (.unknown, length) }
        return (.character(character), length)
    }
}
