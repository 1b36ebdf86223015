/// Why a typed fingerprint was refused.
public enum FingerprintError: Error, Equatable, Sendable {
    /// Not 56 symbols once separators are removed (`count` is how many there were).
    case wrongLength(count: Int)
    /// A character outside the base32 alphabet (A–Z, 2–7; 0, 1 and 8 are read as O, I and B).
    case invalidCharacter(Character)
    /// The check character of a quarter does not match: a typo in that quarter.
    /// `quarter` is 1…4; quarter n covers the displayed groups 2n−1 and 2n.
    case checkCharacterMismatch(quarter: Int)
    /// The last data symbol has bits a real fingerprint never sets.
    case notCanonical
}

/// A player's fingerprint: the SHA-256 of their Ed25519 public key, shown as
/// 56 base32 symbols in eight groups of seven, easy to read aloud and compare.
///
/// Layout (the Syncthing device-ID scheme, with a standard Luhn mod 32):
/// the 32-byte digest is written in RFC 4648 base32 (A–Z, 2–7, no padding:
/// 52 symbols, the last carrying one bit and four zero bits); the 52 symbols
/// are cut into four quarters of 13, and each quarter gets a Luhn mod 32
/// check symbol, giving 4 × 14 = 56 symbols, displayed as eight groups of
/// seven joined by dashes: `MFRGGZD-FMZTGNB-…`. The check symbol catches any
/// single mistyped symbol and most swaps of neighbours in its quarter.
///
/// `parse` ignores case, spaces, dashes and colons, and reads 0, 1 and 8 as
/// O, I and B, which the alphabet leaves out for that reason.
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The SHA-256 digest of the public key (32 bytes).
    public let digest: [UInt8]

    static let alphabet: [Character] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    static let dataSymbols = 52
    static let quarterLength = 13
    static let symbolCount = 56
    static let groupLength = 7

    /// The fingerprint of an Ed25519 public key.
    public init(publicKey: PlayerPublicKey) {
        digest = Sodium.sha256(publicKey.bytes)
    }

    init(digest: [UInt8]) {
        self.digest = digest
    }

    /// The 56 symbols without separators.
    public var symbols: String {
        let data = Self.base32(digest)
        var result: [Character] = []
        for quarter in 0..<4 {
            let part = Array(data[(quarter * Self.quarterLength)..<((quarter + 1) * Self.quarterLength)])
            result += part
            result.append(Self.luhnCheck(part))
        }
        return String(result)
    }

    /// The display form: eight groups of seven symbols joined by dashes.
    public var description: String {
        Self.grouped(symbols)
    }

    /// The first two groups (14 symbols, about 70 bits): for advertisements and
    /// lists, where a full fingerprint is too long; never for a trust decision.
    public var short: String {
        String(description.prefix(2 * Self.groupLength + 1))
    }

    /// Reads a fingerprint a person typed or pasted.
    ///
    /// - Throws: `FingerprintError` naming the first problem found.
    public static func parse(_ typed: String) throws(FingerprintError) -> Fingerprint {
        var symbols: [Character] = []
        for character in typed {
            if character == " " || character == "-" || character == ":" || character == "\t" { continue }
            let upper: Character = switch character {
            case "0": "O"
            case "1": "I"
            case "8": "B"
            default: Character(character.uppercased())
            }
            guard alphabet.contains(upper) else { throw .invalidCharacter(character) }
            symbols.append(upper)
        }
        guard symbols.count == symbolCount else { throw .wrongLength(count: symbols.count) }
        var data: [Character] = []
        for quarter in 0..<4 {
            let start = quarter * (quarterLength + 1)
            let part = Array(symbols[start..<(start + quarterLength)])
            guard luhnCheck(part) == symbols[start + quarterLength] else {
                throw .checkCharacterMismatch(quarter: quarter + 1)
            }
            data += part
        }
        guard let digest = decodeBase32(data) else { throw .notCanonical }
        return Fingerprint(digest: digest)
    }

    /// `symbols` cut into groups of seven joined by dashes.
    static func grouped(_ symbols: String) -> String {
        var groups: [String] = []
        var current = ""
        for symbol in symbols {
            current.append(symbol)
            if current.count == groupLength {
                groups.append(current)
                current = ""
            }
        }
        if !current.isEmpty { groups.append(current) }
        return groups.joined(separator: "-")
    }

    /// RFC 4648 base32 without padding.
    static func base32(_ bytes: [UInt8]) -> [Character] {
        var result: [Character] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                result.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 {
            result.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)])
        }
        return result
    }

    /// The 32 bytes of 52 base32 symbols; nil when the padding bits are set.
    static func decodeBase32(_ symbols: [Character]) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            guard let value = alphabet.firstIndex(of: symbol) else { return nil }
            buffer = (buffer << 5 | UInt32(value)) & 0xffff
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8((buffer >> UInt32(bits)) & 0xff))
            }
        }
        guard bytes.count == 32, buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return bytes
    }

    /// Luhn mod 32 (the Luhn mod N algorithm): the symbol that makes the
    /// doubled-alternately sum of the quarter divisible by 32.
    static func luhnCheck(_ symbols: [Character]) -> Character {
        let base = alphabet.count
        var factor = 2
        var sum = 0
        for symbol in symbols.reversed() {
            let value = alphabet.firstIndex(of: symbol) ?? 0
            let addend = factor * value
            sum += addend / base + addend % base
            factor = factor == 2 ? 1 : 2
        }
        return alphabet[(base - sum % base) % base]
    }
}
