import Foundation
import ParlorTestSupport
import Testing

/// Plain mode is read by scripts: the header comes first and each board once,
/// in the same order every run. A piped script is read at once, so its first
/// line used to reach the frontend before the match's start and the board and
/// "Your move" were printed before the header (1 run in 6), and the opening
/// board was printed twice (once on the start, once with the first prompt).
@Suite("Plain mode prints in a fixed order", .serialized)
struct PlainOrderEndToEndTests {
    /// The lines up to and including the first prompt.
    static func opening(_ stdout: String) -> [String] {
        var lines: [String] = []
        for line in stdout.components(separatedBy: "\n") {
            lines.append(line)
            if line.hasPrefix("Your move") || line.contains(", your move") { break }
        }
        return lines
    }

    @Test("a piped hot-seat tic-tac-toe game prints the same text in 20 runs, its golden file: the header first, each board once")
    func hotSeatGolden() async throws {
        var outputs: Set<String> = []
        for _ in 0..<20 {
            let result = try await ParlorProcess.run(["play", "tictactoe", "--vs", "human", "--plain", "--name", "Ana"], stdin: "1\n4\n2\n5\n3\n",
                                                     environment: scratchDataHome(), timeout: .seconds(30))
            #expect(result.status == 0, "\(result.stderr)")
            outputs.insert(result.stdout)
        }
        #expect(outputs.count == 1, "the output differed between runs:\n\(outputs.joined(separator: "\n-----\n"))")
        let stdout = try #require(outputs.first)
        #expect(stdout.hasPrefix("Tic-tac-toe: "), "\(stdout)")
        try Golden.check(stdout, against: "plain-tictactoe.txt")
    }

    @Test("against a bot, the header comes first and the opening board is printed once before the first prompt, in 20 runs")
    func botOpening() async throws {
        for run in 0..<20 {
            let result = try await ParlorProcess.run(["play", "connect4", "--vs", "bot:easy", "--plain", "--seed", "3"],
                                                     stdin: "4\n", environment: scratchDataHome(), timeout: .seconds(30))
            #expect(result.status == 75, "\(result.stderr)")
            let opening = Self.opening(result.stdout)
            #expect(opening.first?.hasPrefix("Connect Four: ") == true, "run \(run):\n\(result.stdout)")
            #expect(opening.filter { $0.hasPrefix("+---+") }.count == 1, "run \(run): the opening board was not printed once:\n\(result.stdout)")
            #expect(opening.last?.hasPrefix("Your move") == true, "run \(run):\n\(result.stdout)")
        }
    }

    @Test("join --plain prints the header first and the opening board once, in 5 runs")
    func joinOpening() async throws {
        for run in 0..<5 {
            let port = freePort()
            let host = try SpawnedParlor(["host", "connect4", "--name", "Ana", "--bot", "easy", "--json", "--port", "\(port)"],
                                         environment: scratchDataHome())
            _ = try #require(await host.line(containing: "\"listening\""), "\(host.transcript)")
            let guest = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--name", "Bo", "--plain"], stdin: "4\n",
                                                    environment: scratchDataHome(), timeout: .seconds(60))
            let opening = Self.opening(guest.stdout)
            // "Joined Ana's Connect Four at …", Ana's key, then the header; the seats are drawn by lot,
            // so Ana may move first: one board at the start and one after each move.
            #expect(opening.count > 3 && opening[0].hasPrefix("Joined ") && opening[1].hasPrefix("Ana's key: ")
                        && opening[2].hasPrefix("Connect Four: "),
                    "run \(run):\n\(guest.stdout)\n\(guest.stderr)")
            let moves = opening.filter { $0.contains(" played ") }.count
            #expect(opening.filter { $0.hasPrefix("+---+") }.count == 1 + moves,
                    "run \(run): a board was printed twice:\n\(guest.stdout)")
            host.send(SIGTERM)
            _ = await host.wait(timeout: .seconds(30))
        }
    }
}
