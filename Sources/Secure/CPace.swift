/// Why a CPace exchange was refused.
public enum CPaceError: Error, Equatable, Sendable {
    /// The peer's share is not a valid ristretto255 encoding, is the identity,
    /// or gives the identity as shared point: the draft says to abort.
    case invalidShare
    /// An injected scalar that is not 32 bytes.
    case wrongScalarLength(Int)
    /// `receive` after the exchange finished or failed; start a new exchange.
    case finished
    /// libsodium failed.
    case sodium(SodiumError)
}

/// CPace, the CFRG's balanced PAKE (draft-irtf-cfrg-cpace), suite
/// CPACE-RISTR255-SHA512 in the initiator-responder setting, as a pure value.
///
/// Both sides know a password-related string (PRS, e.g. a normalised
/// passcode), a channel identifier CI (never sent: bind the parties'
/// identities and roles here) and a session id `sid` (public and unique per
/// session, e.g. random bytes from both sides). Each sends its `share` (Ya or
/// Yb, 32 bytes) and its associated data (ADa or ADb, sent in clear); each
/// then calls `receive` with the other's, and both obtain the same 64-byte
/// intermediate session key (ISK) only if PRS, CI, sid and both messages agree.
///
/// The share is `y·g` for a fresh random scalar `y` and a generator `g`
/// derived from the PRS: it is uniformly distributed whatever the password, so
/// a recording of the exchange lets nobody test a password guess offline; an
/// active attacker gets one guess per exchange. Nothing here sends a hash or a
/// MAC of the password. The draft's K is never exposed; only the ISK leaves.
public struct CPace: Sendable {
    /// Which message comes first in the transcript: the initiator's (Ya, ADa).
    public enum Role: Sendable, Equatable {
        /// Party A: its share and associated data are Ya and ADa.
        case initiator
        /// Party B: its share and associated data are Yb and ADb.
        case responder
    }

    /// The suite's domain-separation identifier, `G.DSI`.
    public static let domainSeparator: [UInt8] = Array("CPaceRistretto255".utf8)
    /// SHA-512's input block size, `H.s_in_bytes`, which the generator string pads to.
    static let hashBlockLength = 128
    /// A share's length on the wire.
    public static let shareLength = 32
    /// The ISK's length (a SHA-512 digest).
    public static let sessionKeyLength = 64

    private enum State: Sendable {
        case awaitingPeer(scalar: [UInt8])
        case done
    }

    /// This side's role.
    public let role: Role
    /// The share to send to the peer (Ya for the initiator, Yb for the responder).
    public let share: [UInt8]
    /// The associated data to send with the share (ADa or ADb); travels in clear.
    public let associatedData: [UInt8]
    private let sessionID: [UInt8]
    private var state: State

    /// Starts an exchange: derives the generator and this side's share.
    ///
    /// - Parameters:
    ///   - scalar: for test vectors only (32 bytes, little-endian); nil samples
    ///     one as the draft recommends. A scalar must never be reused.
    /// - Throws: `wrongScalarLength`, `invalidShare` (a scalar of zero), `sodium`.
    public init(
        role: Role, password: [UInt8], channelIdentifier: [UInt8] = [], sessionID: [UInt8] = [],
        associatedData: [UInt8] = [], scalar: [UInt8]? = nil
    ) throws(CPaceError) {
        let chosen: [UInt8]
        if let scalar {
            guard scalar.count == 32 else { throw .wrongScalarLength(scalar.count) }
            chosen = scalar
        } else {
            chosen = try Self.sampleScalar()
        }
        let generator = try Self.generator(password: password, channelIdentifier: channelIdentifier, sessionID: sessionID)
        guard let share = try Self.multiply(chosen, generator) else { throw .invalidShare }
        self.role = role
        self.share = share
        self.associatedData = associatedData
        self.sessionID = sessionID
        self.state = .awaitingPeer(scalar: chosen)
    }

    /// Takes the peer's share and associated data and returns the ISK (64 bytes).
    ///
    /// The ISK is an intermediate key: run it through a KDF before use (see
    /// `noisePresharedKey(fromSessionKey:label:)`). A wrong password does not
    /// fail here; it gives a different ISK, which the next authenticated step
    /// (e.g. Noise with the derived PSK) refuses.
    ///
    /// - Throws: `invalidShare` (the exchange is then over), `finished`.
    public mutating func receive(peerShare: [UInt8], peerAssociatedData: [UInt8]) throws(CPaceError) -> [UInt8] {
        guard case .awaitingPeer(let scalar) = state else { throw .finished }
        state = .done
        guard Sodium.ristretto255IsValidPoint(peerShare), let point = try Self.multiply(scalar, peerShare) else {
            throw .invalidShare
        }
        let transcript: [UInt8] = switch role {
        case .initiator: Self.transcriptInitiatorResponder(
            initiatorShare: share, initiatorData: associatedData, responderShare: peerShare, responderData: peerAssociatedData)
        case .responder: Self.transcriptInitiatorResponder(
            initiatorShare: peerShare, initiatorData: peerAssociatedData, responderShare: share, responderData: associatedData)
        }
        return Sodium.sha512(Self.lengthValueConcatenation([Self.domainSeparator + Array("_ISK".utf8), sessionID, point]) + transcript)
    }

    /// A 32-byte Noise pre-shared key from an ISK: HKDF-SHA-256 (RFC 5869) with
    /// an empty salt and `label` as info, so a protocol names its own use.
    public static func noisePresharedKey(fromSessionKey sessionKey: [UInt8], label: [UInt8]) -> [UInt8] {
        HKDF.expand(pseudorandomKey: HKDF.extract(salt: [], inputKeyMaterial: sessionKey), info: label, count: 1)[0]
    }

    // MARK: The draft's functions

    /// `G.sample_scalar()`: 32 random bytes with the bits above 252 cleared.
    static func sampleScalar() throws(CPaceError) -> [UInt8] {
        do throws(SodiumError) {
            var scalar = try Sodium.randomBytes(32)
            scalar[31] &= 0x0f
            return scalar
        } catch {
            throw .sodium(error)
        }
    }

    /// `G.calculate_generator(H, PRS, CI, sid)`, encoded: SHA-512 of the
    /// generator string, mapped with ristretto255's element derivation.
    static func generator(password: [UInt8], channelIdentifier: [UInt8], sessionID: [UInt8]) throws(CPaceError) -> [UInt8] {
        let string = generatorString(password: password, channelIdentifier: channelIdentifier, sessionID: sessionID)
        do throws(SodiumError) {
            return try Sodium.ristretto255FromHash(Sodium.sha512(string))
        } catch {
            throw .sodium(error)
        }
    }

    /// `generator_string(DSI, PRS, CI, sid, 128)`: `lv_cat(DSI, PRS, zero_bytes(len_zpad), CI, sid)`,
    /// the zero padding filling the first SHA-512 block after DSI and PRS.
    static func generatorString(password: [UInt8], channelIdentifier: [UInt8], sessionID: [UInt8]) -> [UInt8] {
        let padding = max(0, hashBlockLength - 1 - prependLength(password).count - prependLength(domainSeparator).count)
        return lengthValueConcatenation([
            domainSeparator, password, [UInt8](repeating: 0, count: padding), channelIdentifier, sessionID,
        ])
    }

    /// `prepend_len(data)`: the LEB128 encoding of the length, then the data.
    static func prependLength(_ data: [UInt8]) -> [UInt8] {
        var encoded: [UInt8] = []
        var length = data.count
        repeat {
            let low = UInt8(length & 0x7f)
            length >>= 7
            encoded.append(length == 0 ? low : low | 0x80)
        } while length != 0
        return encoded + data
    }

    /// `lv_cat(a0, a1, …)`: each string with its length prepended.
    static func lengthValueConcatenation(_ parts: [[UInt8]]) -> [UInt8] {
        parts.flatMap(prependLength)
    }

    /// `transcript_ir(Ya, ADa, Yb, ADb) = lv_cat(Ya, ADa) || lv_cat(Yb, ADb)`.
    static func transcriptInitiatorResponder(
        initiatorShare: [UInt8], initiatorData: [UInt8], responderShare: [UInt8], responderData: [UInt8]
    ) -> [UInt8] {
        lengthValueConcatenation([initiatorShare, initiatorData]) + lengthValueConcatenation([responderShare, responderData])
    }

    /// `scalar_mult_vfy`: nil for an undecodable point or an identity result.
    static func multiply(_ scalar: [UInt8], _ point: [UInt8]) throws(CPaceError) -> [UInt8]? {
        do throws(SodiumError) {
            return try Sodium.ristretto255ScalarMultiply(scalar: scalar, point: point)
        } catch {
            throw .sodium(error)
        }
    }
}
