import Games
import ParlorTestSupport
import Testing
@testable import Match

/// Issue 39: a move travels as two bytes; one that does not fit is refused
/// where it is submitted, never changed into another move on the wire or on disk.
@Suite("A move that does not fit two bytes")
struct MoveWireRangeTests {
    /// A game on a 300 x 300 board (90,000 cells): some of its legal moves are
    /// beyond two bytes, as a developer's own game could make them. Seats take
    /// turns; the game ends after four moves, drawn.
    struct WideBoard: Game, Hashable {
        static let id = "wide-board"
        static let rulesVersion = 1
        static let displayName = "Wide board"
        static let summary = "Claim a cell of a 300 by 300 board."
        static let moveHelp = "a cell number"
        static let seatRange = 2...2
        static let alternatesStrictly = true
        /// Some legal cells, around the two-byte limit.
        static let cells = [Move(7), Move(65_535), Move(65_536), Move(70_000), Move(89_999)]

        private(set) var moveCount = 0
        init(seats: Int) {}
        var seatCount: Int { 2 }
        var result: GameResult { moveCount >= 4 ? .draw : .inProgress }
        var activeSeat: SeatIndex? { result == .inProgress ? moveCount % 2 : nil }
        var legalMoves: [Move] { result == .inProgress ? Self.cells : [] }
        func isLegal(_ move: Move) -> Bool { legalMoves.contains(move) }
        mutating func apply(_ move: Move) throws(RuleViolation) {
            guard result == .inProgress else { throw .gameOver }
            guard isLegal(move) else { throw .illegalMove(move) }
            moveCount += 1
        }
        func notation(for move: Move) -> String { String(move.rawValue) }
        func move(fromNotation text: String) -> Move? { Int(text).map(Move.init) }
    }

    init() {
        do { try GameCatalog.register(WideBoard.self) } catch { Issue.record("\(error)") }
    }

    /// Ana and Ben, the seats of every match here.
    static func twoSeats(_ generator: inout SplitMix64) -> [Seat] {
        [Seat(playerID: .random(using: &generator), name: "Ana"), Seat(playerID: .random(using: &generator), name: "Ben")]
    }

    /// A fresh match of the wide board, its controller started: seat 0 is
    /// played from here, seat 1 is a participant that accepts every delivery.
    func startedMatch() async throws -> (MatchController, LocalParticipant, ScriptedParticipant) {
        var generator = SplitMix64(seed: 39)
        let seats = Self.twoSeats(&generator)
        let state = MatchState(matchID: .random(using: &generator), game: WideBoard(seats: 2), seats: seats)
        let person = LocalParticipant(playerID: seats[0].playerID)
        let other = ScriptedParticipant(playerID: seats[1].playerID)
        let controller = MatchController(state: state, participants: [person, other])
        try await controller.start()
        return (controller, person, other)
    }

    @Test("the limit is decided once: 0...65535 fit, -1 and 65536 do not")
    func theWireRange() {
        #expect(Move.wireRange == 0...65_535)
        #expect(Move(0).fitsOnTheWire && Move(65_535).fitsOnTheWire)
        #expect(!Move(-1).fitsOnTheWire && !Move(65_536).fitsOnTheWire && !Move(70_000).fitsOnTheWire)
    }

    @Test("the controller refuses a legal move beyond two bytes with a sentence naming it, and nothing changes or is sent")
    func refusedWhereSubmitted() async throws {
        let (controller, person, other) = try await startedMatch()
        let before = MatchBlob.encode(await controller.state)
        for raw in [65_536, 70_000, 89_999] {
            let result = await person.play(Move(raw))
            guard case .rejected(let refusal) = result else {
                Issue.record("move \(raw) was not refused: \(result)")
                continue
            }
            #expect(refusal == .rule(.moveNotEncodable(Move(raw))))
            #expect(refusal.description == "that move's encoding (\(raw)) is outside 0...65535, "
                + "which a saved or sent match cannot carry (a game's moves must fit Move.wireRange)")
        }
        // Nothing was applied, delivered or encoded differently: still the first turn, seat 0 to move.
        let state = await controller.state
        #expect(state.sequence == 0 && state.moves.isEmpty && state.activeSeat == 0)
        #expect(MatchBlob.encode(state) == before)
        #expect(other.snapshot.delivered.isEmpty)
        #expect(!(await controller.isAwaitingConfirmation))
    }

    @Test("the blob encoder stops on a move beyond two bytes instead of writing another move in its place")
    func theEncoderNeverClamps() async {
        await #expect(processExitsWith: .failure) {
            // Only a state built past `applying` (this module's internal initialiser) can hold such a move.
            var generator = SplitMix64(seed: 7)
            let seats = Self.twoSeats(&generator)
            let state = MatchState(matchID: .random(using: &generator), game: WideBoard(seats: 2), seats: seats,
                                   moves: [PlayedMove(seat: 0, move: Move(70_000))], sequence: 1, turnTimeout: 0,
                                   deadline: 0, leftAfter: [nil, nil])
            _ = MatchBlob.encode(state)
        }
    }

    @Test("the largest move that fits is kept exactly on the way through the blob, not cut or clamped")
    func theLargestMoveTravelsAsItIs() async throws {
        let (controller, person, other) = try await startedMatch()
        guard case .committed = await person.play(Move(65_535)) else { Issue.record("65535 was refused"); return }
        guard case .committed = await other.play(7) else { Issue.record("7 was refused"); return }
        let state = await controller.state
        let decoded = try MatchBlob.decode(MatchBlob.encode(state))
        #expect(decoded.moves.map(\.move) == [Move(65_535), Move(7)])
        #expect(decoded.stateHash == state.stateHash)
        // The two bytes of the last moves in the blob: 0xFFFF, then 7 (each after its seat byte), before the 8-byte hash.
        let blob = MatchBlob.encode(state)
        #expect(Array(blob.suffix(14)).prefix(6) == [0, 0xFF, 0xFF, 1, 0, 7])
    }
}
