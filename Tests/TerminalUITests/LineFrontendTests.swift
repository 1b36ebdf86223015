import Foundation
import Bots
import Games
import Match
import Testing
@testable import TerminalUI

/// Runs a whole match through a line frontend over pipes, as the binary would with redirected stdin/stdout.
struct PipeRun {
    var exit: FrontendExit
    var output: String

    /// Ana (seat 0) is local and types `input`; Bot (seat 1) plays the first legal move,
    /// or both seats are bots when `localAna` is false.
    static func run(_ game: any Game, input: String, json: Bool = false, localAna: Bool = true) async throws -> PipeRun {
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        // Close-on-exec, so a process another test spawns cannot keep our pipes open.
        #expect(makePipe(&inPipe) && makePipe(&outPipe))
        _ = writeAll(fd: inPipe[1], Array(input.utf8))
        close(inPipe[1])
        // Read the output on a thread of its own: a blocking read must not hold a cooperative thread.
        let output = AsyncStream<[UInt8]>.makeStream()
        let readFD = outPipe[0]
        Thread {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            output.continuation.yield(bytes)
            output.continuation.finish()
        }.start()
        let firstLegal: BotParticipant.Strategy = { game, _ in game.legalMoves.first }
        let bot = BotParticipant(playerID: Fixtures.bot, strategy: firstLegal)
        let ana = LocalParticipant(playerID: Fixtures.ana)
        let seat0: any Participant = localAna ? ana : BotParticipant(playerID: Fixtures.ana, strategy: firstLegal)
        let controller = MatchController(state: Fixtures.state(game), participants: [seat0, bot])
        let frontend: any MatchFrontend = json
            ? JSONFrontend(input: inPipe[0], output: outPipe[1], handlesSignals: false)
            : PlainFrontend(options: .plainASCII, input: inPipe[0], output: outPipe[1], handlesSignals: false)
        let exit = try await frontend.play(controller: controller, locals: localAna ? [ana] : [])
        close(outPipe[1])
        var bytes: [UInt8] = []
        for await chunk in output.stream { bytes = chunk }
        close(outPipe[0])
        close(inPipe[0])
        return PipeRun(exit: exit, output: String(decoding: bytes, as: UTF8.self))
    }
}

@Suite("Plain and JSON frontends")
struct LineFrontendTests {
    @Test("a tictactoe game piped into plain mode reports the winner, with no escape codes")
    func plainWin() async throws {
        // Ana: 5, 3, 7 (a diagonal); the bot takes the first free cell: 1, then 2.
        let run = try await PipeRun.run(TicTacToe(), input: "5\n3\n7\n")
        #expect(!run.output.utf8.contains(0x1B))
        #expect(run.output.contains("Result: Ana (X) won, Bot (O) lost."))
        #expect(run.output.contains("Ana (X) wins."))
        #expect(run.output.contains("Your move (a cell, 1-9"))
        #expect(run.output.contains("Bot (O) played 1."))
        guard case .ended(let state) = run.exit else { Issue.record("expected .ended, got \(run.exit)"); return }
        #expect(state.seats[0].outcome == .won)
    }

    @Test("a wrong move gets a clear message and the prompt again")
    func plainWrongMoves() async throws {
        let run = try await PipeRun.run(TicTacToe(), input: "x\n5\n5\n0\n3\n7\n")
        #expect(run.output.contains("'x' is not a move here: type a cell, 1-9"))
        #expect(run.output.contains("Cell 5 is taken."))
        #expect(run.output.contains("'0' is not a move here"))
        #expect(run.output.contains("Ana (X) wins."))
        let prompts = run.output.components(separatedBy: "Your move (").count - 1
        #expect(prompts >= 4)
    }

    @Test("end of input leaves for now: nothing is quit")
    func plainEndOfInput() async throws {
        let run = try await PipeRun.run(Connect4(), input: "4\n")
        guard case .inputEnded(let state) = run.exit else { Issue.record("expected .inputEnded, got \(run.exit)"); return }
        #expect(state.seats.allSatisfy { $0.outcome == .none })
        #expect(state.moves.count == 2)
        #expect(run.output.contains("End of input: Ana leaves the match for now."))
        #expect(!run.output.contains("quit."))
    }

    @Test("/quit quits at once; q alone only says how")
    func plainQuit() async throws {
        let run = try await PipeRun.run(Cube4(), input: "q\n/quit\n")
        #expect(run.exit.state.seats[0].outcome == .quit)
        #expect(run.output.contains("To quit, type /quit to quit this match"))
        #expect(run.output.contains("Ana (X) quit."))
        let asked = try await PipeRun.run(Cube4(), input: "q\n")
        #expect(asked.exit.state.seats[0].outcome == .none, "q alone quit the match")
    }

    @Test("cube4 moves are typed as a column letter and a row number")
    func plainCube4() async throws {
        // No trailing q: a q is obeyed at once, even before the bot has answered b3.
        let run = try await PipeRun.run(Cube4(), input: "b3\nz9\n")
        #expect(run.output.contains("Ana (X) played b3."))
        #expect(run.output.contains("'z9' is not a move here"))
    }

    /// Every stdout line, parsed.
    func events(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let dictionary = object as? [String: Any] else { throw CocoaError(.coderInvalidValue) }
            return dictionary
        }
    }

    @Test("JSON mode writes only JSON objects, one per line, ending with the outcomes and the state hash")
    func jsonBots() async throws {
        let run = try await PipeRun.run(Connect4(), input: "", json: true, localAna: false)
        let lines = try events(run.output)
        #expect(lines.first?["event"] as? String == "started")
        #expect((lines.first?["seats"] as? [[String: Any]])?.count == 2)
        #expect(lines.contains { $0["event"] as? String == "turn" })
        let moves = lines.filter { $0["event"] as? String == "move" }
        #expect(moves.first?["notation"] as? String == "1")
        #expect(moves.first?["seat"] as? Int == 0)
        let end = try #require(lines.last)
        #expect(end["event"] as? String == "end")
        let state = run.exit.state
        #expect(end["hash"] as? String == JSONEvents.hex16(state.stateHash))
        #expect((end["hash"] as? String)?.count == 16)
        #expect(end["moves"] as? Int == state.moves.count)
        #expect(end["moves"] as? Int == moves.count)
        let outcomes = try #require(end["outcomes"] as? [[String: Any]])
        let winner = state.seats.firstIndex { $0.outcome == .won }
        #expect(end["winner"] as? Int == winner)
        #expect(outcomes.map { $0["outcome"] as? String } == state.seats.map { $0.outcome.description })
    }

    @Test("JSON mode reads local moves from stdin and reports refused lines as events")
    func jsonLocal() async throws {
        let run = try await PipeRun.run(TicTacToe(), input: "5\nnope\n3\n7\n", json: true)
        let lines = try events(run.output)
        let rejected = lines.first { $0["event"] as? String == "rejected" }
        #expect(rejected?["input"] as? String == "nope")
        #expect(lines.last?["event"] as? String == "end")
        #expect(lines.last?["winner"] as? Int == 0)
    }

    @Test("JSON strings are escaped so any name round-trips through a JSON parser", arguments: [
        "plain", "quote \" and backslash \\", "new\nline\ttab\r", "control \u{01}\u{1F}\u{7F}", "unicode ●○ é 漢字 🎲", "\u{2028}",
    ])
    func escaping(_ text: String) throws {
        let line = JSONValue.object([("name", .string(text))]).encoded
        #expect(!line.contains("\n"))
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(parsed?["name"] as? String == text)
    }

    @Test("the escaper's exact output for the awkward characters")
    func escapingExact() {
        #expect(JSONValue.quoted("a\"b\\c\n\u{01}é") == "\"a\\\"b\\\\c\\n\\u0001é\"")
    }
}
