import Testing

@testable import Discovery

@Suite struct TXTRecordTests {
    @Test func encodesLengthPrefixedStringsInOrder() throws {
        let txt = try TXTRecord(["pv": "1", "game": "connect4"])
        #expect(txt.encoded() == [4] + Array("pv=1".utf8) + [13] + Array("game=connect4".utf8))
    }

    @Test func emptyRecordIsOneZeroByteAndDecodesBackToEmpty() {
        #expect(TXTRecord().encoded() == [0])
        #expect(TXTRecord(decoding: [0]).entries.isEmpty)
        #expect(TXTRecord(decoding: []).entries.isEmpty)
    }

    @Test func roundTripsTextBinaryAndBareKeys() throws {
        var txt = TXTRecord()
        try txt.set("host", to: "Ana 🎲")
        try txt.set("blob", bytes: [0, 255, 61, 10])
        try txt.set("flag", bytes: nil)
        try txt.set("empty", to: "")
        let decoded = TXTRecord(decoding: txt.encoded())
        #expect(decoded == txt)
        #expect(decoded["host"] == "Ana 🎲")
        #expect(decoded.value(forKey: "blob") == .some([0, 255, 61, 10]))
        #expect(decoded.value(forKey: "flag") == .some(nil))
        #expect(decoded["flag"] == nil)
        #expect(decoded.contains("FLAG"))
        #expect(decoded["empty"] == "")
        #expect(decoded.value(forKey: "missing") == nil)
    }

    @Test func keysIgnoreCaseAndSettingReplaces() throws {
        var txt = try TXTRecord(["State": "open"])
        try txt.set("state", to: "playing")
        #expect(txt.entries.count == 1)
        #expect(txt["STATE"] == "playing")
        txt.remove("sTaTe")
        #expect(txt.entries.isEmpty)
    }

    @Test(arguments: [
        ("", TXTRecordError.emptyKey),
        ("a=b", TXTRecordError.invalidKey("a=b")),
        ("tab\t", TXTRecordError.invalidKey("tab\t")),
        ("é", TXTRecordError.invalidKey("é")),
    ])
    func rejectsBadKeys(key: String, error: TXTRecordError) {
        var txt = TXTRecord()
        #expect(throws: error) { try txt.set(key, to: "x") }
        #expect(txt.entries.isEmpty)
    }

    @Test func entryOf255BytesFitsAnd256DoesNot() throws {
        var txt = TXTRecord()
        try txt.set("k", to: String(repeating: "x", count: 253))  // "k=" + 253 = 255
        #expect(txt.encoded().count == 256)
        #expect(throws: TXTRecordError.entryTooLong(key: "k", length: 256)) {
            try txt.set("k", to: String(repeating: "x", count: 254))
        }
        // The failed set left the record as it was.
        #expect(txt["k"]?.count == 253)
    }

    @Test func wholeRecordIsCappedAt65535Bytes() {
        var txt = TXTRecord()
        let value = String(repeating: "v", count: 250)
        var thrown: TXTRecordError?
        for index in 0..<300 {
            do {
                try txt.set("k\(index)", to: value)
            } catch {
                thrown = error
                break
            }
        }
        guard case .recordTooLong(let length)? = thrown else {
            Issue.record("expected recordTooLong, got \(String(describing: thrown))")
            return
        }
        #expect(length > TXTRecord.maximumLength)
        #expect(txt.encoded().count <= TXTRecord.maximumLength)
    }

    @Test func decodingSkipsMalformedEntriesAndKeepsTheRest() {
        var bytes: [UInt8] = []
        func add(_ string: [UInt8]) { bytes += [UInt8(string.count)] + string }
        add(Array("pv=1".utf8))
        add([])  // empty string
        add(Array("=novalue".utf8))  // empty key
        add([0xC3, 0xA9, 0x3D, 0x31])  // non-ASCII key "é=1"
        add(Array("PV=2".utf8))  // repeat: the first one counts
        add(Array("game=connect4".utf8))
        let txt = TXTRecord(decoding: bytes)
        #expect(txt.entries.map(\.key) == ["pv", "game"])
        #expect(txt["pv"] == "1")
    }

    @Test func lengthPastTheEndStopsDecodingWithoutCrashing() throws {
        let good: [UInt8] = [4] + Array("pv=1".utf8)
        let truncated = good + [200] + Array("game=con".utf8)
        #expect(TXTRecord(decoding: truncated).entries.map(\.key) == ["pv"])
        // Every prefix of a valid record decodes to a prefix of its entries.
        let full = try TXTRecord(["pv": "1", "game": "connect4", "state": "open"])
        let bytes = full.encoded()
        for end in 0...bytes.count {
            let partial = TXTRecord(decoding: bytes[0..<end])
            #expect(partial.entries == Array(full.entries.prefix(partial.entries.count)))
        }
    }

    @Test func randomBytesNeverCrashAndWhatSurvivesRoundTrips() {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<5_000 {
            let count = Int(generator.next() % 600)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let txt = TXTRecord(decoding: bytes)
            #expect(TXTRecord(decoding: txt.encoded()) == txt)
        }
    }

    @Test func randomMutationsOfARealRecordNeverCrash() throws {
        let base = try ParlorServiceInfoTests.sample.txtRecord().encoded()
        var generator = SplitMix64(seed: 99)
        for _ in 0..<5_000 {
            var bytes = base
            for _ in 0..<(1 + generator.next() % 4) {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            let txt = TXTRecord(decoding: bytes)
            _ = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
            #expect(txt.entries.count <= 9)
        }
    }
}

/// A tiny deterministic generator so a failure reproduces.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
