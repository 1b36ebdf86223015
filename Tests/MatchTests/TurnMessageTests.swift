import Games
import ParlorTestSupport
import Testing
@testable import Match

/// Issue 39, item 3: "a message with a turn, saved with it" (GameKit's
/// `match.message`): a move may carry a short message, which is part of the
/// match, its blob (format 4 only for a match with one) and its hash.
@Suite("A message with a turn")
struct TurnMessageTests {
    static func message(_ text: String) throws -> TurnMessage { try TurnMessage(text) }

    /// Connect Four: Ana plays 4 saying "Your move, Ben", Ben plays 4 silently, Ana plays 3 saying `last`.
    static func chatty(last: String = "Hm.") throws -> MatchState {
        var state = MatchFixtures.newMatch("connect4", turnTimeout: 30, now: 1_700_000_000_000)
        state = try state.applying(.move(Move(3), by: 0, message: message("Your move, Ben")), now: 1_700_000_001_000)
        state = try state.applying(.move(Move(3), by: 1), now: 1_700_000_002_000)
        return try state.applying(.move(Move(2), by: 0, message: message(last)), now: 1_700_000_003_000)
    }

    @Test("a message is 1 to 140 bytes of UTF-8 text; anything else is refused whole, with a sentence, never cut")
    func theRules() throws {
        #expect(try TurnMessage("Your move, Ana").text == "Your move, Ana")
        #expect(try TurnMessage(String(repeating: "é", count: 70)).text.utf8.count == 140)
        #expect(throws: TurnMessageError.tooLong(bytes: 141)) { try TurnMessage(String(repeating: "a", count: 141)) }
        #expect(throws: TurnMessageError.tooLong(bytes: 141)) { try TurnMessage(String(repeating: "€", count: 47)) }
        for text in ["\u{1B}[2J hi", "a\tb", "line\nbreak", "bell\u{07}", "del\u{7F}"] {
            #expect(throws: TurnMessageError.controlCharacter) { try TurnMessage(text) }
        }
        for text in ["", "   ", "\u{00A0}\u{3000}"] {
            #expect(throws: TurnMessageError.empty) { try TurnMessage(text) }
        }
        #expect(TurnMessageError.tooLong(bytes: 141).description
            == "a message with a move holds at most 140 bytes of UTF-8; this one has 141: shorten it")
    }

    @Test("a match with a message is written in format 4 and reads back with every move's message, the latest as match.message")
    func roundTrip() throws {
        let state = try Self.chatty()
        let bytes = MatchBlob.encode(state)
        #expect(bytes[4...5] == [0, 4])
        let decoded = try MatchBlob.decode(bytes)
        #expect(decoded.moves.map(\.message?.text) == ["Your move, Ben", nil, "Hm."])
        #expect(decoded.message?.text == "Hm.")
        #expect(decoded.stateHash == state.stateHash && decoded.moves == state.moves)
        #expect(MatchBlob.encode(decoded) == bytes)
        #expect(decoded.replayPositions.map { $0.message?.text } == [nil, "Your move, Ben", nil, "Hm."])
        // The message is in the hash: the same moves without it are another state.
        let silent = try MatchFixtures.after([3, 3, 2], in: MatchFixtures.newMatch("connect4", turnTimeout: 30, now: 1_700_000_000_000))
        #expect(silent.stateHash != state.stateHash)
    }

    @Test("a match without messages keeps its format and bytes: format 1 for two seats, 2 at a table, 3 with a seed")
    func noMessageNoNewBytes() throws {
        let silent = try MatchFixtures.after([3, 3, 2], in: MatchFixtures.newMatch("connect4"))
        #expect(MatchBlob.encode(silent)[5] == 1)
        #expect(silent.message == nil && !silent.hasMessages)
        SeededNim.register()
        let seeded = MatchState(matchID: .random(), gameType: SeededNim.self,
                                seats: [Seat(playerID: .random(), name: "Ana"), Seat(playerID: .random(), name: "Ben")], seed: 7)
        #expect(MatchBlob.encode(seeded)[5] == 3)
    }

    @Test("a game with chance keeps its seed in format 4, after a seed flag of 1")
    func seededWithAMessage() throws {
        SeededNim.register()
        let start = MatchState(matchID: .random(), gameType: SeededNim.self,
                               seats: [Seat(playerID: .random(), name: "Ana"), Seat(playerID: .random(), name: "Ben")],
                               seed: 0x0123_4567_89ab_cdef)
        let move = try #require(start.game.legalMoves.first)
        let state = try start.applying(.move(move, by: 0, message: Self.message("Good luck")), now: 1)
        let bytes = MatchBlob.encode(state)
        let gameIDEnd = 6 + 16 + 1 + SeededNim.id.utf8.count
        #expect(bytes[5] == 4 && bytes[gameIDEnd + 2] == 1)
        #expect(Array(bytes[(gameIDEnd + 3)...(gameIDEnd + 10)]) == [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef])
        let decoded = try MatchBlob.decode(bytes)
        #expect(decoded.seed == 0x0123_4567_89ab_cdef && decoded.message?.text == "Good luck")
    }

    /// The blob of `chatty()` with the text of its last message replaced by `text`'s bytes, length byte included.
    static func forging(lastMessage text: [UInt8]) throws -> [UInt8] {
        let bytes = MatchBlob.encode(try chatty())
        let old = Array("Hm.".utf8)
        let end = bytes.count - 8
        #expect(Array(bytes[(end - old.count - 1)..<end]) == [UInt8(old.count)] + old)
        return Array(bytes[..<(end - old.count - 1)]) + [UInt8(text.count)] + text + Array(bytes[end...])
    }

    @Test("a blob whose message breaks a rule does not open: too long, a control character, not UTF-8, empty", arguments: [
        Array(repeating: UInt8(ascii: "a"), count: 141), Array("\u{1B}[2J".utf8), [0xC3, 0x28], Array("  ".utf8), [],
    ])
    func aBadMessageIsAnInvalidField(text: [UInt8]) throws {
        #expect(throws: MatchBlobError.invalidField("message with move 3")) { try MatchBlob.decode(try Self.forging(lastMessage: text)) }
        let longest = String(repeating: "a", count: 140)
        #expect(try MatchBlob.decode(MatchBlob.encode(try Self.chatty(last: longest))).message?.text == longest)
    }

    @Test("format 4's table is checked: no messages at all, a move index twice or out of range, each an invalid field")
    func aBadMessageTable() throws {
        let bytes = MatchBlob.encode(try Self.chatty())
        // The table: count 2, then (0, "Your move, Ben"), then (2, "Hm."), then the hash.
        let table = bytes.count - 8 - (2 + 2 + 1 + 14 + 2 + 1 + 3)
        #expect(Array(bytes[table..<(table + 4)]) == [0, 2, 0, 0])
        var none = Array(bytes[..<table]) + [0, 0] + Array(bytes.suffix(8))
        #expect(throws: MatchBlobError.invalidField("message count")) { try MatchBlob.decode(none) }
        none = bytes
        none[bytes.count - 8 - 6 + 1] = 0  // the second message's index: 0 again
        #expect(throws: MatchBlobError.invalidField("message's move index")) { try MatchBlob.decode(none) }
        none[bytes.count - 8 - 6 + 1] = 3  // past the three moves
        #expect(throws: MatchBlobError.invalidField("message's move index")) { try MatchBlob.decode(none) }
    }

    @Test("a format-4 blob cut anywhere is a clean error; mutated bytes never trap, and whatever decodes encodes back to the same bytes")
    func truncatedAndMutated() throws {
        let blob = MatchBlob.encode(try Self.chatty())
        for length in 0..<blob.count {
            #expect(throws: MatchBlobError.self) { try MatchBlob.decode(Array(blob.prefix(length))) }
        }
        for bytes in BlobForge.mutations(of: blob, count: 2000, seed: 4) {
            if let state = try? MatchBlob.decode(bytes) { #expect(MatchBlob.encode(state) == bytes) }
        }
    }

    @Test("a next state that changes an earlier message is a rewritten history, by the full check and by the one-change reading")
    func aChangedMessageRewritesHistory() throws {
        let base = try Self.chatty()
        let next = try base.applying(.move(Move(3), by: 1, message: Self.message("Thanks")), now: 1_700_000_004_000)
        #expect(try base.change(to: next) == .move(Move(3), by: 1, message: Self.message("Thanks")))
        #expect(base.successor(decoding: MatchBlob.encode(next))?.state.message?.text == "Thanks")
        // The same match and moves, Ana's last message another.
        let other = try Self.chatty(last: "Hi!").applying(.move(Move(3), by: 1), now: 1_700_000_004_000)
        #expect(throws: SuccessorError.historyRewritten) { try base.change(to: other) }
        #expect(base.successor(decoding: MatchBlob.encode(other)) == nil)
    }
}

/// A seat whose side cannot read a message (an older peer's, seen through its participant).
final class DeafParticipant: Participant {
    let playerID: PlayerID
    init(playerID: PlayerID) { self.playerID = playerID }
    var readsTurnMessages: Bool { false }
    func turnBegan(_ state: MatchState) {}
}

@Suite("A message goes only where it is read")
struct TurnMessageControllerTests {
    @Test("offline, the move and its message commit together and the event carries it; with an older peer the message is refused and nothing is played")
    func theControllerCarriesOrRefusesIt() async throws {
        let state = MatchFixtures.newMatch("connect4")
        let ana = LocalParticipant(playerID: state.seats[0].playerID)
        let ben = LocalParticipant(playerID: state.seats[1].playerID)
        let controller = MatchController(state: state, participants: [ana, ben])
        try await controller.start()
        guard case .committed(let after) = await ana.play(Move(3), message: try TurnMessage("Your move, Ben")) else {
            Issue.record("the move with a message was not committed")
            return
        }
        #expect(after.message?.text == "Your move, Ben" && after.moves.count == 1)

        let old = DeafParticipant(playerID: state.seats[1].playerID)
        let mixed = MatchController(state: state, participants: [ana, old])
        ana.attach(to: mixed)
        try await mixed.start()
        guard case .rejected(.messagesUnreadable) = await ana.play(Move(3), message: try TurnMessage("Your move")) else {
            Issue.record("a message went to a side that cannot read it")
            return
        }
        #expect(await mixed.state.moves.isEmpty)
        #expect(SubmitRejection.messagesUnreadable.description.contains("play the move without it"))
        guard case .committed = await ana.play(Move(3)) else {
            Issue.record("the move without a message was not committed")
            return
        }
    }

    @Test("at a table of three whose other sides cannot carry a message, the refusal says it is the table, not an older parlor; offline all three may send one")
    func aTableSaysWhy() async throws {
        let seats = ["Ana", "Ben", "Cy"].map { Seat(playerID: .random(), name: $0) }
        let state = MatchState(matchID: .random(), game: DotsAndBoxes(seats: 3), seats: seats, turnTimeout: 0, now: 0)
        let ana = LocalParticipant(playerID: seats[0].playerID)
        let table = MatchController(state: state, participants: [ana, DeafParticipant(playerID: seats[1].playerID),
                                                                 DeafParticipant(playerID: seats[2].playerID)])
        try await table.start()
        let first = try #require(state.game.legalMoves.first)
        guard case .rejected(let refusal) = await ana.play(first, message: try TurnMessage("Your move")),
              case .messagesNotAtTables = refusal else {
            Issue.record("a message at a LAN table was not refused as one")
            return
        }
        #expect(refusal.description.contains("at a table of three or more") && !refusal.description.contains("older"))
        #expect(await table.state.moves.isEmpty)

        let hotSeat = LocalParticipant(playerID: seats[0].playerID)
        let offline = MatchController(state: state, participants: [hotSeat, LocalParticipant(playerID: seats[1].playerID),
                                                                   LocalParticipant(playerID: seats[2].playerID)])
        try await offline.start()
        guard case .committed(let after) = await hotSeat.play(first, message: try TurnMessage("Your move")) else {
            Issue.record("offline, a table's move with a message was not committed")
            return
        }
        #expect(after.message?.text == "Your move")
    }
}
