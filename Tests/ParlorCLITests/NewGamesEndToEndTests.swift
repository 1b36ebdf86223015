import Foundation
import ParlorTestSupport
import Testing

/// Reversi, dots and boxes and Chinese checkers through the real binary.
@Suite("The three newer games played by the real binary", .serialized)
struct NewGamesEndToEndTests {
    @Test("easy against easy runs to an end event with every seat's score",
          arguments: ["reversi", "dots-and-boxes", "chinese-checkers"])
    func headlessBots(gameID: String) async throws {
        let (events, end, _) = try await headlessMatch([gameID, "--bot", "easy", "--vs", "bot:easy", "--seed", "1"])
        let outcomes = try #require(end["outcomes"] as? [[String: Any]])
        #expect(outcomes.count == 2)
        #expect(outcomes.allSatisfy { $0["score"] is Int }, "\(outcomes)")
        let moves = events.filter { $0["event"] as? String == "move" }
        #expect(moves.count == end["moves"] as? Int)
        #expect(moves.allSatisfy { ($0["notation"] as? String)?.isEmpty == false })
    }

    @Test("reversi moves piped into plain mode: the board, the flips and the disc count")
    func pipedReversi() async throws {
        let result = try await ParlorProcess.run(["play", "reversi", "--vs", "human", "--plain"], stdin: "d3\nc3\nz9\n",
                                                 environment: scratchDataHome(), timeout: .seconds(30))
        // The moves run out mid-game: the match is left for now (75), not quit.
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stdout.contains("Player 1 (X) played d3."), "\(result.stdout.suffix(600))")
        #expect(result.stdout.contains("Player 2 (O) played c3."))
        #expect(result.stdout.contains("Discs: Player 1 (X) 3, Player 2 (O) 3"))
        #expect(result.stdout.contains("'z9' is not a move here"))
        #expect(!result.stdout.contains("\u{1B}"))
    }

    @Test("a Chinese-checkers chain typed hop by hop, and a wrong chain refused")
    func pipedCheckersChain() async throws {
        // o1 jumps over n1 to m5 (a chain of one jump); then p2-n2-l4 asks for a hop over an empty hole.
        let result = try await ParlorProcess.run(["play", "chinese-checkers", "--vs", "human", "--plain"],
                                                 stdin: "o1-m5\nb1-d1-f2\na1-b1\n",
                                                 environment: scratchDataHome(), timeout: .seconds(30))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stdout.contains("Player 1 (X) played o1-m5."), "\(result.stdout.suffix(800))")
        #expect(result.stdout.contains("'b1-d1-f2' is not a move here"))
        #expect(result.stdout.contains("a1-b1 is not a step or a chain of jumps"))
    }

    @Test("dots and boxes hosted and joined over loopback ends the same on both sides")
    func hostAndJoinDots() async throws {
        let port = freePort()
        let hostEnv = scratchDataHome(), guestEnv = scratchDataHome()
        async let host = ParlorProcess.run(["host", "dots-and-boxes", "--bot", "medium", "--json", "--port", "\(port)"],
                                           environment: hostEnv, timeout: .seconds(120))
        try await Task.sleep(for: .milliseconds(800))
        let guest = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"],
                                                environment: guestEnv, timeout: .seconds(120))
        let hostResult = try await host
        #expect(guest.status == 0, "guest: \(guest.stderr)")
        #expect(hostResult.status == 0, "host: \(hostResult.stderr)")
        let hostEnd = try #require(jsonEvents(hostResult.stdout).last), guestEnd = try #require(jsonEvents(guest.stdout).last)
        #expect(hostEnd["event"] as? String == "end" && guestEnd["event"] as? String == "end")
        #expect(hostEnd["hash"] as? String == guestEnd["hash"] as? String)
        #expect(hostEnd["moves"] as? Int == 40, "every line drawn")
    }
}
