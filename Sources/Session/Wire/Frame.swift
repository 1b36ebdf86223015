import Match

/// The kinds of message a frame can carry; the header's type byte.
///
/// Numbers are part of the wire format (docs/PROTOCOL.md) and never change
/// meaning. 17...31 are reserved for later protocol versions (14, 15 and 16 are protocol 2).
public enum MessageType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// HELLO, guest → host: who joins, for which games, and (to take a seat back) the match and seat token.
    case hello = 1
    /// WELCOME, host → guest: the seat, the settings and the match blob.
    case welcome = 2
    /// REJECT, host → guest: a reason code and a sentence; the host closes, the guest does not retry.
    case reject = 3
    /// TURN, both directions: a move (or, from the host, a time expiry) with the resulting blob.
    case turn = 4
    /// CONFIRM, host → guest: the guest's change is committed, with its sequence and state hash.
    case confirm = 5
    /// TURN_REJECTED, host → guest: the guest's change was refused; the match is unchanged.
    case turnRejected = 6
    /// STATE_REQUEST, guest → host: send me the match as it stands after my sequence.
    case stateRequest = 7
    /// STATE, host → guest: the whole match blob, which the guest adopts.
    case state = 8
    /// QUIT, both directions: a seat leaves the match, with the resulting blob.
    case quit = 9
    /// HEARTBEAT, both directions: I am still here (with the sender's clock).
    case heartbeat = 10
    /// GOODBYE, both directions: the sender's last word on the connection, with why it leaves.
    case goodbye = 11
    /// REMATCH, both directions, after the end: an offer, an accept or a decline.
    case rematch = 12
    /// CHALLENGE, host → guest: this host needs a passcode; answer with a HELLO carrying the proof.
    case challenge = 13
    /// Protocol 2 only: who is seated at a table that is filling.
    case table = 14
    /// Protocol 2 only: another seat at the table is away (its link dropped) or back.
    case seat = 15
    /// Protocol 2 only: a line of table talk, its relay, or its refusal (section 18).
    case talk = 16
    /// Protocol 2 only: a spectator asks to watch (docs/PROTOCOL.md, section 17).
    case watch = 17
    /// Protocol 2 only: the host admits a spectator, with the match as it stands.
    case watching = 18

    /// The upper-case name used in docs/PROTOCOL.md and logs.
    public var description: String {
        switch self {
        case .hello: "HELLO"
        case .welcome: "WELCOME"
        case .reject: "REJECT"
        case .turn: "TURN"
        case .confirm: "CONFIRM"
        case .turnRejected: "TURN_REJECTED"
        case .stateRequest: "STATE_REQUEST"
        case .state: "STATE"
        case .quit: "QUIT"
        case .heartbeat: "HEARTBEAT"
        case .goodbye: "GOODBYE"
        case .rematch: "REMATCH"
        case .challenge: "CHALLENGE"
        case .table: "TABLE"
        case .seat: "SEAT"
        case .talk: "TALK"
        case .watch: "WATCH"
        case .watching: "WATCHING"
        }
    }
}

/// One frame: a message type and its payload, as they travel on the wire.
public struct Frame: Hashable, Sendable {
    /// What the payload holds.
    public var type: MessageType
    /// The message body; its layout depends on `type`.
    public var payload: [UInt8]

    /// A frame of `type` carrying `payload` (at most `FrameFormat.maximumPayload` bytes).
    public init(type: MessageType, payload: [UInt8]) {
        self.type = type
        self.payload = payload
    }
}

/// Constants of the frame header (docs/PROTOCOL.md, "Frames").
///
///     offset size field
///     0      2    magic 0x50 0x4C ("PL")
///     2      1    protocol version (1)
///     3      1    message type
///     4      4    payload length, u32 big-endian
///     8      n    payload
public enum FrameFormat {
    /// The two bytes every frame starts with: "PL".
    public static let magic: [UInt8] = [0x50, 0x4C]
    /// The version byte this parlor writes in every frame header. Protocol 2
    /// did not change the frame layout, so every frame keeps the byte 1 and a
    /// connection's protocol version is the one WELCOME chose.
    public static let version: UInt8 = 1
    /// Frame header versions this parlor reads.
    public static let headerVersions: [UInt8] = [1]
    /// Protocol versions this parlor can speak (offered in HELLO, chosen in WELCOME), newest first.
    public static let supportedVersions: [UInt8] = [4, 2, 1]
    /// The first protocol version with tables of three or more seats.
    public static let tableVersion: UInt8 = 2
    /// The first protocol version whose peers read a match blob of format 4,
    /// a move's message (docs/PROTOCOL.md section 13): protocol 2's frames,
    /// chosen for a two-seat match only. (Protocol 3 is the encrypted channel
    /// around the frames, never offered in HELLO.)
    public static let messagesVersion: UInt8 = 4
    /// Size of the fixed header.
    public static let headerSize = 8
    /// The largest payload accepted: a maximum-size match blob plus headroom
    /// for the other fields of the message that carries it. Checked from the
    /// header, before any payload byte is awaited or stored.
    public static let maximumPayload = MatchBlob.maximumSize + 44 * 1024

    /// The bytes of `frame`: header then payload.
    ///
    /// The caller keeps payloads within `maximumPayload`; `Message.encode`
    /// guarantees it for every message it produces.
    public static func encode(_ frame: Frame) -> [UInt8] {
        var writer = ByteWriter(capacity: headerSize + frame.payload.count)
        writer.write(bytes: magic)
        writer.write(version)
        writer.write(frame.type.rawValue)
        writer.write(UInt32(frame.payload.count))
        writer.write(bytes: frame.payload)
        return writer.bytes
    }
}

/// Why a byte stream is not (or no longer) a parlor frame stream.
///
/// Each case is fatal for the connection: after any of them the receiver
/// cannot find the next frame boundary, so it answers once (see
/// docs/PROTOCOL.md) and closes.
public enum FrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The first bytes are not "PL": not a parlor peer. Carries up to 8 of the bytes seen.
    case badMagic([UInt8])
    /// The peer sent an HTTP request (a browser or a probe), e.g. "GET".
    case httpRequest(method: String)
    /// The header names a protocol version this parlor does not speak.
    case unsupportedVersion(UInt8)
    /// The header announces a payload larger than `FrameFormat.maximumPayload`.
    case oversize(UInt32)
    /// The header names a message type this version does not define.
    case unknownType(UInt8)

    /// The error as a sentence: "not a parlor connection (first bytes 16 03 01 02)".
    public var description: String {
        switch self {
        case .badMagic(let bytes): "not a parlor connection (first bytes \(bytes.hexString))"
        case .httpRequest(let method): "an HTTP \(method) request, not a parlor connection"
        case .unsupportedVersion(let version): "protocol version \(version) is not supported (this parlor's frames are version \(FrameFormat.headerVersions.map(String.init).joined(separator: ", ")))"
        case .oversize(let length): "a frame of \(length) bytes, over the \(FrameFormat.maximumPayload)-byte limit"
        case .unknownType(let type): "unknown message type \(type)"
        }
    }
}

/// Splits a byte stream into frames. Pure: no I/O, no clocks.
///
/// Feed it chunks as they arrive with `append(_:)`, then call `next()` until
/// it returns nil. A partial frame is left in the buffer untouched (nothing
/// is consumed); the header is checked as soon as it is complete, so an
/// oversize length is refused before any payload is awaited or stored.
/// After an error the decoder stays failed: the stream has no usable frame
/// boundary any more.
public struct FrameDecoder: Sendable {
    /// HTTP methods recognised in place of the magic, with their trailing space.
    static let httpMethods: [[UInt8]] = ["GET ", "POST ", "PUT ", "HEAD ", "DELETE ", "OPTIONS ", "PATCH ", "CONNECT ", "TRACE "]
        .map { Array($0.utf8) }

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var failure: FrameError?
    /// The largest payload accepted; `FrameFormat.maximumPayload` unless a test lowers it.
    public let maximumPayload: Int

    /// A decoder with the protocol's payload limit (or a lower one).
    public init(maximumPayload: Int = FrameFormat.maximumPayload) {
        self.maximumPayload = min(maximumPayload, FrameFormat.maximumPayload)
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes to the buffer.
    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard failure == nil else { return }
        if readIndex > 0 && readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, nil when more bytes are needed, or throws when
    /// the stream is not a valid frame stream.
    public mutating func next() throws(FrameError) -> Frame? {
        if let failure { throw failure }
        do {
            guard let (frame, consumed) = try Self.decode(buffer[readIndex...], maximumPayload: maximumPayload) else {
                compact()
                return nil
            }
            readIndex += consumed
            return frame
        } catch {
            failure = error
            throw error
        }
    }

    /// Drops consumed bytes once they dominate the buffer, so a long session
    /// does not keep every byte it ever received.
    private mutating func compact() {
        if readIndex > 4096 && readIndex * 2 > buffer.count {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
    }

    /// Decodes one frame from the start of `bytes`: the frame and how many
    /// bytes it took, nil when `bytes` is a valid but incomplete prefix.
    public static func decode(_ bytes: ArraySlice<UInt8>, maximumPayload: Int = FrameFormat.maximumPayload) throws(FrameError) -> (Frame, Int)? {
        let start = bytes.startIndex
        let available = bytes.count
        // Magic, checked byte by byte so garbage is refused at its first byte.
        let magicSeen = min(available, 2)
        if Array(bytes.prefix(magicSeen)) != Array(FrameFormat.magic.prefix(magicSeen)) {
            let seen = Array(bytes.prefix(8))
            for method in httpMethods {
                if seen.count < method.count, Array(method.prefix(seen.count)) == seen { return nil }
                if seen.count >= method.count, Array(seen.prefix(method.count)) == method {
                    throw .httpRequest(method: String(decoding: method.dropLast(), as: UTF8.self))
                }
            }
            throw .badMagic(seen)
        }
        guard available >= 3 else { return nil }
        let version = bytes[start + 2]
        guard FrameFormat.headerVersions.contains(version) else { throw .unsupportedVersion(version) }
        guard available >= 4 else { return nil }
        guard let type = MessageType(rawValue: bytes[start + 3]) else { throw .unknownType(bytes[start + 3]) }
        guard available >= FrameFormat.headerSize else { return nil }
        var length: UInt32 = 0
        for offset in 4..<8 { length = length << 8 | UInt32(bytes[start + offset]) }
        guard Int(length) <= maximumPayload else { throw .oversize(length) }
        let total = FrameFormat.headerSize + Int(length)
        guard available >= total else { return nil }
        let payload = Array(bytes[(start + FrameFormat.headerSize)..<(start + total)])
        return (Frame(type: type, payload: payload), total)
    }
}
