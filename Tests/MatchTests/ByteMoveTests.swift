import Games
import ParlorTestSupport
import Testing
@testable import Match

/// Issue 39: a game's moves may be bytes, or a `Codable` value of its own,
/// with a size limit; they are saved and sent as they were played, and a move
/// that does not fit is refused, never cut. Every built-in game's bytes stay
/// as they were (MatchBlobTests' fixtures).
@Suite("Moves that are bytes or Codable values")
struct ByteMoveTests {
    /// Notes: each seat in turn writes a note of up to 4,096 bytes, and the
    /// game never ends by itself: only the match's data limit stops it.
    struct Notes: Game, Hashable {
        static let id = "notes"
        static let rulesVersion = 1
        static let displayName = "Notes"
        static let summary = "Write notes in turn."
        static let moveHelp = "a note"
        static let seatRange = 2...2
        static let alternatesStrictly = true
        static let moveByteLimit: Int? = Move.maximumByteLimit

        private(set) var moveCount = 0
        init(seats: Int) {}
        var seatCount: Int { 2 }
        var result: GameResult { .inProgress }
        var activeSeat: SeatIndex? { moveCount % 2 }
        var legalMoves: [Move] { [] }
        func isLegal(_ move: Move) -> Bool { move.bytes != nil }
        mutating func apply(_ move: Move) throws(RuleViolation) {
            guard isLegal(move) else { throw .illegalMove(move) }
            moveCount += 1
        }
        func notation(for move: Move) -> String { "a note of \(move.bytes?.count ?? 0) bytes" }
        func move(fromNotation text: String) -> Move? { Move(bytes: Array(text.utf8)) }
    }

    init() {
        WordChain.register()
        do { try GameCatalog.register(Notes.self) } catch { Issue.record("\(error)") }
    }

    static func start(_ game: any Game) -> MatchState {
        var generator = SplitMix64(seed: 39)
        let seats = [Seat(playerID: .random(using: &generator), name: "Ana"), Seat(playerID: .random(using: &generator), name: "Ben")]
        return MatchState(matchID: .random(using: &generator), game: game, seats: seats)
    }

    static func word(_ text: String) throws -> Move { try WordChain.move(WordChain.Word(text: text)) }

    /// The match after `words`, played in turn from Ana (seat 0).
    static func chain(_ words: [String]) throws -> MatchState {
        var state = start(WordChain(seats: 2))
        for (index, text) in words.enumerated() {
            state = try state.applying(.move(try word(text), by: index % 2), now: 0)
        }
        return state
    }

    @Test("Codable moves are saved as the bytes played (format 5) and read back the same, by a full read and by a peer's one-change read")
    func roundTrip() throws {
        let before = try Self.chain(["apple", "egg"])
        let after = try before.applying(.move(try Self.word("grape"), by: 0), now: 0)
        let blob = MatchBlob.encode(after)
        #expect(blob[4] == 0 && blob[5] == 5, "format 5")
        #expect(blob.count < 200, "three short words make a small blob")
        let read = try MatchBlob.decode(blob)
        #expect(read.moves == after.moves && read.stateHash == after.stateHash)
        #expect(read.moves.map { WordChain.value(of: $0.move)?.text } == ["apple", "egg", "grape"])
        #expect(read.game(as: WordChain.self)?.words == ["apple", "egg", "grape"])
        let judged = try #require(before.successor(decoding: blob), "the guest's TURN is read as one change")
        #expect(judged.change == .move(try Self.word("grape"), by: 0))
        // Ben cannot follow "grape" with "apple": the rules read the value.
        #expect(throws: MatchRuleError.illegalMove(try Self.word("apple"))) {
            try after.applying(.move(try Self.word("apple"), by: 1), now: 0)
        }
    }

    @Test("a value longer than the game allows is refused when made, and a byte move that long is refused by the match, never cut")
    func tooLong() throws {
        let long = WordChain.Word(text: String(repeating: "a", count: 30))
        #expect(throws: MoveEncodingError.tooLong(bytes: 41, limit: 24)) { try WordChain.move(long) }
        #expect(MoveEncodingError.tooLong(bytes: 41, limit: 24).description == "the move is 41 bytes, more than this game's 24")
        let state = Self.start(WordChain(seats: 2))
        let forged = Move(bytes: Array(#"{"text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#.utf8))
        #expect(throws: MatchRuleError.moveNotEncodable(forged)) { try state.applying(.move(forged, by: 0), now: 0) }
        #expect(SubmitRejection.rule(.moveNotEncodable(forged)).description.hasPrefix("that move (41 bytes) is not one this game's matches can carry"))
    }

    @Test("another spelling of the same value is not a move, so every move has one byte string")
    func oneSpelling() throws {
        let state = Self.start(WordChain(seats: 2))
        let spaced = Move(bytes: Array(#"{ "text": "apple" }"#.utf8))
        #expect(spaced.decoded(as: WordChain.Word.self) == WordChain.Word(text: "apple"), "it is the same value…")
        #expect(WordChain.value(of: spaced) == nil, "…but not the one spelling")
        #expect(throws: MatchRuleError.illegalMove(spaced)) { try state.applying(.move(spaced, by: 0), now: 0) }
        #expect(try Self.word("apple").bytes == Array(#"{"text":"apple"}"#.utf8))
    }

    @Test("a numbered move in a game of byte moves, and a byte move in a game of numbered moves, are refused")
    func kindsDoNotMix() throws {
        let words = Self.start(WordChain(seats: 2))
        #expect(throws: MatchRuleError.moveNotEncodable(Move(3))) { try words.applying(.move(Move(3), by: 0), now: 0) }
        let board = Self.start(Connect4(seats: 2))
        let bytes = Move(bytes: [3])
        #expect(throws: MatchRuleError.moveNotEncodable(bytes)) { try board.applying(.move(bytes, by: 0), now: 0) }
        #expect(MatchBlob.encode(try board.applying(.move(Move(3), by: 0), now: 0))[5] == 1, "Connect Four keeps format 1")
    }

    @Test("a blob that lies about its moves is refused with the field it lies in")
    func lyingBlobs() throws {
        let blob = MatchBlob.encode(try Self.chain(["apple"]))
        var asFormat4 = blob
        asFormat4[5] = 4
        #expect(throws: MatchBlobError.self) { try MatchBlob.decode(asFormat4) }
        // The first move made 30 letters long (its length field and bytes), past the game's 24.
        let first = Array(#"{"text":"apple"}"#.utf8)
        let start = try #require(Self.range(of: first, in: blob))
        let longer = Array(#"{"text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#.utf8)
        var forged = Array(blob[..<(start - 2)])
        forged += [UInt8(longer.count >> 8), UInt8(longer.count & 0xFF)] + longer + blob[(start + first.count)...]
        #expect(throws: MatchBlobError.invalidField("move 1, longer than word-chain allows")) { try MatchBlob.decode(forged) }
        // A length past the end of the blob is a short read, not a crash.
        var overlong = blob
        overlong[start - 2] = 0x0F
        #expect(throws: MatchBlobError.self) { try MatchBlob.decode(overlong) }
    }

    @Test("moves stop being accepted where the match's data would pass its limit, and what came before still saves and reads")
    func dataLimit() throws {
        var state = Self.start(Notes(seats: 2))
        let note = Move(bytes: Array(repeating: 0x61, count: 4000))
        var refusedAt: Int?
        for index in 0..<100 {
            do { state = try state.applying(.move(note, by: index % 2), now: 0) } catch {
                #expect(error == .moveNotEncodable(note))
                refusedAt = index
                break
            }
        }
        let blob = MatchBlob.encode(state)
        #expect(refusedAt == 65, "65 notes of 4,000 bytes fit 256 KiB, the 66th does not")
        #expect(blob.count <= MatchBlob.maximumSize)
        #expect(try MatchBlob.decode(blob).moves.count == 65)
    }

    @Test("a game whose byte limit is 0 or over 4,096 is refused at registration, with a sentence naming it")
    func registration() {
        struct Huge: Game {
            static let id = "huge-moves"
            static let rulesVersion = 1
            static let displayName = "Huge"
            static let summary = "-"
            static let moveHelp = "-"
            static let seatRange = 2...2
            static let alternatesStrictly = true
            static let moveByteLimit: Int? = 5000
            init(seats: Int) {}
            var seatCount: Int { 2 }
            var moveCount: Int { 0 }
            var result: GameResult { .inProgress }
            var activeSeat: SeatIndex? { 0 }
            var legalMoves: [Move] { [] }
            func isLegal(_ move: Move) -> Bool { false }
            mutating func apply(_ move: Move) throws(RuleViolation) { throw .illegalMove(move) }
            func notation(for move: Move) -> String { "" }
            func move(fromNotation text: String) -> Move? { nil }
        }
        #expect(throws: GameCatalogError.moveByteLimitOutOfRange(id: "huge-moves", 5000)) { try GameCatalog.register(Huge.self) }
        #expect(GameCatalogError.moveByteLimitOutOfRange(id: "huge-moves", 5000).description
            == "cannot register game 'huge-moves': its moves' byte limit 5000 is outside 1-4096")
        #expect(GameCatalog.game(id: "huge-moves") == nil)
    }

    static func range(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
