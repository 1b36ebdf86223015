import Secure

/// Why an encrypted channel was not set up, or stopped: each a sentence for the player.
public enum ChannelFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// A record whose magic, type or length breaks protocol 3 (section 19).
    case malformedRecord(String)
    /// A handshake message or sealed frame that did not authenticate: tampered,
    /// replayed, reordered, or a peer with other keys or another prologue.
    case authenticationFailed
    /// The identity key a peer sent is not the key its Noise static key comes from.
    case identityMismatch
    /// The peer refused the channel and said why (a refusal record).
    case refusedByPeer(String)
    /// This side refused the authenticated peer (for instance a changed key at a known name).
    case refusedPeer(String)
    /// A guest that speaks only clear frames (protocol 2 or older) at a host that needs protocol 3.
    case clearPeerRefused
    /// The host answered the handshake with clear parlor frames: it speaks protocol 2 or older.
    case hostSpeaksClear
    /// The stream ended before the handshake finished.
    case closedDuringHandshake(String?)
    /// libsodium or the Noise machine failed in a way no peer caused.
    case cryptoFailure(String)

    /// Whether this says the peer runs a parlor from before protocol 3 (what `--allow-unencrypted` falls back for).
    public var meansOlderPeer: Bool {
        switch self {
        case .closedDuringHandshake, .hostSpeaksClear: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .malformedRecord(let what): "the encrypted channel broke protocol 3: \(what)"
        case .authenticationFailed: "the encrypted channel did not authenticate (tampered, or not the peer it claims to be)"
        case .identityMismatch: "the peer's identity key does not match the key it encrypts with"
        case .refusedByPeer(let sentence): "the other side refused the encrypted channel: \(sentence)"
        case .refusedPeer(let sentence): sentence
        case .clearPeerRefused: "a guest without encryption (parlor protocol 2 or older) was refused"
        case .hostSpeaksClear:
            "the host speaks only parlor protocol 2 or older, without encryption; update parlor there, or join with --allow-unencrypted to play in clear"
        case .closedDuringHandshake(let reason):
            "the host closed the connection during the encrypted handshake (\(reason ?? "no reason given")): "
                + "it may run a parlor older than protocol 3, which cannot play privately; update parlor there, "
                + "or join with --allow-unencrypted to play in clear"
        case .cryptoFailure(let what): "encryption failed: \(what)"
        }
    }
}

/// Protocol 3's channel (docs/PROTOCOL.md section 19) as a pure machine: the
/// Noise XX handshake that proves each side's identity key, then every byte of
/// the parlor frame stream sealed in transport records. No I/O: bytes in,
/// actions out, performed in order by the caller (`SecureByteStream`).
///
/// A record is `"PN"`, a type byte, a u16 big-endian body length and the body:
/// type 1 a handshake message, 2 a sealed chunk of the frame stream, 3 a refusal
/// (a UTF-8 sentence, in clear, before the channel is set up; then the sender closes).
public struct SecureChannel: Sendable {
    /// The record magic, "PN" (clear parlor frames start "PL").
    public static let magic: [UInt8] = [0x50, 0x4E]
    /// Magic, type, u16 length.
    public static let headerSize = 5
    /// Bound into the handshake: both sides must agree on it or the handshake fails.
    public static let prologue: [UInt8] = Array("parlor protocol 3 _parlor._tcp".utf8)
    /// Record types.
    public enum RecordType: UInt8, Sendable {
        case handshake = 1
        case sealed = 2
        case refusal = 3
    }
    /// Each direction rekeys (Noise section 11.3) after this many sealed records.
    public static let defaultRekeyInterval: UInt64 = 1 << 16
    /// The longest refusal sentence.
    public static let maximumRefusalBytes = 512
    /// Message sizes of the handshake with a 32-byte identity key as payload.
    static let firstMessageLength = 32
    static let secondMessageLength = 32 + 48 + 48
    static let thirdMessageLength = 48 + 48

    /// Which end of the connection this is.
    public enum Role: Sendable, Equatable {
        /// The side that connects and writes first (a guest, a spectator, a resuming guest).
        case initiator
        /// The side that accepts (a host, a hall); `allowClear` admits protocol-2 peers in clear.
        case responder(allowClear: Bool)
    }

    /// What the caller does, in order.
    public enum Action: Equatable, Sendable {
        /// Write these bytes to the transport.
        case send([UInt8])
        /// Hand these bytes of the frame stream to the reader.
        case deliver([UInt8])
        /// The channel is set up: the peer proved this identity key.
        case established(PlayerPublicKey)
        /// The peer speaks clear frames and was admitted (responder with `allowClear`).
        case admittedClear
        /// Stop: close the transport; the reader sees the failure's sentence.
        case fail(ChannelFailure)
    }

    enum State: Sendable {
        /// Responder: waiting for the first two bytes to tell "PN" from anything else.
        case awaitingFirstBytes(allowClear: Bool)
        /// Mid-handshake.
        case handshaking(NoiseHandshake)
        /// Set up.
        case established(NoiseTransport, peer: PlayerPublicKey)
        /// Clear frames pass through unchanged (a protocol-2 peer that was admitted, or bytes for the frame layer to refuse).
        case clear
        /// Initiator: what answered is no parlor at all (neither "PN" nor "PL"); its bytes go to the frame
        /// layer, which says what it is, and nothing of ours goes out.
        case foreign
        case failed
    }

    private var state: State
    private let identity: IdentityKeyPair
    private let rekeyInterval: UInt64
    private var inbound: [UInt8] = []
    /// Frame-stream bytes sent before the channel was set up; sealed once it is.
    private var pendingOut: [UInt8] = []
    private var sealedOut: UInt64 = 0
    private var openedIn: UInt64 = 0
    private let isInitiator: Bool
    private var handshakeMessagesRead = 0

    /// A channel for `identity` in `role`.
    public init(role: Role, identity: IdentityKeyPair, rekeyInterval: UInt64 = SecureChannel.defaultRekeyInterval) throws(ChannelFailure) {
        self.identity = identity
        self.rekeyInterval = max(1, rekeyInterval)
        isInitiator = role == .initiator
        switch role {
        case .initiator: state = .handshaking(try Self.handshake(.initiator, identity))
        case .responder(let allowClear): state = .awaitingFirstBytes(allowClear: allowClear)
        }
    }

    private static func handshake(_ role: NoiseHandshake.Role, _ identity: IdentityKeyPair) throws(ChannelFailure) -> NoiseHandshake {
        do {
            return try NoiseHandshake(pattern: .xx, role: role, prologue: prologue, staticKey: identity.noiseStaticKey())
        } catch {
            throw .cryptoFailure("\(error)")
        }
    }

    /// Whether frames are sealed (false while setting up, in clear, or failed).
    public var isEstablished: Bool {
        if case .established = state { return true }
        return false
    }

    /// The peer's proved identity key, once established.
    public var peer: PlayerPublicKey? {
        if case .established(_, let peer) = state { return peer }
        return nil
    }

    /// Whether bytes pass in clear (a protocol-2 peer that was admitted, bytes for the frame layer to refuse, or a
    /// guest's answer from something that is no parlor, to which nothing is sent).
    public var isClear: Bool {
        switch state {
        case .clear, .foreign: true
        default: false
        }
    }

    /// Whether nothing more passes (a failure was reported).
    public var hasFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// The initiator's first record (call once, right after `init`); empty for a responder.
    public mutating func start() -> [Action] {
        guard case .handshaking(var handshake) = state, handshake.isOurTurn else { return [] }
        do {
            let message = try handshake.writeMessage()
            state = .handshaking(handshake)
            return [.send(Self.record(.handshake, message))]
        } catch {
            return fail(.cryptoFailure("\(error)"), tell: false)
        }
    }

    /// Frame-stream bytes to send: the records to write now (empty while the
    /// handshake is under way: they are kept and sealed when it completes).
    public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        switch state {
        case .established(var transport, let peer):
            var out: [UInt8] = []
            do {
                try sealChunks(plaintext, with: &transport, into: &out)
            } catch {
                state = .failed
                return []
            }
            state = .established(transport, peer: peer)
            return out
        case .handshaking, .awaitingFirstBytes:
            pendingOut += plaintext
            return []
        case .clear:
            return plaintext
        case .foreign, .failed:
            return []
        }
    }

    private mutating func sealChunks(_ plaintext: [UInt8], with transport: inout NoiseTransport, into out: inout [UInt8]) throws(NoiseError) {
        var start = 0
        while start < plaintext.count {
            let end = min(plaintext.count, start + NoiseTransport.maximumPlaintextLength)
            out += Self.record(.sealed, try transport.seal(Array(plaintext[start..<end])))
            sealedOut += 1
            if sealedOut % rekeyInterval == 0 { try transport.rekeySending() }
            start = end
        }
    }

    /// Bytes from the transport. `verify` judges the peer's proved key before
    /// anything of the frame stream goes out (nil accepts; a sentence refuses).
    public mutating func receive(_ bytes: [UInt8], verify: (PlayerPublicKey) -> String? = { _ in nil }) -> [Action] {
        switch state {
        case .failed: return []
        case .clear, .foreign: return bytes.isEmpty ? [] : [.deliver(bytes)]
        default: break
        }
        if inbound.isEmpty { inbound = bytes } else { inbound += bytes }
        var actions: [Action] = []
        if case .awaitingFirstBytes(let allowClear) = state {
            guard inbound.count >= 2 else { return [] }
            if Array(inbound.prefix(2)) != Self.magic {
                if Array(inbound.prefix(2)) == FrameFormat.magic && !allowClear {
                    let sentence = "This game needs parlor protocol 3, which encrypts every match; yours is older: update parlor."
                    return [.send(Message.reject(.versionUnsupported, sentence: sentence).encoded)] + fail(.clearPeerRefused, tell: false)
                }
                // A protocol-2 peer (admitted), or bytes the frame layer refuses as it always has (bad magic, HTTP).
                let admitted = Array(inbound.prefix(2)) == FrameFormat.magic
                let passed = inbound
                inbound = []
                state = .clear
                return (admitted ? [.admittedClear] : []) + [.deliver(passed)]
            }
            do {
                state = .handshaking(try Self.handshake(.responder, identity))
            } catch {
                return fail(error, tell: false)
            }
        }
        var delivered: [UInt8] = []
        while case .some((let type, let body)) = nextRecord(&actions) {
            let step = handle(type, body, verify: verify)
            for action in step {
                if case .deliver(let bytes) = action { delivered += bytes } else {
                    if !delivered.isEmpty { actions.append(.deliver(delivered)); delivered = [] }
                    actions.append(action)
                }
            }
            if hasFailed { break }
        }
        if !delivered.isEmpty { actions.append(.deliver(delivered)) }
        return actions
    }

    /// The next whole record in `inbound`, or nil (a malformed header fails the channel).
    private mutating func nextRecord(_ actions: inout [Action]) -> (RecordType, [UInt8])? {
        guard !hasFailed, inbound.count >= 2 else { return nil }
        if inbound[0] != Self.magic[0] || inbound[1] != Self.magic[1] {
            if !isEstablished, Array(inbound.prefix(2)) == FrameFormat.magic {
                actions += fail(.hostSpeaksClear, tell: false)
            } else if isInitiator, !isEstablished {
                // Not a parlor (a web server, say): the frame layer names what it sent; we send it nothing.
                state = .foreign
                pendingOut = []
                actions.append(.deliver(inbound))
                inbound = []
            } else {
                actions += fail(.malformedRecord("a record without the \"PN\" magic"), tell: true)
            }
            return nil
        }
        guard inbound.count >= Self.headerSize else { return nil }
        guard let type = RecordType(rawValue: inbound[2]) else {
            actions += fail(.malformedRecord("a record of unknown type \(inbound[2])"), tell: true)
            return nil
        }
        let length = Int(inbound[3]) << 8 | Int(inbound[4])
        guard inbound.count >= Self.headerSize + length else { return nil }
        let body = Array(inbound[Self.headerSize..<(Self.headerSize + length)])
        if inbound.count == Self.headerSize + length {
            inbound.removeAll(keepingCapacity: true)
        } else {
            inbound.removeFirst(Self.headerSize + length)
        }
        return (type, body)
    }

    private mutating func handle(_ type: RecordType, _ body: [UInt8], verify: (PlayerPublicKey) -> String?) -> [Action] {
        switch (type, state) {
        case (.refusal, .handshaking):
            guard body.count <= Self.maximumRefusalBytes, let sentence = String(validating: body, as: UTF8.self) else {
                return fail(.malformedRecord("a refusal that is not a sentence"), tell: false)
            }
            return fail(.refusedByPeer(Self.printable(sentence)), tell: false)
        case (.handshake, .handshaking(var handshake)):
            return handshakeStep(&handshake, body, verify: verify)
        case (.sealed, .established(var transport, let peer)):
            do {
                let plaintext = try transport.open(body)
                openedIn += 1
                if openedIn % rekeyInterval == 0 { try transport.rekeyReceiving() }
                state = .established(transport, peer: peer)
                return plaintext.isEmpty ? [] : [.deliver(plaintext)]
            } catch {
                return fail(.authenticationFailed, tell: true)
            }
        default:
            return fail(.malformedRecord("a \(type) record out of place"), tell: true)
        }
    }

    private mutating func handshakeStep(_ handshake: inout NoiseHandshake, _ body: [UInt8], verify: (PlayerPublicKey) -> String?) -> [Action] {
        let isFirst = !isInitiator && handshakeMessagesRead == 0
        let expected = isInitiator ? Self.secondMessageLength : (isFirst ? Self.firstMessageLength : Self.thirdMessageLength)
        guard body.count == expected else {
            return fail(.malformedRecord("a handshake message of \(body.count) bytes where \(expected) belong"), tell: true)
        }
        let payload: [UInt8]
        do {
            payload = try handshake.readMessage(body)
            handshakeMessagesRead += 1
        } catch {
            return fail(.authenticationFailed, tell: true)
        }
        var actions: [Action] = []
        if isFirst {
            // Responder: answer with e, ee, s, es and our identity key.
            do {
                let reply = try handshake.writeMessage(payload: identity.publicKey.bytes)
                state = .handshaking(handshake)
                return [.send(Self.record(.handshake, reply))]
            } catch {
                return fail(.cryptoFailure("\(error)"), tell: false)
            }
        }
        guard let remoteStatic = handshake.remoteStaticKey, let key = try? PlayerPublicKey(bytes: payload) else {
            return fail(.malformedRecord("a handshake payload that is not an identity key"), tell: true)
        }
        guard key.isNoiseStaticKey(remoteStatic) else { return fail(.identityMismatch, tell: true) }
        if let refusal = verify(key) { return fail(.refusedPeer(refusal), tell: true, sentence: refusal) }
        if !handshake.isComplete {
            // Initiator: the last message, s, se and our identity key.
            do {
                actions.append(.send(Self.record(.handshake, try handshake.writeMessage(payload: identity.publicKey.bytes))))
            } catch {
                return fail(.cryptoFailure("\(error)"), tell: false)
            }
        }
        guard var transport = handshake.transport else { return fail(.cryptoFailure("the handshake did not complete"), tell: false) }
        var out: [UInt8] = []
        do {
            try sealChunks(pendingOut, with: &transport, into: &out)
        } catch {
            return fail(.cryptoFailure("\(error)"), tell: false)
        }
        pendingOut = []
        state = .established(transport, peer: key)
        actions.append(.established(key))
        if !out.isEmpty { actions.append(.send(out)) }
        return actions
    }

    /// Fails the channel; `tell` also sends the peer a refusal record with the failure's sentence.
    private mutating func fail(_ failure: ChannelFailure, tell: Bool, sentence: String? = nil) -> [Action] {
        state = .failed
        inbound = []
        pendingOut = []
        guard tell else { return [.fail(failure)] }
        let text = Array((sentence ?? failure.description).utf8.prefix(Self.maximumRefusalBytes))
        return [.send(Self.record(.refusal, text)), .fail(failure)]
    }

    /// A record of `type` around `body` (at most 65,535 bytes).
    static func record(_ type: RecordType, _ body: [UInt8]) -> [UInt8] {
        magic + [type.rawValue, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// A peer's sentence with control characters replaced, safe for a terminal.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    /// Opens `bytes` on a copy when they are whole sealed records and nothing is
    /// buffered: the plaintext and the channel after them, or nil (then nothing changed).
    public func openingWholeRecords(_ bytes: [UInt8]) -> ([UInt8], SecureChannel)? {
        guard isEstablished, inbound.isEmpty, !bytes.isEmpty else { return nil }
        var copy = self
        var actions: [Action] = []
        copy.inbound = bytes
        var plaintext: [UInt8] = []
        while let (type, body) = copy.nextRecord(&actions) {
            guard type == .sealed else { return nil }
            for action in copy.handle(type, body, verify: { _ in nil }) {
                guard case .deliver(let chunk) = action else { return nil }
                plaintext += chunk
            }
        }
        guard actions.isEmpty, copy.inbound.isEmpty, !copy.hasFailed else { return nil }
        return (plaintext, copy)
    }
}
