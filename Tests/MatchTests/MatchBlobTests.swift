import Games
import ParlorTestSupport
import Testing
@testable import Match

struct MatchBlobTests {
    static func samples() throws -> [MatchState] {
        let c4 = MatchFixtures.newMatch("connect4", turnTimeout: 30, now: 1_700_000_000_000)
        let ttt = MatchFixtures.newMatch("tictactoe", seed: 2)
        let cube = MatchFixtures.newMatch("cube4", seed: 3)
        return [
            c4,
            try MatchFixtures.after([3, 3, 2, 4], in: c4, now: 1_700_000_001_000),
            try MatchFixtures.after([0, 3, 1, 4, 2], in: ttt),  // seat 0 wins
            try MatchFixtures.after([0, 1, 2, 4, 3, 5, 7, 6, 8], in: ttt),  // a draw
            try MatchFixtures.after([0, 5, 10, 15, 0, 0], in: cube),
            try c4.applying(.quit(1), now: 5),
        ]
    }

    @Test func roundTripKeepsEveryField() throws {
        for state in try Self.samples() {
            let bytes = MatchBlob.encode(state)
            let decoded = try MatchBlob.decode(bytes)
            #expect(decoded.matchID == state.matchID)
            #expect(decoded.gameID == state.gameID)
            #expect(decoded.seats == state.seats)
            #expect(decoded.moves == state.moves)
            #expect(decoded.sequence == state.sequence)
            #expect(decoded.turnTimeout == state.turnTimeout)
            #expect(decoded.deadline == state.deadline)
            #expect(decoded.stateHash == state.stateHash)
            #expect(MatchBlob.encode(decoded) == bytes)
        }
    }

    @Test func outcomesAreStoredForEveryEnding() throws {
        let states = try Self.samples()
        #expect(states[2].seats.map(\.outcome) == [.won, .lost])
        #expect(states[3].seats.map(\.outcome) == [.tied, .tied])
        #expect(states[5].seats.map(\.outcome) == [.won, .quit])
        #expect(states[1].seats.map(\.outcome) == [.none, .none])
    }

    @Test func deadlineIsNotPartOfTheHash() throws {
        var state = try Self.samples()[1]
        let hash = state.stateHash
        state.deadline += 1234
        #expect(state.stateHash == hash)
    }

    @Test func futureFormatSaysNewerParlor() throws {
        var bytes = MatchBlob.encode(try Self.samples()[1])
        bytes[4] = 0; bytes[5] = 9
        #expect(throws: MatchBlobError.newerFormat(9)) { try MatchBlob.decode(bytes) }
        #expect(MatchBlobError.newerFormat(9).description.contains("newer parlor"))
    }

    @Test func oversizeIsRefusedBeforeParsing() {
        let bytes = [UInt8](repeating: 0x50, count: MatchBlob.maximumSize + 1)
        #expect(throws: MatchBlobError.tooLarge(MatchBlob.maximumSize + 1)) { try MatchBlob.decode(bytes) }
    }

    @Test func truncationAtEveryOffsetIsAnError() throws {
        let bytes = MatchBlob.encode(try Self.samples()[4])
        for length in 0..<bytes.count {
            #expect(throws: MatchBlobError.self) { try MatchBlob.decode(Array(bytes.prefix(length))) }
        }
    }

    /// Offsets in a blob of a two-seat connect4 match with names "Ana" and "Ben".
    enum Offset {
        static let format = 4
        static let gameLength = 22
        static let seatCount = 22 + 1 + 8 + 2
        static let firstSeat = seatCount + 1
        static let firstNameLength = firstSeat + 16
        static let firstStatus = firstNameLength + 1 + 3
        static let firstOutcome = firstStatus + 1
        static let sequence = firstSeat + 2 * (16 + 1 + 3 + 2)
        static let turnTimeout = sequence + 4
        static let deadline = turnTimeout + 4
        static let moveCount = deadline + 8
        static let firstMove = moveCount + 2
    }

    struct Corruption: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var mutate: @Sendable (inout [UInt8]) -> Void
        var expected: MatchBlobError?
    }

    static let corruptions: [Corruption] = [
        Corruption(testDescription: "magic", mutate: { $0[0] = 0x51 }, expected: .notAMatch),
        Corruption(testDescription: "format 0", mutate: { $0[Offset.format] = 0; $0[Offset.format + 1] = 0 }, expected: .unknownFormat(0)),
        Corruption(testDescription: "game id", mutate: { $0[Offset.gameLength + 1] = 0x43 }, expected: .invalidField("game id")),
        Corruption(testDescription: "unknown game", mutate: { $0[Offset.gameLength + 1] = 0x64 }, expected: .unknownGame("donnect4")),
        Corruption(testDescription: "rules version", mutate: { $0[Offset.seatCount - 1] = 9 }, expected: .rulesVersionMismatch(game: "connect4", theirs: 9, ours: 1)),
        Corruption(testDescription: "seat count", mutate: { $0[Offset.seatCount] = 9 }, expected: .invalidField("seat count")),
        Corruption(testDescription: "name with control character", mutate: { $0[Offset.firstNameLength + 1] = 0x07 }, expected: .invalidField("player name")),
        Corruption(testDescription: "name not UTF-8", mutate: { $0[Offset.firstNameLength + 1] = 0xff }, expected: .invalidField("player name")),
        Corruption(testDescription: "seat status", mutate: { $0[Offset.firstStatus] = 7 }, expected: .invalidField("seat status")),
        Corruption(testDescription: "seat outcome", mutate: { $0[Offset.firstOutcome] = 9 }, expected: .invalidField("seat outcome")),
        Corruption(testDescription: "claims a win", mutate: { $0[Offset.firstOutcome] = 1 }, expected: .outcomesDisagree),
        Corruption(testDescription: "sequence", mutate: { $0[Offset.sequence + 3] &+= 1 }, expected: .invalidField("sequence")),
        Corruption(testDescription: "move out of range", mutate: { $0[Offset.firstMove + 2] = 9 }, expected: .illegalHistory(moveIndex: 0)),
        Corruption(testDescription: "move by wrong seat", mutate: { $0[Offset.firstMove] = 1 }, expected: .illegalHistory(moveIndex: 0)),
        Corruption(testDescription: "timeout out of range", mutate: { $0[Offset.turnTimeout] = 0xff }, expected: .invalidField("turn timeout")),
        Corruption(testDescription: "changed move keeps old hash", mutate: { $0[Offset.firstMove + 2] = 5 }, expected: nil),
        Corruption(testDescription: "trailing byte", mutate: { $0.append(0) }, expected: .trailingBytes(1)),
        Corruption(testDescription: "move count past the end", mutate: { $0[Offset.moveCount] = 0x0f }, expected: .truncated(offset: 0)),
    ]

    @Test(arguments: corruptions)
    func everyFieldIsValidated(_ corruption: Corruption) throws {
        let state = try MatchFixtures.after([3, 3, 2, 4], in: MatchFixtures.newMatch("connect4"))
        var bytes = MatchBlob.encode(state)
        corruption.mutate(&bytes)
        do {
            _ = try MatchBlob.decode(bytes)
            Issue.record("decoded a corrupted blob (\(corruption.testDescription))")
        } catch {
            switch (error, corruption.expected) {
            case (.hashMismatch, nil): break
            case (.truncated, .truncated?): break
            case (let got, let expected?): #expect(got == expected)
            case (let got, nil): Issue.record("expected a hash mismatch, got \(got)")
            }
        }
    }

    @Test func randomAndMutatedBytesNeverCrash() throws {
        var generator = SplitMix64(seed: 42)
        let seeds = try Self.samples().map(MatchBlob.encode)
        var decodedCount = 0
        for round in 0..<10_000 {
            var bytes: [UInt8]
            if round % 4 == 0 {
                bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            } else {
                bytes = seeds[round % seeds.count]
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0...2, using: &generator) {
                    case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                    }
                }
            }
            if let state = try? MatchBlob.decode(bytes) {
                decodedCount += 1
                // Whatever decodes must be a consistent state that encodes to the same bytes.
                #expect(MatchBlob.encode(state) == bytes)
            }
        }
        #expect(decodedCount < 100)
    }
}
