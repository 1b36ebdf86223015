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
    /// The guest's passcode did not match this host's (the third handshake message did not authenticate).
    case passcodeWrong
    /// The peer refused the channel with a reason code and a sentence (a rejection record, type 4).
    case rejected(ReasonCode, String)

    /// Whether this says the peer runs a parlor from before protocol 3 (what `--allow-unencrypted` falls back for).
    public var meansOlderPeer: Bool {
        switch self {
        case .closedDuringHandshake, .hostSpeaksClear: true
        default: false
        }
    }

    /// The failure as a sentence for the player, saying what to do where there is
    /// something: "the host speaks only parlor protocol 2 or older, …; update parlor there, …".
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
        case .passcodeWrong: PasscodeSentences.wrong
        case .rejected(_, let sentence): sentence
        }
    }
}

/// Which code a passcode proves: a seat's, or the right to watch (section 20.4).
public enum PasscodeUse: UInt8, Sendable, Equatable {
    /// The code for a seat (`--code`); its byte in the handshake is 1.
    case seat = 1
    /// The code for watching (`--watch-code`); its byte in the handshake is 2.
    case watch = 2
}

/// What a connecting side proves in the handshake: the code it was given, for a seat or to watch.
public struct PasscodeOffer: Sendable, Equatable {
    /// The code as typed (case, spaces and dashes do not matter).
    public var code: String
    /// What it is for.
    public var use: PasscodeUse

    /// An offer of `code` (as typed) for `use`.
    public init(code: String, use: PasscodeUse) {
        self.code = code
        self.use = use
    }
}

/// The codes an accepting side checks: nil where it needs none.
public struct HostPasscodes: Sendable, Equatable {
    /// The code a new guest proves for a seat.
    public var seat: String?
    /// The code a spectator proves.
    public var watch: String?

    /// The codes a host checks; nil where it needs none.
    public init(seat: String?, watch: String?) {
        self.seat = seat
        self.watch = watch
    }

    /// The code for `use`, nil if there is none.
    public func code(for use: PasscodeUse) -> String? {
        switch use {
        case .seat: seat
        case .watch: watch
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
/// (a UTF-8 sentence, in clear, before the channel is set up; then the sender closes),
/// 4 a rejection (a u16 reason code, then a sentence: a wrong passcode, too many guesses).
///
/// A passcode is proved inside the handshake (section 20.4): the initiator's
/// first message carries a CPace share (`Noise_XXpsk3`, told by its length),
/// the responder's answer its own, and CPace's key becomes the PSK mixed in by
/// the third message. A recording lets nobody test a code; a wrong code costs
/// its sender one whole handshake, which the responder's shell paces
/// (`passcodeOffered`, then `releaseOffer` or `refuseOffer`).
public struct SecureChannel: Sendable {
    /// The protocol version this channel makes (TXT `pv` of a host that needs it).
    public static let protocolVersion: UInt8 = 3
    /// The record magic, "PN" (clear parlor frames start "PL").
    public static let magic: [UInt8] = [0x50, 0x4E]
    /// Magic, type, u16 length.
    public static let headerSize = 5
    /// Bound into the handshake: both sides must agree on it or the handshake fails.
    public static let prologue: [UInt8] = Array("parlor protocol 3 _parlor._tcp".utf8)
    /// Record types.
    public enum RecordType: UInt8, Sendable {
        /// A Noise handshake message.
        case handshake = 1
        /// A sealed chunk of the frame stream (after the handshake).
        case sealed = 2
        /// A refusal: a UTF-8 sentence, in clear, before the channel is set up; the sender closes.
        case refusal = 3
        /// A rejection: a u16 reason code and a sentence (a wrong passcode, too many guesses); the sender closes.
        case rejection = 4
    }
    /// Each direction rekeys (Noise section 11.3) after this many sealed records.
    public static let defaultRekeyInterval: UInt64 = 1 << 16
    /// The longest refusal sentence.
    public static let maximumRefusalBytes = 512
    /// Message sizes of the handshake with a 32-byte identity key as payload.
    static let firstMessageLength = 32
    static let secondMessageLength = 32 + 48 + 48
    static let thirdMessageLength = 48 + 48
    /// `XXpsk3`'s first message: e, then the sealed use byte and CPace share (Ya).
    static let firstMessageWithPasscodeLength = 32 + (1 + CPace.shareLength + 16)
    /// `XXpsk3`'s second message: e, s, then the sealed identity key, status byte and (status 1) CPace share (Yb).
    static let secondMessageWithoutCodeLength = 32 + 48 + (32 + 1 + 16)
    static let secondMessageWithCodeLength = 32 + 48 + (32 + 1 + CPace.shareLength + 16)
    /// CPace's channel identifier for each use, and the label of the PSK derived from its key.
    static func cpaceChannel(_ use: PasscodeUse) -> [UInt8] { prologue + Array(" passcode \(use.rawValue)".utf8) }
    static let presharedKeyLabel: [UInt8] = Array("parlor protocol 3 passcode psk".utf8)
    /// The PSK when the responder has no code of the offered use: the offer proves nothing.
    static let noCodePresharedKey = [UInt8](repeating: 0, count: 32)

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
        /// Responder: a passcode offer for `use` was read and its answer is ready; nothing goes out
        /// until the shell calls `releaseOffer` (when the offer's turn comes) or `refuseOffer`.
        case passcodeOffered(PasscodeUse)
        /// Responder: the offer proved the code (the channel is established with it).
        case passcodeProved(PasscodeUse)
    }

    enum State: Sendable {
        /// Responder: waiting for the first two bytes to tell "PN" from anything else.
        case awaitingFirstBytes(allowClear: Bool)
        /// Responder: "PN" came; the first handshake record's length tells `XX` from `XXpsk3`.
        case awaitingFirstMessage
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
    /// Initiator: the CPace exchange of its offer, until the second message.
    private var offer: (cpace: CPace, use: PasscodeUse)?
    /// Responder: the codes it checks.
    private let passcodes: HostPasscodes?
    /// Responder: the use whose code an offer is being checked against; the answer held until released.
    private var checking: PasscodeUse?
    private var heldReply: [UInt8]?
    /// The use whose code the peer proved (responder), once established.
    public private(set) var provedPasscode: PasscodeUse?

    /// A channel for `identity` in `role`. An initiator with `offer` proves that
    /// code; a responder with `passcodes` checks offers against them.
    public init(role: Role, identity: IdentityKeyPair, rekeyInterval: UInt64 = SecureChannel.defaultRekeyInterval,
                offer: PasscodeOffer? = nil, passcodes: HostPasscodes? = nil) throws(ChannelFailure) {
        self.identity = identity
        self.rekeyInterval = max(1, rekeyInterval)
        self.passcodes = passcodes
        isInitiator = role == .initiator
        switch role {
        case .initiator:
            guard let offer else {
                state = .handshaking(try Self.handshake(.xx, .initiator, identity))
                return
            }
            do {
                let ephemeral = try X25519KeyPair.generate()
                // The session id is the initiator's ephemeral key: fresh, and bound to this very handshake.
                let cpace = try CPace(role: .initiator, password: PasscodeKey.normalized(offer.code),
                                      channelIdentifier: Self.cpaceChannel(offer.use), sessionID: ephemeral.publicKey,
                                      associatedData: [offer.use.rawValue])
                self.offer = (cpace, offer.use)
                state = .handshaking(try Self.handshake(.xxpsk3, .initiator, identity, ephemeral: ephemeral))
            } catch let error as ChannelFailure {
                throw error
            } catch {
                throw .cryptoFailure("\(error)")
            }
        case .responder(let allowClear): state = .awaitingFirstBytes(allowClear: allowClear)
        }
    }

    private static func handshake(_ pattern: NoiseHandshake.Pattern, _ role: NoiseHandshake.Role, _ identity: IdentityKeyPair,
                                  ephemeral: X25519KeyPair? = nil) throws(ChannelFailure) -> NoiseHandshake {
        do {
            return try NoiseHandshake(pattern: pattern, role: role, prologue: prologue, staticKey: identity.noiseStaticKey(),
                                      ephemeralKey: ephemeral, deferPresharedKey: pattern == .xxpsk3)
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
            let message = try handshake.writeMessage(payload: offer.map { [$0.use.rawValue] + $0.cpace.share } ?? [])
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
        case .handshaking, .awaitingFirstBytes, .awaitingFirstMessage:
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
            state = .awaitingFirstMessage
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

    /// Whether a refusal or rejection may come now: during the handshake, and for an initiator
    /// whose last handshake message the responder refuses, until the first sealed record.
    private var refusalMayCome: Bool {
        switch state {
        case .handshaking, .awaitingFirstMessage: true
        case .established: isInitiator && openedIn == 0
        default: false
        }
    }

    private mutating func handle(_ type: RecordType, _ body: [UInt8], verify: (PlayerPublicKey) -> String?) -> [Action] {
        switch (type, state) {
        case (.refusal, _) where refusalMayCome:
            guard body.count <= Self.maximumRefusalBytes, let sentence = String(validating: body, as: UTF8.self) else {
                return fail(.malformedRecord("a refusal that is not a sentence"), tell: false)
            }
            return fail(.refusedByPeer(Self.printable(sentence)), tell: false)
        case (.rejection, _) where refusalMayCome:
            guard body.count >= 2, body.count <= 2 + Self.maximumRefusalBytes,
                  let sentence = String(validating: body.dropFirst(2), as: UTF8.self) else {
                return fail(.malformedRecord("a rejection that is not a reason code and a sentence"), tell: false)
            }
            let code = ReasonCode(rawValue: UInt16(body[0]) << 8 | UInt16(body[1]))
            return fail(.rejected(code, Self.printable(sentence)), tell: false)
        case (.handshake, .awaitingFirstMessage):
            return firstMessage(body)
        case (.handshake, .handshaking(var handshake)) where heldReply == nil:
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

    /// Responder: the first handshake message; its length says whether it offers a passcode.
    private mutating func firstMessage(_ body: [UInt8]) -> [Action] {
        let offered = body.count == Self.firstMessageWithPasscodeLength
        guard offered || body.count == Self.firstMessageLength else {
            return fail(.malformedRecord("a first handshake message of \(body.count) bytes where \(Self.firstMessageLength) "
                                         + "or \(Self.firstMessageWithPasscodeLength) belong"), tell: true)
        }
        var handshake: NoiseHandshake
        let payload: [UInt8]
        do {
            handshake = try Self.handshake(offered ? .xxpsk3 : .xx, .responder, identity)
            payload = try handshake.readMessage(body)
            handshakeMessagesRead += 1
        } catch let error as ChannelFailure {
            return fail(error, tell: false)
        } catch {
            return fail(.authenticationFailed, tell: true)
        }
        guard offered else {
            // Answer with e, ee, s, es and our identity key.
            do {
                let reply = try handshake.writeMessage(payload: identity.publicKey.bytes)
                state = .handshaking(handshake)
                return [.send(Self.record(.handshake, reply))]
            } catch {
                return fail(.cryptoFailure("\(error)"), tell: false)
            }
        }
        guard let use = PasscodeUse(rawValue: payload[0]) else {
            return fail(.malformedRecord("a passcode offer for unknown use \(payload[0])"), tell: true)
        }
        let peerShare = Array(payload.dropFirst())
        var reply = identity.publicKey.bytes
        let presharedKey: [UInt8]
        if let code = passcodes?.code(for: use) {
            do {
                var cpace = try CPace(role: .responder, password: PasscodeKey.normalized(code),
                                      channelIdentifier: Self.cpaceChannel(use), sessionID: Array(body.prefix(32)))
                let sessionKey = try cpace.receive(peerShare: peerShare, peerAssociatedData: [use.rawValue])
                presharedKey = CPace.noisePresharedKey(fromSessionKey: sessionKey, label: Self.presharedKeyLabel)
                reply += [1] + cpace.share
                checking = use
            } catch .invalidShare {
                return fail(.malformedRecord("a passcode offer whose share is not a valid point"), tell: true)
            } catch {
                return fail(.cryptoFailure("\(error)"), tell: false)
            }
        } else {
            // No code of this use here: status 0, and the offer proves nothing.
            reply += [0]
            presharedKey = Self.noCodePresharedKey
        }
        do {
            try handshake.supplyPresharedKey(presharedKey)
            let message = Self.record(.handshake, try handshake.writeMessage(payload: reply))
            state = .handshaking(handshake)
            guard let use = checking else { return [.send(message)] }
            // A code is checked: the answer waits for the shell's pacing of guesses.
            heldReply = message
            return [.passcodeOffered(use)]
        } catch {
            return fail(.cryptoFailure("\(error)"), tell: false)
        }
    }

    /// Responder: sends the answer to a passcode offer (its turn came).
    public mutating func releaseOffer() -> [Action] {
        guard case .handshaking = state, let reply = heldReply else { return [] }
        heldReply = nil
        return [.send(reply)]
    }

    /// Responder: refuses a passcode offer unchecked (too many guesses waiting), with a rejection record.
    public mutating func refuseOffer(_ code: ReasonCode, _ sentence: String) -> [Action] {
        guard case .handshaking = state, heldReply != nil else { return [] }
        heldReply = nil
        return fail(.rejected(code, sentence), tell: true)
    }

    /// The expected length of the next handshake message this side reads (after the first).
    private var expectedMessageLengths: [Int] {
        guard isInitiator else { return [Self.thirdMessageLength] }
        guard offer != nil else { return [Self.secondMessageLength] }
        return [Self.secondMessageWithoutCodeLength, Self.secondMessageWithCodeLength]
    }

    private mutating func handshakeStep(_ handshake: inout NoiseHandshake, _ body: [UInt8], verify: (PlayerPublicKey) -> String?) -> [Action] {
        let expected = expectedMessageLengths
        guard expected.contains(body.count) else {
            let lengths = expected.map(String.init).joined(separator: " or ")
            return fail(.malformedRecord("a handshake message of \(body.count) bytes where \(lengths) belong"), tell: true)
        }
        var payload: [UInt8]
        do {
            payload = try handshake.readMessage(body)
            handshakeMessagesRead += 1
        } catch {
            // A checked offer whose last message does not open: the code was not the same.
            if checking != nil { return fail(.passcodeWrong, tell: true) }
            return fail(.authenticationFailed, tell: true)
        }
        var actions: [Action] = []
        if let cpace = offer?.cpace {
            // Initiator: the answer's status, and CPace's key as the PSK of the last message.
            offer = nil
            let status = payload[32]
            let presharedKey: [UInt8]
            switch (status, payload.count) {
            case (0, 33):
                presharedKey = Self.noCodePresharedKey
            case (1, 33 + CPace.shareLength):
                var exchange = cpace
                do {
                    let sessionKey = try exchange.receive(peerShare: Array(payload.suffix(CPace.shareLength)), peerAssociatedData: [])
                    presharedKey = CPace.noisePresharedKey(fromSessionKey: sessionKey, label: Self.presharedKeyLabel)
                } catch {
                    return fail(.malformedRecord("a passcode answer whose share is not a valid point"), tell: true)
                }
            default:
                return fail(.malformedRecord("a passcode answer with status \(status) in \(payload.count) bytes"), tell: true)
            }
            do { try handshake.supplyPresharedKey(presharedKey) } catch { return fail(.cryptoFailure("\(error)"), tell: false) }
            payload = Array(payload.prefix(32))
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
        if let use = checking {
            checking = nil
            provedPasscode = use
            actions.append(.passcodeProved(use))
        }
        if !out.isEmpty { actions.append(.send(out)) }
        return actions
    }

    /// Fails the channel; `tell` also sends the peer a refusal record with the failure's sentence.
    private mutating func fail(_ failure: ChannelFailure, tell: Bool, sentence: String? = nil) -> [Action] {
        state = .failed
        inbound = []
        pendingOut = []
        heldReply = nil
        guard tell else { return [.fail(failure)] }
        let text = Array((sentence ?? failure.description).utf8.prefix(Self.maximumRefusalBytes))
        switch failure {
        case .passcodeWrong:
            return [.send(Self.record(.rejection, Self.reasonBytes(.passcodeWrong) + text)), .fail(failure)]
        case .rejected(let code, _):
            return [.send(Self.record(.rejection, Self.reasonBytes(code) + text)), .fail(failure)]
        default:
            return [.send(Self.record(.refusal, text)), .fail(failure)]
        }
    }

    private static func reasonBytes(_ code: ReasonCode) -> [UInt8] {
        [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
    }

    /// A record of `type` around `body` (at most 65,535 bytes).
    static func record(_ type: RecordType, _ body: [UInt8]) -> [UInt8] {
        magic + [type.rawValue, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// A peer's sentence with control characters replaced, safe for a terminal.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }
}
