import Testing
@testable import Games

struct ChineseCheckersTests {
    let board = ChineseCheckers.board

    func hole(_ name: String) -> Int { ChineseCheckers.hole(named: name) ?? -1 }

    @Test func theStarHas121HolesInSeventeenRowsAndSixPointsOfTen() {
        #expect(board.coordinates.count == 121)
        #expect(board.rows.map(\.count) == [1, 2, 3, 4, 13, 12, 11, 10, 9, 10, 11, 12, 13, 4, 3, 2, 1])
        #expect(board.points.map(\.count) == Array(repeating: 10, count: 6))
        #expect(Set(board.points.joined()).count == 60)
        #expect(board.points[0] == Array(0..<10), "the top point is rows a-d")
        #expect(board.points[3] == Array(111..<121), "the bottom point is rows n-q")
        // Every hole has between 2 (a tip) and 6 neighbours, and neighbourhood is symmetric.
        for h in 0..<121 {
            let around = board.neighbours[h].filter { $0 >= 0 }
            #expect((2...6).contains(around.count))
            for n in around { #expect(board.neighbours[n].contains(h)) }
        }
    }

    @Test(arguments: [2, 3, 4, 6])
    func startPositionsAndTargets(seats: Int) {
        let game = ChineseCheckers(seats: seats)
        #expect(game.seatCount == seats)
        let homes = ChineseCheckers.homePoints(seats: seats)
        #expect(Set(homes).count == seats)
        for seat in 0..<seats {
            #expect(board.points[homes[seat]].allSatisfy { game.peg(at: $0) == seat })
            #expect(game.targetPoint(of: seat) == (homes[seat] + 3) % 6)
        }
        #expect((0..<121).filter { game.peg(at: $0) != nil }.count == 10 * seats)
        // With 3 seats every target is an empty point; otherwise each target is another seat's home.
        let targets = (0..<seats).map { game.targetPoint(of: $0) }
        if seats == 3 { #expect(Set(targets).isDisjoint(with: homes)) } else { #expect(Set(targets) == Set(homes)) }
        #expect(game.activeSeat == 0)
        #expect(!game.legalMoves.isEmpty)
        #expect(game.scores == Array(repeating: 0, count: seats))
    }

    @Test func fiveSeatsAreNotOffered() {
        #expect(ChineseCheckers.seatCounts == [2, 3, 4, 6])
        #expect(GameCatalog.newGame(id: ChineseCheckers.id, seats: 5) == nil)
        #expect(GameCatalog.newGame(id: ChineseCheckers.id, seats: 6)?.seatCount == 6)
    }

    @Test func singleStepsGoToEmptyNeighboursOnly() throws {
        let game = ChineseCheckers()
        let step = try #require(game.move(fromNotation: "n1-m5"))
        #expect(step == ChineseCheckers.move(from: hole("n1"), to: hole("m5")))
        #expect(game.isLegal(step))
        #expect(!game.isLegal(try #require(game.move(fromNotation: "o1-n1"))), "occupied")
        #expect(!game.isLegal(try #require(game.move(fromNotation: "n1-l5"))), "two rows away without a jump")
        #expect(!game.isLegal(try #require(game.move(fromNotation: "a1-b1"))), "not the mover's peg")
        let after = try game.applying(step)
        #expect(after.peg(at: hole("m5")) == 0 && after.peg(at: hole("n1")) == nil)
        #expect(after.activeSeat == 1)
    }

    @Test func aJumpGoesOverOnePegIntoTheHoleBehind() throws {
        let game = ChineseCheckers()
        // o1 jumps over n1 into m5.
        let jump = try #require(game.move(fromNotation: "o1-m5"))
        #expect(game.isLegal(jump))
        #expect(game.jumpDestinations(from: hole("o1")).contains(hole("m5")))
        #expect(game.legalMoves.contains(jump))
    }

    /// A peg of seat 0 in the middle and pegs placed so it can jump twice.
    func chainPosition() -> (game: ChineseCheckers, from: Int, middle: Int, end: Int, step: Int) {
        let from = hole("i5")
        let over1 = board.neighbours[from][0], middle = board.jumps[from][0]
        let over2 = board.neighbours[middle][2], end = board.jumps[middle][2]
        let step = board.neighbours[middle][4]
        let game = ChineseCheckers(seats: 2, pegs: [from: 0, over1: 1, over2: 0])
        return (game, from, middle, end, step)
    }

    @Test func aChainOfJumpsIsOneMove() throws {
        let (game, from, middle, end, _) = chainPosition()
        let chain = ChineseCheckers.move(from: from, to: end)
        #expect(game.jumpDestinations(from: from) == [middle, end])
        #expect(game.isLegal(chain))
        #expect(game.legalMoves.contains(chain))
        let names = [from, middle, end].map(ChineseCheckers.holeName)
        #expect(game.move(fromNotation: names.joined(separator: "-")) == chain)
        #expect(game.move(fromNotation: names.joined(separator: " ")) == chain)
        #expect(game.move(fromNotation: "\(names[0])-\(names[2])") == chain, "a chain may be typed by its ends")
        let after = try game.applying(chain)
        #expect(after.peg(at: end) == 0 && after.peg(at: from) == nil && after.peg(at: middle) == nil)
        #expect(after.moveCount == 1 && after.activeSeat == 1)
    }

    @Test func anIllegalChainIsRefusedHopByHop() throws {
        let (game, from, middle, end, step) = chainPosition()
        let names = { (holes: [Int]) in holes.map(ChineseCheckers.holeName).joined(separator: "-") }
        // A step inside a chain is not a jump.
        #expect(game.move(fromNotation: names([from, middle, step])) == nil)
        // A hop over an empty hole is not a jump.
        #expect(game.move(fromNotation: names([from, middle, end, board.jumps[end][0]])) == nil)
        // The jump in the wrong order.
        #expect(game.move(fromNotation: names([from, end, middle])) == nil)
        // Two holes away without a peg between is not a move.
        #expect(!game.isLegal(ChineseCheckers.move(from: from, to: board.jumps[from][3])))
    }

    @Test func fillingTheOppositePointWins() throws {
        // Seat 0 (target: the top point) has nine pegs home and the tenth one step away.
        let target = board.points[0]
        var pegs: [Int: SeatIndex] = [:]
        for h in target.prefix(9) { pegs[h] = 0 }
        let outside = try #require(board.neighbours[target[9]].first { $0 >= 0 && !target.contains($0) })
        pegs[outside] = 0
        pegs[board.points[3][0]] = 1
        var game = ChineseCheckers(seats: 2, pegs: pegs)
        #expect(game.scores == [9, 1], "seat 1 has one peg in its own target, the bottom")
        try game.apply(ChineseCheckers.move(from: outside, to: target[9]))
        #expect(game.result == .won(by: 0))
        #expect(game.scores?[0] == 10)
        #expect(game.placements == [1, 2])
        #expect(game.activeSeat == nil)
        #expect(game.legalMoves.isEmpty)
    }

    @Test func aTargetFullWithAnotherSeatsPegStillWinsWithOneOfYours() throws {
        // Seat 1 has left a peg in seat 0's target; seat 0 fills the other nine holes.
        let target = board.points[0]
        var pegs: [Int: SeatIndex] = [target[0]: 1]
        for h in target[1..<9] { pegs[h] = 0 }
        let last = target[9]
        let outside = try #require(board.neighbours[last].first { $0 >= 0 && !target.contains($0) })
        pegs[outside] = 0
        pegs[board.points[0 + 3][5]] = 1
        var game = ChineseCheckers(seats: 2, pegs: pegs)
        try game.apply(ChineseCheckers.move(from: outside, to: last))
        #expect(game.result == .won(by: 0))
    }

    @Test func theMoveCapEndsTheGameByProgress() throws {
        let cap = ChineseCheckers.moveCap * 2
        // Seat 0 has three pegs home, seat 1 one; one move left before the cap.
        var pegs: [Int: SeatIndex] = [:]
        for h in board.points[0].prefix(3) { pegs[h] = 0 }
        pegs[board.points[3][0]] = 1
        pegs[hole("i5")] = 1
        pegs[hole("i1")] = 0
        var game = ChineseCheckers(seats: 2, pegs: pegs, moveCount: cap - 1)
        #expect(game.activeSeat == 1)
        try game.apply(try #require(game.legalMoves.first))
        #expect(game.result == .won(by: 0))
        #expect(game.placements == [1, 2])
    }

    @Test func notationRoundTripsForEveryHoleAndStartMove() {
        for h in 0..<121 { #expect(ChineseCheckers.hole(named: ChineseCheckers.holeName(h)) == h) }
        #expect(ChineseCheckers.holeName(0) == "a1")
        #expect(ChineseCheckers.holeName(120) == "q1")
        #expect(ChineseCheckers.holeName(hole("e13")) == "e13")
        for seats in [2, 3, 4, 6] {
            let game = ChineseCheckers(seats: seats)
            for move in game.legalMoves { #expect(game.move(fromNotation: game.notation(for: move)) == move) }
        }
        let game = ChineseCheckers()
        for bad in ["", "n1", "n1-n1", "r1-a1", "a2-b1", "e14-e1", "n1--", "x"] {
            #expect(game.move(fromNotation: bad) == nil, "\(bad)")
        }
    }
}
