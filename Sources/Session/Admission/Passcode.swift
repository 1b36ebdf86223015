import Match

/// What a host that needs a passcode sends in CHALLENGE (docs/PROTOCOL.md,
/// "Passcodes"): the match a guest would join and a fresh random nonce for
/// this connection. The guest answers with a HELLO whose passcode proof is
/// bound to both, so a proof seen on one connection is useless on another.
public struct PasscodeChallenge: Hashable, Sendable {
    /// How the key and proof are computed; 1 is the only method
    /// (`PasscodeKey.method`): PBKDF2-HMAC-SHA256 key, HMAC-SHA256 proof.
    public var method: UInt8
    /// The match the guest is asking to join: the key's salt and part of the proof.
    public var matchID: MatchID
    /// 16 random bytes, new for every connection.
    public var hostNonce: [UInt8]

    /// A challenge; see the fields.
    public init(method: UInt8 = PasscodeKey.method, matchID: MatchID, hostNonce: [UInt8]) {
        self.method = method
        self.matchID = matchID
        self.hostNonce = hostNonce
    }

    /// A challenge for `matchID` with a nonce from the system CSPRNG (libsodium).
    public static func fresh(for matchID: MatchID) throws(CryptoError) -> PasscodeChallenge {
        PasscodeChallenge(matchID: matchID, hostNonce: try Crypto.randomBytes(PasscodeKey.nonceLength))
    }
}

/// The secret both sides derive from a passcode for one match, and the
/// proofs made with it.
///
///     key   = PBKDF2-HMAC-SHA256(password: normalized code,
///                                salt: "parlor-passcode-v1" ‖ match id,
///                                100 000 iterations, 32 bytes)
///     proof = guest nonce ‖ HMAC-SHA256(key, "parlor-passcode-v1" ‖ match id ‖ host nonce ‖ guest nonce)
///
/// The host derives the key once per match; the guest once per join. The
/// slow key makes guessing a code from a captured exchange cost 100 000
/// HMACs per guess; the code is still only as strong as its length.
public struct PasscodeKey: Hashable, Sendable {
    /// The only proof method: PBKDF2-HMAC-SHA256 key, HMAC-SHA256 proof.
    public static let method: UInt8 = 1
    /// PBKDF2 iterations of method 1.
    public static let iterations = 100_000
    /// Bytes of each nonce.
    public static let nonceLength = 16
    /// Bytes of a proof in HELLO: the guest nonce and the HMAC.
    public static let proofLength = nonceLength + Crypto.sha256Length
    /// The domain label in the salt and in every proof, so a key or proof of
    /// parlor can never be mistaken for one of anything else.
    public static let label: [UInt8] = Array("parlor-passcode-v1".utf8)

    /// The match this key belongs to.
    public let matchID: MatchID
    /// The 32 derived bytes.
    public let bytes: [UInt8]

    /// Derives the key for `code` (normalized first, see `normalized(_:)`) and `matchID`.
    /// Takes some 30-80 ms of CPU: call it once per match or join, not per message.
    public init(code: String, matchID: MatchID) throws(CryptoError) {
        self.matchID = matchID
        self.bytes = try Crypto.pbkdf2SHA256(password: Self.normalized(code), salt: Self.label + matchID.bytes,
                                             iterations: Self.iterations, length: Crypto.sha256Length)
    }

    /// The code as it is keyed: ASCII letters upper-cased, spaces and `-`
    /// dropped, so "abc-def", "ABC DEF" and "ABCDEF" are the same code.
    public static func normalized(_ code: String) -> [UInt8] {
        code.utf8.compactMap { byte -> UInt8? in
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") { return nil }
            if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) { return byte - 32 }
            return byte
        }
    }

    /// The HMAC over the label, the match id and both nonces.
    func mac(hostNonce: [UInt8], guestNonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        try Crypto.hmacSHA256(key: bytes, data: Self.label + matchID.bytes + hostNonce + guestNonce)
    }

    /// The HELLO proof answering `challenge`: `guestNonce` (16 bytes; fresh
    /// random ones when nil) followed by the HMAC.
    public func proof(for challenge: PasscodeChallenge, guestNonce: [UInt8]? = nil) throws(CryptoError) -> [UInt8] {
        let nonce: [UInt8]
        if let guestNonce { nonce = guestNonce } else { nonce = try Crypto.randomBytes(Self.nonceLength) }
        return nonce + (try mac(hostNonce: challenge.hostNonce, guestNonce: nonce))
    }

    /// Whether `proof` answers `challenge` with this key. Compared with
    /// CRYPTO_memcmp; a proof of the wrong length or for another match is false.
    public func accepts(_ proof: [UInt8], for challenge: PasscodeChallenge) -> Bool {
        guard proof.count == Self.proofLength, challenge.matchID == matchID, challenge.method == Self.method else { return false }
        let guestNonce = Array(proof.prefix(Self.nonceLength))
        guard let expected = try? mac(hostNonce: challenge.hostNonce, guestNonce: guestNonce) else { return false }
        return Crypto.constantTimeEqual(Array(proof.suffix(Crypto.sha256Length)), expected)
    }

    /// The letters of generated codes: no 0/O, 1/I/L, so a code read aloud or
    /// copied from a screen cannot be mistyped into another valid code.
    public static let codeAlphabet: [Character] = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    /// A fresh code for `parlor host --code`: six symbols of `codeAlphabet`
    /// (31^6, about 30 bits) shown as two groups, e.g. "K7M-Q4P".
    public static func generateCode() throws(CryptoError) -> String {
        var symbols: [Character] = []
        // Rejection sampling keeps every symbol equally likely: 248 = 8 × 31.
        let limit = UInt8(256 / codeAlphabet.count * codeAlphabet.count)
        while symbols.count < 6 {
            for byte in try Crypto.randomBytes(16) where byte < limit && symbols.count < 6 {
                symbols.append(codeAlphabet[Int(byte) % codeAlphabet.count])
            }
        }
        return String(symbols.prefix(3)) + "-" + String(symbols.suffix(3))
    }
}
