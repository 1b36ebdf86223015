/// Noise's `CipherState` for ChaChaPoly: a key (or none) and a 64-bit nonce
/// (Noise spec rev 34, section 5.1; cipher functions in section 12.3).
///
/// A value type: copying it copies the key and the nonce, so a caller must
/// keep one copy per direction and never encrypt twice from two copies.
public struct CipherState: Sendable {
    /// The Poly1305 tag appended to every ciphertext.
    public static let tagLength = 16
    /// The Noise limit on any message, handshake or transport.
    public static let maximumMessageLength = 65_535
    /// The nonce the spec reserves (for `rekey`); reaching it ends the cipher state.
    static let reservedNonce = UInt64.max

    private var key: [UInt8]?
    /// The nonce the next encryption or decryption uses.
    public private(set) var nonce: UInt64 = 0

    /// `InitializeKey(key)`: a cipher state with `key` (32 bytes) or none, nonce 0.
    public init(key: [UInt8]? = nil) {
        self.key = key
    }

    /// `HasKey()`: whether this cipher state encrypts (before the first `MixKey`
    /// of a handshake, it passes plaintext through).
    public var hasKey: Bool { key != nil }

    /// `SetNonce(n)`: for transports that carry explicit nonces, and for tests.
    public mutating func setNonce(_ nonce: UInt64) {
        self.nonce = nonce
    }

    /// `EncryptWithAd(ad, plaintext)`: the ciphertext with its tag, or the
    /// plaintext itself when there is no key.
    ///
    /// - Throws: `nonceExhausted` once the nonce reaches 2^64−1.
    public mutating func encrypt(associatedData: [UInt8], plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return plaintext }
        guard nonce != Self.reservedNonce else { throw .nonceExhausted }
        let sealed: [UInt8]
        do throws(SodiumError) {
            sealed = try Sodium.chachaPolySeal(
                key: key, nonce: Self.nonceBytes(nonce), associatedData: associatedData, plaintext: plaintext)
        } catch {
            throw .sodium(error)
        }
        nonce += 1
        return sealed
    }

    /// `DecryptWithAd(ad, ciphertext)`: the plaintext, or the input itself when
    /// there is no key. A failed decryption leaves the nonce where it was.
    ///
    /// - Throws: `authenticationFailed` when the tag does not verify;
    ///   `nonceExhausted` once the nonce reaches 2^64−1.
    public mutating func decrypt(associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return ciphertext }
        guard nonce != Self.reservedNonce else { throw .nonceExhausted }
        let opened: [UInt8]?
        do throws(SodiumError) {
            opened = try Sodium.chachaPolyOpen(
                key: key, nonce: Self.nonceBytes(nonce), associatedData: associatedData, ciphertext: ciphertext)
        } catch {
            throw .sodium(error)
        }
        guard let opened else { throw .authenticationFailed }
        nonce += 1
        return opened
    }

    /// `Rekey()`: replaces the key with the first 32 bytes of
    /// `ENCRYPT(k, 2^64−1, "", 32 zero bytes)` (section 11.3); the nonce is kept.
    ///
    /// Both ends must rekey the same direction at the same point in the stream.
    public mutating func rekey() throws(NoiseError) {
        guard let key else { throw .keyMissing("cipher key") }
        do throws(SodiumError) {
            let next = try Sodium.chachaPolySeal(
                key: key, nonce: Self.nonceBytes(Self.reservedNonce), associatedData: [],
                plaintext: [UInt8](repeating: 0, count: 32))
            self.key = Array(next.prefix(32))
        } catch {
            throw .sodium(error)
        }
    }

    /// ChaChaPoly's 96-bit nonce: four zero bytes, then `n` little-endian.
    static func nonceBytes(_ nonce: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 {
            bytes[4 + index] = UInt8(truncatingIfNeeded: nonce >> (8 * UInt64(index)))
        }
        return bytes
    }
}
