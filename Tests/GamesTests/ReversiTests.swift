import Testing
@testable import Games

/// A bitboard of the named cells (`d4`, ...).
func reversiBits(_ names: [String]) -> UInt64 {
    names.reduce(0) { bits, name in
        guard let move = Reversi().move(fromNotation: name) else { return bits }
        return bits | UInt64(1) << UInt64(move.rawValue)
    }
}

struct ReversiTests {
    @Test func startsWithFourDiscsAndFourMovesForDark() {
        let game = Reversi()
        #expect(game.activeSeat == 0)
        #expect(game.disc(at: 27) == 1 && game.disc(at: 36) == 1)  // d4, e5 light
        #expect(game.disc(at: 28) == 0 && game.disc(at: 35) == 0)  // e4, d5 dark
        #expect(game.legalMoves.map(game.notation(for:)) == ["d3", "c4", "f5", "e6"])
        #expect(game.scores == [2, 2])
    }

    @Test func aMoveTurnsTheBracketedDiscAndPassesTheTurn() throws {
        let game = try #require(play(Reversi(), ["d3"]))
        #expect(game.disc(at: 27) == 0)  // d4 turned
        #expect(game.scores == [4, 1])
        #expect(game.activeSeat == 1)
        #expect(game.legalMoves.map(game.notation(for:)) == ["c3", "e3", "c5"])
    }

    static let directions: [(name: String, neighbour: String, beyond: String)] = [
        ("east", "e4", "f4"), ("west", "c4", "b4"), ("south", "d5", "d6"), ("north", "d3", "d2"),
        ("south-east", "e5", "f6"), ("south-west", "c5", "b6"), ("north-east", "e3", "f2"), ("north-west", "c3", "b2"),
    ]

    @Test(arguments: directions)
    func flipsInEachDirection(_ direction: (name: String, neighbour: String, beyond: String)) throws {
        // Dark plays d4 with one light disc next to it and a dark one beyond, plus a far light disc
        // so that the game does not end at once.
        let game = Reversi(dark: reversiBits([direction.beyond]), light: reversiBits([direction.neighbour, "h8"]), toMove: 0)
        #expect(game.flips(playing: 27, for: 0) == reversiBits([direction.neighbour]))
        let after = try game.applying(Move(27))
        #expect(after.disc(at: Reversi().move(fromNotation: direction.neighbour)!.rawValue) == 0)
        #expect(after.scores == [3, 1])
    }

    @Test func flipsInAllEightDirectionsAtOnce() throws {
        let light = reversiBits(["c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5"])
        let dark = reversiBits(["b2", "d2", "f2", "b4", "f4", "b6", "d6", "f6"])
        let game = Reversi(dark: dark, light: light, toMove: 0)
        #expect(game.flips(playing: 27, for: 0) == light)
        let after = try game.applying(Move(27))
        #expect(after.scores == [17, 0])
        // Light has no disc left and dark nothing to bracket: the game is over.
        #expect(after.result == .won(by: 0))
        #expect(after.activeSeat == nil)
    }

    @Test func linesDoNotWrapAroundTheEdge() {
        // Light on h4, dark on a5 (the next bit): g4 brackets nothing.
        let game = Reversi(dark: reversiBits(["a5", "a1"]), light: reversiBits(["h4", "b1"]), toMove: 0)
        #expect(game.flips(playing: 30, for: 0) == 0)
        #expect(!game.isLegal(Move(30)))
        #expect(game.isLegal(game.move(fromNotation: "c1")!))
    }

    @Test func aSeatWithNoMovePassesAutomatically() throws {
        // Dark can play c1 and h8; after c1 light's only disc h7 is walled in by dark.
        let dark = reversiBits(["a1", "h1", "h2", "h3", "h4", "h5", "h6"])
        let light = reversiBits(["b1", "h7"])
        var game = Reversi(dark: dark, light: light, toMove: 0)
        #expect(game.activeSeat == 0)
        try game.apply(try #require(game.move(fromNotation: "c1")))
        #expect(game.legalBits(for: 1) == 0)
        #expect(game.activeSeat == 0, "light has no move, so dark moves again")
        #expect(game.result == .inProgress)
        try game.apply(try #require(game.move(fromNotation: "h8")))
        #expect(game.result == .won(by: 0))
        #expect(game.moveCount == 2)
    }

    @Test func theGameEndsWhenNeitherSeatCanMove() {
        let drawn = Reversi(dark: reversiBits(["a1"]), light: reversiBits(["h8"]), toMove: 0)
        #expect(drawn.result == .draw)
        #expect(drawn.legalMoves.isEmpty)
        let lightAhead = Reversi(dark: reversiBits(["a1"]), light: reversiBits(["h8", "h7"]), toMove: 0)
        #expect(lightAhead.result == .won(by: 1))
        #expect(lightAhead.placements == [2, 1])
    }

    @Test func refusesIllegalMoves() throws {
        var game = Reversi()
        #expect(throws: RuleViolation.illegalMove(Move(0))) { try game.apply(Move(0)) }
        #expect(throws: RuleViolation.illegalMove(Move(27))) { try game.apply(Move(27)) }  // taken
        #expect(throws: RuleViolation.illegalMove(Move(64))) { try game.apply(Move(64)) }
        #expect(game == Reversi())
    }

    @Test func aWholeGameFromTheStartEndsWithEveryCellOrNoMove() {
        var game = Reversi()
        while let move = game.legalMoves.first { try? game.apply(move) }
        #expect(game.isOver)
        let scores = game.scores ?? []
        #expect(game.result == (scores[0] == scores[1] ? .draw : .won(by: scores[0] > scores[1] ? 0 : 1)))
    }

    @Test func notationRoundTrips() {
        let game = Reversi()
        for cell in 0..<64 {
            #expect(game.move(fromNotation: game.notation(for: Move(cell))) == Move(cell))
        }
        #expect(game.notation(for: Move(0)) == "a1")
        #expect(game.notation(for: Move(63)) == "h8")
        #expect(game.move(fromNotation: " D3 ") == Move(19))
        for bad in ["", "i1", "a9", "a0", "3d", "d33", "dd"] { #expect(game.move(fromNotation: bad) == nil) }
    }
}
