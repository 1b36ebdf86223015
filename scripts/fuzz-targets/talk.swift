// Target `talk`: TALK (type 16), table talk (docs/PROTOCOL.md section 18):
// Message.decode of a TALK payload, the host's checks on a said line
// (TalkCheck), and the per-link rate limit (TalkBucket) driven by the input.
//
// Invariants: nothing traps; a TALK that decodes re-encodes to its payload; a
// said line that passes the checks has 1 to 200 scalars, no control
// character and not only white space, and the line the host would relay with
// it decodes back to the same line; a refusal the host would send decodes
// back with its reason; a relayed line that decodes passes the checks; the
// bucket never lets through more than 5 lines plus one per 2 s elapsed.
import Games
import Match
import Session

func fuzzOne(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    // The first byte picks what the rest is: a TALK payload, or a said line's bytes.
    if first & 1 == 0 {
        guard let message = try? Message.decode(Frame(type: .talk, payload: rest)) else { return }
        fuzzCheck(message.payload == rest, "a TALK re-encodes differently:\n  in  \(rest.hexString)\n  out \(message.payload.hexString)")
        if case .talk(.relayed(let line)) = message {
            if case .failure(let refusal) = TalkCheck.check(Array(line.text.utf8)) {
                fuzzCheck(false, "a relayed line that decoded fails the checks: \(refusal.reason)")
            }
        }
        if case .talk(.say(let said)) = message { judge(said) }
    } else {
        judge(rest)
        limit(rest)
    }
}

/// The host's verdict on a said line, and what it would send for it.
func judge(_ said: [UInt8]) {
    switch TalkCheck.check(said) {
    case .success(let text):
        let scalars = text.unicodeScalars
        fuzzCheck(scalars.count >= 1 && scalars.count <= TalkCheck.maximumScalars, "\(scalars.count) scalars passed")
        fuzzCheck(!scalars.contains { $0.properties.generalCategory == .control }, "a control character passed")
        fuzzCheck(scalars.contains { !$0.properties.isWhitespace }, "a blank line passed")
        let line = TalkLine(role: .player, seat: 3, name: "Grace Hopper ♛", text: text, afterSequence: 41)
        let relayed = Message.talk(.relayed(line))
        fuzzCheck((try? Message.decode(relayed.frame)) == relayed, "the relayed line does not decode back")
    case .failure(let refusal):
        fuzzCheck((400...405).contains(refusal.reason.rawValue), "refused with \(refusal.reason)")
        fuzzCheck(!refusal.sentence.isEmpty, "a refusal without a sentence")
        let refused = Message.talk(.refused(refusal.reason, sentence: refusal.sentence))
        fuzzCheck((try? Message.decode(refused.frame)) == refused, "the refusal does not decode back")
    }
}

/// Each byte is a pause before the next line, in 100 ms steps.
func limit(_ pauses: [UInt8]) {
    let start = ContinuousClock.now
    var bucket = TalkBucket(now: start)
    var now = start
    var allowed = 0
    for pause in pauses {
        now += .milliseconds(Int(pause) * 100)
        if bucket.take(now: now) { allowed += 1 }
        let earned = Int((now - start) / TalkBucket.interval)
        fuzzCheck(allowed <= TalkBucket.burst + earned, "\(allowed) lines through after \(now - start)")
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    var seeds = sampleMessages().compactMap { name, message -> (String, [UInt8])? in
        guard case .talk = message else { return nil }
        return (name, [0] + message.payload)
    }
    seeds.append(("said-ok", [1] + Array("nice box!".utf8)))
    seeds.append(("said-escape", [1] + Array("\u{1B}[31mred".utf8)))
    seeds.append(("said-long", [1] + Array(String(repeating: "é", count: 201).utf8)))
    seeds.append(("said-bad-utf8", [1, 0x68, 0xC3, 0x28]))
    seeds.append(("burst", [1] + Array(repeating: 0, count: 12)))
    return seeds
}
