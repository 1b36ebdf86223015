import Session

/// Reads a byte stream one direction of a protocol 3 connection carried, as a
/// listener would: a sequence of channel records (docs/PROTOCOL.md, section 20).
public enum ChannelRecords {
    /// The type byte of each record in `stream`, or nil if any byte lies outside a
    /// well-formed record (a clear parlor frame, whose header is "PL", would).
    public static func types(_ stream: [UInt8]) -> [UInt8]? {
        var types: [UInt8] = []
        var at = 0
        while at < stream.count {
            guard at + SecureChannel.headerSize <= stream.count,
                  stream[at] == SecureChannel.magic[0], stream[at + 1] == SecureChannel.magic[1] else { return nil }
            let type = stream[at + 2]
            let length = Int(stream[at + 3]) << 8 | Int(stream[at + 4])
            at += SecureChannel.headerSize + length
            guard at <= stream.count else { return nil }
            types.append(type)
        }
        return types
    }

    /// Whether `stream` is only handshake and sealed records, with at least one sealed.
    public static func isSealedConversation(_ stream: [UInt8]) -> Bool {
        guard let types = types(stream) else { return false }
        let sealed = SecureChannel.RecordType.sealed.rawValue, handshake = SecureChannel.RecordType.handshake.rawValue
        return types.contains(sealed) && types.allSatisfy { $0 == sealed || $0 == handshake }
    }
}
