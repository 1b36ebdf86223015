import Testing
@testable import Games

/// Plays moves given in the games' own notation; nil if one is refused.
func play<G: Game>(_ game: G, _ notations: [String]) -> G? {
    var game = game
    for text in notations {
        guard let move = game.move(fromNotation: text), (try? game.apply(move)) != nil else { return nil }
    }
    return game
}

struct Connect4Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var moves: [String]
        var result: GameResult
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "vertical win", moves: ["1", "2", "1", "2", "1", "2", "1"], result: .won(by: 0)),
        Case(name: "horizontal win", moves: ["1", "1", "2", "2", "3", "3", "4"], result: .won(by: 0)),
        Case(name: "rising diagonal", moves: ["1", "2", "2", "3", "3", "4", "3", "4", "4", "7", "4"], result: .won(by: 0)),
        Case(name: "falling diagonal for second", moves: ["1", "4", "3", "3", "2", "1", "2", "7", "1", "2", "7", "1"], result: .won(by: 1)),
        Case(name: "full board without a line is a draw",
             moves: "547125662261271266215743771576315353334444".map(String.init), result: .draw),
        Case(name: "no win yet", moves: ["4", "4", "4"], result: .inProgress),
        Case(name: "three and a gap is not four", moves: ["1", "1", "2", "2", "3", "3", "5"], result: .inProgress),
    ]

    @Test(arguments: cases)
    func results(_ c: Case) throws {
        let game = try #require(play(Connect4(), c.moves))
        #expect(game.result == c.result)
        #expect(game.activeSeat == (c.result == .inProgress ? c.moves.count % 2 : nil))
    }

    @Test func gravityStacksPieces() throws {
        let game = try #require(play(Connect4(), ["4", "4"]))
        #expect(game.piece(column: 3, row: 0) == 0)
        #expect(game.piece(column: 3, row: 1) == 1)
        #expect(game.piece(column: 3, row: 2) == nil)
    }

    @Test func fullColumnIsIllegal() throws {
        let game = try #require(play(Connect4(), ["1", "1", "1", "1", "1", "1"]))
        #expect(!game.legalMoves.contains(Move(0)))
        var copy = game
        #expect(throws: RuleViolation.illegalMove(Move(0))) { try copy.apply(Move(0)) }
        #expect(copy == game)
    }

    @Test func notationIsOneBased() {
        let game = Connect4()
        #expect(game.move(fromNotation: "1") == Move(0))
        #expect(game.move(fromNotation: " 7 ") == Move(6))
        #expect(game.move(fromNotation: "0") == nil)
        #expect(game.move(fromNotation: "8") == nil)
        #expect(game.move(fromNotation: "x") == nil)
        #expect(game.notation(for: Move(3)) == "4")
    }

    @Test func movesAfterTheEndAreRefused() throws {
        var game = try #require(play(Connect4(), ["1", "2", "1", "2", "1", "2", "1"]))
        #expect(game.legalMoves.isEmpty)
        #expect(throws: RuleViolation.gameOver) { try game.apply(Move(3)) }
    }
}

struct TicTacToeTests {
    @Test(arguments: [
        (["1", "4", "2", "5", "3"], GameResult.won(by: 0)),
        (["1", "2", "4", "3", "7"], GameResult.won(by: 0)),
        (["1", "2", "5", "3", "9"], GameResult.won(by: 0)),
        (["3", "1", "5", "2", "7"], GameResult.won(by: 0)),
        (["1", "2", "3", "5", "4", "8"], GameResult.won(by: 1)),
        (["1", "2", "3", "5", "8", "4", "6", "9", "7"], GameResult.draw),
        (["5", "1"], GameResult.inProgress),
    ])
    func results(moves: [String], expected: GameResult) throws {
        let game = try #require(play(TicTacToe(), moves))
        #expect(game.result == expected)
    }

    @Test func takenCellIsIllegal() throws {
        let game = try #require(play(TicTacToe(), ["5"]))
        #expect(!game.isLegal(Move(4)))
        #expect(play(game, ["5"]) == nil)
    }
}

struct Cube4Tests {
    @Test func thereAre76Lines() {
        #expect(Cube4.lines.count == 76)
        #expect(Set(Cube4.lines.map { $0 }).count == 76)
        #expect(Cube4.lines.allSatisfy { $0.count == 4 && Set($0).count == 4 })
    }

    /// Builds, for one line, a legal move order in which seat 0 completes it
    /// (seat 1 plays filler pegs away from the line, avoiding its own wins).
    static func winningGame(along line: [Int]) -> Cube4? {
        var game = Cube4()
        // Cells still needed, in bottom-up order so gravity allows them.
        var needed = line.sorted { $0 / 16 < $1 / 16 }
        var guardSteps = 0
        while game.result == .inProgress, guardSteps < 400 {
            guardSteps += 1
            if game.activeSeat == 0 {
                // Place a needed cell if its peg has reached its level, else support it.
                if let index = needed.firstIndex(where: { game.heights[$0 % 16] == $0 / 16 }) {
                    let cell = needed.remove(at: index)
                    try? game.apply(Move(cell % 16))
                    continue
                }
                // Seat 0 must raise a peg under a needed cell: play below it (a cell not on the line).
                guard let target = needed.first(where: { game.heights[$0 % 16] < $0 / 16 }) else { return nil }
                try? game.apply(Move(target % 16))
            } else {
                // Seat 1 fills under needed cells too, or anywhere harmless.
                let lineCells = Set(needed)
                let supporting = needed.map { $0 % 16 }.first { peg in
                    let level = game.heights[peg]
                    return !lineCells.contains(level * 16 + peg) && game.heights[peg] < 4
                }
                let candidates = supporting.map { [$0] } ?? []
                let fallback = (0..<16).filter { peg in
                    game.heights[peg] < 4 && !lineCells.contains(game.heights[peg] * 16 + peg)
                        && !line.contains(where: { $0 % 16 == peg })
                }
                guard let peg = (candidates + fallback).first(where: { peg in
                    guard let next = try? game.applying(Move(peg)) else { return false }
                    return next.result == .inProgress
                }) else { return nil }
                try? game.apply(Move(peg))
            }
        }
        return game
    }

    @Test(arguments: 0..<76)
    func winAlongEachLine(_ index: Int) throws {
        let line = Cube4.lines[index]
        let game = try #require(Self.winningGame(along: line), "no legal order found for line \(line)")
        #expect(game.result == .won(by: 0))
        #expect(Set(game.winningLine) == Set(line) || game.winningLine.count == 4)
        for cell in line { #expect(game.piece(column: cell % 4, row: (cell / 4) % 4, level: cell / 16) == 0) }
    }

    @Test func pegHoldsFourPieces() throws {
        let game = try #require(play(Cube4(), ["a1", "a1", "a1", "a1"]))
        #expect(game.heights[0] == 4)
        #expect(!game.isLegal(Move(0)))
        #expect(game.result == .inProgress)
    }

    @Test func notationUsesColumnLetterAndRow() {
        let game = Cube4()
        #expect(game.move(fromNotation: "a1") == Move(0))
        #expect(game.move(fromNotation: "B3") == Move(9))
        #expect(game.move(fromNotation: "d4") == Move(15))
        #expect(game.move(fromNotation: "e1") == nil)
        #expect(game.move(fromNotation: "a5") == nil)
        #expect(game.move(fromNotation: "3b") == nil)
        #expect(game.notation(for: Move(9)) == "b3")
    }
}

struct CatalogTests {
    @Test func knowsEveryGame() {
        #expect(GameCatalog.builtIn.map { $0.id } == ["connect4", "cube4", "tictactoe", "reversi", "dots-and-boxes", "chinese-checkers"])
        #expect(GameCatalog.newGame(id: "connect4") is Connect4)
        #expect(GameCatalog.newGame(id: "chess") == nil)
        #expect(GameCatalog.newGame(id: "connect4", seats: 3) == nil)
    }

    @Test(arguments: [("conect4", "connect4"), ("tictacto", "tictactoe"), ("cube", "cube4"), ("Connect4", "connect4")])
    func suggestsNearestName(typed: String, expected: String) {
        #expect(GameCatalog.suggestion(for: typed) == expected)
    }

    @Test("a game by its id, its name or a common other name, in any case", arguments: [
        ("othello", "reversi"), ("Othello", "reversi"), ("connect-four", "connect4"), ("Connect Four", "connect4"),
        ("CONNECT4", "connect4"), ("dots", "dots-and-boxes"), ("dots and boxes", "dots-and-boxes"),
        ("Tic-tac-toe", "tictactoe"), ("tic tac toe", "tictactoe"), ("Chinese Checkers", "chinese-checkers"),
        ("Cube Four (3D Connect Four)", "cube4"), ("cube four", "cube4"),
    ])
    func gameNamed(typed: String, id: String) {
        #expect(GameCatalog.game(named: typed)?.id == id)
    }

    @Test func noGameForOtherWords() {
        for typed in ["", "  ", "chess", "connect", "dot", "four"] { #expect(GameCatalog.game(named: typed) == nil, "\(typed)") }
    }

    @Test("a word that starts one game's name suggests it", arguments: [
        ("dot", "dots-and-boxes"), ("chinese", "chinese-checkers"), ("othel", "reversi"), ("tic-tac", "tictactoe"),
    ])
    func suggestsOnPrefix(typed: String, expected: String) {
        #expect(GameCatalog.suggestion(for: typed) == expected)
    }

    @Test func noSuggestionForNonsense() {
        #expect(GameCatalog.suggestion(for: "backgammon-deluxe") == nil)
    }
}

/// The move encodings docs/PROTOCOL.md gives for the newer games ("Games: rules and move encodings").
struct DocumentedEncodingTests {
    @Test(arguments: [("a1", 0), ("h1", 7), ("d3", 19), ("h8", 63)])
    func reversi(notation: String, raw: Int) {
        #expect(Reversi().move(fromNotation: notation) == Move(raw))
        #expect(Reversi().notation(for: Move(raw)) == notation)
    }

    @Test(arguments: [("a1-b1", 0), ("d5-e5", 19), ("a1-a2", 20), ("e4-e5", 39)])
    func dotsAndBoxes(notation: String, raw: Int) {
        #expect(DotsAndBoxes().move(fromNotation: notation) == Move(raw))
        #expect(DotsAndBoxes().notation(for: Move(raw)) == notation)
    }

    @Test func chineseCheckers() {
        #expect([("a1", 0), ("m5", 102), ("n1", 111), ("q1", 120)].allSatisfy { ChineseCheckers.hole(named: $0.0) == $0.1 })
        let game = ChineseCheckers()
        #expect(game.move(fromNotation: "n1-m5") == Move(13533) && game.isLegal(Move(13533)))
        #expect(game.move(fromNotation: "o1-m5") == Move(14017) && game.isLegal(Move(14017)))
        #expect(ChineseCheckers.homePoints(seats: 4) == [3, 4, 0, 1])
        #expect(ChineseCheckers.moveCap == 150)
    }
}
