import CSodium

/// The hashing a passcode proof needs (docs/PROTOCOL.md, "Passcodes"), over
/// libsodium: HMAC-SHA-256, PBKDF2-HMAC-SHA-256 (RFC 8018, built from HMAC as
/// RFC 8018 section 5.2 says: libsodium has HMAC, not PBKDF2), random bytes and
/// a constant-time comparison. The one place Session takes them from.
public enum PasscodeHashing {
    /// Length of an HMAC-SHA-256 tag.
    public static let sha256Length = 32

    /// HMAC-SHA-256 of `data` under `key`.
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        Sodium.hmacSHA256(key: key, message: data)
    }

    /// PBKDF2 with HMAC-SHA-256: `length` bytes from `password` and `salt`
    /// after `iterations` rounds. The key's HMAC state is set up once and
    /// copied for each round (two SHA-256 compressions a round, as OpenSSL's).
    ///
    /// - Precondition: `iterations` and `length` are positive.
    public static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        precondition(iterations > 0 && length > 0, "PBKDF2 needs a positive iteration count and length")
        Sodium.prepare()
        var keyed = crypto_auth_hmacsha256_state()
        _ = Sodium.withBytes(password) { crypto_auth_hmacsha256_init(&keyed, $0, password.count) }
        defer { sodium_memzero(&keyed, MemoryLayout<crypto_auth_hmacsha256_state>.size) }
        func mac(_ message: [UInt8]) -> [UInt8] {
            var state = keyed
            defer { sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size) }
            _ = Sodium.withBytes(message) { crypto_auth_hmacsha256_update(&state, $0, UInt64(message.count)) }
            return Sodium.filling(sha256Length) { crypto_auth_hmacsha256_final(&state, $0) }.bytes
        }
        var output: [UInt8] = []
        output.reserveCapacity(length)
        var block: UInt32 = 1
        while output.count < length {
            var u = mac(salt + [UInt8(block >> 24), UInt8(block >> 16 & 0xFF), UInt8(block >> 8 & 0xFF), UInt8(block & 0xFF)])
            var t = u
            for _ in 1..<iterations {
                u = mac(u)
                for index in 0..<sha256Length { t[index] ^= u[index] }
            }
            output += t.prefix(length - output.count)
            block += 1
        }
        return output
    }

    /// `count` bytes from the system's CSPRNG (libsodium's `randombytes_buf`).
    public static func randomBytes(_ count: Int) throws(SodiumError) -> [UInt8] {
        try Sodium.randomBytes(count)
    }

    /// Whether `a` and `b` are equal, in time that does not depend on where they differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        Sodium.constantTimeEqual(a, b)
    }
}
