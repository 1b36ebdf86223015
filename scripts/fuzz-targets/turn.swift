// Target `turn`: the host's check of a TURN or QUIT from its guest
// (HostTurnValidator) and the guest's check of a change the host pushed
// (GuestPushValidator). These are what a hostile peer reaches once admitted.
//
// Input: a byte choosing the committed match, a byte choosing the message
// kind and how far its sequence number is from the expected one, then the blob.
//
// Invariants: nothing traps; whatever passes is exactly one change by the
// right seat, and applying that change to the committed state gives the very
// state (same hash) that was sent, so both sides hold the same match.
import Games
import Match
import Session

private let committedMatches: [MatchState] = sampleMatches().map { $0.state }.filter { !$0.isEnded }
private let guestSeat: SeatIndex = 1  // FixtureIDs.guest sits in seat 1 of every sample

func fuzzOne(_ bytes: [UInt8]) {
    guard bytes.count >= 2, !committedMatches.isEmpty else { return }
    let committed = committedMatches[Int(bytes[0]) % committedMatches.count]
    let kind: ChangeMessageKind = bytes[1] & 1 == 0 ? .turn : .quit
    let sequence = UInt32(clamping: max(1, Int(committed.sequence) + 1 + Int(bytes[1] >> 1) - 3))
    let blob = Array(bytes.dropFirst(2))
    check(kind, sequence, blob, committed)
    if let repaired = blobWithRepairedHash(blob), repaired != blob { check(kind, sequence, repaired, committed) }
}

private func check(_ kind: ChangeMessageKind, _ sequence: UInt32, _ blob: [UInt8], _ committed: MatchState) {
    switch HostTurnValidator.validate(kind, sequence: sequence, blob: blob, committed: committed, guestSeat: guestSeat,
                                      committedHashes: [committed.sequence: committed.stateHash]) {
    case .success(let (change, judged)):
        fuzzCheck(change.seat == guestSeat, "the host accepted a change for seat \(change.seat) from the guest")
        if let judged {
            fuzzCheck(judged.change == change, "the host judged one change and reported another")
            sameAsApplied(change, judged.state, committed, "host")
        } else if (try? committed.applying(change, now: max(committed.deadline, 1))) == nil {
            fuzzCheck(false, "the host accepted \(change), which the committed match refuses")
        }
    case .failure(let rejection):
        _ = rejection.sentence
    }
    switch GuestPushValidator.validate(kind, sequence: sequence, blob: blob, known: committed, guestSeat: guestSeat) {
    case .success(let (change, received, judged)):
        if case .move = change { fuzzCheck(change.seat != guestSeat, "the guest accepted the host playing its seat") }
        sameAsApplied(change, received, committed, "guest")
        if let judged { fuzzCheck(judged.state.stateHash == received.stateHash, "the guest judged a state it did not receive") }
    case .failure(let desync):
        _ = desync.description
    }
}

private func sameAsApplied(_ change: MatchChange, _ received: MatchState, _ committed: MatchState, _ side: String) {
    guard let applied = try? committed.applying(change, now: max(committed.deadline, 1)) else {
        fuzzCheck(false, "the \(side) accepted \(change), which the committed match refuses"); return
    }
    fuzzCheck(applied.stateHash == received.stateHash, "the \(side) accepted a state that differs from applying \(change)")
}

func fuzzSeeds() -> [(String, [UInt8])] {
    var seeds: [(String, [UInt8])] = []
    let expected: UInt8 = 3 << 1  // sequence = committed + 1
    for (index, committed) in committedMatches.enumerated() {
        let selector = UInt8(index)
        var changes: [(String, MatchChange)] = [("quit-guest", .quit(guestSeat)), ("quit-host", .quit(1 - guestSeat))]
        if let active = committed.activeSeat {
            changes += committed.game.legalMoves.prefix(4).map { ("move\($0.rawValue)", .move($0, by: active)) }
            if committed.deadline > 0 { changes.append(("expiry", .timeExpired(active))) }
        }
        for (name, change) in changes {
            guard let next = try? committed.applying(change, now: max(committed.deadline, 1)) else { continue }
            let kind: UInt8 = ChangeMessageKind(change) == .quit ? 1 : 0
            seeds.append(("\(index)-\(name)", [selector, expected | kind] + MatchBlob.encode(next)))
        }
        seeds.append(("\(index)-replay", [selector, 2 << 1] + MatchBlob.encode(committed)))
    }
    return seeds
}
