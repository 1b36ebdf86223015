// Target `secure`: the readers of bytes from the network in the Secure module
// (issue 38): a Noise XX / XXpsk3 handshake message read at each of its three
// steps, a sealed transport message opened, and a CPace share received.
//
// Invariants: nothing traps; a second or third handshake message, or a
// transport message, reads only when it is the very bytes the other side
// would have written (keys are fixed, so the fuzzer can find them from the
// seeds), and a transport message opens once; what is sealed opens; a CPace
// share is either refused or gives a 64-byte key.
@preconcurrency import Glibc
import Secure

/// Fixed keys, so a failure replays.
let initiatorStatic = try! X25519KeyPair(privateKey: (0..<32).map { UInt8($0) })
let responderStatic = try! X25519KeyPair(privateKey: (0..<32).map { UInt8(255 - $0) })
let initiatorEphemeral = try! X25519KeyPair(privateKey: (0..<32).map { UInt8($0 &* 7 &+ 1) })
let responderEphemeral = try! X25519KeyPair(privateKey: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 3) })
let psk = [UInt8](repeating: 0x42, count: 32)

func pair(_ pattern: NoiseHandshake.Pattern) -> (NoiseHandshake, NoiseHandshake) {
    do {
        let initiator = try NoiseHandshake(pattern: pattern, role: .initiator, prologue: Array("parlor 3".utf8), staticKey: initiatorStatic,
                                           ephemeralKey: initiatorEphemeral, presharedKey: psk)
        let responder = try NoiseHandshake(pattern: pattern, role: .responder, prologue: Array("parlor 3".utf8), staticKey: responderStatic,
                                           ephemeralKey: responderEphemeral, presharedKey: psk)
        return (initiator, responder)
    } catch {
        fputs("cannot start a handshake: \(error)\n", stderr)
        abort()
    }
}

func fuzzOne(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let input = Array(bytes.dropFirst())
    let pattern: NoiseHandshake.Pattern = first & 1 == 0 ? .xx : .xxpsk3
    var (initiator, responder) = pair(pattern)
    switch (first >> 1) % 5 {
    case 0:
        // The responder reads the first message from the input.
        let read = try? responder.readMessage(input)
        if read != nil {
            // -> e: 32 bytes and a payload in clear (XX) or sealed under a key from e alone (psk3).
            fuzzCheck(input.count >= 32, "a first message of \(input.count) bytes was read")
        }
    case 1:
        // The initiator reads the second message from the input: only the responder's own one reads.
        let one = try! initiator.writeMessage()
        var genuine = responder
        _ = try! genuine.readMessage(one)
        if (try? initiator.readMessage(input)) != nil {
            fuzzCheck(input == (try! genuine.writeMessage()), "a forged second message was read")
        }
    case 2:
        // The responder reads the third message from the input: only the initiator's own one reads.
        _ = try! responder.readMessage(try! initiator.writeMessage())
        _ = try! initiator.readMessage(try! responder.writeMessage())
        if (try? responder.readMessage(input)) != nil {
            fuzzCheck(input == (try! initiator.writeMessage()), "a forged third message was read")
        }
    case 3:
        // A whole handshake, then a transport message from the input.
        let one = try! initiator.writeMessage()
        _ = try! responder.readMessage(one)
        _ = try! initiator.readMessage(try! responder.writeMessage())
        _ = try! responder.readMessage(try! initiator.writeMessage())
        guard var sender = initiator.transport, var receiver = responder.transport else {
            fuzzCheck(false, "a complete handshake gave no transport")
            return
        }
        if let opened = try? receiver.open(input) {
            // Only what the sender seals with its first nonce opens first.
            var first = sender
            fuzzCheck(input == (try! first.seal(opened)), "a forged transport message opened")
            fuzzCheck((try? receiver.open(input)) == nil, "a replayed transport message opened")
            return
        }
        // What is sealed opens, once, and only in order.
        let plain = Array(input.prefix(65_000))
        let sealed = try! sender.seal(plain)
        fuzzCheck((try? receiver.open(sealed)) == plain, "a sealed message did not open")
        fuzzCheck((try? receiver.open(sealed)) == nil, "a replayed transport message opened")
    default:
        // A CPace share (and its associated data) from the input.
        guard var exchange = try? CPace(role: .responder, password: Array("k7m-q4p".utf8), channelIdentifier: Array("fuzz".utf8),
                                        sessionID: [UInt8](repeating: 7, count: 16), scalar: (0..<32).map { UInt8($0 | 1) }) else {
            fuzzCheck(false, "CPace could not start")
            return
        }
        let share = Array(input.prefix(32)), data = Array(input.dropFirst(32))
        if let key = try? exchange.receive(peerShare: share, peerAssociatedData: data) {
            fuzzCheck(key.count == 64 && share.count == 32, "a CPace key of \(key.count) bytes from a share of \(share.count)")
        }
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    var seeds: [(String, [UInt8])] = []
    for (flag, pattern) in [(UInt8(0), NoiseHandshake.Pattern.xx), (1, .xxpsk3)] {
        var (initiator, responder) = pair(pattern)
        let one = try! initiator.writeMessage()
        _ = try! responder.readMessage(one)
        let two = try! responder.writeMessage()
        _ = try! initiator.readMessage(two)
        let three = try! initiator.writeMessage()
        seeds.append(("first-\(flag)", [flag | 0 << 1] + one))
        seeds.append(("second-\(flag)", [flag | 1 << 1] + two))
        seeds.append(("third-\(flag)", [flag | 2 << 1] + three))
        seeds.append(("transport-\(flag)", [flag | 3 << 1] + Array("TURN 4".utf8)))
    }
    if let peer = try? CPace(role: .initiator, password: Array("k7m-q4p".utf8), channelIdentifier: Array("fuzz".utf8),
                             sessionID: [UInt8](repeating: 7, count: 16)) {
        seeds.append(("cpace", [4 << 1] + peer.share + Array("ADa".utf8)))
    }
    return seeds
}
