import CSodium

/// A failure inside libsodium, the one crypto library parlor links.
///
/// The module's own error enums (`NoiseError`, `CPaceError`, …) wrap this
/// when the cause is the library rather than the peer or the file.
public enum SodiumError: Error, Equatable, Sendable {
    /// `sodium_init` failed, so no primitive can be trusted; nothing to retry.
    case initializationFailed
    /// A libsodium call returned failure; `function` names the call.
    case callFailed(function: String)
    /// An input had the wrong number of bytes for the primitive named by `what`.
    case wrongLength(what: String, expected: Int, actual: Int)
}

/// The thin layer over libsodium: one-time initialisation, the primitives the
/// module uses, and one helper mapping C return codes to `SodiumError`.
///
/// Every primitive here is libsodium's; nothing cryptographic is written in
/// Swift except the HKDF construction (`HKDF`), which the Noise spec and
/// RFC 5869 define on top of HMAC.
enum Sodium {
    /// `sodium_init`'s result; a `static let` is initialised exactly once, on
    /// first use, under the Swift runtime's lock, so concurrent callers are safe.
    private static let initialization: Int32 = sodium_init()

    /// Makes sure `sodium_init` ran and succeeded.
    ///
    /// - Throws: `SodiumError.initializationFailed` when libsodium could not start.
    static func ensureInitialized() throws(SodiumError) {
        if initialization < 0 { throw .initializationFailed }
    }

    /// Runs `sodium_init` if nothing has yet, for primitives that cannot fail
    /// (hashes, MACs) and so do not report an initialisation failure.
    static func prepare() {
        _ = initialization
    }

    /// Maps a libsodium return code (0 for success) to a thrown error.
    static func check(_ result: Int32, _ function: String) throws(SodiumError) {
        if result != 0 { throw .callFailed(function: function) }
    }

    /// Refuses an input whose length is not the primitive's.
    static func requireLength(_ bytes: [UInt8], _ expected: Int, _ what: String) throws(SodiumError) {
        if bytes.count != expected {
            throw .wrongLength(what: what, expected: expected, actual: bytes.count)
        }
    }

    /// Calls `body` with a pointer to `bytes` that is never nil, even for an
    /// empty array (libsodium's headers declare their pointers non-null).
    static func withBytes<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { return body(base) }
            var placeholder: UInt8 = 0
            return withUnsafePointer(to: &placeholder) { body($0) }
        }
    }

    /// A new `count`-byte buffer filled by `body`, with `body`'s return code.
    static func filling(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int32) -> (bytes: [UInt8], result: Int32) {
        var bytes = [UInt8](repeating: 0, count: max(count, 1))
        let result = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return body(base)
        }
        return (count == 0 ? [] : bytes, result)
    }

    // MARK: Random bytes

    /// `count` bytes from the system's random source (`randombytes_buf`).
    static func randomBytes(_ count: Int) throws(SodiumError) -> [UInt8] {
        try ensureInitialized()
        return filling(count) { randombytes_buf($0, count); return 0 }.bytes
    }

    // MARK: Hashes and MACs

    /// SHA-256 of `data` (32 bytes).
    static func sha256(_ data: [UInt8]) -> [UInt8] {
        prepare()
        return filling(Int(crypto_hash_sha256_BYTES)) { out in
            withBytes(data) { crypto_hash_sha256(out, $0, UInt64(data.count)) }
        }.bytes
    }

    /// SHA-512 of `data` (64 bytes).
    static func sha512(_ data: [UInt8]) -> [UInt8] {
        prepare()
        return filling(Int(crypto_hash_sha512_BYTES)) { out in
            withBytes(data) { crypto_hash_sha512(out, $0, UInt64(data.count)) }
        }.bytes
    }

    /// HMAC-SHA-256 (RFC 2104) of `message` under a key of any length (32 bytes).
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        prepare()
        var state = crypto_auth_hmacsha256_state()
        _ = withBytes(key) { crypto_auth_hmacsha256_init(&state, $0, key.count) }
        _ = withBytes(message) { crypto_auth_hmacsha256_update(&state, $0, UInt64(message.count)) }
        let tag = filling(Int(crypto_auth_hmacsha256_BYTES)) { crypto_auth_hmacsha256_final(&state, $0) }.bytes
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
        return tag
    }

    /// HMAC-SHA-512 (RFC 2104) of `message` under a key of any length (64 bytes).
    static func hmacSHA512(key: [UInt8], message: [UInt8]) -> [UInt8] {
        prepare()
        var state = crypto_auth_hmacsha512_state()
        _ = withBytes(key) { crypto_auth_hmacsha512_init(&state, $0, key.count) }
        _ = withBytes(message) { crypto_auth_hmacsha512_update(&state, $0, UInt64(message.count)) }
        let tag = filling(Int(crypto_auth_hmacsha512_BYTES)) { crypto_auth_hmacsha512_final(&state, $0) }.bytes
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha512_state>.size)
        return tag
    }

    /// Whether two byte strings are equal, in time independent of where they differ.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return withBytes(a) { left in withBytes(b) { right in sodium_memcmp(left, right, a.count) == 0 } }
    }

    /// Whether every byte of `bytes` is zero, in constant time.
    static func isZero(_ bytes: [UInt8]) -> Bool {
        withBytes(bytes) { sodium_is_zero($0, bytes.count) == 1 }
    }

    // MARK: X25519

    /// The X25519 public key of a 32-byte private key.
    static func x25519PublicKey(privateKey: [UInt8]) throws(SodiumError) -> [UInt8] {
        try ensureInitialized()
        try requireLength(privateKey, Int(crypto_scalarmult_curve25519_SCALARBYTES), "X25519 private key")
        let (publicKey, result) = filling(Int(crypto_scalarmult_curve25519_BYTES)) { out in
            withBytes(privateKey) { crypto_scalarmult_curve25519_base(out, $0) }
        }
        try check(result, "crypto_scalarmult_curve25519_base")
        return publicKey
    }

    /// X25519 Diffie-Hellman; fails (rather than returning zeros) for a
    /// low-order peer key, as libsodium does.
    static func x25519(privateKey: [UInt8], publicKey: [UInt8]) throws(SodiumError) -> [UInt8] {
        try ensureInitialized()
        try requireLength(privateKey, Int(crypto_scalarmult_curve25519_SCALARBYTES), "X25519 private key")
        try requireLength(publicKey, Int(crypto_scalarmult_curve25519_BYTES), "X25519 public key")
        let (shared, result) = filling(Int(crypto_scalarmult_curve25519_BYTES)) { out in
            withBytes(privateKey) { scalar in withBytes(publicKey) { crypto_scalarmult_curve25519(out, scalar, $0) } }
        }
        try check(result, "crypto_scalarmult_curve25519")
        return shared
    }

    // MARK: ChaCha20-Poly1305 (IETF)

    /// ChaCha20-Poly1305 IETF encryption: ciphertext followed by the 16-byte tag.
    static func chachaPolySeal(
        key: [UInt8], nonce: [UInt8], associatedData: [UInt8], plaintext: [UInt8]
    ) throws(SodiumError) -> [UInt8] {
        try ensureInitialized()
        try requireLength(key, Int(crypto_aead_chacha20poly1305_ietf_KEYBYTES), "ChaCha20-Poly1305 key")
        try requireLength(nonce, Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES), "ChaCha20-Poly1305 nonce")
        var written: UInt64 = 0
        let (sealed, result) = filling(plaintext.count + Int(crypto_aead_chacha20poly1305_ietf_ABYTES)) { out in
            withBytes(plaintext) { message in
                withBytes(associatedData) { ad in
                    withBytes(nonce) { nonceBytes in
                        withBytes(key) { keyBytes in
                            crypto_aead_chacha20poly1305_ietf_encrypt(
                                out, &written, message, UInt64(plaintext.count),
                                ad, UInt64(associatedData.count), nil, nonceBytes, keyBytes)
                        }
                    }
                }
            }
        }
        try check(result, "crypto_aead_chacha20poly1305_ietf_encrypt")
        return sealed
    }

    /// ChaCha20-Poly1305 IETF decryption; nil when the tag does not verify.
    static func chachaPolyOpen(
        key: [UInt8], nonce: [UInt8], associatedData: [UInt8], ciphertext: [UInt8]
    ) throws(SodiumError) -> [UInt8]? {
        try ensureInitialized()
        try requireLength(key, Int(crypto_aead_chacha20poly1305_ietf_KEYBYTES), "ChaCha20-Poly1305 key")
        try requireLength(nonce, Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES), "ChaCha20-Poly1305 nonce")
        let tagLength = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)
        guard ciphertext.count >= tagLength else { return nil }
        var written: UInt64 = 0
        let (opened, result) = filling(ciphertext.count - tagLength) { out in
            withBytes(ciphertext) { sealed in
                withBytes(associatedData) { ad in
                    withBytes(nonce) { nonceBytes in
                        withBytes(key) { keyBytes in
                            crypto_aead_chacha20poly1305_ietf_decrypt(
                                out, &written, nil, sealed, UInt64(ciphertext.count),
                                ad, UInt64(associatedData.count), nonceBytes, keyBytes)
                        }
                    }
                }
            }
        }
        return result == 0 ? opened : nil
    }

    // MARK: Ed25519

    /// The Ed25519 key pair for a 32-byte seed: (public key, 64-byte secret key).
    static func ed25519KeyPair(seed: [UInt8]) throws(SodiumError) -> (publicKey: [UInt8], secretKey: [UInt8]) {
        try ensureInitialized()
        try requireLength(seed, Int(crypto_sign_SEEDBYTES), "Ed25519 seed")
        var secretKey: [UInt8] = []
        let (publicKey, result) = filling(Int(crypto_sign_PUBLICKEYBYTES)) { pk in
            let (secret, code) = filling(Int(crypto_sign_SECRETKEYBYTES)) { sk in
                withBytes(seed) { crypto_sign_seed_keypair(pk, sk, $0) }
            }
            secretKey = secret
            return code
        }
        try check(result, "crypto_sign_seed_keypair")
        return (publicKey, secretKey)
    }

    /// A detached Ed25519 signature (64 bytes) of `message`.
    static func ed25519Sign(secretKey: [UInt8], message: [UInt8]) throws(SodiumError) -> [UInt8] {
        try ensureInitialized()
        try requireLength(secretKey, Int(crypto_sign_SECRETKEYBYTES), "Ed25519 secret key")
        let (signature, result) = filling(Int(crypto_sign_BYTES)) { out in
            withBytes(message) { input in
                withBytes(secretKey) { crypto_sign_detached(out, nil, input, UInt64(message.count), $0) }
            }
        }
        try check(result, "crypto_sign_detached")
        return signature
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`.
    static func ed25519Verify(publicKey: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        guard (try? ensureInitialized()) != nil,
              publicKey.count == Int(crypto_sign_PUBLICKEYBYTES),
              signature.count == Int(crypto_sign_BYTES)
        else { return false }
        return withBytes(signature) { sig in
            withBytes(message) { input in
                withBytes(publicKey) { crypto_sign_verify_detached(sig, input, UInt64(message.count), $0) == 0 }
            }
        }
    }

    /// The X25519 public key of the same secret as an Ed25519 public key.
    static func ed25519PublicKeyToX25519(_ publicKey: [UInt8]) throws(SodiumError) -> [UInt8] {
        try ensureInitialized()
        try requireLength(publicKey, Int(crypto_sign_PUBLICKEYBYTES), "Ed25519 public key")
        let (converted, result) = filling(Int(crypto_scalarmult_curve25519_BYTES)) { out in
            withBytes(publicKey) { crypto_sign_ed25519_pk_to_curve25519(out, $0) }
        }
        try check(result, "crypto_sign_ed25519_pk_to_curve25519")
        return converted
    }

    /// The X25519 private key of the same secret as a 64-byte Ed25519 secret key.
    static func ed25519SecretKeyToX25519(_ secretKey: [UInt8]) throws(SodiumError) -> [UInt8] {
        try ensureInitialized()
        try requireLength(secretKey, Int(crypto_sign_SECRETKEYBYTES), "Ed25519 secret key")
        let (converted, result) = filling(Int(crypto_scalarmult_curve25519_SCALARBYTES)) { out in
            withBytes(secretKey) { crypto_sign_ed25519_sk_to_curve25519(out, $0) }
        }
        try check(result, "crypto_sign_ed25519_sk_to_curve25519")
        return converted
    }

    // MARK: ristretto255

    /// The ristretto255 element derived from a 64-byte uniform string (RFC 9496's
    /// one-way map), encoded in 32 bytes.
    static func ristretto255FromHash(_ hash: [UInt8]) throws(SodiumError) -> [UInt8] {
        try ensureInitialized()
        try requireLength(hash, Int(crypto_core_ristretto255_HASHBYTES), "ristretto255 hash input")
        let (point, result) = filling(Int(crypto_core_ristretto255_BYTES)) { out in
            withBytes(hash) { crypto_core_ristretto255_from_hash(out, $0) }
        }
        try check(result, "crypto_core_ristretto255_from_hash")
        return point
    }

    /// `scalar` times the encoded element `point`; nil when `point` does not
    /// decode or the product is the identity (libsodium returns -1 for both).
    static func ristretto255ScalarMultiply(scalar: [UInt8], point: [UInt8]) throws(SodiumError) -> [UInt8]? {
        try ensureInitialized()
        try requireLength(scalar, Int(crypto_scalarmult_ristretto255_SCALARBYTES), "ristretto255 scalar")
        guard point.count == Int(crypto_core_ristretto255_BYTES) else { return nil }
        let (product, result) = filling(Int(crypto_core_ristretto255_BYTES)) { out in
            withBytes(scalar) { scalarBytes in withBytes(point) { crypto_scalarmult_ristretto255(out, scalarBytes, $0) } }
        }
        return result == 0 ? product : nil
    }

    /// Whether `point` is the canonical encoding of a ristretto255 element
    /// other than the identity.
    static func ristretto255IsValidPoint(_ point: [UInt8]) -> Bool {
        guard point.count == Int(crypto_core_ristretto255_BYTES), !isZero(point) else { return false }
        return withBytes(point) { crypto_core_ristretto255_is_valid_point($0) == 1 }
    }
}
