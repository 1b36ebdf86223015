/// Why an identity key could not be made or used.
public enum IdentityError: Error, Equatable, Sendable {
    /// A key or seed of the wrong size.
    case wrongLength(what: String, expected: Int, actual: Int)
    /// libsodium failed (including an Ed25519 key with no X25519 counterpart).
    case sodium(SodiumError)
}

/// A player's public Ed25519 key, as a peer learns it.
public struct PlayerPublicKey: Hashable, Sendable {
    /// The 32-byte Ed25519 public key.
    public let bytes: [UInt8]

    /// A public key from its 32 bytes.
    ///
    /// - Throws: `wrongLength` for any other size.
    public init(bytes: [UInt8]) throws(IdentityError) {
        guard bytes.count == 32 else { throw .wrongLength(what: "Ed25519 public key", expected: 32, actual: bytes.count) }
        self.bytes = bytes
    }

    /// The key's fingerprint (SHA-256, shown in groups with check symbols).
    public var fingerprint: Fingerprint { Fingerprint(publicKey: self) }

    /// The 32 bytes as 64 lower-case hex digits (as the key file writes them).
    public var hex: String { Hex.encode(bytes) }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        Sodium.ed25519Verify(publicKey: bytes, message: message, signature: signature)
    }

    /// The X25519 public key of the same secret (`crypto_sign_ed25519_pk_to_curve25519`):
    /// what the player's `IdentityKeyPair.noiseStaticKey()` sends as its Noise static key.
    ///
    /// - Throws: `sodium` for a key that is not a valid Ed25519 point.
    public func noiseStaticPublicKey() throws(IdentityError) -> [UInt8] {
        do throws(SodiumError) {
            return try Sodium.ed25519PublicKeyToX25519(bytes)
        } catch {
            throw .sodium(error)
        }
    }

    /// Whether a Noise peer's static key (`NoiseTransport.remoteStaticKey`) is
    /// this identity's: the check that binds a Noise session to a player.
    public func isNoiseStaticKey(_ remoteStaticKey: [UInt8]) -> Bool {
        guard let expected = try? noiseStaticPublicKey() else { return false }
        return Sodium.constantTimeEqual(expected, remoteStaticKey)
    }
}

/// A player's own Ed25519 key pair: their identity across sessions.
///
/// Kept on disk by `IdentityFile`; the private half never leaves this value
/// except as the file's seed and as the derived Noise static key.
public struct IdentityKeyPair: Sendable {
    /// The 32-byte seed the key pair is derived from (what the key file stores).
    public let seed: [UInt8]
    /// The public half, shown to others as a fingerprint.
    public let publicKey: PlayerPublicKey
    private let secretKey: [UInt8]

    /// The key pair of a 32-byte seed.
    ///
    /// - Throws: `wrongLength` for another size, `sodium`.
    public init(seed: [UInt8]) throws(IdentityError) {
        guard seed.count == 32 else { throw .wrongLength(what: "Ed25519 seed", expected: 32, actual: seed.count) }
        let pair: (publicKey: [UInt8], secretKey: [UInt8])
        do throws(SodiumError) {
            pair = try Sodium.ed25519KeyPair(seed: seed)
        } catch {
            throw .sodium(error)
        }
        self.seed = seed
        self.secretKey = pair.secretKey
        self.publicKey = try PlayerPublicKey(bytes: pair.publicKey)
    }

    /// A new key pair from the system's random source.
    public static func generate() throws(IdentityError) -> IdentityKeyPair {
        let seed: [UInt8]
        do throws(SodiumError) {
            seed = try Sodium.randomBytes(32)
        } catch {
            throw .sodium(error)
        }
        return try IdentityKeyPair(seed: seed)
    }

    /// This player's fingerprint.
    public var fingerprint: Fingerprint { publicKey.fingerprint }

    /// An Ed25519 signature of `message` (64 bytes).
    public func signature(for message: [UInt8]) throws(IdentityError) -> [UInt8] {
        do throws(SodiumError) {
            return try Sodium.ed25519Sign(secretKey: secretKey, message: message)
        } catch {
            throw .sodium(error)
        }
    }

    /// The X25519 key pair of the same secret (`crypto_sign_ed25519_sk_to_curve25519`),
    /// for use as the Noise static key; a peer checks it with
    /// `PlayerPublicKey.isNoiseStaticKey(_:)`.
    public func noiseStaticKey() throws(IdentityError) -> X25519KeyPair {
        let privateKey: [UInt8]
        do throws(SodiumError) {
            privateKey = try Sodium.ed25519SecretKeyToX25519(secretKey)
        } catch {
            throw .sodium(error)
        }
        do throws(NoiseError) {
            return try X25519KeyPair(privateKey: privateKey)
        } catch {
            if case .sodium(let inner) = error { throw .sodium(inner) }
            throw .sodium(.callFailed(function: "crypto_scalarmult_curve25519_base"))
        }
    }
}
