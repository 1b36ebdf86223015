import Games
import Match
import ParlorTestSupport
import Testing
@testable import ParlorCLI

/// The score a series of rematches prints: by player, whichever seat each
/// had; a quit counts for the other side; a match with no one winner is a draw.
@Suite("A series' score")
struct SeriesTallyTests {
    @Test("wins follow the player across swapped seats, a quit counts for the other, no winner is a draw")
    func score() throws {
        let first = MatchFixtures.newMatch("connect4")
        let ana = first.seats[0], ben = first.seats[1]
        var tally = SeriesTally()
        // Ana (seat 1) wins with four in column 1.
        tally.add(try MatchFixtures.after([0, 1, 0, 1, 0, 1, 0], in: first))
        #expect(tally.line == "Series after 1 match: Ana 1, Ben 0.")
        // The rematch swaps the seats; Ana, now seat 2, quits: Ben's.
        let swapped = MatchState(matchID: .random(), game: Connect4(), seats: [ben, ana], turnTimeout: 0, now: 0)
        tally.add(try swapped.applying(.quit(1), now: 1))
        #expect(tally.line == "Series after 2 matches: Ana 1, Ben 1.")
        // A match that ended with no one winner (tied seats) is a draw.
        var tied = MatchState(matchID: .random(), game: Connect4(), seats: [ana, ben], turnTimeout: 0, now: 0)
        tied.seats[0].outcome = .tied
        tied.seats[1].outcome = .tied
        tally.add(tied)
        #expect(tally.line == "Series after 3 matches: Ana 1, Ben 1, 1 draw.")
        #expect(tally.matches == 3)
    }
}
