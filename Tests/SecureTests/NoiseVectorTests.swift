import Testing
@testable import Secure

/// Known-answer tests against the cacophony vectors, transcribed from
/// github.com/mcginty/snow, `tests/vectors/cacophony.txt` (the entries named
/// `Noise_XX_25519_ChaChaPoly_SHA256` and `Noise_XXpsk3_25519_ChaChaPoly_SHA256`).
/// Messages alternate initiator, responder, initiator for the handshake, then
/// responder, initiator, responder in transport.
@Suite struct NoiseVectorTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let pattern: NoiseHandshake.Pattern
        let presharedKey: [UInt8]?
        let handshakeHash: String
        let ciphertexts: [String]
        var testDescription: String { pattern.protocolName }
    }

    // Shared by both vectors.
    static let prologue = "4a6f686e2047616c74"
    static let initiatorStatic = "e61ef9919cde45dd5f82166404bd08e38bceb5dfdfded0a34c8df7ed542214d1"
    static let initiatorEphemeral = "893e28b9dc6ca8d611ab664754b8ceb7bac5117349a4439a6b0569da977c464a"
    static let responderStatic = "4a3acbfdb163dec651dfa3194dece676d437029c62a408b4c5ea9114246e4893"
    static let responderEphemeral = "bbdb4cdbd309f1a1f2e1456967fe288cadd6f712d65dc7b7793d5e63da6b375b"
    static let payloads = [
        "4c756477696720766f6e204d69736573",
        "4d757272617920526f746862617264",
        "462e20412e20486179656b",
        "4361726c204d656e676572",
        "4a65616e2d426170746973746520536179",
        "457567656e2042f6686d20766f6e2042617765726b",
    ]

    static let vectors = [
        Vector(
            pattern: .xx, presharedKey: nil,
            handshakeHash: "c8e5f64e846193be2a834104c2a009868d6c9f3bd3c186299888b488b2f1f58e",
            ciphertexts: [
                "ca35def5ae56cec33dc2036731ab14896bc4c75dbb07a61f879f8e3afa4c79444c756477696720766f6e204d69736573",
                "95ebc60d2b1fa672c1f46a8aa265ef51bfe38e7ccb39ec5be34069f14480884381cbad1f276e038c48378ffce2b65285"
                    + "e08d6b68aaa3629a5a8639392490e5b9bd5269c2f1e4f488ed8831161f19b7815528f8982ffe09be9b5c412f8a0db5"
                    + "0f8814c7194e83f23dbd8d162c9326ad",
                "c7195ffacac1307ff99046f219750fc47693e23c3cb08b89c2af808b444850a80ae475b9df0f169ae80a89be0865b57f"
                    + "58c9fea0d4ec82a286427402f113e4b6ae769a1d95941d49b25030",
                "96763ed773f8e47bb3712f0e29b3060ffc956ffc146cee53d5e1df",
                "3e40f15f6f3a46ae446b253bf8b1d9ffb6ed9b174d272328ff91a7e2e5c79c07f5",
                "eb3f3515110702e047a6c9da4478b6ead94873c11c0f2d710ddb3f09fce024b3a58502ae3f",
            ]),
        Vector(
            pattern: .xxpsk3,
            presharedKey: bytes("54686973206973206d7920417573747269616e20706572737065637469766521"),
            handshakeHash: "a477edf6a131bbdb54707f6ea30eab6cd935d9b560f0e5fd1f053a95a99669fb",
            ciphertexts: [
                "ca35def5ae56cec33dc2036731ab14896bc4c75dbb07a61f879f8e3afa4c7944c9f5ff0e8079630cb7e270c20bbf4808"
                    + "21b77a384a645c71a2fd9b3db1c16a5f",
                "95ebc60d2b1fa672c1f46a8aa265ef51bfe38e7ccb39ec5be34069f144808843b123def17f71e6ae8e57e0e1dec5949c"
                    + "5f7415c6f33517398747d821a06dc23ad430aa1fd7381d46195c378a819fd574425462cbb2d4ca339e738a0b7001dc"
                    + "91423fbf55a99af0c6f1df21012ceb2f",
                "52187316111b118d4c060364f7b975dc0809b2590779aff2d63113c564f11744493384db7bf32d5ae6686df6ab06d508"
                    + "d2e07caaf1d6afc010b978735fc78900e71ae1d314130d042e729a",
                "eaedc672d4c21e0e2955758756fb98f194c4e90d5deb5b6cf30b27",
                "522d543c5fe799d09a3d9da7ff54d0dc03c8af1dc7751d2ff708339d2290943e98",
                "7d4e2c3873eef6a213b04e72f9df60a91666072d3544c5d96c34a09e2329b5030bee796741",
            ]),
    ]

    @Test(arguments: vectors)
    func bothSidesProduceThePublishedBytes(_ vector: Vector) throws {
        var initiator = try NoiseHandshake(
            pattern: vector.pattern, role: .initiator, prologue: bytes(Self.prologue),
            staticKey: X25519KeyPair(privateKey: bytes(Self.initiatorStatic)),
            ephemeralKey: X25519KeyPair(privateKey: bytes(Self.initiatorEphemeral)),
            presharedKey: vector.presharedKey)
        var responder = try NoiseHandshake(
            pattern: vector.pattern, role: .responder, prologue: bytes(Self.prologue),
            staticKey: X25519KeyPair(privateKey: bytes(Self.responderStatic)),
            ephemeralKey: X25519KeyPair(privateKey: bytes(Self.responderEphemeral)),
            presharedKey: vector.presharedKey)

        for index in 0..<3 {
            let payload = bytes(Self.payloads[index])
            let message: [UInt8]
            let read: [UInt8]
            if index % 2 == 0 {
                message = try initiator.writeMessage(payload: payload)
                read = try responder.readMessage(message)
            } else {
                message = try responder.writeMessage(payload: payload)
                read = try initiator.readMessage(message)
            }
            #expect(hex(message) == vector.ciphertexts[index], "handshake message \(index + 1)")
            #expect(read == payload)
        }
        #expect(initiator.isComplete && responder.isComplete)
        #expect(hex(initiator.handshakeHash) == vector.handshakeHash)
        #expect(hex(responder.handshakeHash) == vector.handshakeHash)

        var initiatorTransport = try #require(initiator.transport)
        var responderTransport = try #require(responder.transport)
        #expect(initiatorTransport.remoteStaticKey == (try X25519KeyPair(privateKey: bytes(Self.responderStatic))).publicKey)
        for index in 3..<6 {
            let payload = bytes(Self.payloads[index])
            let message: [UInt8]
            let read: [UInt8]
            if index % 2 == 1 {
                message = try responderTransport.seal(payload)
                read = try initiatorTransport.open(message)
            } else {
                message = try initiatorTransport.seal(payload)
                read = try responderTransport.open(message)
            }
            #expect(hex(message) == vector.ciphertexts[index], "transport message \(index + 1)")
            #expect(read == payload)
        }
    }

    /// RFC 5869's test case 1 (SHA-256), checking the HKDF the Noise key schedule rests on.
    @Test func hkdfMatchesRFC5869TestCase1() {
        let prk = HKDF.extract(salt: bytes("000102030405060708090a0b0c"), inputKeyMaterial: bytes("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"))
        #expect(hex(prk) == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        let okm = HKDF.expand(pseudorandomKey: prk, info: bytes("f0f1f2f3f4f5f6f7f8f9"), count: 2).joined()
        #expect(hex(Array(okm.prefix(42))) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }
}
