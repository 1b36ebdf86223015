/// A Noise handshake as a pure state machine: Noise's `HandshakeState` for
/// `Noise_XX_25519_ChaChaPoly_SHA256` and `Noise_XXpsk3_25519_ChaChaPoly_SHA256`
/// (Noise spec rev 34, sections 5.3, 7.5 and 9).
///
/// No I/O: `writeMessage` returns the bytes to send and `readMessage` takes the
/// bytes received and returns the peer's payload. The caller frames them (a
/// handshake message is at most 65,535 bytes). After the third message the
/// machine is `isComplete` and `transport` holds the pair of cipher states.
///
///     -> e
///     <- e, ee, s, es
///     -> s, se          (XXpsk3: s, se, psk)
///
/// Payloads of the first message travel in clear in `XX` (no key yet) and
/// encrypted under a PSK-derived key in `XXpsk3`; the responder's static key
/// and every later payload are encrypted. Neither side has authenticated the
/// other until the handshake completes: a caller checks `remoteStaticKey`
/// (for instance against a known player's key) before trusting anything.
public struct NoiseHandshake: Sendable {
    /// The handshake patterns parlor uses.
    public enum Pattern: Sendable, Equatable {
        /// Both sides send their static keys; nothing is known in advance.
        case xx
        /// `XX` with a 32-byte pre-shared key mixed in at the end of the third message.
        case xxpsk3

        /// The full Noise protocol name, hashed into the initial state.
        public var protocolName: String {
            switch self {
            case .xx: "Noise_XX_25519_ChaChaPoly_SHA256"
            case .xxpsk3: "Noise_XXpsk3_25519_ChaChaPoly_SHA256"
            }
        }

        var messages: [[Token]] {
            switch self {
            case .xx: [[.e], [.e, .ee, .s, .es], [.s, .se]]
            case .xxpsk3: [[.e], [.e, .ee, .s, .es], [.s, .se, .psk]]
            }
        }

        var usesPresharedKey: Bool { self == .xxpsk3 }
    }

    /// Which side of the handshake this machine plays; the initiator writes first.
    public enum Role: Sendable, Equatable {
        /// The side that sends the first message (parlor's guest).
        case initiator
        /// The side that answers (parlor's host).
        case responder
    }

    enum Token: Sendable {
        case e, s, ee, es, se, psk
    }

    /// The keys and transcript of a handshake under way.
    struct Progress: Sendable {
        var symmetric: SymmetricState
        let role: Role
        let pattern: Pattern
        let localStatic: X25519KeyPair
        var localEphemeral: X25519KeyPair?
        var remoteStatic: [UInt8]?
        var remoteEphemeral: [UInt8]?
        var presharedKey: [UInt8]?
        var messageIndex = 0

        var isOurTurn: Bool { (messageIndex % 2 == 0) == (role == .initiator) }
        var isLastMessage: Bool { messageIndex == pattern.messages.count - 1 }
    }

    enum State: Sendable {
        case handshaking(Progress)
        case complete(NoiseTransport)
        case failed
    }

    private var state: State

    /// Starts a handshake.
    ///
    /// - Parameters:
    ///   - pattern: `.xx`, or `.xxpsk3` with `presharedKey`.
    ///   - role: initiator or responder.
    ///   - prologue: bytes both sides must agree on (protocol version, service);
    ///     a mismatch makes the handshake fail at the first encrypted payload.
    ///   - staticKey: this side's long-term key (see `IdentityKeyPair.noiseStaticKey()`).
    ///   - ephemeralKey: for test vectors only; nil draws a fresh key when it is needed.
    ///   - presharedKey: 32 bytes for `.xxpsk3` (e.g. from CPace); ignored for `.xx`.
    ///     With `deferPresharedKey`, it may be nil and given later (`supplyPresharedKey`).
    ///   - deferPresharedKey: the key is not known yet (CPace finishes during the
    ///     handshake); it must be supplied before the `psk` token (message 3 in `XXpsk3`).
    /// - Throws: `presharedKeyRequired` for `.xxpsk3` without a 32-byte key (and not deferred).
    public init(
        pattern: Pattern, role: Role, prologue: [UInt8] = [], staticKey: X25519KeyPair,
        ephemeralKey: X25519KeyPair? = nil, presharedKey: [UInt8]? = nil, deferPresharedKey: Bool = false
    ) throws(NoiseError) {
        if pattern.usesPresharedKey, presharedKey.map({ $0.count != 32 }) ?? !deferPresharedKey { throw .presharedKeyRequired }
        var symmetric = SymmetricState(protocolName: pattern.protocolName)
        symmetric.mixHash(prologue)
        state = .handshaking(Progress(
            symmetric: symmetric, role: role, pattern: pattern, localStatic: staticKey,
            localEphemeral: ephemeralKey, presharedKey: pattern.usesPresharedKey ? presharedKey : nil))
    }

    /// Gives the pre-shared key of an `XXpsk3` handshake started with
    /// `deferPresharedKey`, before the message that carries the `psk` token.
    /// - Throws: `presharedKeyRequired` (not 32 bytes, not `XXpsk3`, or a key
    ///   already given), `failedEarlier`, `handshakeComplete`.
    public mutating func supplyPresharedKey(_ key: [UInt8]) throws(NoiseError) {
        switch state {
        case .handshaking(var progress):
            guard progress.pattern.usesPresharedKey, progress.presharedKey == nil, key.count == 32 else {
                throw .presharedKeyRequired
            }
            progress.presharedKey = key
            state = .handshaking(progress)
        case .complete: throw .handshakeComplete
        case .failed: throw .failedEarlier
        }
    }

    /// Whether all three handshake messages have been written or read.
    public var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Whether the next step is `writeMessage` (false: `readMessage`, or the handshake is over).
    public var isOurTurn: Bool {
        if case .handshaking(let progress) = state { return progress.isOurTurn }
        return false
    }

    /// The transport cipher states, once `isComplete`.
    public var transport: NoiseTransport? {
        if case .complete(let transport) = state { return transport }
        return nil
    }

    /// The handshake hash `h` so far (final once `isComplete`): a value both
    /// sides share, for channel binding (for instance, signed by identity keys).
    public var handshakeHash: [UInt8] {
        switch state {
        case .handshaking(let progress): progress.symmetric.handshakeHash
        case .complete(let transport): transport.handshakeHash
        case .failed: []
        }
    }

    /// The peer's static X25519 key once its `s` token has been read.
    ///
    /// Not authenticated until the handshake completes.
    public var remoteStaticKey: [UInt8]? {
        switch state {
        case .handshaking(let progress): progress.remoteStatic
        case .complete(let transport): transport.remoteStaticKey
        case .failed: nil
        }
    }

    /// `WriteMessage(payload)`: the next handshake message, carrying `payload`.
    ///
    /// - Throws: `notOurTurn`, `handshakeComplete`, `failedEarlier`,
    ///   `messageTooLong` (the whole message over 65,535 bytes), `invalidPublicKey`.
    ///   Any error spends the handshake.
    public mutating func writeMessage(payload: [UInt8] = []) throws(NoiseError) -> [UInt8] {
        var progress = try currentProgress()
        guard progress.isOurTurn else { state = .failed; throw .notOurTurn }
        do throws(NoiseError) {
            var message: [UInt8] = []
            for token in progress.pattern.messages[progress.messageIndex] {
                try progress.write(token, into: &message)
            }
            message += try progress.symmetric.encryptAndHash(payload)
            guard message.count <= CipherState.maximumMessageLength else {
                throw .messageTooLong(length: message.count)
            }
            advance(progress)
            return message
        } catch {
            state = .failed
            throw error
        }
    }

    /// `ReadMessage(message)`: the peer's payload from the next handshake message.
    ///
    /// - Throws: `notOurTurn`, `handshakeComplete`, `failedEarlier`, `messageTooLong`,
    ///   `messageTooShort`, `authenticationFailed` (tampering, another prologue,
    ///   another PSK), `invalidPublicKey`. Any error spends the handshake.
    public mutating func readMessage(_ message: [UInt8]) throws(NoiseError) -> [UInt8] {
        var progress = try currentProgress()
        guard !progress.isOurTurn else { state = .failed; throw .notOurTurn }
        do throws(NoiseError) {
            guard message.count <= CipherState.maximumMessageLength else {
                throw .messageTooLong(length: message.count)
            }
            var rest = message[...]
            for token in progress.pattern.messages[progress.messageIndex] {
                try progress.read(token, from: &rest)
            }
            if progress.symmetric.cipher.hasKey, rest.count < CipherState.tagLength {
                throw .messageTooShort(length: message.count)
            }
            let payload = try progress.symmetric.decryptAndHash(Array(rest))
            advance(progress)
            return payload
        } catch {
            state = .failed
            throw error
        }
    }

    private func currentProgress() throws(NoiseError) -> Progress {
        switch state {
        case .handshaking(let progress): return progress
        case .complete: throw .handshakeComplete
        case .failed: throw .failedEarlier
        }
    }

    /// Moves to the next message, or to the transport after the last one.
    private mutating func advance(_ progress: Progress) {
        guard progress.isLastMessage else {
            var next = progress
            next.messageIndex += 1
            state = .handshaking(next)
            return
        }
        let (initiatorToResponder, responderToInitiator) = progress.symmetric.split()
        let isInitiator = progress.role == .initiator
        state = .complete(NoiseTransport(
            sending: isInitiator ? initiatorToResponder : responderToInitiator,
            receiving: isInitiator ? responderToInitiator : initiatorToResponder,
            handshakeHash: progress.symmetric.handshakeHash,
            remoteStaticKey: progress.remoteStatic ?? []))
    }
}

extension NoiseHandshake.Progress {
    /// Performs one token of a message we write.
    mutating func write(_ token: NoiseHandshake.Token, into message: inout [UInt8]) throws(NoiseError) {
        switch token {
        case .e:
            let ephemeral: X25519KeyPair
            if let preset = localEphemeral {
                ephemeral = preset
            } else {
                ephemeral = try X25519KeyPair.generate()
            }
            localEphemeral = ephemeral
            message += ephemeral.publicKey
            symmetric.mixHash(ephemeral.publicKey)
            if pattern.usesPresharedKey { symmetric.mixKey(ephemeral.publicKey) }
        case .s:
            message += try symmetric.encryptAndHash(localStatic.publicKey)
        case .ee, .es, .se:
            try mixDiffieHellman(token)
        case .psk:
            try mixPresharedKey()
        }
    }

    /// Performs one token of a message we read, consuming its bytes.
    mutating func read(_ token: NoiseHandshake.Token, from rest: inout ArraySlice<UInt8>) throws(NoiseError) {
        let keyLength = 32
        switch token {
        case .e:
            guard rest.count >= keyLength else { throw .messageTooShort(length: rest.count) }
            let ephemeral = Array(rest.prefix(keyLength))
            rest = rest.dropFirst(keyLength)
            remoteEphemeral = ephemeral
            symmetric.mixHash(ephemeral)
            if pattern.usesPresharedKey { symmetric.mixKey(ephemeral) }
        case .s:
            let length = keyLength + (symmetric.cipher.hasKey ? CipherState.tagLength : 0)
            guard rest.count >= length else { throw .messageTooShort(length: rest.count) }
            let sealed = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
            remoteStatic = try symmetric.decryptAndHash(sealed)
        case .ee, .es, .se:
            try mixDiffieHellman(token)
        case .psk:
            try mixPresharedKey()
        }
    }

    /// `ee`, `es`, `se`: MixKey(DH(…)) with the keys the token and our role name.
    private mutating func mixDiffieHellman(_ token: NoiseHandshake.Token) throws(NoiseError) {
        let isInitiator = role == .initiator
        let local: X25519KeyPair?
        let remote: [UInt8]?
        switch token {
        case .ee: (local, remote) = (localEphemeral, remoteEphemeral)
        case .es: (local, remote) = isInitiator ? (localEphemeral, remoteStatic) : (localStatic, remoteEphemeral)
        case .se: (local, remote) = isInitiator ? (localStatic, remoteEphemeral) : (localEphemeral, remoteStatic)
        case .e, .s, .psk: return
        }
        guard let local else { throw .keyMissing("local key for \(token)") }
        guard let remote else { throw .keyMissing("remote key for \(token)") }
        symmetric.mixKey(try local.sharedSecret(with: remote))
    }

    private mutating func mixPresharedKey() throws(NoiseError) {
        guard let presharedKey else { throw .presharedKeyRequired }
        symmetric.mixKeyAndHash(presharedKey)
    }
}
