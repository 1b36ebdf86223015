/// The two cipher states that protect traffic after a Noise handshake, with
/// the facts the handshake established.
///
/// A value type with no I/O: `seal` before writing a frame, `open` after
/// reading one. Messages must be opened in the order they were sealed (the
/// nonce is implicit), which a reliable stream such as TCP gives.
public struct NoiseTransport: Sendable {
    /// The largest plaintext one transport message carries (65,535 minus the tag).
    public static let maximumPlaintextLength = CipherState.maximumMessageLength - CipherState.tagLength

    /// Encrypts what this side sends.
    public private(set) var sending: CipherState
    /// Decrypts what the peer sends.
    public private(set) var receiving: CipherState
    /// The final handshake hash: the same on both sides, unique to this session.
    public let handshakeHash: [UInt8]
    /// The peer's static X25519 key, authenticated by the completed handshake.
    public let remoteStaticKey: [UInt8]

    /// A transport from cipher states (normally made by `NoiseHandshake`).
    public init(sending: CipherState, receiving: CipherState, handshakeHash: [UInt8], remoteStaticKey: [UInt8]) {
        self.sending = sending
        self.receiving = receiving
        self.handshakeHash = handshakeHash
        self.remoteStaticKey = remoteStaticKey
    }

    /// The transport message for `plaintext` (16 bytes longer), no associated data.
    ///
    /// - Throws: `messageTooLong` over `maximumPlaintextLength`, `nonceExhausted`.
    public mutating func seal(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard plaintext.count <= Self.maximumPlaintextLength else {
            throw .messageTooLong(length: plaintext.count + CipherState.tagLength)
        }
        return try sending.encrypt(associatedData: [], plaintext: plaintext)
    }

    /// The plaintext of the peer's next transport message.
    ///
    /// - Throws: `messageTooLong` over 65,535 bytes, `messageTooShort` under the
    ///   16-byte tag, `authenticationFailed` for anything tampered, replayed or
    ///   reordered, `nonceExhausted`.
    public mutating func open(_ message: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard message.count <= CipherState.maximumMessageLength else {
            throw .messageTooLong(length: message.count)
        }
        guard message.count >= CipherState.tagLength else { throw .messageTooShort(length: message.count) }
        return try receiving.decrypt(associatedData: [], ciphertext: message)
    }

    /// Rekeys the sending direction (Noise spec section 11.3); the peer must
    /// call `rekeyReceiving()` at the same point in the stream.
    public mutating func rekeySending() throws(NoiseError) {
        try sending.rekey()
    }

    /// Rekeys the receiving direction, matching the peer's `rekeySending()`.
    public mutating func rekeyReceiving() throws(NoiseError) {
        try receiving.rekey()
    }
}
