import Secure
import Testing
@testable import Session

/// Protocol 3's channel machine (docs/PROTOCOL.md section 19), stepped by hand:
/// what each side sends, delivers and refuses.
@Suite("The encrypted channel: Noise XX with identity keys, sealed records, refusals")
struct SecureChannelTests {
    static let ana = try! IdentityKeyPair.generate()
    static let bo = try! IdentityKeyPair.generate()

    /// The records a list of actions sends, concatenated.
    static func sent(_ actions: [SecureChannel.Action]) -> [UInt8] {
        actions.reduce(into: []) { bytes, action in if case .send(let out) = action { bytes += out } }
    }

    static func delivered(_ actions: [SecureChannel.Action]) -> [UInt8] {
        actions.reduce(into: []) { bytes, action in if case .deliver(let out) = action { bytes += out } }
    }

    static func failure(_ actions: [SecureChannel.Action]) -> ChannelFailure? {
        for case .fail(let why) in actions { return why }
        return nil
    }

    /// A guest (Bo) and a host (Ana) after the handshake, with what the guest queued before it (`early`) delivered to the host.
    static func established(early: [UInt8] = [], rekeyInterval: UInt64 = SecureChannel.defaultRekeyInterval)
        throws -> (guest: SecureChannel, host: SecureChannel, hostHeard: [UInt8]) {
        var guest = try SecureChannel(role: .initiator, identity: bo, rekeyInterval: rekeyInterval)
        var host = try SecureChannel(role: .responder(allowClear: false), identity: ana, rekeyInterval: rekeyInterval)
        let first = sent(guest.start())
        #expect(guest.seal(early).isEmpty, "nothing of the frame stream leaves before the handshake completes")
        let second = host.receive(first)
        let third = guest.receive(sent(second))
        let last = host.receive(sent(third))
        #expect(third.contains(.established(ana.publicKey)))
        #expect(last.contains(.established(bo.publicKey)))
        return (guest, host, delivered(last))
    }

    @Test("the handshake proves each side's identity key, and what the guest sent early arrives sealed after it")
    func handshakeProvesBothKeys() throws {
        let hello = Array("HELLO from Bo".utf8)
        let (guest, host, heard) = try Self.established(early: hello)
        #expect(guest.peer == Self.ana.publicKey)
        #expect(host.peer == Self.bo.publicKey)
        #expect(heard == hello)
    }

    @Test("frames cross sealed both ways, however the transport cuts the records, and no plaintext is on the wire")
    func sealedBothWays() throws {
        var (guest, host, _) = try Self.established()
        let move = Array("TURN: Ana drops in column 4".utf8)
        let wire = guest.seal(move)
        #expect(!wire.isEmpty)
        #expect(wire.starts(with: SecureChannel.magic))
        #expect(!String(decoding: wire, as: UTF8.self).contains("column"), "the move is not in clear")
        var heard: [UInt8] = []
        for byte in wire { heard += Self.delivered(host.receive([byte])) }
        #expect(heard == move)
        let answer = Array(repeating: UInt8(7), count: 70_000)
        let back = host.seal(answer)
        #expect(back.count > 70_000 + 2 * 16, "a send over one record's limit goes as two records")
        #expect(Self.delivered(guest.receive(back)) == answer)
    }

    @Test("a flipped bit in a sealed record fails the channel, and the peer is told why in a refusal record")
    func tamperedRecordFails() throws {
        var (guest, host, _) = try Self.established()
        var wire = guest.seal(Array("TALK hello".utf8))
        wire[wire.count - 3] ^= 0x01
        let actions = host.receive(wire)
        #expect(Self.failure(actions) == .authenticationFailed)
        #expect(Self.delivered(actions).isEmpty)
        let refusal = Self.sent(actions)
        #expect(refusal.starts(with: SecureChannel.magic + [SecureChannel.RecordType.refusal.rawValue]))
        #expect(host.hasFailed)
        #expect(host.receive(guest.seal([1, 2, 3])).isEmpty, "a failed channel takes nothing more")
    }

    @Test("a peer whose identity key is not the one its Noise key comes from is refused")
    func identityMismatchIsRefused() throws {
        // A hand-made initiator: Noise static key of Bo, but Ana's identity key as its payload.
        var impostor = try NoiseHandshake(pattern: .xx, role: .initiator, prologue: SecureChannel.prologue, staticKey: Self.bo.noiseStaticKey())
        var host = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana)
        let reply = Self.sent(host.receive(SecureChannel.record(.handshake, try impostor.writeMessage())))
        _ = try impostor.readMessage(Array(reply.dropFirst(SecureChannel.headerSize)))
        let last = try impostor.writeMessage(payload: Self.ana.publicKey.bytes)
        let actions = host.receive(SecureChannel.record(.handshake, last))
        #expect(Self.failure(actions) == .identityMismatch)
        #expect(host.peer == nil)
    }

    @Test("a guest refuses a host whose key it does not accept before any of its frames leave, and the host hears the sentence")
    func guestRefusesTheHostsKey() throws {
        var guest = try SecureChannel(role: .initiator, identity: Self.bo)
        var host = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana)
        let token = Array("seat-token-secret".utf8)
        _ = guest.seal(token)
        let second = host.receive(Self.sent(guest.start()))
        let refusal = "Ana's key has changed: this is not the host you played"
        let actions = guest.receive(Self.sent(second)) { _ in refusal }
        #expect(Self.failure(actions) == .refusedPeer(refusal))
        let wire = Self.sent(actions)
        #expect(wire.starts(with: SecureChannel.magic + [SecureChannel.RecordType.refusal.rawValue]), "only the refusal goes out")
        #expect(Self.failure(host.receive(wire)) == .refusedByPeer(refusal))
    }

    @Test("a guest that speaks clear frames gets REJECT versionUnsupported with a sentence, unless clear guests are allowed")
    func clearGuests() throws {
        let hello = Message.hello(Hello(appVersion: "old", playerID: .random(), playerName: "Old")).encoded
        var strict = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana)
        let actions = strict.receive(Array(hello.prefix(7)))
        #expect(Self.failure(actions) == .clearPeerRefused)
        var decoder = FrameDecoder()
        decoder.append(Self.sent(actions))
        let frame = try #require(try decoder.next())
        guard case .reject(let code, let sentence) = try Message.decode(frame) else {
            Issue.record("not a REJECT")
            return
        }
        #expect(code == .versionUnsupported)
        #expect(sentence.contains("protocol 3") && sentence.contains("update parlor"))

        var lenient = try SecureChannel(role: .responder(allowClear: true), identity: Self.ana)
        let admitted = lenient.receive(hello)
        #expect(admitted.first == .admittedClear)
        #expect(Self.delivered(admitted) == hello, "the clear frames reach the frame layer unchanged")
        #expect(lenient.seal([9, 9]) == [9, 9])
        #expect(lenient.peer == nil && !lenient.isEstablished)

        // Neither "PN" nor "PL" (an HTTP request): the frame layer answers it as it always has.
        var web = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana)
        let get = Array("GET / HTTP/1.1\r\n".utf8)
        #expect(web.receive(get) == [.deliver(get)])
    }

    @Test("a host that answers in clear frames is a parlor from before protocol 3")
    func hostSpeakingClear() throws {
        var guest = try SecureChannel(role: .initiator, identity: Self.bo)
        _ = guest.start()
        let reject = Message.reject(.protocolError, sentence: "bad magic").encoded
        let failure = Self.failure(guest.receive(reject))
        #expect(failure == .hostSpeaksClear)
        #expect(failure?.meansOlderPeer == true)
    }

    @Test("a guest that reaches something that is no parlor hands its answer to the frame layer and sends it nothing, not even its HELLO")
    func foreignAnswer() throws {
        var guest = try SecureChannel(role: .initiator, identity: Self.bo)
        _ = guest.start()
        #expect(guest.seal(Array("HELLO".utf8)).isEmpty)
        let web = Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)
        #expect(guest.receive(web) == [.deliver(web)])
        #expect(guest.seal(Array("GOODBYE".utf8)).isEmpty, "nothing goes to a stranger")
        #expect(!guest.isEstablished && guest.peer == nil)
    }

    @Test("records that break the format fail the channel: unknown type, a handshake message of the wrong size, no magic")
    func malformedRecords() throws {
        var host = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana)
        #expect(Self.failure(host.receive(SecureChannel.magic + [9, 0, 0])) == .malformedRecord("a record of unknown type 9"))
        var short = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana)
        #expect(Self.failure(short.receive(SecureChannel.record(.handshake, [1, 2, 3])))
                == .malformedRecord("a first handshake message of 3 bytes where 32 or 81 belong"))
        var established = try Self.established().host
        #expect(Self.failure(established.receive([0x41, 0x42, 0x43])) == .malformedRecord("a record without the \"PN\" magic"))
        var early = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana)
        #expect(Self.failure(early.receive(SecureChannel.record(.sealed, Array(repeating: 0, count: 20))))
                == .malformedRecord("a sealed record out of place"))
    }

    @Test("each direction rekeys after the agreed number of records; a peer that does not is refused")
    func rekeying() throws {
        var (guest, host, _) = try Self.established(rekeyInterval: 3)
        for round in 0..<10 {
            let line = Array("line \(round)".utf8)
            #expect(Self.delivered(host.receive(guest.seal(line))) == line)
            #expect(Self.delivered(guest.receive(host.seal(line))) == line)
        }
        // A guest that rekeys later than the host: its fourth record no longer opens there.
        var mismatched = try Self.pair(guestInterval: 1_000, hostInterval: 3)
        for index in 0..<3 { #expect(Self.failure(mismatched.host.receive(mismatched.guest.seal([UInt8(index)]))) == nil) }
        #expect(Self.failure(mismatched.host.receive(mismatched.guest.seal([4]))) == .authenticationFailed)
    }

    static func pair(guestInterval: UInt64, hostInterval: UInt64) throws -> (guest: SecureChannel, host: SecureChannel) {
        var guest = try SecureChannel(role: .initiator, identity: bo, rekeyInterval: guestInterval)
        var host = try SecureChannel(role: .responder(allowClear: false), identity: ana, rekeyInterval: hostInterval)
        _ = host.receive(sent(guest.receive(sent(host.receive(sent(guest.start()))))))
        return (guest, host)
    }
}
