import Bots
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
}
