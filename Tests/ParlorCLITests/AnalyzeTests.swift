import Foundation
import Games
import ParlorTestSupport
import Testing
@testable import ParlorCLI

@Suite("parlor analyze")
struct AnalyzeTests {
    /// A position 16 moves in: solved in well under a second, with column 1 full.
    static let moves = "3226111111724433"

    @Test("The text and JSON of an analysis match their golden file")
    func golden() throws {
        let position = try PositionAnalysis.position(Self.moves)
        let text = PositionAnalysis.report(position, moves: Self.moves, json: false)
        let json = PositionAnalysis.report(position, moves: Self.moves, json: true)
        try Golden.check(text + json, against: "analyze-connect4.txt")
    }

    @Test("The JSON is one object whose best move has the position's score")
    func jsonShape() throws {
        let position = try PositionAnalysis.position(Self.moves)
        let line = PositionAnalysis.report(position, moves: Self.moves, json: true)
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let score = try #require(object["score"] as? Int)
        let best = try #require(object["best"] as? String)
        let moves = try #require(object["moves"] as? [[String: Any]])
        // Column 1 is full: six legal moves, each with a score.
        #expect(moves.compactMap { $0["move"] as? String } == ["2", "3", "4", "5", "6", "7"])
        #expect(moves.first { $0["move"] as? String == best }?["score"] as? Int == score)
        #expect(moves.compactMap { $0["score"] as? Int }.max() == score)
    }

    @Test("Bad moves are usage errors that name the move and the reason",
          arguments: [
            ("448", "move 3 of '448' is '8', not a column 1-7."),
            ("4x", "move 2 of '4x' is 'x', not a column 1-7."),
            ("4444444", "move 7 of '4444444' is column 4, which is full."),
            ("12121213", "move 8 of '12121213' follows the end of the game (it ended after move 7)."),
            ("1212121", "the game is over after '1212121': nothing to analyse."),
          ])
    func badMoves(moves: String, message: String) {
        #expect(throws: CommandFailure.self) { try PositionAnalysis.position(moves) }
        do {
            _ = try PositionAnalysis.position(moves)
        } catch {
            #expect(error.message == message)
            #expect(error.exitCode == .usage)
        }
    }

    @Test("The real command on the empty board answers from the shipped book: the first player wins in the centre, no warning")
    func emptyBoardFromTheBook() async throws {
        let result = try await ParlorProcess.run(["analyze", "connect4", ""], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("score +1: wins with its stone 21"))
        #expect(result.stdout.hasSuffix("best: 4\n"))
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test("The warning that a solve may take long is given only where the book cannot answer",
          arguments: [("", true), ("4", true), ("11", false), ("1111", false)])
    func bookDecidesTheWarning(moves: String, fromBook: Bool) throws {
        let position = try PositionAnalysis.position(moves)
        #expect(PositionAnalysis.needsLongSearch(position) == !fromBook)
    }

    @Test("The command line: a game other than connect4 is refused by the running command")
    func otherGames() async throws {
        let options = AnalyzeOptions(game: "tictactoe", moves: "5")
        await #expect(throws: CommandFailure.self) { _ = try await options.run() }
    }
}
