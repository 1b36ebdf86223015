import Testing
@testable import Secure

/// Full handshakes between two machines, then the transport, as parlor's
/// guest (initiator) and host (responder) will run them.
@Suite struct NoiseRoundTripTests {
    struct Pair {
        var initiator: NoiseTransport
        var responder: NoiseTransport
    }

    static func handshake(
        _ pattern: NoiseHandshake.Pattern = .xx,
        initiatorPrologue: [UInt8] = ascii("parlor 3"), responderPrologue: [UInt8] = ascii("parlor 3"),
        initiatorKey: [UInt8]? = nil, responderKey: [UInt8]? = nil
    ) throws -> Pair {
        var initiator = try NoiseHandshake(
            pattern: pattern, role: .initiator, prologue: initiatorPrologue,
            staticKey: X25519KeyPair.generate(), presharedKey: initiatorKey)
        var responder = try NoiseHandshake(
            pattern: pattern, role: .responder, prologue: responderPrologue,
            staticKey: X25519KeyPair.generate(), presharedKey: responderKey)
        #expect(initiator.isOurTurn && !responder.isOurTurn)
        #expect(try responder.readMessage(initiator.writeMessage(payload: ascii("hello"))) == ascii("hello"))
        #expect(try initiator.readMessage(responder.writeMessage(payload: ascii("welcome"))) == ascii("welcome"))
        #expect(try responder.readMessage(initiator.writeMessage(payload: ascii("seated"))) == ascii("seated"))
        #expect(initiator.handshakeHash == responder.handshakeHash)
        return Pair(initiator: try #require(initiator.transport), responder: try #require(responder.transport))
    }

    @Test(arguments: [NoiseHandshake.Pattern.xx, .xxpsk3])
    func transportWorksBothWays(_ pattern: NoiseHandshake.Pattern) throws {
        let key: [UInt8]? = pattern == .xxpsk3 ? [UInt8](repeating: 7, count: 32) : nil
        var pair = try Self.handshake(pattern, initiatorKey: key, responderKey: key)
        for round in 0..<5 {
            let move = ascii("move \(round)")
            let sealed = try pair.initiator.seal(move)
            #expect(sealed.count == move.count + 16)
            #expect(sealed != move)
            #expect(try pair.responder.open(sealed) == move)
            let reply = ascii("reply \(round)")
            #expect(try pair.initiator.open(pair.responder.seal(reply)) == reply)
        }
        // The largest message passes; an empty one too.
        let largest = [UInt8](repeating: 0x41, count: NoiseTransport.maximumPlaintextLength)
        #expect(try pair.responder.open(pair.initiator.seal(largest)) == largest)
        #expect(try pair.responder.open(pair.initiator.seal([])) == [])
    }

    @Test func theRemoteStaticKeysAreLearned() throws {
        let guestKey = try X25519KeyPair.generate()
        let hostKey = try X25519KeyPair.generate()
        var guest = try NoiseHandshake(pattern: .xx, role: .initiator, staticKey: guestKey)
        var host = try NoiseHandshake(pattern: .xx, role: .responder, staticKey: hostKey)
        _ = try host.readMessage(guest.writeMessage())
        _ = try guest.readMessage(host.writeMessage())
        #expect(guest.remoteStaticKey == hostKey.publicKey)
        _ = try host.readMessage(guest.writeMessage())
        #expect(host.transport?.remoteStaticKey == guestKey.publicKey)
        #expect(guest.transport?.remoteStaticKey == hostKey.publicKey)
    }

    @Test func rekeyKeepsBothSidesInStepAndChangesTheCiphertext() throws {
        var pair = try Self.handshake()
        var copy = pair
        try pair.initiator.rekeySending()
        try pair.responder.rekeyReceiving()
        let rekeyed = try pair.initiator.seal(ascii("after rekey"))
        let unrekeyed = try copy.initiator.seal(ascii("after rekey"))
        #expect(rekeyed != unrekeyed)
        #expect(pair.initiator.sending.nonce == copy.initiator.sending.nonce, "rekey keeps the nonce")
        #expect(try pair.responder.open(rekeyed) == ascii("after rekey"))
        // A side that did not rekey cannot read the other's messages.
        #expect(throws: NoiseError.authenticationFailed) { try copy.responder.open(rekeyed) }
    }

    @Test func tamperedReplayedAndReorderedMessagesAreRefused() throws {
        var pair = try Self.handshake()
        let first = try pair.initiator.seal(ascii("e2e4"))
        let second = try pair.initiator.seal(ascii("d2d4"))
        for index in [0, first.count / 2, first.count - 1] {
            var tampered = first
            tampered[index] ^= 0x01
            #expect(throws: NoiseError.authenticationFailed) { try pair.responder.open(tampered) }
        }
        #expect(throws: NoiseError.authenticationFailed) { try pair.responder.open(second) }
        // Failed opens do not move the nonce: the genuine stream still reads.
        #expect(try pair.responder.open(first) == ascii("e2e4"))
        #expect(throws: NoiseError.authenticationFailed) { try pair.responder.open(first) }
        #expect(try pair.responder.open(second) == ascii("d2d4"))
        #expect(throws: NoiseError.messageTooShort(length: 15)) { try pair.responder.open([UInt8](repeating: 0, count: 15)) }
    }

    @Test func tooLongMessagesAreRefused() throws {
        var pair = try Self.handshake()
        let tooLong = [UInt8](repeating: 0, count: NoiseTransport.maximumPlaintextLength + 1)
        #expect(throws: NoiseError.messageTooLong(length: 65_536)) { try pair.initiator.seal(tooLong) }
        #expect(throws: NoiseError.messageTooLong(length: 65_536)) {
            try pair.responder.open([UInt8](repeating: 0, count: 65_536))
        }
        var handshake = try NoiseHandshake(pattern: .xx, role: .initiator, staticKey: X25519KeyPair.generate())
        #expect(throws: NoiseError.messageTooLong(length: 65_536 + 32)) {
            try handshake.writeMessage(payload: [UInt8](repeating: 0, count: 65_536))
        }
    }

    @Test func anExhaustedNonceIsRefused() throws {
        var cipher = CipherState(key: [UInt8](repeating: 1, count: 32))
        cipher.setNonce(UInt64.max - 1)
        _ = try cipher.encrypt(associatedData: [], plaintext: ascii("last"))
        #expect(throws: NoiseError.nonceExhausted) { try cipher.encrypt(associatedData: [], plaintext: ascii("one more")) }
        #expect(throws: NoiseError.nonceExhausted) { try cipher.decrypt(associatedData: [], ciphertext: [UInt8](repeating: 0, count: 16)) }
    }

    @Test func mismatchedPresharedKeysFailTheHandshake() throws {
        var initiator = try NoiseHandshake(
            pattern: .xxpsk3, role: .initiator, staticKey: X25519KeyPair.generate(),
            presharedKey: [UInt8](repeating: 1, count: 32))
        var responder = try NoiseHandshake(
            pattern: .xxpsk3, role: .responder, staticKey: X25519KeyPair.generate(),
            presharedKey: [UInt8](repeating: 2, count: 32))
        _ = try responder.readMessage(initiator.writeMessage(payload: ascii("hello")))
        _ = try initiator.readMessage(responder.writeMessage(payload: ascii("welcome")))
        let third = try initiator.writeMessage(payload: ascii("seated"))
        #expect(throws: NoiseError.authenticationFailed) { try responder.readMessage(third) }
        #expect(responder.transport == nil)
        #expect(throws: NoiseError.failedEarlier) { try responder.writeMessage() }
    }

    @Test func aMissingPresharedKeyIsRefusedUpFront() throws {
        #expect(throws: NoiseError.presharedKeyRequired) {
            try NoiseHandshake(pattern: .xxpsk3, role: .initiator, staticKey: X25519KeyPair.generate())
        }
        #expect(throws: NoiseError.presharedKeyRequired) {
            try NoiseHandshake(pattern: .xxpsk3, role: .initiator, staticKey: X25519KeyPair.generate(), presharedKey: [1, 2, 3])
        }
    }

    @Test func aDifferentPrologueFailsTheHandshake() throws {
        var initiator = try NoiseHandshake(pattern: .xx, role: .initiator, prologue: ascii("parlor 3 chess"), staticKey: X25519KeyPair.generate())
        var responder = try NoiseHandshake(pattern: .xx, role: .responder, prologue: ascii("parlor 3 go"), staticKey: X25519KeyPair.generate())
        _ = try responder.readMessage(initiator.writeMessage())
        let second = try responder.writeMessage()
        #expect(throws: NoiseError.authenticationFailed) { try initiator.readMessage(second) }
    }

    @Test func outOfTurnCallsAndCallsAfterTheEndAreRefused() throws {
        var responder = try NoiseHandshake(pattern: .xx, role: .responder, staticKey: X25519KeyPair.generate())
        #expect(throws: NoiseError.notOurTurn) { try responder.writeMessage() }
        #expect(throws: NoiseError.failedEarlier) { try responder.readMessage([]) }

        var initiator = try NoiseHandshake(pattern: .xx, role: .initiator, staticKey: X25519KeyPair.generate())
        var host = try NoiseHandshake(pattern: .xx, role: .responder, staticKey: X25519KeyPair.generate())
        _ = try host.readMessage(initiator.writeMessage())
        _ = try initiator.readMessage(host.writeMessage())
        _ = try host.readMessage(initiator.writeMessage())
        #expect(throws: NoiseError.handshakeComplete) { try initiator.writeMessage() }
    }

    @Test(arguments: [0, 31, 47])
    func truncatedHandshakeMessagesAreRefused(_ length: Int) throws {
        var initiator = try NoiseHandshake(pattern: .xx, role: .initiator, staticKey: X25519KeyPair.generate())
        var responder = try NoiseHandshake(pattern: .xx, role: .responder, staticKey: X25519KeyPair.generate())
        _ = try responder.readMessage(initiator.writeMessage())
        let second = try responder.writeMessage()
        #expect(throws: NoiseError.self) { try initiator.readMessage(Array(second.prefix(length))) }
    }

    /// A low-order X25519 point as the peer's ephemeral key gives an all-zero
    /// secret; libsodium refuses it and so does the handshake.
    @Test func aLowOrderEphemeralKeyIsRefused() throws {
        var responder = try NoiseHandshake(pattern: .xx, role: .responder, staticKey: X25519KeyPair.generate())
        _ = try responder.readMessage([UInt8](repeating: 0, count: 32))
        #expect(throws: NoiseError.invalidPublicKey) { try responder.writeMessage() }
    }
}
