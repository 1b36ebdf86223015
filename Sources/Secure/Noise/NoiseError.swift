/// Why a Noise handshake or transport step was refused.
///
/// After any error a `NoiseHandshake` is spent (`failedEarlier` from then on):
/// the Noise spec asks that a handshake which failed is abandoned, never resumed.
/// A `NoiseTransport` stays usable after `authenticationFailed` (its nonce did not
/// move), but a caller on a reliable stream should close the channel.
public enum NoiseError: Error, Equatable, Sendable {
    /// `writeMessage` while the peer is due to speak, or `readMessage` while we are.
    case notOurTurn
    /// A handshake call after the last handshake message; use the transport.
    case handshakeComplete
    /// This handshake failed before; start a new one.
    case failedEarlier
    /// A message (handshake or transport) over the Noise limit of 65,535 bytes.
    case messageTooLong(length: Int)
    /// A message shorter than its pattern's keys and tags.
    case messageTooShort(length: Int)
    /// A ciphertext did not authenticate: tampered, out of order, or a wrong key
    /// (in `XXpsk3`, a different pre-shared key or passcode).
    case authenticationFailed
    /// A peer's X25519 key gave an all-zero shared secret (a low-order point).
    case invalidPublicKey
    /// `XXpsk3` without a pre-shared key, or one that is not 32 bytes.
    case presharedKeyRequired
    /// A key or value expected by the pattern is absent (a bug in the caller's inputs).
    case keyMissing(String)
    /// The 2^64−1 nonces of a cipher state are used up; rekeying does not reset
    /// them, so the channel must be replaced by a new handshake.
    case nonceExhausted
    /// libsodium failed.
    case sodium(SodiumError)
}
