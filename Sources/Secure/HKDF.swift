/// HKDF with HMAC-SHA-256 (RFC 5869), as the Noise spec's `HKDF()` uses it.
///
/// Noise's `HKDF(chaining_key, input_key_material, num_outputs)` is RFC 5869
/// with the chaining key as salt, an empty info string and 32-byte outputs:
/// `temp_key = HMAC(chaining_key, ikm)`, `output1 = HMAC(temp_key, 0x01)`,
/// `output2 = HMAC(temp_key, output1 || 0x02)`, `output3 = HMAC(temp_key, output2 || 0x03)`.
/// Written here because libsodium 1.0.18 has no HKDF; the HMAC is libsodium's.
public enum HKDF {
    /// The size of one output block (SHA-256's digest).
    public static let blockLength = 32

    /// RFC 5869 Extract: a pseudorandom key from a salt and input key material.
    public static func extract(salt: [UInt8], inputKeyMaterial: [UInt8]) -> [UInt8] {
        Sodium.hmacSHA256(key: salt, message: inputKeyMaterial)
    }

    /// RFC 5869 Expand: `count` blocks of 32 bytes from a pseudorandom key and `info`.
    ///
    /// `count` is at most 255 (RFC 5869's limit); a larger value is clamped.
    public static func expand(pseudorandomKey: [UInt8], info: [UInt8] = [], count: Int) -> [[UInt8]] {
        var outputs: [[UInt8]] = []
        var previous: [UInt8] = []
        for index in 1...max(1, min(count, 255)) {
            previous = Sodium.hmacSHA256(key: pseudorandomKey, message: previous + info + [UInt8(index)])
            outputs.append(previous)
        }
        return outputs
    }

    /// Noise's `HKDF()`: two or three 32-byte outputs from the chaining key and
    /// input key material (Noise spec rev 34, section 4.3).
    public static func noise(chainingKey: [UInt8], inputKeyMaterial: [UInt8], outputs: Int) -> [[UInt8]] {
        let temporaryKey = extract(salt: chainingKey, inputKeyMaterial: inputKeyMaterial)
        return expand(pseudorandomKey: temporaryKey, count: outputs)
    }
}
