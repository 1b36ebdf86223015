import Testing

@testable import Discovery

@Suite struct ParlorServiceInfoTests {
    static let sample = ParlorServiceInfo(
        protocolVersion: 1, gameID: "connect4", rulesVersion: 1, seatsTaken: 1, seatsTotal: 2, state: .open,
        matchID: "m-42", needsPasscode: false, appVersion: "0.1.0", hostPlayerName: "Ana")

    @Test func roundTripsThroughTheWire() throws {
        let bytes = try Self.sample.txtRecord().encoded()
        let decoded = try ParlorServiceInfo(txt: TXTRecord(decoding: bytes))
        #expect(decoded == Self.sample)
    }

    @Test func writesTheDocumentedKeys() throws {
        let txt = try Self.sample.txtRecord()
        #expect(txt.entries.map(\.key) == ["pv", "game", "rv", "seats", "state", "match", "code", "app", "host"])
        #expect(txt["seats"] == "1/2")
        #expect(txt["code"] == "0")
        #expect(txt["state"] == "open")
    }

    @Test func hintsTravelAsTheirOwnKeyAndOldRecordsMeanNoHints() throws {
        var info = Self.sample
        info.hintsAllowed = true
        let txt = try info.txtRecord()
        #expect(txt["hints"] == "1")
        #expect(try ParlorServiceInfo(txt: TXTRecord(decoding: txt.encoded())).hintsAllowed)
        // A host from before hints writes no key: no hints; an unknown value is no hints either.
        #expect(try Self.sample.txtRecord()["hints"] == nil)
        #expect(try !ParlorServiceInfo(txt: Self.sample.txtRecord()).hintsAllowed)
        var later = try info.txtRecord()
        try later.set("hints", to: "2")
        #expect(try !ParlorServiceInfo(txt: later).hintsAllowed)
    }

    @Test("a many-table host's TXT says how many tables are in play of how many; one-match hosts and unreadable values have none")
    func tablesTravelAsTheirOwnKey() throws {
        var info = Self.sample
        info.tables = (inPlay: 12, limit: 40)
        let txt = try info.txtRecord()
        #expect(txt["tables"] == "12/40")
        let decoded = try ParlorServiceInfo(txt: TXTRecord(decoding: txt.encoded()))
        #expect(decoded.tables?.inPlay == 12 && decoded.tables?.limit == 40)
        #expect(try Self.sample.txtRecord()["tables"] == nil)
        for bad in ["41/40", "x/40", "3", "0/0"] {
            var odd = try Self.sample.txtRecord()
            try odd.set("tables", to: bad)
            #expect(try ParlorServiceInfo(txt: odd).tables == nil, "tables=\(bad)")
        }
    }

    @Test func cutsLongHostNamesOnACharacterBoundary() throws {
        var info = Self.sample
        info.hostPlayerName = String(repeating: "é", count: 40)  // 80 bytes
        let host = try #require(try info.txtRecord()["host"])
        #expect(host == String(repeating: "é", count: 31))
    }

    @Test func joinableWhenOpenKnownAndSameProtocol() throws {
        let assessment = ParlorServiceInfo.assess(
            try Self.sample.txtRecord(), supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(assessment.isJoinable)
        #expect(assessment.info == Self.sample)
    }

    @Test func otherProtocolVersionWinsEvenIfTheRestIsUnreadable() throws {
        let txt = try TXTRecord(["pv": "2", "something": "new"])
        let assessment = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(assessment.reason == .protocolVersion(advertised: "2", supported: 1))
        #expect(
            assessment.reason?.description
                == "speaks protocol version 2; this parlor speaks 1 (update this parlor to join it)")
    }

    @Test func unknownGameIsReportedWithItsId() throws {
        var info = Self.sample
        info.gameID = "chess"
        let assessment = ParlorServiceInfo.assess(
            try info.txtRecord(), supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(assessment.reason == .unknownGame(id: "chess", rulesVersion: 1))
        #expect(assessment.info?.gameID == "chess")
        #expect(
            assessment.reason?.description == "unknown game 'chess' (rules version 1); this parlor does not have it")
    }

    @Test func rulesVersionIsPassedToTheClosure() throws {
        var info = Self.sample
        info.rulesVersion = 3
        let assessment = ParlorServiceInfo.assess(try info.txtRecord(), supportedProtocolVersion: 1) { id, rules in
            id == "connect4" && rules <= 2
        }
        #expect(assessment.reason == .unknownGame(id: "connect4", rulesVersion: 3))
    }

    @Test func playingAndFullAreNotJoinable() throws {
        var playing = Self.sample
        playing.state = .playing
        playing.seatsTaken = 2
        let playingAssessment = ParlorServiceInfo.assess(
            try playing.txtRecord(), supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(playingAssessment.reason == .alreadyPlaying)
        var full = Self.sample
        full.seatsTaken = 2
        let fullAssessment = ParlorServiceInfo.assess(
            try full.txtRecord(), supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(fullAssessment.reason == .full(taken: 2, total: 2))
        #expect(fullAssessment.reason?.description == "full (2/2 seats)")
    }

    @Test(arguments: [
        ("seats", "3/2"), ("seats", "1"), ("seats", "-1/2"), ("seats", "a/b"), ("state", "lobby"),
        ("code", "yes"), ("rv", "1.5"), ("rv", "99999999999999999999"), ("game", ""),
    ])
    func invalidValuesMakeTheRecordUnreadable(key: String, value: String) throws {
        var txt = try Self.sample.txtRecord()
        try txt.set(key, to: value)
        let assessment = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(assessment.reason == .unreadableRecord(.invalidValue(key: key, value: value)))
        #expect(!assessment.isJoinable)
    }

    @Test func missingKeyIsNamed() throws {
        var txt = try Self.sample.txtRecord()
        txt.remove("match")
        #expect(throws: ParlorTXTError.missingKey("match")) { try ParlorServiceInfo(txt: txt) }
        let assessment = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(assessment.reason?.description == "not a game this parlor can read: its TXT record has no 'match'")
    }

    @Test func hostileRecordsNeverCrashTheAssessment() {
        var generator = SplitMix64(seed: 7)
        let keys = ["pv", "game", "rv", "seats", "state", "match", "code", "app", "host"]
        for _ in 0..<2_000 {
            var txt = TXTRecord()
            for key in keys where generator.next() % 4 != 0 {
                let length = Int(generator.next() % 12)
                let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next() % 64 + 0x2D) }
                try? txt.set(key, bytes: bytes)
            }
            let assessment = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
            #expect(assessment.isJoinable == (assessment.reason == nil))
            if assessment.isJoinable { #expect(assessment.info != nil) }
        }
    }
}
