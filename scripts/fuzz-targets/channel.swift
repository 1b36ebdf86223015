// Target `channel`: protocol 3's channel reader (docs/PROTOCOL.md section 20),
// `SecureChannel.receive`, on the host's side before the handshake (the first
// bytes: "PN" records, clear frames, anything else) and after it (sealed
// records, refusals, malformed headers), fed in uneven chunks; with passcodes
// (CPace offers in the first message, section 20's "Passcodes in the
// handshake"), and on the guest's side with an offer, reading what a host (or
// an impostor) answers.
//
// Invariants: nothing traps; before the handshake nothing of the frame stream
// is delivered except, for a peer that is not "PN", the very bytes received
// (the clear path); a failed channel delivers and sends nothing more; what a
// peer sealed opens to the same bytes however the records are cut.
@preconcurrency import Glibc
import Secure
import Session

let hostKey = try! IdentityKeyPair(seed: (0..<32).map { UInt8($0) })
let guestKey = try! IdentityKeyPair(seed: (0..<32).map { UInt8(200 - $0) })

func established() -> (guest: SecureChannel, host: SecureChannel) {
    var guest = try! SecureChannel(role: .initiator, identity: guestKey)
    var host = try! SecureChannel(role: .responder(allowClear: false), identity: hostKey)
    func sent(_ actions: [SecureChannel.Action]) -> [UInt8] {
        actions.reduce(into: []) { if case .send(let bytes) = $1 { $0 += bytes } }
    }
    _ = host.receive(sent(guest.receive(sent(host.receive(sent(guest.start()))))))
    fuzzCheck(guest.isEstablished && host.isEstablished, "the fixed pair did not set up")
    return (guest, host)
}

func sent(_ actions: [SecureChannel.Action]) -> [UInt8] {
    actions.reduce(into: []) { if case .send(let bytes) = $1 { $0 += bytes } }
}

func delivered(_ actions: [SecureChannel.Action]) -> [UInt8] {
    actions.reduce(into: []) { if case .deliver(let bytes) = $1 { $0 += bytes } }
}

func fuzzOne(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let input = Array(bytes.dropFirst())
    switch first % 4 {
    case 0:
        // A host meeting a new connection (with passcodes when bit 6 is set).
        let codes = first & 0x40 != 0 ? HostPasscodes(seat: "K7M-Q4P", watch: "WAT-CHR") : nil
        var host = try! SecureChannel(role: .responder(allowClear: first & 0x80 != 0), identity: hostKey, passcodes: codes)
        var out: [UInt8] = []
        var failed = false
        for chunk in unevenChunks(input) {
            var actions = host.receive(Array(chunk))
            if failed { fuzzCheck(actions.isEmpty, "a failed channel acted again") }
            if actions.contains(where: { if case .passcodeOffered = $0 { true } else { false } }) {
                fuzzCheck(sent(actions).isEmpty, "an offer was answered before its turn")
                actions += host.releaseOffer()
            }
            out += delivered(actions)
            if host.hasFailed { failed = true }
        }
        if !out.isEmpty {
            fuzzCheck(host.isClear && out == input, "frame bytes were delivered before the handshake")
        }
    case 1:
        // An established host reading records.
        var (_, host) = established()
        var failed = false
        for chunk in unevenChunks(input) {
            let actions = host.receive(Array(chunk))
            if failed { fuzzCheck(actions.isEmpty, "a failed channel acted again") }
            if host.hasFailed { failed = true }
        }
    case 3:
        // A guest offering a code reads what answers: nothing is delivered before the
        // channel is set up, and a failed channel does nothing more.
        var guest = try! SecureChannel(role: .initiator, identity: guestKey, offer: PasscodeOffer(code: "K7M-Q4P", use: .seat))
        _ = guest.start()
        var failed = false
        for chunk in unevenChunks(input) {
            let actions = guest.receive(Array(chunk))
            if failed { fuzzCheck(actions.isEmpty, "a failed channel acted again") }
            if !guest.isEstablished && !guest.isClear { fuzzCheck(delivered(actions).isEmpty, "delivered before the handshake") }
            if guest.hasFailed { failed = true }
        }
    default:
        // What the guest seals, the host opens, in any cut.
        var (guest, host) = established()
        let wire = guest.seal(input)
        var out: [UInt8] = []
        for chunk in unevenChunks(wire) { out += delivered(host.receive(Array(chunk))) }
        fuzzCheck(out == input, "a sealed chunk of \(input.count) bytes opened to \(out.count) other bytes")
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    var (guest, _) = established()
    let hello = Message.hello(Hello(appVersion: "fuzz", playerID: .random(), playerName: "Fuzz")).encoded
    var fresh = try! SecureChannel(role: .initiator, identity: guestKey)
    let opening = fresh.start().reduce(into: [UInt8]()) { if case .send(let bytes) = $1 { $0 += bytes } }
    var offering = try! SecureChannel(role: .initiator, identity: guestKey, offer: PasscodeOffer(code: "K7M-Q4P", use: .seat))
    let offer = sent(offering.start())
    var answering = try! SecureChannel(role: .responder(allowClear: false), identity: hostKey, passcodes: HostPasscodes(seat: "K7M-Q4P", watch: nil))
    _ = answering.receive(offer)
    let answer = sent(answering.releaseOffer())
    return [
        ("first-record", [0] + opening),
        ("clear-hello", [0] + hello),
        ("clear-hello-allowed", [0x80 | 0x03] + hello),
        ("http", [0] + Array("GET / HTTP/1.1\r\n\r\n".utf8)),
        ("sealed", [1] + guest.seal(Array("TURN 4".utf8))),
        ("refusal", [1] + SecureChannel.magic + [3, 0, 5] + Array("nope!".utf8)),
        ("roundtrip", [2] + hello),
        ("offer", [0x40] + offer),
        ("offer-to-open-host", [0] + offer),
        ("answer-to-offer", [3] + answer),
        ("rejection", [3] + SecureChannel.magic + [4, 0, 4, 0, 107] + Array("no".utf8)),
    ]
}
