import Foundation
import Games
import Match
import Testing
@testable import Session

/// The passcode proof: its primitives (libsodium, PBKDF2 built on its HMAC) against published vectors,
/// the proof against an independent computation with the `openssl` command,
/// and what the proof is bound to.
@Suite struct PasscodeTests {
    static let matchID = MatchID(hex: "00112233445566778899aabbccddeeff")!
    static let hostNonce: [UInt8] = Array(0xa0...0xaf)
    static let guestNonce: [UInt8] = Array(0xb0...0xbf)

    @Test func hmacSHA256MatchesRFC4231() throws {
        // RFC 4231 test case 2.
        let mac = try Crypto.hmacSHA256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        #expect(mac.hexString == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func pbkdf2SHA256MatchesRFC7914() throws {
        // RFC 7914 section 11, first PBKDF2-HMAC-SHA256 vector.
        let key = try Crypto.pbkdf2SHA256(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64)
        #expect(key.hexString == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    @Test("PBKDF2-HMAC-SHA256 over many rounds and two blocks matches RFC 7914's second vector")
    func pbkdf2SHA256ManyRounds() throws {
        let key = try Crypto.pbkdf2SHA256(password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80_000, length: 64)
        #expect(key.hexString == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d")
    }

    @Test func proofEqualsAnIndependentOpenSSLComputation() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            Issue.record("the openssl command is missing (Debian package openssl)")
            return
        }
        let label = Array("parlor-passcode-v1".utf8)
        let derived = try Self.openssl(["kdf", "-keylen", "32", "-kdfopt", "digest:SHA256", "-kdfopt", "pass:K7MQ4P",
                                        "-kdfopt", "hexsalt:" + (label + Self.matchID.bytes).hexString,
                                        "-kdfopt", "iter:100000", "PBKDF2"])
        let keyHex = derived.replacingOccurrences(of: ":", with: "").lowercased()
        let data = label + Self.matchID.bytes + Self.hostNonce + Self.guestNonce
        let macLine = try Self.openssl(["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:" + keyHex], input: Data(data))
        let expectedMAC = String(macLine.split(separator: " ").last ?? "")

        let key = try PasscodeKey(code: "k7m-q4p", matchID: Self.matchID)
        #expect(key.bytes.hexString == keyHex)
        let proof = try key.proof(for: PasscodeChallenge(matchID: Self.matchID, hostNonce: Self.hostNonce), guestNonce: Self.guestNonce)
        #expect(proof.count == 48)
        #expect(Array(proof.prefix(16)) == Self.guestNonce)
        #expect(Array(proof.suffix(32)).hexString == expectedMAC)
    }

    @Test func theProofIsBoundToTheCodeTheMatchAndTheHostNonce() throws {
        let key = try PasscodeKey(code: "K7M-Q4P", matchID: Self.matchID)
        let challenge = PasscodeChallenge(matchID: Self.matchID, hostNonce: Self.hostNonce)
        let proof = try key.proof(for: challenge)
        #expect(key.accepts(proof, for: challenge))
        // Typed in lower case, without the dash or with a space: the same code.
        for typed in ["k7mq4p", "K7M Q4P", "k7m-q4p"] {
            #expect(try PasscodeKey(code: typed, matchID: Self.matchID) == key)
        }
        #expect(!(try PasscodeKey(code: "K7M-Q4R", matchID: Self.matchID)).accepts(proof, for: challenge), "wrong code")
        let otherNonce = PasscodeChallenge(matchID: Self.matchID, hostNonce: Array(repeating: 1, count: 16))
        #expect(!key.accepts(proof, for: otherNonce), "replayed on another connection")
        let otherMatch = MatchID(hex: "ffeeddccbbaa99887766554433221100")!
        let otherKey = try PasscodeKey(code: "K7M-Q4P", matchID: otherMatch)
        #expect(!otherKey.accepts(proof, for: PasscodeChallenge(matchID: otherMatch, hostNonce: Self.hostNonce)), "another match")
        var flipped = proof
        flipped[40] ^= 1
        #expect(!key.accepts(flipped, for: challenge))
        #expect(!key.accepts(Array(proof.prefix(47)), for: challenge))
        #expect(!key.accepts([], for: challenge))
    }

    @Test func generatedCodesAreSixUnambiguousSymbols() throws {
        var seen = Set<String>()
        for _ in 0..<50 {
            let code = try PasscodeKey.generateCode()
            #expect(code.count == 7 && Array(code)[3] == "-")
            #expect(code.filter { $0 != "-" }.allSatisfy(PasscodeKey.codeAlphabet.contains))
            #expect(!code.contains { "01OIL".contains($0) })
            seen.insert(code)
        }
        #expect(seen.count > 45, "codes should not repeat")
    }

    @Test func throttleDelaysDoubleUpToTheMaximum() {
        let throttle = PasscodeThrottle(firstDelay: .seconds(1), maximumDelay: .seconds(8))
        #expect((1...6).map { throttle.delay(afterWrongProofs: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8)])
    }

    // MARK: The handshake machines

    static func hello(proof: [UInt8] = [], matchID: MatchID? = nil, token: SeatToken? = nil) -> Hello {
        Hello(protocolVersions: [1], appVersion: "1", playerID: PlayerID(hex: String(repeating: "ab", count: 16))!,
              playerName: "Bo", games: [GameVersion(id: "connect4", rulesVersion: 1)], matchID: matchID, seatToken: token,
              passcodeProof: proof)
    }

    @Test func aCodedHostChallengesOnceThenChecksTheProof() throws {
        let key = try PasscodeKey(code: "K7M-Q4P", matchID: Self.matchID)
        let policy = HostAdmissionPolicy(gameID: "connect4", rulesVersion: 1, seatAvailable: true, passcode: PasscodeGate(key: key))
        let challenge = PasscodeChallenge(matchID: Self.matchID, hostNonce: Self.hostNonce)
        #expect(policy.verdict(on: Self.hello(), challenge: nil) == .challenge)
        // A proof sent before any challenge cannot answer one: challenge anyway.
        #expect(policy.verdict(on: Self.hello(proof: Array(repeating: 7, count: 48)), challenge: nil) == .challenge)
        #expect(policy.verdict(on: Self.hello(), challenge: challenge) == .refuse(.passcodeRequired, PasscodeSentences.required))
        let good = try key.proof(for: challenge)
        #expect(policy.verdict(on: Self.hello(proof: good), challenge: challenge) == .admit)
        #expect(policy.verdict(on: Self.hello(proof: Array(repeating: 7, count: 48)), challenge: challenge)
                == .refuse(.passcodeWrong, PasscodeSentences.wrong))
        // A proof that has not waited its turn yet is not checked: it waits first.
        var early = policy
        early.passcode?.turn = .notQueued
        #expect(early.verdict(on: Self.hello(proof: good), challenge: challenge) == .waitForTurn)
        #expect(early.verdict(on: Self.hello(proof: Array(repeating: 7, count: 48)), challenge: challenge) == .waitForTurn)
        // No place in the queue: refused busy, and the proof is not even checked.
        var crowded = policy
        crowded.passcode?.turn = .refused
        #expect(crowded.verdict(on: Self.hello(proof: good), challenge: challenge) == .refuse(.busy, PasscodeSentences.tooManyGuesses))
        // The code comes before the free seat: a stranger cannot tell a full match from an open one.
        var full = policy
        full.seatAvailable = false
        #expect(full.verdict(on: Self.hello(), challenge: nil) == .challenge)
        #expect(full.verdict(on: Self.hello(proof: good), challenge: challenge) == .refuse(.matchFull, "The match on this host already has its players."))
    }

    @Test func aSeatsOwnerComingBackNeedsNoCode() throws {
        let key = try PasscodeKey(code: "K7M-Q4P", matchID: Self.matchID)
        let token = SeatToken.random()
        let policy = HostAdmissionPolicy(gameID: "connect4", rulesVersion: 1, seatAvailable: false,
                                         currentMatch: (Self.matchID, token), passcode: PasscodeGate(key: key))
        #expect(policy.verdict(on: Self.hello(matchID: Self.matchID, token: token), challenge: nil) == .admit)
        #expect(policy.verdict(on: Self.hello(matchID: Self.matchID, token: .random()), challenge: nil)
                == .refuse(.badSeatToken, "That seat token does not belong to match \(Self.matchID.short)."))
    }

    @Test func theHostMachineSendsOneChallengePerConnection() {
        var machine = HostHandshake()
        let challenge = PasscodeChallenge(matchID: Self.matchID, hostNonce: Self.hostNonce)
        #expect(machine.event(.message(.hello(Self.hello()))) == .evaluate(Self.hello()))
        #expect(machine.decided(.challenge(challenge)) == .send(.challenge(challenge)))
        #expect(machine.state == .challenged)
        #expect(machine.challenge == challenge)
        #expect(machine.event(.message(.hello(Self.hello()))) == .evaluate(Self.hello()))
        guard case .rejectAndClose(.reject(.passcodeRequired, _), _) = machine.decided(.challenge(challenge)) else {
            Issue.record("a second challenge must become REJECT passcodeRequired")
            return
        }
        #expect(machine.state == .closed)
        var slow = HostHandshake()
        _ = slow.event(.message(.hello(Self.hello())))
        _ = slow.decided(.challenge(challenge))
        guard case .rejectAndClose(.reject(.handshakeTimeout, _), _) = slow.event(.timedOut) else {
            Issue.record("the handshake timeout still runs after CHALLENGE")
            return
        }
    }

    @Test("a proof waiting its turn ignores everything but the peer closing, and is answered when it is decided again")
    func theHostMachineLetsAProofWaitItsTurn() {
        let challenge = PasscodeChallenge(matchID: Self.matchID, hostNonce: Self.hostNonce)
        let proved = Self.hello(proof: Array(repeating: 7, count: 48))
        func waiting() -> HostHandshake {
            var machine = HostHandshake()
            _ = machine.event(.message(.hello(Self.hello())))
            _ = machine.decided(.challenge(challenge))
            #expect(machine.event(.message(.hello(proved))) == .evaluate(proved))
            #expect(machine.decided(.waitForTurn) == HostHandshake.Action.none)
            #expect(machine.state == .proofWaiting)
            return machine
        }
        var machine = waiting()
        // The handshake timeout and more frames do not answer early: the answer comes at the proof's turn.
        #expect(machine.event(.timedOut) == HostHandshake.Action.none)
        #expect(machine.event(.message(.hello(proved))) == HostHandshake.Action.none)
        #expect(machine.state == .proofWaiting)
        guard case .rejectAndClose(.reject(.passcodeWrong, _), _) = machine.decided(.reject(.passcodeWrong, PasscodeSentences.wrong)) else {
            Issue.record("the proof's turn must answer it"); return
        }
        #expect(machine.state == .closed)
        var left = waiting()
        guard case .close(.dropped(let why)) = left.event(.peerClosed(nil)) else { Issue.record("a peer that leaves ends the wait"); return }
        #expect(why.contains("passcode proof waited"))
        #expect(left.decided(.reject(.passcodeWrong, PasscodeSentences.wrong)) == HostHandshake.Action.none, "nothing is sent to a peer that left")
    }

    @Test func theGuestAnswersAChallengeOnlyWithACode() throws {
        let challenge = PasscodeChallenge(matchID: Self.matchID, hostNonce: Self.hostNonce)
        var without = GuestHandshake(hello: Self.hello())
        _ = without.start()
        guard case .fail(.passcodeNeeded) = without.event(.message(.challenge(challenge))) else {
            Issue.record("a guest without a code must fail with passcodeNeeded")
            return
        }
        var with = GuestHandshake(hello: Self.hello(), passcode: "k7mq4p", guestNonce: Self.guestNonce)
        _ = with.start()
        guard case .send(.hello(let answer)) = with.event(.message(.challenge(challenge))) else {
            Issue.record("a guest with a code must answer with HELLO")
            return
        }
        let key = try PasscodeKey(code: "K7M-Q4P", matchID: Self.matchID)
        #expect(answer.passcodeProof == (try key.proof(for: challenge, guestNonce: Self.guestNonce)))
        guard case .fail(.protocolError) = with.event(.message(.challenge(challenge))) else {
            Issue.record("a second CHALLENGE is a protocol error")
            return
        }
    }

    static func openssl(_ arguments: [String], input: Data? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(input) }
        try inputPipe.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
