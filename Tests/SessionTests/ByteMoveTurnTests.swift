import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Issue 39: a guest's TURN in a game of byte moves (blob format 5, where
/// moves have a length each) is judged by the same order and sentences as
/// any other; a refusal that names a move's seat finds it past moves of any length.
@Suite struct ByteMoveTurnTests {
    init() { WordChain.register() }

    static func word(_ text: String) throws -> Move { try WordChain.move(WordChain.Word(text: text)) }

    @Test("a move forged for the host's seat after words of other lengths is refused as not the guest's seat, naming both")
    func aForgedSeatIsNamed() throws {
        var generator = SplitMix64(seed: 5)
        let seats = [Seat(playerID: .random(using: &generator), name: "Ana"), Seat(playerID: .random(using: &generator), name: "Bo")]
        var committed = MatchState(matchID: .random(using: &generator), game: WordChain(seats: 2), seats: seats)
        committed = try committed.applying(.move(try Self.word("apple"), by: 0), now: 0)
        let proposed = try committed.applying(.move(try Self.word("egg"), by: 1), now: 0)
        var blob = MatchBlob.encode(proposed)
        // Bo's move, as if Ana had made it: its seat byte is just before its length.
        let egg = Array(#"{"text":"egg"}"#.utf8)
        let start = try #require((0...(blob.count - egg.count)).first { Array(blob[$0..<($0 + egg.count)]) == egg })
        #expect(blob[start - 3] == 1)
        blob[start - 3] = 0
        #expect(BlobPeek.seatOfMove(1, in: blob) == 0)
        #expect(BlobPeek.seatOfMove(0, in: blob) == 0 && BlobPeek.seatOfMove(2, in: blob) == nil)
        let result = HostTurnValidator.validate(.turn, sequence: proposed.sequence, blob: blob, committed: committed,
                                                guestSeat: 1, committedHashes: [:])
        guard case .failure(let rejection) = result else {
            Issue.record("a forged move was accepted")
            return
        }
        #expect(rejection == TurnRejection(.notYourSeat, "That move is for seat 1; yours is seat 2."))
        // Unforged, the same TURN is Bo's word.
        let honest = HostTurnValidator.validate(.turn, sequence: proposed.sequence, blob: MatchBlob.encode(proposed),
                                                committed: committed, guestSeat: 1, committedHashes: [:])
        #expect((try? honest.get().change) == .move(try Self.word("egg"), by: 1))
    }
}
