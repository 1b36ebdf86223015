// Target `txt`: TXTRecord(decoding:) and ParlorServiceInfo, which read the
// DNS-SD TXT records that anyone on the LAN can publish.
//
// Invariants: nothing traps; what survives decoding encodes and decodes to
// itself; a record judged joinable can be written back.
import Discovery

func fuzzOne(_ bytes: [UInt8]) {
    let txt = TXTRecord(decoding: bytes)
    let again = TXTRecord(decoding: txt.encoded())
    fuzzCheck(again == txt, "round trip changed the record: \(txt) -> \(again)")
    _ = txt.description
    let assessment = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4", "cube4", "tictactoe"])
    _ = assessment.reason?.description
    if assessment.isJoinable, let info = assessment.info {
        fuzzCheck((try? info.txtRecord()) != nil, "a joinable record could not be written back")
    }
    if let info = try? ParlorServiceInfo(txt: txt), let written = try? info.txtRecord() {
        fuzzCheck((try? ParlorServiceInfo(txt: TXTRecord(decoding: written.encoded()))) != nil, "a record parlor wrote does not read back")
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    var seeds: [(String, [UInt8])] = []
    for (index, state) in ParlorServiceInfo.State.allCases.enumerated() {
        for game in ["connect4", "cube4", "tictactoe", "chess"] {
            let info = ParlorServiceInfo(protocolVersion: 1, gameID: game, rulesVersion: 1, seatsTaken: index % 3, seatsTotal: 2,
                                         state: state, matchID: "4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d", needsPasscode: index % 2 == 1,
                                         appVersion: "0.1.0", hostPlayerName: "Ada Lovelace ♛ \(index)")
            if let txt = try? info.txtRecord() { seeds.append(("\(game)-\(state.rawValue)", txt.encoded())) }
        }
    }
    seeds.append(("bare-and-repeats", [4] + Array("pv=2".utf8) + [4] + Array("PV=1".utf8) + [4] + Array("flag".utf8) + [0]))
    seeds.append(("empty", [0]))
    return seeds
}
