import Bots
import Games
import Testing

/// Plays `first` against `second` from the start and returns the moves made.
func playOut(_ gameID: String, _ first: Bot, _ second: Bot) throws -> [Int] {
    var bots = [first, second]
    var game = try #require(GameCatalog.newGame(id: gameID))
    var record: [Int] = []
    while let seat = game.activeSeat {
        let choice = bots[seat].chooseMove(in: game)
        let move = try #require(choice)
        try game.apply(move)
        record.append(move.rawValue)
    }
    return record
}

@Suite("Seeds and stopping")
struct ControlTests {
    @Test("The same seed replays the same game", arguments: ["connect4", "cube4", "tictactoe"])
    func sameSeedSameGame(gameID: String) throws {
        let once = try playOut(gameID, Bot(level: .medium, seed: 7), Bot(level: .easy, seed: 8))
        let again = try playOut(gameID, Bot(level: .medium, seed: 7), Bot(level: .easy, seed: 8))
        #expect(once == again)
        #expect(!once.isEmpty)
    }

    @Test("Different seeds give different games", arguments: ["connect4", "cube4", "tictactoe"])
    func seedsVary(gameID: String) throws {
        let games = try (1...6).map { seed in
            try playOut(gameID, Bot(level: .easy, seed: seed), Bot(level: .easy, seed: seed + 100))
        }
        #expect(Set(games).count > 1)
    }

    @Test("hard answers the same position the same way whatever the seed")
    func hardIsRepeatable() throws {
        var game = Connect4()
        for move in [3, 3, 2, 4] { try game.apply(Move(move)) }
        var one = Bot(level: .hard, seed: 1), other = Bot(level: .hard, seed: 99)
        let move = one.chooseMove(in: game)
        #expect(move != nil)
        #expect(move == other.chooseMove(in: game))
    }

    @Test("A stop requested up front returns nil", arguments: ["connect4", "cube4", "tictactoe"], BotLevel.allCases)
    func stopUpFront(gameID: String, level: BotLevel) throws {
        let game = try #require(GameCatalog.newGame(id: gameID))
        var bot = Bot(level: level, seed: 1)
        #expect(bot.chooseMove(in: game, shouldStop: { true }) == nil)
    }

    /// Openings after which hard searches for seconds: in Connect Four one
    /// past the opening book (4444422662, some 20 million nodes to solve),
    /// since hard answers the book's positions at once.
    @Test("A stop requested mid-search returns nil promptly",
          arguments: [("connect4", [3, 3, 3, 3, 3, 1, 1, 5, 5, 1]), ("cube4", [1])])
    func stopMidSearch(gameID: String, opening: [Int]) throws {
        var game = try #require(GameCatalog.newGame(id: gameID))
        for move in opening { try game.apply(Move(move)) }
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(30)
        var bot = Bot(level: .hard, seed: 1)
        let move = bot.chooseMove(in: game, shouldStop: { clock.now >= deadline })
        let elapsed = clock.now - start
        #expect(move == nil)
        // Generous for a loaded debug build; a bot that ignored the stop would take far longer.
        #expect(elapsed < .milliseconds(500), "took \(elapsed)")
    }
}
