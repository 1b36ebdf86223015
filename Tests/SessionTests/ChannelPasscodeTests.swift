import Secure
import Testing
@testable import Session

/// Issue 38, item 4: a passcode proved inside protocol 3's handshake with CPace
/// (docs/PROTOCOL.md section 20.4), stepped by hand: a right code establishes the
/// channel and tells the host which code was proved, a wrong one fails the last
/// message with a rejection the guest reads as REJECT passcodeWrong, and nothing
/// on the wire lets a listener test a code.
@Suite("Passcodes in the encrypted handshake: CPace, XXpsk3, one guess per handshake")
struct ChannelPasscodeTests {
    typealias T = SecureChannelTests
    static let ana = SecureChannelTests.ana
    static let bo = SecureChannelTests.bo

    struct Run {
        var guest: SecureChannel
        var host: SecureChannel
        /// Every record each way, in order.
        var wire: [UInt8] = []
        var guestActions: [SecureChannel.Action] = []
        var hostActions: [SecureChannel.Action] = []
    }

    /// A whole handshake: Bo offers `offer`, Ana checks `codes`; the host's held answer is released at once.
    static func run(offer: PasscodeOffer?, codes: HostPasscodes?, early: [UInt8] = Array("HELLO".utf8)) throws -> Run {
        var run = Run(guest: try SecureChannel(role: .initiator, identity: bo, offer: offer),
                      host: try SecureChannel(role: .responder(allowClear: false), identity: ana, passcodes: codes))
        let first = T.sent(run.guest.start())
        _ = run.guest.seal(early)
        run.wire += first
        var second = run.host.receive(first)
        run.hostActions += second
        if second.contains(where: { if case .passcodeOffered = $0 { true } else { false } }) {
            #expect(T.sent(second).isEmpty, "the answer to an offer waits for its turn")
            second = run.host.releaseOffer()
            run.hostActions += second
        }
        run.wire += T.sent(second)
        let third = run.guest.receive(T.sent(second))
        run.guestActions += third
        run.wire += T.sent(third)
        let last = run.host.receive(T.sent(third))
        run.hostActions += last
        run.wire += T.sent(last)
        run.guestActions += run.guest.receive(T.sent(last))
        return run
    }

    @Test("the right code, typed differently, establishes the channel; the host knows the seat code was proved; HELLO arrives sealed",
          arguments: ["K7M-Q4P", "k7m q4p", "K7MQ4P"])
    func rightCode(typed: String) throws {
        let run = try Self.run(offer: PasscodeOffer(code: typed, use: .seat), codes: HostPasscodes(seat: "K7M-Q4P", watch: nil))
        #expect(run.host.isEstablished && run.guest.isEstablished)
        #expect(run.host.provedPasscode == .seat)
        #expect(run.hostActions.contains(.passcodeProved(.seat)))
        #expect(T.delivered(run.hostActions) == Array("HELLO".utf8))
        #expect(run.guest.peer == Self.ana.publicKey && run.host.peer == Self.bo.publicKey)
    }

    @Test("a wrong code fails the last message: the host rejects it passcodeWrong, the guest reads the rejection, and no frame crosses")
    func wrongCode() throws {
        let run = try Self.run(offer: PasscodeOffer(code: "AAA-AAA", use: .seat), codes: HostPasscodes(seat: "K7M-Q4P", watch: nil))
        #expect(T.failure(run.hostActions) == .passcodeWrong)
        #expect(T.delivered(run.hostActions).isEmpty, "the guest's HELLO never reached the host")
        #expect(run.host.provedPasscode == nil)
        guard case .rejected(let code, let sentence)? = T.failure(run.guestActions) else {
            Issue.record("the guest did not read a rejection: \(run.guestActions)")
            return
        }
        #expect(code == .passcodeWrong)
        #expect(sentence == PasscodeSentences.wrong)
    }

    @Test("a code for watching is checked against the watch code only; a seat code does not let a guest watch, nor a watch code sit")
    func usesAreKeptApart() throws {
        let codes = HostPasscodes(seat: "SEA-TED", watch: "WAT-CHR")
        let watching = try Self.run(offer: PasscodeOffer(code: "WAT-CHR", use: .watch), codes: codes)
        #expect(watching.host.provedPasscode == .watch)
        let seatAsWatch = try Self.run(offer: PasscodeOffer(code: "SEA-TED", use: .watch), codes: codes)
        #expect(T.failure(seatAsWatch.hostActions) == .passcodeWrong)
        let watchAsSeat = try Self.run(offer: PasscodeOffer(code: "WAT-CHR", use: .seat), codes: codes)
        #expect(T.failure(watchAsSeat.hostActions) == .passcodeWrong)
    }

    @Test("an offer to a host with no code of that use is answered 'no code here': the channel works and proves nothing")
    func offerToAnOpenHost() throws {
        let open = try Self.run(offer: PasscodeOffer(code: "K7M-Q4P", use: .seat), codes: nil)
        #expect(open.host.isEstablished && open.guest.isEstablished)
        #expect(open.host.provedPasscode == nil)
        #expect(!open.hostActions.contains(.passcodeOffered(.seat)), "nothing to pace when nothing is checked")
        let watchOnly = try Self.run(offer: PasscodeOffer(code: "K7M-Q4P", use: .seat), codes: HostPasscodes(seat: nil, watch: "WAT-CHR"))
        #expect(watchOnly.host.isEstablished && watchOnly.host.provedPasscode == nil)
    }

    @Test("without an offer a host with a code still sets up the channel (a seat's owner needs none); the code is asked for by REJECT later")
    func noOffer() throws {
        let run = try Self.run(offer: nil, codes: HostPasscodes(seat: "K7M-Q4P", watch: nil))
        #expect(run.host.isEstablished && run.host.provedPasscode == nil)
    }

    @Test("a host refusing an offer unchecked (too many guesses) sends a rejection busy before its answer")
    func refusedUnchecked() throws {
        var guest = try SecureChannel(role: .initiator, identity: Self.bo, offer: PasscodeOffer(code: "K7M-Q4P", use: .seat))
        var host = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana, passcodes: HostPasscodes(seat: "K7M-Q4P", watch: nil))
        let offered = host.receive(T.sent(guest.start()))
        #expect(offered == [.passcodeOffered(.seat)])
        let refusal = host.refuseOffer(.busy, "Too many passcodes are waiting to be checked; try again in a moment.")
        #expect(host.hasFailed)
        guard case .rejected(.busy, let sentence)? = T.failure(guest.receive(T.sent(refusal))) else {
            Issue.record("no rejection busy")
            return
        }
        #expect(sentence.contains("try again"))
        #expect(host.releaseOffer().isEmpty, "a refused offer is never answered")
    }

    @Test("the wire of a handshake with a code holds no value computed from the code alone: two runs with the same code share nothing but the fixed lengths")
    func recordingBetraysNothing() throws {
        let codes = HostPasscodes(seat: "K7M-Q4P", watch: nil)
        let one = try Self.run(offer: PasscodeOffer(code: "K7M-Q4P", use: .seat), codes: codes)
        let two = try Self.run(offer: PasscodeOffer(code: "K7M-Q4P", use: .seat), codes: codes)
        #expect(one.wire.count == two.wire.count)
        // Any function of the code alone would repeat between runs: look for an 8-byte window in common.
        let windows = Set((0...(one.wire.count - 8)).map { one.wire[$0..<($0 + 8)] })
        let shared = (0...(two.wire.count - 8)).filter { windows.contains(two.wire[$0..<($0 + 8)]) }
        // Record headers and the fixed use/status bytes are short; nothing of 8 bytes repeats.
        #expect(shared.isEmpty, "8-byte windows common to two runs: \(shared.count)")
        for piece in [PasscodeKey.normalized("K7M-Q4P"), Array("K7M-Q4P".utf8)] {
            #expect(!(0...(one.wire.count - piece.count)).contains { Array(one.wire[$0..<($0 + piece.count)]) == piece })
        }
    }

    /// What a host with a seat code says of a first message whose (sealed) payload is `payload`: the malformed record's words.
    static func refusal(ofOffer payload: [UInt8]) throws -> String? {
        var noise = try NoiseHandshake(pattern: .xxpsk3, role: .initiator, prologue: SecureChannel.prologue,
                                       staticKey: bo.noiseStaticKey(), deferPresharedKey: true)
        var host = try SecureChannel(role: .responder(allowClear: false), identity: ana, passcodes: HostPasscodes(seat: "K7M-Q4P", watch: nil))
        guard case .malformedRecord(let why)? = T.failure(host.receive(SecureChannel.record(.handshake, try noise.writeMessage(payload: payload)))) else {
            return nil
        }
        return why
    }

    @Test("malformed offers fail with a sentence: a first message of another length, an unknown use, a share that is no point")
    func malformedOffers() throws {
        var host = try SecureChannel(role: .responder(allowClear: false), identity: Self.ana, passcodes: HostPasscodes(seat: "K7M-Q4P", watch: nil))
        let short = SecureChannel.record(.handshake, Array(repeating: 9, count: 50))
        guard case .malformedRecord(let why)? = T.failure(host.receive(short)) else {
            Issue.record("a 50-byte first message was not refused")
            return
        }
        #expect(why.contains("50 bytes"))

        // Hand-made XXpsk3 first messages: use 9, and the identity as the share.
        #expect(try Self.refusal(ofOffer: [9] + Array(repeating: 1, count: 32))?.contains("unknown use 9") == true)
        let point = try Self.refusal(ofOffer: [1] + Array(repeating: 0, count: 32))
        #expect(point?.contains("not a valid point") == true, "\(String(describing: point))")
    }
}
