/// A random 128-bit identifier, shown as 32 lowercase hex digits.
public struct Identifier128: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 16 raw bytes.
    public let bytes: [UInt8]

    /// Wraps exactly 16 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses 32 hex digits.
    public init?(hex: String) {
        guard hex.count == 32, let bytes = [UInt8](hexString: hex) else { return nil }
        self.bytes = bytes
    }

    /// A fresh random identifier from the system's generator.
    public static func random() -> Identifier128 {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A random identifier from `generator` (seeded in tests).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> Identifier128 {
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        var writer = ByteWriter(capacity: 16)
        writer.write(high); writer.write(low)
        return Identifier128(bytes: writer.bytes)!  // 16 bytes by construction
    }

    /// The full 32-digit hex form.
    public var hex: String { bytes.hexString }
    /// The first 8 hex digits, enough for a person to tell matches apart.
    public var short: String { String(hex.prefix(8)) }
    /// The full hex form (`hex`).
    public var description: String { hex }

    /// Byte order, for sorting ids the same way everywhere.
    public static func < (lhs: Identifier128, rhs: Identifier128) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}

/// Identifies a match on both peers and on disk.
public typealias MatchID = Identifier128
/// Identifies a player across matches (stable per parlor installation).
public typealias PlayerID = Identifier128
