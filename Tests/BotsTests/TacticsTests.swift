import Bots
import Games
import Testing

/// A position reached by `moves` from the start, and the one move that must follow.
struct TacticalPosition: Sendable, CustomTestStringConvertible {
    let name: String
    let gameID: String
    let moves: [Int]
    let expected: Int

    var testDescription: String { "\(gameID): \(name)" }

    func game() throws -> any Game {
        var game = try #require(GameCatalog.newGame(id: gameID))
        for move in moves { try game.apply(Move(move)) }
        return game
    }
}

let winsInOne: [TacticalPosition] = [
    .init(name: "vertical four", gameID: "connect4", moves: [0, 1, 0, 1, 0, 1], expected: 0),
    .init(name: "horizontal four", gameID: "connect4", moves: [0, 0, 1, 1, 2, 2], expected: 3),
    .init(name: "diagonal four", gameID: "connect4", moves: [0, 1, 1, 2, 2, 3, 2, 3, 3, 6], expected: 3),
    .init(name: "line along a row", gameID: "cube4", moves: [0, 4, 1, 5, 2, 6], expected: 3),
    .init(name: "up a peg", gameID: "cube4", moves: [0, 1, 0, 1, 0, 1], expected: 0),
    .init(name: "top row", gameID: "tictactoe", moves: [0, 3, 1, 4], expected: 2),
    .init(name: "diagonal", gameID: "tictactoe", moves: [0, 1, 4, 2], expected: 8),
]

let blocksInOne: [TacticalPosition] = [
    .init(name: "vertical threat", gameID: "connect4", moves: [0, 1, 0, 1, 0], expected: 0),
    .init(name: "horizontal threat", gameID: "connect4", moves: [0, 6, 1, 6, 2], expected: 3),
    .init(name: "line along a row", gameID: "cube4", moves: [0, 4, 1, 5, 2], expected: 3),
    .init(name: "up a peg", gameID: "cube4", moves: [0, 1, 0, 1, 0], expected: 0),
    .init(name: "top row", gameID: "tictactoe", moves: [0, 4, 1], expected: 2),
    .init(name: "top row, other side", gameID: "tictactoe", moves: [4, 0, 8, 2], expected: 1),
]

@Suite("Every level takes a win in one and blocks a loss in one")
struct TacticsTests {
    @Test(arguments: winsInOne, BotLevel.allCases)
    func takesTheWin(position: TacticalPosition, level: BotLevel) throws {
        let game = try position.game()
        for seed: UInt64 in 1...3 {
            var bot = Bot(level: level, seed: seed)
            #expect(bot.chooseMove(in: game) == Move(position.expected), "seed \(seed)")
        }
    }

    @Test(arguments: blocksInOne, BotLevel.allCases)
    func blocksTheThreat(position: TacticalPosition, level: BotLevel) throws {
        let game = try position.game()
        for seed: UInt64 in 1...3 {
            var bot = Bot(level: level, seed: seed)
            #expect(bot.chooseMove(in: game) == Move(position.expected), "seed \(seed)")
        }
    }

    @Test("A game without a dedicated engine gets the same tactics", arguments: BotLevel.allCases)
    func genericGame(level: BotLevel) throws {
        var win = UnknownTicTacToe()
        for move in [0, 3, 1, 4] { try win.apply(Move(move)) }
        var block = UnknownTicTacToe()
        for move in [0, 4, 1] { try block.apply(Move(move)) }
        var bot = Bot(level: level, seed: 5)
        #expect(bot.chooseMove(in: win) == Move(2))
        #expect(bot.chooseMove(in: block) == Move(2))
    }

    @Test("A finished game gets no move", arguments: BotLevel.allCases)
    func finishedGame(level: BotLevel) throws {
        var game = Connect4()
        for move in [0, 1, 0, 1, 0, 1, 0] { try game.apply(Move(move)) }
        var bot = Bot(level: level, seed: 1)
        #expect(bot.chooseMove(in: game) == nil)
    }
}

/// Tic-tac-toe under another name, so bots must use the generic search.
struct UnknownTicTacToe: Game {
    static let id = "unknown-tictactoe"
    static let rulesVersion = 1
    static let displayName = "Unknown"
    static let summary = "Tic-tac-toe in disguise."
    static let moveHelp = "1-9"
    static let seatRange = 2...2
    static let alternatesStrictly = true

    private var inner = TicTacToe()
    init(seats: Int = 2) {}
    var seatCount: Int { 2 }
    var activeSeat: SeatIndex? { inner.activeSeat }
    var moveCount: Int { inner.moveCount }
    var legalMoves: [Move] { inner.legalMoves }
    func isLegal(_ move: Move) -> Bool { inner.isLegal(move) }
    mutating func apply(_ move: Move) throws(RuleViolation) { try inner.apply(move) }
    var result: GameResult { inner.result }
    func notation(for move: Move) -> String { inner.notation(for: move) }
    func move(fromNotation text: String) -> Move? { inner.move(fromNotation: text) }
}
