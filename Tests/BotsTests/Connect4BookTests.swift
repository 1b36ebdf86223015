@testable import Bots
import Games
import Testing

@Suite("The Connect Four opening book")
struct Connect4BookTests {
    /// A book of every position up to 34 stones below a position 30 moves in:
    /// the same builder as scripts/build-connect4-book, small enough for a test.
    static func smallBook() throws -> (root: Connect4, book: Connect4Book) {
        let root = try #require(Connect4Strength.positions(count: 1, plies: 30...30, seed: 5).first?.game)
        return (root, Connect4Book.build(from: root, depth: 34))
    }

    @Test("Entries agree with the solver, and survive the text form")
    func entriesAgree() throws {
        let (root, book) = try Self.smallBook()
        #expect(book.count > 30)
        let decoded = try #require(Connect4Book(encoded: book.encoded))
        #expect(decoded.count == book.count && decoded.depth == 34)
        // Every position below the root, played out: the booked solver and a plain one agree.
        let booked = Connect4Solver(slots: 1 << 18, book: decoded)
        let plain = Connect4Solver(slots: 1 << 18)
        var frontier = [root]
        var compared = 0
        while let game = frontier.popLast() {
            guard !game.isOver, game.moveCount <= 34 else { continue }
            #expect(booked.score(game) == plain.score(game))
            compared += 1
            for move in game.legalMoves {
                var next = game
                try? next.apply(move)
                frontier.append(next)
            }
        }
        #expect(compared > book.count)
    }

    @Test("In the book for hard, every position hard meets to move is answered from the book, keeping the value")
    func hardBook() throws {
        let root = try #require(Connect4Strength.positions(count: 1, plies: 22...22, seed: 7).first?.game)
        let depth = 30
        let book = Connect4Book.buildForHard(from: root, depth: depth, threads: 2)
        let decoded = try #require(Connect4Book(encoded: book.encoded))
        let booked = Connect4Solver(book: decoded)
        let plain = Connect4Solver()
        // Hard moves first from the root, or second after any move from it; the other side plays anything.
        var frontier = [root] + root.legalMoves.map { move in
            var game = root
            try? game.apply(move)
            return game
        }
        var met = 0
        while let game = frontier.popLast() {
            guard !game.isOver, game.moveCount < depth else { continue }
            let nodes = booked.nodes
            let move = try #require(Connect4Player.perfectMove(game, solver: booked, shouldStop: { false }))
            #expect(booked.nodes == nodes, "the solver searched after \(game.moveCount) stones")
            let exact = try #require(plain.analyse(game))
            #expect(exact.moveScores[move.rawValue] == exact.score, "hard let the value slip after \(game.moveCount) stones")
            met += 1
            var next = game
            try next.apply(move)
            guard !next.isOver else { continue }
            for reply in next.legalMoves {
                var after = next
                try after.apply(reply)
                frontier.append(after)
            }
        }
        #expect(met > 40, "only \(met) positions met")
    }

    @Test("A damaged text form is refused, not half-read")
    func damagedText() throws {
        let (_, book) = try Self.smallBook()
        let text = book.encoded
        #expect(Connect4Book(encoded: "") == nil)
        #expect(Connect4Book(encoded: "book" + text.dropFirst("connect4-book".count)) == nil)
        #expect(Connect4Book(encoded: String(text.dropLast(20))) == nil)
        // Two entries swapped: no longer sorted.
        var lines = text.split(separator: "\n").map(String.init)
        let words = lines[1].split(separator: " ").map(String.init)
        lines[1] = ([words[1], words[0]] + words.dropFirst(2)).joined(separator: " ")
        #expect(Connect4Book(encoded: lines.joined(separator: "\n")) == nil)
    }

    @Test("The shipped book decodes")
    func shippedBookDecodes() {
        #expect(Connect4Book.shipped != nil)
    }

    @Test("In games from the empty board, hard answers its first moves from the shipped book, and they keep the value")
    func shippedBookServesHard() throws {
        let book = try #require(Connect4Book.shipped)
        try #require(book.depth >= 6, "the shipped book holds no more than \(book.depth) stones")
        let booked = Connect4Solver(book: book)
        let plain = Connect4Solver()
        var random = SplitMix64(seed: 16)
        var met = 0, deep = 0, checked = 0
        for game in 0..<40 {
            // Hard moves first in even games, second in odd ones; the other side plays at random.
            var position = Connect4()
            while !position.isOver && position.moveCount < book.depth {
                if position.moveCount % 2 == game % 2 {
                    let nodes = booked.nodes
                    let move = try #require(Connect4Player.perfectMove(position, solver: booked, shouldStop: { false }))
                    #expect(booked.nodes == nodes, "hard searched after \(position.moveCount) stones")
                    let board = Connect4Bits(position)
                    if Connect4Bits.winningCells(board.current, board.mask) & board.possible != 0 {
                        // A win at once needs no book: hard takes it.
                        var won = position
                        try won.apply(move)
                        #expect(won.isOver, "hard missed a win at once after \(position.moveCount) stones")
                        try position.apply(move)
                        continue
                    }
                    let scores = try #require(booked.scoreMoves(board))
                    #expect(booked.nodes == nodes, "a move's score was missing after \(position.moveCount) stones")
                    #expect(scores[move.rawValue] == scores.compactMap { $0 }.max(), "hard let the value slip")
                    // The book's word against a search from scratch, on a few of the deepest (the cheapest to solve).
                    if position.moveCount >= book.depth - 2 {
                        if deep % 10 == 0 {
                            #expect(plain.analyse(position)?.moveScores == scores)
                            checked += 1
                        }
                        deep += 1
                    }
                    met += 1
                    try position.apply(move)
                } else {
                    let moves = position.legalMoves
                    try position.apply(moves[Int(random.next() % UInt64(moves.count))])
                }
            }
        }
        #expect(met >= 100 && checked >= 2)
    }
}
