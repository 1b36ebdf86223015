// Target `store`: StoredMatch(decoding:), the reader of match files under
// ~/.local/share/parlor, and MatchJournal.replay, the reader of the journal
// beside each (docs/STORE.md). A damaged or hand-edited file must be
// reported and skipped, never crash `parlor matches` or `parlor resume`.
//
// Invariants: reading never traps; a file that reads re-encodes to exactly
// the same bytes (a file of an older format is migrated instead: the bytes
// written back read as the same record); its local seat is one of the match's seats;
// a table host's seats (format 3) are one per seat of the match, its own seat its own.
// The input is also read as a journal's frames after a header naming a fixed
// match file: every record replayed is of that match, role and seat; the good
// prefix replays to the same records; a frame appended right after the good
// prefix (as the writer does after cutting a torn tail back) is read too;
// under a header naming another file nothing is replayed.
import Games
import Match
import Store

func fuzzOne(_ bytes: [UInt8]) {
    _ = fuzzGamesRegistered
    check(bytes)
    // Repair the file checksum and the blob's hash so mutations reach the fields.
    if let repaired = storeFileWithRepairedChecksums(bytes), repaired != bytes { check(repaired) }
    checkJournal(bytes)
    let framed = framesWithRepairedChecksums(bytes)
    if framed != bytes { checkJournal(framed) }
}

/// The match file the fuzzed journals extend.
private let journalBase = StoredMatch(state: sampleMatches()[0].state, role: .host, localSeat: 0, lastActivity: 1_700_000_000_000)

private func checkJournal(_ frames: [UInt8]) {
    let checksum = MatchJournal.base(ofMatchFile: journalBase.encoded())
    let journal = MatchJournal.header(base: checksum) + frames
    guard let (records, good) = MatchJournal.replay(journal, over: journalBase, baseChecksum: checksum) else {
        fuzzCheck(false, "a journal with the right header was not read:\n  \(journal.hexString)")
        return
    }
    fuzzCheck(good >= MatchJournal.headerSize && good <= journal.count, "good length \(good) outside the journal")
    for record in records {
        fuzzCheck(record.state.matchID == journalBase.state.matchID && record.role == journalBase.role
                  && record.localSeat == journalBase.localSeat, "a journal frame of another match was replayed")
    }
    let prefix = Array(journal.prefix(good))
    let again = MatchJournal.replay(prefix, over: journalBase, baseChecksum: checksum)
    fuzzCheck(again?.records.map(\.state.stateHash) == records.map(\.state.stateHash) && again?.goodLength == good,
              "the good prefix of a journal replays differently:\n  \(journal.hexString)")
    let extended = MatchJournal.replay(prefix + MatchJournal.frame(journalBase), over: journalBase, baseChecksum: checksum)
    fuzzCheck(extended?.records.count == records.count + 1, "a frame appended after the good prefix was not read")
    fuzzCheck(MatchJournal.replay(journal, over: journalBase, baseChecksum: checksum ^ 1) == nil,
              "a journal naming another match file was replayed")
}

/// `bytes` read as frames, each with its record's checksums and its frame checksum made right, so mutations reach the fields.
private func framesWithRepairedChecksums(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var offset = 0
    while bytes.count - offset >= MatchJournal.frameHeaderSize {
        let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        let start = offset + MatchJournal.frameHeaderSize
        guard length <= bytes.count - start else { break }
        let payload = Array(bytes[start..<(start + length)])
        let repaired = storeFileWithRepairedChecksums(payload) ?? payload
        var writer = ByteWriter()
        writer.write(UInt32(repaired.count))
        writer.write(fnv1a64(repaired))
        writer.write(bytes: repaired)
        out += writer.bytes
        offset = start + length
    }
    return out + bytes[offset...]
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
                  && migrated?.seatToken == stored.seatToken && migrated?.localSeat == stored.localSeat
                  && migrated?.tableSeats == stored.tableSeats && migrated?.listenPort == stored.listenPort,
                  "a migrated match does not read back:\n  in  \(bytes.hexString)\n  out \(again.hexString)")
    }
    fuzzCheck(stored.state.seats.indices.contains(stored.localSeat), "local seat outside the match")
    fuzzCheck(stored.tableSeats.isEmpty || (stored.tableSeats.count == stored.state.seats.count
                                            && stored.tableSeats[stored.localSeat].kind == .own),
              "a table's seats that do not fit its match were read")
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
        // A table's host keeps every seat (format 3): its own, each guest's token, each bot's level.
        if sample.state.seats.count > 2 {
            let kept = sample.state.seats.indices.map { seat -> StoredMatch.TableSeat in
                if seat == 0 { return .init(kind: .own) }
                if seat == sample.state.seats.count - 1 { return .init(kind: .bot, botLevel: "easy") }
                return .init(kind: .guest, seatToken: Array(repeating: UInt8(seat), count: 16))
            }
            let host = StoredMatch(state: sample.state, role: .host, localSeat: 0, lastActivity: 1_700_000_000_000,
                                   seatToken: kept[1].seatToken, writerPID: 4242, listenPort: 7622, tableSeats: kept)
            seeds.append((sample.name + "-table-host", host.encoded()))
        }
    }
    // Journals: a few frames of one side of one match, whole, and cut short.
    var frames: [UInt8] = []
    for (index, sample) in sampleMatches().prefix(4).enumerated() {
        frames += MatchJournal.frame(StoredMatch(state: sample.state, role: .host, localSeat: 0,
                                                 lastActivity: 1_700_000_000_000 + Int64(index)))
    }
    seeds.append(("journal-frames", frames))
    seeds.append(("journal-torn", Array(frames.dropLast(5))))
    return seeds
}
