@testable import Bots
import Games
import Testing

/// Bots of the three newer games playing each other to the end at two seats.
@Suite("Reversi, dots and boxes and Chinese checkers bots")
struct BoardGamesBotTests {
    static let games = [Reversi.id, DotsAndBoxes.id, ChineseCheckers.id]

    /// Plays `levels[seat]` for each seat to the end; `hard` thinks for `thinking` only, to keep the test fast.
    func playOut(_ gameID: String, _ levels: [BotLevel], seed: UInt64, seats: Int = 2,
                 thinking: Duration = .milliseconds(15)) throws -> any Game {
        var game = try #require(GameCatalog.newGame(id: gameID, seats: seats))
        var randoms = (0..<seats).map { SplitMix64(seed: seed &+ UInt64($0)) }
        var moves = 0
        while let seat = game.activeSeat {
            let choice = BoardGamesPlayer.chooseMove(game, level: levels[seat % levels.count], random: &randoms[seat],
                                                     shouldStop: { false }, thinking: thinking)
            let move = try #require(choice, "no move at \(moves) in \(gameID)")
            #expect(game.isLegal(move))
            try game.apply(move)
            moves += 1
            try #require(moves <= 4096, "the game must end")
        }
        return game
    }

    @Test("every level plays a whole game", arguments: games, BotLevel.allCases)
    func everyLevelFinishes(gameID: String, level: BotLevel) throws {
        let game = try playOut(gameID, [level, level], seed: 3)
        #expect(game.isOver)
        #expect(game.legalMoves.isEmpty)
    }

    @Test("through Bot, easy plays a whole game", arguments: games)
    func botDispatches(gameID: String) throws {
        var game = try #require(GameCatalog.newGame(id: gameID))
        var bots = [Bot(level: .easy, seed: 1), Bot(level: .easy, seed: 2)]
        while let seat = game.activeSeat {
            let move = bots[seat].chooseMove(in: game)
            try game.apply(try #require(move))
        }
        #expect(game.isOver)
    }

    @Test("medium beats easy more often than not", arguments: games)
    func mediumBeatsEasy(gameID: String) throws {
        var mediumWins = 0, easyWins = 0
        for seed in UInt64(1)...4 {
            for mediumSeat in 0..<2 {
                let levels: [BotLevel] = mediumSeat == 0 ? [.medium, .easy] : [.easy, .medium]
                let game = try playOut(gameID, levels, seed: seed)
                if game.result == .won(by: mediumSeat) { mediumWins += 1 }
                if game.result == .won(by: 1 - mediumSeat) { easyWins += 1 }
            }
        }
        #expect(mediumWins > easyWins, "medium \(mediumWins), easy \(easyWins)")
    }

    @Test("more seats: the bots finish dots and boxes and Chinese checkers", arguments: [(DotsAndBoxes.id, 3), (DotsAndBoxes.id, 4),
                                                                                          (ChineseCheckers.id, 3), (ChineseCheckers.id, 4), (ChineseCheckers.id, 6)])
    func moreSeats(gameID: String, seats: Int) throws {
        let game = try playOut(gameID, [.easy], seed: 5, seats: seats)
        #expect(game.isOver)
        #expect(game.placements?.count == seats)
    }

    @Test("a dots-and-boxes bot takes a box that is offered")
    func takesTheBox() throws {
        var game = DotsAndBoxes()
        // Seat 0 draws three sides of the top-left box (seat 1 plays elsewhere): seat 1 may close it.
        for text in ["a1-b1", "c3-d3", "a1-a2", "e4-e5", "b1-b2"] {
            try game.apply(try #require(game.move(fromNotation: text)))
        }
        #expect(game.activeSeat == 1)
        for level in BotLevel.allCases {
            var random = SplitMix64(seed: 9)
            let move = BoardGamesPlayer.chooseMove(game, level: level, random: &random, shouldStop: { false },
                                                   thinking: .milliseconds(30))
            #expect(move == game.move(fromNotation: "a2-b2"), "\(level)")
        }
    }

    @Test("hard's answer time from the opening, in its real budget (printed, not asserted)", arguments: games)
    func hardTime(gameID: String) throws {
        let game = try #require(GameCatalog.newGame(id: gameID))
        var bot = Bot(level: .hard, seed: 1)
        let clock = ContinuousClock()
        let start = clock.now
        let move = bot.chooseMove(in: game)
        let elapsed = clock.now - start
        print("hard \(gameID) opening: \(elapsed) (budget \(BoardGamesPlayer.hardTime))")
        #expect(move != nil)
    }
}
