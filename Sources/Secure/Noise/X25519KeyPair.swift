/// An X25519 key pair, the static or ephemeral key of a Noise party.
public struct X25519KeyPair: Sendable, Equatable {
    /// The 32-byte private scalar.
    public let privateKey: [UInt8]
    /// The 32-byte public key (the private key times the base point).
    public let publicKey: [UInt8]

    /// The key pair for a known private key (test vectors, or one derived from an identity).
    ///
    /// - Throws: `NoiseError.sodium` when the key is not 32 bytes.
    public init(privateKey: [UInt8]) throws(NoiseError) {
        do throws(SodiumError) {
            self.publicKey = try Sodium.x25519PublicKey(privateKey: privateKey)
        } catch {
            throw .sodium(error)
        }
        self.privateKey = privateKey
    }

    /// A fresh key pair from the system's random source.
    public static func generate() throws(NoiseError) -> X25519KeyPair {
        let secret: [UInt8]
        do throws(SodiumError) {
            secret = try Sodium.randomBytes(32)
        } catch {
            throw .sodium(error)
        }
        return try X25519KeyPair(privateKey: secret)
    }

    /// Noise's `DH()`: the shared secret with `publicKey`.
    func sharedSecret(with publicKey: [UInt8]) throws(NoiseError) -> [UInt8] {
        do throws(SodiumError) {
            return try Sodium.x25519(privateKey: privateKey, publicKey: publicKey)
        } catch {
            if case .callFailed = error { throw .invalidPublicKey }
            throw .sodium(error)
        }
    }
}
