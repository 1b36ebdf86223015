import Testing
@testable import Secure

/// CPace known answers, transcribed from draft-irtf-cfrg-cpace (github.com/cfrg/draft-irtf-cfrg-cpace,
/// `draft-irtf-cfrg-cpace.md`), appendix "Test vector for CPace using group ristretto255 and
/// hash SHA-512" and the string-utility vectors of "CPace function definitions".
@Suite struct CPaceTests {
    static let password = ascii("Password")
    static let channelIdentifier = bytes("0b415f696e69746961746f720b425f726573706f6e646572")
    static let sessionID = bytes("7e4b4791d6a8ef019b936c79fb7f2c57")
    static let initiatorScalar = bytes("da3d23700a9e5699258aef94dc060dfda5ebb61f02a5ea77fad53f4ff0976d08")
    static let responderScalar = bytes("d2316b454718c35362d83d69df6320f38578ed5984651435e2949762d900b80d")
    static let initiatorShare = "d6bac480f2c386c394efc7c47adb9925dcd2630b64f240c50f8d0eec482b9157"
    static let responderShare = "3ea7e0b19560d7c0b0f5734f63b955286dfa8232b5ebe63324e2d9e7433f7258"
    static let sessionKey = "b69effbf61b51d56401c0f65601abe428de8206feaaf0e32198896dcae7b35cd"
        + "2b38950a39dfd5d4a79164614c2984f7daa460b588c1e80c3fa2068af7900447"

    static func exchange(_ role: CPace.Role, password: [UInt8] = password, scalar: [UInt8]? = nil) throws -> CPace {
        try CPace(
            role: role, password: password, channelIdentifier: channelIdentifier, sessionID: sessionID,
            associatedData: ascii(role == .initiator ? "ADa" : "ADb"), scalar: scalar)
    }

    @Test func stringUtilitiesMatchTheDraft() {
        #expect(hex(CPace.prependLength([])) == "00")
        #expect(hex(CPace.prependLength(ascii("1234"))) == "0431323334")
        #expect(Array(CPace.prependLength((0..<127).map { UInt8($0) }).prefix(2)) == [0x7f, 0x00])
        #expect(Array(CPace.prependLength((0..<128).map { UInt8($0) }).prefix(3)) == [0x80, 0x01, 0x00])
        #expect(hex(CPace.lengthValueConcatenation([ascii("1234"), ascii("5"), [], ascii("678")])) == "043132333401350003363738")
        #expect(hex(CPace.transcriptInitiatorResponder(
            initiatorShare: ascii("123"), initiatorData: ascii("PartyA"),
            responderShare: ascii("234"), responderData: ascii("PartyB"))) == "03313233065061727479410332333406506172747942")
    }

    @Test func generatorMatchesTheDraft() throws {
        let string = CPace.generatorString(password: Self.password, channelIdentifier: Self.channelIdentifier, sessionID: Self.sessionID)
        #expect(string.count == 170)
        #expect(hex(string) == "11435061636552697374726574746f3235350850617373776f726464"
            + String(repeating: "00", count: 100)
            + "180b415f696e69746961746f720b425f726573706f6e646572107e4b4791d6a8ef019b936c79fb7f2c57")
        #expect(hex(Sodium.sha512(string)) == "da6d3ddc8802fca9058755ffd3ebde08a9c2c74945901a258482a288"
            + "b6663af06bf645c93cd1c51512307199c80e84908916d983b34af77205f90851a657ee27")
        let generator = try CPace.generator(password: Self.password, channelIdentifier: Self.channelIdentifier, sessionID: Self.sessionID)
        #expect(hex(generator) == "222b6b195fe84b1652badb6f6a3ae3d24341e7306967f0b8115b40d5698c7e56")
    }

    @Test func sharesPointAndSessionKeyMatchTheDraft() throws {
        var initiator = try Self.exchange(.initiator, scalar: Self.initiatorScalar)
        var responder = try Self.exchange(.responder, scalar: Self.responderScalar)
        #expect(hex(initiator.share) == Self.initiatorShare)
        #expect(hex(responder.share) == Self.responderShare)
        // K = scalar_mult_vfy(ya, Yb) = scalar_mult_vfy(yb, Ya); never exposed by the API.
        let point = "80b69a8a76457ab6a4d7f887a4bf6b55a2f80ac19c333f917a05fc9887c8b40f"
        #expect(try CPace.multiply(Self.initiatorScalar, bytes(Self.responderShare)).map(hex) == point)
        #expect(try CPace.multiply(Self.responderScalar, bytes(Self.initiatorShare)).map(hex) == point)

        let initiatorKey = try initiator.receive(peerShare: responder.share, peerAssociatedData: ascii("ADb"))
        let responderKey = try responder.receive(peerShare: initiator.share, peerAssociatedData: ascii("ADa"))
        #expect(hex(initiatorKey) == Self.sessionKey)
        #expect(hex(responderKey) == Self.sessionKey)
    }

    @Test func validScalarMultiplicationMatchesTheDraft() throws {
        let scalar = bytes("7cd0e075fa7955ba52c02759a6c90dbbfc10e6d40aea8d283e407d88cf538a05")
        let point = bytes("2c3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c")
        #expect(try CPace.multiply(scalar, point).map(hex) == "7c13645fe790a468f62c39beb7388e541d8405d1ade69d1778c5fe3e7f6b600e")
    }

    /// The draft's invalid inputs: Y_i1 does not decode, Y_i2 is the identity; both abort.
    @Test(arguments: [
        "2b3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "2c3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a5",
    ])
    func invalidSharesAreRefused(_ share: String) throws {
        var responder = try Self.exchange(.responder)
        #expect(throws: CPaceError.invalidShare) {
            _ = try responder.receive(peerShare: bytes(share), peerAssociatedData: ascii("ADa"))
        }
        // The exchange is over: no second try on the same scalar.
        #expect(throws: CPaceError.finished) {
            _ = try responder.receive(peerShare: bytes(Self.initiatorShare), peerAssociatedData: ascii("ADa"))
        }
    }

    @Test func aWrongPasswordGivesDifferentKeys() throws {
        var initiator = try Self.exchange(.initiator)
        var responder = try Self.exchange(.responder, password: ascii("Passw0rd"))
        let initiatorKey = try initiator.receive(peerShare: responder.share, peerAssociatedData: responder.associatedData)
        let responderKey = try responder.receive(peerShare: initiator.share, peerAssociatedData: initiator.associatedData)
        #expect(initiatorKey != responderKey)
        #expect(initiatorKey.count == CPace.sessionKeyLength)
    }

    @Test func theSamePasswordAgreesWithRandomScalars() throws {
        var initiator = try Self.exchange(.initiator)
        var responder = try Self.exchange(.responder)
        let initiatorKey = try initiator.receive(peerShare: responder.share, peerAssociatedData: responder.associatedData)
        let responderKey = try responder.receive(peerShare: initiator.share, peerAssociatedData: initiator.associatedData)
        #expect(initiatorKey == responderKey)
    }

    /// What a listener records (both shares and both associated data) must not
    /// let it check a guess of the code: each share is y·g with a fresh y, so
    /// the same code gives a different share every run, and no hash or MAC of
    /// the code (or of anything computed from the code alone) is on the wire.
    @Test func aRecordingCarriesNothingComputedFromTheCodeAlone() throws {
        let code = ascii("K7Q-4MZ")
        var wires: [[UInt8]] = []
        for _ in 0..<8 {
            let initiator = try CPace(role: .initiator, password: code, sessionID: Self.sessionID, associatedData: ascii("guest"))
            let responder = try CPace(role: .responder, password: code, sessionID: Self.sessionID, associatedData: ascii("host"))
            wires.append(initiator.share + initiator.associatedData)
            wires.append(responder.share + responder.associatedData)
        }
        #expect(Set(wires).count == wires.count, "the same code must never give the same share twice")

        // Everything a guesser could compute from the code alone, with every public input.
        let generator = try CPace.generator(password: code, channelIdentifier: [], sessionID: Self.sessionID)
        let generatorString = CPace.generatorString(password: code, channelIdentifier: [], sessionID: Self.sessionID)
        let functionsOfTheCode: [[UInt8]] = [
            code, generator, generatorString, Sodium.sha512(generatorString),
            Sodium.sha256(code), Sodium.sha512(code),
            Sodium.hmacSHA256(key: code, message: Self.sessionID), Sodium.hmacSHA256(key: Self.sessionID, message: code),
            Sodium.hmacSHA512(key: code, message: Self.sessionID), Sodium.hmacSHA512(key: Self.sessionID, message: code),
        ]
        for wire in wires {
            for value in functionsOfTheCode {
                #expect(!contains(wire, Array(value.prefix(8))), "the wire carries a function of the code")
            }
        }
    }

    @Test func theNoisePresharedKeyIs32BytesAndDependsOnTheLabel() {
        let key = bytes(Self.sessionKey)
        let first = CPace.noisePresharedKey(fromSessionKey: key, label: ascii("parlor psk3"))
        #expect(first.count == 32)
        #expect(first != CPace.noisePresharedKey(fromSessionKey: key, label: ascii("other")))
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
