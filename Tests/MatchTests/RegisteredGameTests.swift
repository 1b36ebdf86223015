import Bots
import Games
import Match
import ParlorTestSupport
import Testing

/// Issue 39: a game defined outside parlor (Nim, from ParlorTestSupport, as a
/// developer's own package would define it) is played offline, saved as a
/// match blob and replayed once it is registered, with no change to parlor.
@Suite("A game the caller registers")
struct RegisteredGameTests {
    init() { Nim.register() }

    /// A fresh Nim match between "Ana" (seat 0) and "Bot" (seat 1).
    static func newMatch(seed: UInt64 = 39) throws -> MatchState {
        var generator = SplitMix64(seed: seed)
        let game = try #require(GameCatalog.newGame(id: Nim.id, seats: 2))
        let seats = [Seat(playerID: .random(using: &generator), name: "Ana"),
                     Seat(playerID: .random(using: &generator), name: "Bot")]
        return MatchState(matchID: .random(using: &generator), game: game, seats: seats)
    }

    @Test("registered, Nim is found by id and by name, and the built-in games come first and stay as they were")
    func registered() throws {
        #expect(GameCatalog.game(id: "nim") is Nim.Type)
        #expect(GameCatalog.game(named: "Heaps")?.id == "nim")
        #expect(GameCatalog.all.prefix(GameCatalog.builtIn.count).map { $0.id } == GameCatalog.builtIn.map { $0.id })
        #expect(GameCatalog.all.filter { $0.id == "nim" }.count == 1)
        // Registering again changes nothing.
        try GameCatalog.register(Nim.self)
        #expect(GameCatalog.all.filter { $0.id == "nim" }.count == 1)
    }

    @Test("another type under a taken id is refused with a sentence naming both, and the first keeps the id")
    func takenID() {
        struct OtherNim: Game {
            static let id = "nim"
            static let rulesVersion = 1
            static let displayName = "Other Nim"
            static let summary = ""
            static let moveHelp = ""
            static let seatRange = 2...2
            static let alternatesStrictly = true
            init(seats: Int) {}
            var seatCount: Int { 2 }
            var activeSeat: SeatIndex? { nil }
            var moveCount: Int { 0 }
            var legalMoves: [Move] { [] }
            func isLegal(_ move: Move) -> Bool { false }
            mutating func apply(_ move: Move) throws(RuleViolation) { throw .gameOver }
            var result: GameResult { .draw }
            func notation(for move: Move) -> String { "" }
            func move(fromNotation text: String) -> Move? { nil }
        }
        #expect(throws: GameCatalogError.idTaken("nim", registered: String(reflecting: Nim.self), refused: String(reflecting: OtherNim.self))) {
            try GameCatalog.register(OtherNim.self)
        }
        let sentence = GameCatalogError.idTaken("nim", registered: "ParlorTestSupport.Nim", refused: "Other.Nim").description
        #expect(sentence == "cannot register Other.Nim as game 'nim': ParlorTestSupport.Nim already has that id; give one of them another id")
        #expect(GameCatalog.game(id: "nim") is Nim.Type)
    }

    @Test("a person plays Nim offline against parlor's own bot to the end, and the match ends with a winner")
    func offlineAgainstTheBot() async throws {
        let state = try Self.newMatch()
        let person = LocalParticipant(playerID: state.seats[0].playerID)
        let bot = BotParticipant(playerID: state.seats[1].playerID, bot: Bot(level: .hard, seed: 1))
        let controller = MatchController(state: state, participants: [person, bot])
        let events = await controller.events()
        try await controller.start()
        for await event in events {
            if case .turnBegan(seat: 0, let now) = event, let move = now.game.legalMoves.first {
                _ = await person.play(move)
            }
            if case .ended = event { break }
        }
        let final = await controller.finished()
        #expect(final.isEnded)
        #expect(final.game(as: Nim.self) != nil)
        #expect(final.game(as: Nim.self)?.heaps == [0, 0, 0])
        #expect(Set(final.seats.map(\.outcome)) == [.won, .lost])
        #expect(Set(final.moves.map(\.seat)) == [0, 1], "\(final.moveNotations)")
    }

    @Test("a Nim match's blob decodes to the same match, and its replay shows every position and move as typed")
    func blobAndReplay() throws {
        let moves = [Nim.move(heap: 2, count: 3), Nim.move(heap: 0, count: 1), Nim.move(heap: 1, count: 4)]
        var state = try Self.newMatch()
        for move in moves { state = try state.applying(.move(move, by: try #require(state.activeSeat)), now: 1) }
        let blob = MatchBlob.encode(state)
        let decoded = try MatchBlob.decode(blob)
        #expect(decoded.gameID == "nim")
        #expect(decoded.stateHash == state.stateHash)
        #expect(MatchBlob.encode(decoded) == blob)
        #expect(decoded.game(as: Nim.self)?.heaps == [2, 0, 2])
        // Asked as another game's type, the position is nil, never a trap.
        #expect(decoded.game(as: Connect4.self) == nil)
        #expect(decoded.moveNotations == ["c3", "a1", "b4"])
        let positions = decoded.replayPositions
        #expect(positions.count == 4)
        #expect(positions.compactMap { $0.game(as: Nim.self)?.heaps } == [[3, 4, 5], [3, 4, 2], [2, 4, 2], [2, 0, 2]])
    }

    @Test("a table of three plays on when one seat quits: the seat is skipped and the match still decodes")
    func threeSeatsWithADeparture() throws {
        var generator = SplitMix64(seed: 3)
        let seats = ["Ana", "Ben", "Cy"].map { Seat(playerID: .random(using: &generator), name: $0) }
        var state = MatchState(matchID: .random(using: &generator), game: try #require(GameCatalog.newGame(id: "nim", seats: 3)),
                               seats: seats)
        state = try state.applying(.move(Nim.move(heap: 0, count: 1), by: 0), now: 1)
        state = try state.applying(.quit(1), now: 2)
        #expect(state.activeSeat == 2)
        state = try state.applying(.move(Nim.move(heap: 1, count: 2), by: 2), now: 3)
        #expect(state.activeSeat == 0)
        let decoded = try MatchBlob.decode(MatchBlob.encode(state))
        #expect(decoded.stateHash == state.stateHash)
        #expect(decoded.seats.map(\.outcome) == [.none, .quit, .none])
    }
}
