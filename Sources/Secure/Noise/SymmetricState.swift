/// Noise's `SymmetricState` for SHA-256: the chaining key, the handshake hash
/// and the handshake's cipher state (Noise spec rev 34, section 5.2).
public struct SymmetricState: Sendable {
    /// SHA-256's output length, Noise's `HASHLEN`.
    public static let hashLength = 32

    /// The cipher state that encrypts handshake payloads and static keys.
    public private(set) var cipher = CipherState()
    /// `ck`: the chaining key, mixed with every DH output and PSK.
    private(set) var chainingKey: [UInt8]
    /// `h`: the hash of everything sent and received so far.
    public private(set) var handshakeHash: [UInt8]

    /// `InitializeSymmetric(protocol_name)`: `h` is the name padded with zeros
    /// when it fits in 32 bytes, else its SHA-256; `ck = h`; no key.
    public init(protocolName: String) {
        let name = Array(protocolName.utf8)
        if name.count <= Self.hashLength {
            handshakeHash = name + [UInt8](repeating: 0, count: Self.hashLength - name.count)
        } else {
            handshakeHash = Sodium.sha256(name)
        }
        chainingKey = handshakeHash
    }

    /// `MixKey(input_key_material)`: a new chaining key and cipher key.
    public mutating func mixKey(_ inputKeyMaterial: [UInt8]) {
        let outputs = HKDF.noise(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputs: 2)
        chainingKey = outputs[0]
        cipher = CipherState(key: outputs[1])
    }

    /// `MixHash(data)`: `h = SHA-256(h || data)`.
    public mutating func mixHash(_ data: [UInt8]) {
        handshakeHash = Sodium.sha256(handshakeHash + data)
    }

    /// `MixKeyAndHash(input_key_material)`: for pre-shared keys.
    public mutating func mixKeyAndHash(_ inputKeyMaterial: [UInt8]) {
        let outputs = HKDF.noise(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputs: 3)
        chainingKey = outputs[0]
        mixHash(outputs[1])
        cipher = CipherState(key: outputs[2])
    }

    /// `EncryptAndHash(plaintext)`: encrypts with `h` as associated data, then hashes the ciphertext.
    public mutating func encryptAndHash(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let ciphertext = try cipher.encrypt(associatedData: handshakeHash, plaintext: plaintext)
        mixHash(ciphertext)
        return ciphertext
    }

    /// `DecryptAndHash(ciphertext)`: decrypts with `h` as associated data, then hashes the ciphertext.
    public mutating func decryptAndHash(_ ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let plaintext = try cipher.decrypt(associatedData: handshakeHash, ciphertext: ciphertext)
        mixHash(ciphertext)
        return plaintext
    }

    /// `Split()`: the two transport cipher states, initiator-to-responder first.
    public func split() -> (initiatorToResponder: CipherState, responderToInitiator: CipherState) {
        let outputs = HKDF.noise(chainingKey: chainingKey, inputKeyMaterial: [], outputs: 2)
        return (CipherState(key: outputs[0]), CipherState(key: outputs[1]))
    }
}
