import Testing
@testable import Games

struct DotsAndBoxesTests {
    @Test func startsEmptyWithFortyLines() {
        let game = DotsAndBoxes()
        #expect(game.seatCount == 2)
        #expect(game.legalMoves.count == 40)
        #expect(game.activeSeat == 0)
        #expect(game.scores == [0, 0])
    }

    @Test func aLineThatCompletesNoBoxPassesTheTurn() throws {
        let game = try #require(play(DotsAndBoxes(), ["a1-b1"]))
        #expect(game.activeSeat == 1)
        #expect(game.isDrawn(0))
        #expect(!game.isLegal(Move(0)))
    }

    @Test func completingOneBoxScoresItAndEarnsAnotherMove() throws {
        // Seats 0, 1, 0 draw three sides of the top-left box; seat 1 closes it.
        let game = try #require(play(DotsAndBoxes(), ["a1-b1", "a1-a2", "b1-b2", "a2-b2"]))
        #expect(game.owners[0] == 1)
        #expect(game.scores == [0, 1])
        #expect(game.activeSeat == 1, "the seat that completed a box moves again")
        let next = try #require(play(game, ["e4-e5"]))
        #expect(next.activeSeat == 0)
    }

    @Test func completingTwoBoxesAtOnceScoresBothAndEarnsOneMove() throws {
        // The two top-left boxes with everything but their shared side b1-b2.
        let ready = try #require(play(DotsAndBoxes(), ["a1-b1", "b1-c1", "a2-b2", "b2-c2", "a1-a2", "c1-c2"]))
        #expect(ready.activeSeat == 0)
        #expect(ready.scores == [0, 0])
        let game = try #require(play(ready, ["b1-b2"]))
        #expect(game.owners[0] == 0 && game.owners[1] == 0)
        #expect(game.scores == [2, 0])
        #expect(game.activeSeat == 0)
        #expect(game.moveCount == 7)
    }

    @Test func theGameEndsWhenEveryLineIsDrawnAndMostBoxesWins() {
        var game = DotsAndBoxes()
        for line in 0..<DotsAndBoxes.lineCount { try? game.apply(Move(line)) }
        #expect(game.isOver)
        #expect(game.legalMoves.isEmpty)
        let scores = game.scores ?? []
        #expect(scores.reduce(0, +) == 16)
        let top = scores.max() ?? 0
        let leaders = scores.indices.filter { scores[$0] == top }
        #expect(game.result == (leaders.count == 1 ? .won(by: leaders[0]) : .draw))
        #expect(throws: RuleViolation.gameOver) { try game.apply(Move(0)) }
    }

    @Test(arguments: [3, 4])
    func moreSeatsTakeTurnsInRotation(seats: Int) throws {
        var game = DotsAndBoxes(seats: seats)
        #expect(game.seatCount == seats)
        #expect(game.scores == Array(repeating: 0, count: seats))
        // Lines far apart complete nothing: the turn goes round every seat.
        let quiet = ["a1-b1", "c3-d3", "e1-e2", "a5-b5", "c1-d1", "a3-a4"]
        var order: [SeatIndex] = []
        for text in quiet {
            order.append(try #require(game.activeSeat))
            try game.apply(try #require(game.move(fromNotation: text)))
        }
        #expect(order == (0..<quiet.count).map { $0 % seats })
    }

    @Test func threeSeatsScoreAndRankAtTheEnd() throws {
        var game = DotsAndBoxes(seats: 3)
        // Seats 0, 1 and 2 draw three sides of the top-left box and seat 0 closes it: it moves again.
        for text in ["a1-b1", "a1-a2", "b1-b2", "a2-b2"] { try game.apply(try #require(game.move(fromNotation: text))) }
        #expect(game.owners[0] == 0)
        #expect(game.activeSeat == 0)
        while let move = game.legalMoves.first { try game.apply(move) }
        let scores = try #require(game.scores)
        #expect(scores.count == 3 && scores.reduce(0, +) == 16)
        #expect(game.placements == DotsAndBoxes.places(byScore: scores))
    }

    @Test func placementsShareATieAndSkipThePlacesBelow() {
        #expect(DotsAndBoxes.places(byScore: [5, 3, 5]) == [1, 3, 1])
        #expect(DotsAndBoxes.places(byScore: [1, 9, 4, 2]) == [4, 1, 2, 3])
    }

    @Test func notationRoundTripsForEveryLine() {
        let game = DotsAndBoxes()
        for line in 0..<DotsAndBoxes.lineCount {
            let text = game.notation(for: Move(line))
            #expect(game.move(fromNotation: text) == Move(line), "\(text)")
        }
        #expect(game.notation(for: Move(0)) == "a1-b1")
        #expect(game.notation(for: Move(20)) == "a1-a2")
        #expect(game.notation(for: Move(39)) == "e4-e5")
        #expect(game.move(fromNotation: "B1 A1") == Move(0))
        #expect(game.move(fromNotation: "a2a1") == Move(20))
        for bad in ["", "a1-c1", "a1-b2", "a1-a1", "f1-f2", "a5-a6", "a1"] { #expect(game.move(fromNotation: bad) == nil, "\(bad)") }
    }
}
