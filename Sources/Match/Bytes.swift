/// Appends big-endian (network byte order) fields to a byte array.
///
/// Used by the match blob and the wire protocol; no I/O.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    /// Writes one byte.
    public mutating func write(_ value: UInt8) { bytes.append(value) }
    /// Writes two bytes, most significant first.
    public mutating func write(_ value: UInt16) { bytes.append(UInt8(value >> 8)); bytes.append(UInt8(value & 0xff)) }
    /// Writes four bytes, most significant first.
    public mutating func write(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xff)) }
    }
    /// Writes eight bytes, most significant first.
    public mutating func write(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xff)) }
    }
    /// Writes eight bytes of two's complement, most significant first.
    public mutating func write(_ value: Int64) { write(UInt64(bitPattern: value)) }
    /// Writes `more` as it is, with no length in front.
    public mutating func write<C: Collection>(bytes more: C) where C.Element == UInt8 { bytes.append(contentsOf: more) }
    /// Writes a string as a 1-byte length and its UTF-8 bytes; the caller has checked it fits in 255 bytes.
    public mutating func writeShortString(_ text: String) {
        let utf8 = Array(text.utf8.prefix(255))
        write(UInt8(utf8.count)); write(bytes: utf8)
    }
    /// Writes bytes with a 4-byte length in front.
    public mutating func writeLongBytes(_ data: [UInt8]) { write(UInt32(data.count)); write(bytes: data) }
}

/// Reads big-endian fields from untrusted bytes; every read checks bounds and
/// throws `ByteReader.Truncated` instead of trapping.
public struct ByteReader: Sendable {
    /// Thrown when a read would go past the end of the input.
    public struct Truncated: Error, Hashable, Sendable {
        /// Offset at which more bytes were needed.
        public var offset: Int
    }

    /// The input, as given.
    public let bytes: [UInt8]
    /// Offset of the next byte to read.
    public private(set) var offset: Int

    /// Reads `bytes` from `offset` on.
    public init(_ bytes: [UInt8], offset: Int = 0) { self.bytes = bytes; self.offset = offset }

    /// Bytes not yet read.
    public var remaining: Int { bytes.count - offset }

    /// Reads one byte.
    public mutating func readUInt8() throws(Truncated) -> UInt8 {
        guard remaining >= 1 else { throw Truncated(offset: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }
    /// Reads two bytes, most significant first.
    public mutating func readUInt16() throws(Truncated) -> UInt16 {
        guard remaining >= 2 else { throw Truncated(offset: offset) }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }
    /// Reads four bytes, most significant first.
    public mutating func readUInt32() throws(Truncated) -> UInt32 {
        guard remaining >= 4 else { throw Truncated(offset: offset) }
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(bytes[offset + i]) }
        offset += 4
        return value
    }
    /// Reads eight bytes, most significant first.
    public mutating func readUInt64() throws(Truncated) -> UInt64 {
        guard remaining >= 8 else { throw Truncated(offset: offset) }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[offset + i]) }
        offset += 8
        return value
    }
    /// Reads eight bytes of two's complement, most significant first.
    public mutating func readInt64() throws(Truncated) -> Int64 { Int64(bitPattern: try readUInt64()) }
    /// Reads `count` bytes as they are.
    public mutating func readBytes(_ count: Int) throws(Truncated) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw Truncated(offset: offset) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
    /// Reads a 1-byte length and that many bytes.
    public mutating func readShortBytes() throws(Truncated) -> [UInt8] {
        let count = Int(try readUInt8())
        return try readBytes(count)
    }
    /// Reads a 4-byte length and that many bytes, refusing lengths over `limit` before allocating.
    public mutating func readLongBytes(limit: Int) throws(Truncated) -> [UInt8]? {
        let count = Int(try readUInt32())
        guard count <= limit else { return nil }
        return try readBytes(count)
    }
}

/// 64-bit FNV-1a, the state hash of the match blob (see docs/PROTOCOL.md).
///
/// Not cryptographic: it detects accidental divergence. The host recomputes
/// every hash it receives, so a forged hash is caught by comparison, not by
/// the hash's strength.
public func fnv1a64<C: Sequence>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01b3
    }
    return hash
}

extension Array where Element == UInt8 {
    /// Lowercase hexadecimal, two digits a byte.
    public var hexString: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var ascii: [UInt8] = []
        ascii.reserveCapacity(count * 2)
        for byte in self { ascii.append(digits[Int(byte >> 4)]); ascii.append(digits[Int(byte & 0xf)]) }
        return String(decoding: ascii, as: UTF8.self)
    }

    /// Parses lowercase or uppercase hexadecimal with an even number of digits.
    public init?(hexString text: String) {
        var result: [UInt8] = []
        var high: UInt8?
        for char in text {
            guard let nibble = char.hexDigitValue else { return nil }
            if let h = high { result.append(h << 4 | UInt8(nibble)); high = nil } else { high = UInt8(nibble) }
        }
        guard high == nil else { return nil }
        self = result
    }
}
