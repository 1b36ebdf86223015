import Secure

/// Why a passcode's cryptography failed. None of these happen with valid
/// arguments on a working system; they are errors rather than traps because
/// the library (libsodium, through Secure) is outside Swift's control.
public enum CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The system could not produce random bytes (libsodium's `randombytes_buf` failed to start).
    case randomUnavailable
    /// A library call failed; names the call.
    case failed(String)
    /// An argument does not fit (e.g. a non-positive PBKDF2 iteration count).
    case argumentTooLarge(String)

    /// What failed, as a sentence: "PBKDF2 iteration count is out of range".
    public var description: String {
        switch self {
        case .randomUnavailable: "the system could not produce random bytes (libsodium could not start)"
        case .failed(let call): "libsodium \(call) failed"
        case .argumentTooLarge(let what): "\(what) is out of range"
        }
    }
}

/// The passcode proofs' hashing (docs/PROTOCOL.md, "Passcodes"): HMAC-SHA256,
/// PBKDF2-HMAC-SHA256, random bytes and a constant-time comparison, all from
/// libsodium (Secure's `PasscodeHashing`), the one crypto library parlor links.
public enum Crypto {
    /// Length of an HMAC-SHA256 result.
    public static let sha256Length = PasscodeHashing.sha256Length

    /// HMAC-SHA256 of `data` under `key` (RFC 2104 with SHA-256, as RFC 4231 tests it).
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        PasscodeHashing.hmacSHA256(key: key, data: data)
    }

    /// PBKDF2 with HMAC-SHA256 (RFC 8018), `length` bytes.
    public static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) throws(CryptoError) -> [UInt8] {
        guard iterations > 0 else { throw .argumentTooLarge("PBKDF2 iteration count") }
        guard length > 0 else { throw .argumentTooLarge("PBKDF2 key length") }
        return PasscodeHashing.pbkdf2SHA256(password: password, salt: salt, iterations: iterations, length: length)
    }

    /// `count` bytes from the system's CSPRNG.
    public static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        do {
            return try PasscodeHashing.randomBytes(count)
        } catch {
            throw .randomUnavailable
        }
    }

    /// Whether `a` and `b` are equal, in time that does not depend on where
    /// they differ. Different lengths are unequal at once: lengths are not secret here.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        PasscodeHashing.constantTimeEqual(a, b)
    }
}
