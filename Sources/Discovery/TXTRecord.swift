// A DNS-SD TXT record (RFC 6763 section 6) as a value, with a pure codec.
//
// Decoding takes bytes from the network (any host on the LAN can publish
// anything), so it never traps: malformed entries are skipped and a length
// byte that points past the end stops the walk.

/// Why a TXT record could not be built.
public enum TXTRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A key was empty.
    case emptyKey
    /// A key held a byte outside printable ASCII, or an `=`.
    case invalidKey(String)
    /// One `key=value` string would exceed the 255 bytes its length byte can count.
    case entryTooLong(key: String, length: Int)
    /// The whole record would exceed `TXTRecord.maximumLength` bytes.
    case recordTooLong(length: Int)

    /// The text a person reads.
    public var description: String {
        switch self {
        case .emptyKey:
            return "a TXT record key cannot be empty"
        case .invalidKey(let key):
            return "TXT record key '\(key)' must be printable ASCII without '='"
        case .entryTooLong(let key, let length):
            return "TXT record entry '\(key)' is \(length) bytes; an entry holds at most 255"
        case .recordTooLong(let length):
            return "TXT record is \(length) bytes; at most \(TXTRecord.maximumLength) fit in a DNS-SD registration"
        }
    }
}

/// The key/value pairs of a DNS-SD TXT record, in order, keys unique ignoring ASCII case.
///
/// Build one with `set(_:to:)`, send `encoded()`, and read what a peer sent
/// with `TXTRecord(decoding:)`, which accepts any bytes.
public struct TXTRecord: Sendable, Hashable, CustomStringConvertible {
    /// One `key`, `key=` or `key=value` string of the record.
    public struct Entry: Sendable, Hashable {
        /// The key as written (printable ASCII, no `=`).
        public let key: String
        /// The value bytes; `nil` for a bare `key` (a boolean attribute), empty for `key=`.
        public let value: [UInt8]?
    }

    /// The largest encoded record DNSServiceRegister accepts (its length is a uint16).
    public static let maximumLength = 65_535
    /// The largest single `key=value` string (its length is one byte).
    public static let maximumEntryLength = 255

    /// The entries in the order they were set or received.
    public private(set) var entries: [Entry] = []

    /// An empty record.
    public init() {}

    /// A record holding `pairs` in order; throws if a key or entry is invalid.
    public init(_ pairs: KeyValuePairs<String, String>) throws(TXTRecordError) {
        for (key, value) in pairs {
            try set(key, to: value)
        }
    }

    /// Decodes a record from untrusted bytes, skipping what is malformed.
    ///
    /// Skipped: empty strings, strings with an empty or non-ASCII key, and
    /// later repeats of a key (RFC 6763: the first one counts). A length byte
    /// that runs past the end ends the record there.
    public init<Bytes: Collection>(decoding bytes: Bytes) where Bytes.Element == UInt8 {
        let bytes = Array(bytes)
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            let start = index + 1
            let end = start + length
            guard end <= bytes.count else { break }
            index = end
            guard length > 0 else { continue }
            let string = bytes[start..<end]
            let equals = string.firstIndex(of: UInt8(ascii: "="))
            let keyBytes = string[start..<(equals ?? end)]
            guard let key = Self.validKey(keyBytes), !contains(key) else { continue }
            let value = equals.map { Array(string[($0 + 1)..<end]) }
            entries.append(Entry(key: key, value: value))
        }
    }

    /// Whether the record has `key` (ignoring ASCII case), with or without a value.
    public func contains(_ key: String) -> Bool {
        entryIndex(of: key) != nil
    }

    /// The raw value of `key`: `nil` if absent, `.some(nil)` for a bare key.
    public func value(forKey key: String) -> [UInt8]?? {
        entryIndex(of: key).map { entries[$0].value }
    }

    /// The value of `key` as UTF-8 text; `nil` if absent, bare, or not valid UTF-8.
    public subscript(key: String) -> String? {
        guard let index = entryIndex(of: key), let value = entries[index].value else { return nil }
        return String(validating: value, as: UTF8.self)
    }

    /// Sets `key` to the UTF-8 text `value`, replacing any entry with that key.
    public mutating func set(_ key: String, to value: String) throws(TXTRecordError) {
        try set(key, bytes: Array(value.utf8))
    }

    /// Sets `key` to raw bytes (`nil` makes it a bare boolean key), replacing any entry with that key.
    public mutating func set(_ key: String, bytes value: [UInt8]?) throws(TXTRecordError) {
        guard !key.isEmpty else { throw .emptyKey }
        guard Self.validKey(key.utf8) != nil else { throw .invalidKey(key) }
        let entryLength = key.utf8.count + (value.map { $0.count + 1 } ?? 0)
        guard entryLength <= Self.maximumEntryLength else {
            throw .entryTooLong(key: key, length: entryLength)
        }
        let entry = Entry(key: key, value: value)
        var updated = entries
        if let index = entryIndex(of: key) {
            updated[index] = entry
        } else {
            updated.append(entry)
        }
        let total = Self.encodedLength(of: updated)
        guard total <= Self.maximumLength else { throw .recordTooLong(length: total) }
        entries = updated
    }

    /// Removes `key` if present.
    public mutating func remove(_ key: String) {
        if let index = entryIndex(of: key) {
            entries.remove(at: index)
        }
    }

    /// The wire form: each entry as a length byte and `key[=value]`.
    ///
    /// An empty record encodes as one zero byte, as RFC 6763 section 6.1 asks.
    public func encoded() -> [UInt8] {
        guard !entries.isEmpty else { return [0] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.encodedLength(of: entries))
        for entry in entries {
            var string = Array(entry.key.utf8)
            if let value = entry.value {
                string.append(UInt8(ascii: "="))
                string.append(contentsOf: value)
            }
            // set(_:bytes:) guarantees string.count <= 255.
            bytes.append(UInt8(truncatingIfNeeded: string.count))
            bytes.append(contentsOf: string)
        }
        return bytes
    }

    /// `key=value` pairs separated by spaces, for logs and test failures.
    public var description: String {
        entries.map { entry in
            guard let value = entry.value else { return entry.key }
            return "\(entry.key)=\(String(decoding: value, as: UTF8.self))"
        }.joined(separator: " ")
    }

    private func entryIndex(of key: String) -> Int? {
        let wanted = Self.foldedASCII(key)
        return entries.firstIndex { Self.foldedASCII($0.key) == wanted }
    }

    private static func foldedASCII(_ key: String) -> [UInt8] {
        key.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    }

    /// The key as a String if it is non-empty printable ASCII without `=`.
    private static func validKey<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        guard !bytes.isEmpty,
            bytes.allSatisfy({ (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "=") })
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func encodedLength(of entries: [Entry]) -> Int {
        guard !entries.isEmpty else { return 1 }
        return entries.reduce(0) { $0 + 1 + $1.key.utf8.count + ($1.value.map { $0.count + 1 } ?? 0) }
    }
}
