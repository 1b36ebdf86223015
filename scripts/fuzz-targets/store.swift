// Target `store`: StoredMatch(decoding:), the reader of match files under
// ~/.local/share/parlor. A damaged or hand-edited file must be reported and
// skipped, never crash `parlor matches` or `parlor resume`.
//
// Invariants: reading never traps; a file that reads re-encodes to exactly
// the same bytes (a file of an older format is migrated instead: the bytes
// written back read as the same record); its local seat is one of the match's seats.
import Games
import Match
import Store

func fuzzOne(_ bytes: [UInt8]) {
    check(bytes)
    // Repair the file checksum and the blob's hash so mutations reach the fields.
    if let repaired = storeFileWithRepairedChecksums(bytes), repaired != bytes { check(repaired) }
}

private func check(_ bytes: [UInt8]) {
    let stored: StoredMatch
    do { stored = try StoredMatch(decoding: bytes) } catch {
        _ = error.description
        return
    }
    let again = stored.encoded()
    if format(of: again) == format(of: bytes) {
        fuzzCheck(again == bytes, "a stored match re-encodes differently:\n  in  \(bytes.hexString)\n  out \(again.hexString)")
    } else {
        // An older format is migrated: what parlor writes back must read as
        // the same record and then re-encode to itself.
        let migrated = try? StoredMatch(decoding: again)
        fuzzCheck(migrated?.encoded() == again && migrated?.state.stateHash == stored.state.stateHash
                  && migrated?.seatToken == stored.seatToken && migrated?.localSeat == stored.localSeat,
                  "a migrated match does not read back:\n  in  \(bytes.hexString)\n  out \(again.hexString)")
    }
    fuzzCheck(stored.state.seats.indices.contains(stored.localSeat), "local seat outside the match")
    _ = stored.opponentNames
}

/// The format number of a match file (bytes 4-5, big-endian); the file was read, so they exist.
private func format(of file: [UInt8]) -> UInt16 { UInt16(file[4]) << 8 | UInt16(file[5]) }

func fuzzSeeds() -> [(String, [UInt8])] {
    var seeds: [(String, [UInt8])] = []
    for (index, sample) in sampleMatches().enumerated() {
        let role: StoredMatch.Role = [.offline, .host, .guest][index % 3]
        let stored = StoredMatch(state: sample.state, role: role, localSeat: index % 2,
                                 phase: index % 4 == 1 && !sample.state.isEnded ? .interrupted : nil,
                                 lastActivity: 1_700_000_000_000 + Int64(index),
                                 peerAddress: role == .guest ? "[fe80::1%eth0]:7411" : "",
                                 seatToken: role == .offline ? Array(repeating: 0, count: 16) : FixtureIDs.seatToken.bytes,
                                 writerPID: 4242)
        seeds.append((sample.name, stored.encoded()))
    }
    return seeds
}
