import Foundation
import Games
import ParlorTestSupport
import Testing
@testable import ParlorCLI

/// Runs the built `parlor` binary, with no terminal, a fixed user, and no colour.
func parlor(_ arguments: [String], stdin: String? = nil) async throws -> ProcessResult {
    try await ParlorProcess.run(arguments, stdin: stdin, environment: ["USER": "ana", "NO_COLOR": "1"], timeout: .seconds(30))
}

@Suite("The built parlor binary")
struct EndToEndTests {
    @Test("parlor --version prints 'parlor VERSION' and exits 0")
    func version() async throws {
        let result = try await parlor(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "parlor \(ParlorVersion.current)\n")
        #expect(result.stderr == "")
    }

    @Test("parlor games lists every game with its rule and how moves are typed")
    func games() async throws {
        let result = try await parlor(["games"])
        #expect(result.status == 0)
        // The built-in games: tests in this process may have registered a game of their own (Nim).
        #expect(result.stdout == GamesListing.text(GameCatalog.builtIn))
        for line in ["connect4           Connect Four", "cube4              Cube Four (3D Connect Four)",
                     "tictactoe          Tic-tac-toe", "reversi            Reversi", "dots-and-boxes     Dots and Boxes",
                     "chinese-checkers   Chinese Checkers", "Moves: a column, 1-7", "Players: 2-4", "Players: 2, 3, 4 or 6"] {
            #expect(result.stdout.contains(line))
        }
    }

    @Test("parlor games --json prints one object per game")
    func gamesJSON() async throws {
        let result = try await parlor(["games", "--json"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 6)
        let ids = try lines.map { line -> String in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["summary"] is String)
            #expect(object?["moveHelp"] is String)
            #expect(object?["seatCounts"] is [Int])
            return object?["id"] as? String ?? ""
        }
        #expect(ids == ["connect4", "cube4", "tictactoe", "reversi", "dots-and-boxes", "chinese-checkers"])
    }

    @Test("parlor play conect4 exits 64 and suggests connect4")
    func misspelledGame() async throws {
        let result = try await parlor(["play", "conect4"])
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("Error: unknown game 'conect4'. Did you mean 'connect4'?\nUsage: parlor play GAME"))
        #expect(result.stderr.hasSuffix("See 'parlor help play'.\n"))
    }

    @Test("a game's name or a common other name plays that game", arguments: [
        ("othello", "reversi"), ("Connect Four", "connect4"), ("connect-four", "connect4"), ("dots", "dots-and-boxes"),
    ])
    func gameByName(typed: String, id: String) async throws {
        let result = try await ParlorProcess.run(["play", typed, "--bot", "easy", "--vs", "bot:easy", "--json", "--seed", "1"],
                                                 environment: ["USER": "ana", "NO_COLOR": "1", "XDG_DATA_HOME": temporaryDataHome()],
                                                 timeout: .seconds(60))
        #expect(result.status == 0, Comment(rawValue: result.stderr))
        #expect(result.stdout.hasPrefix("{\"event\":\"started\"") && result.stdout.contains("\"game\":\"\(id)\""),
                Comment(rawValue: String(result.stdout.prefix(300))))
    }

    @Test("parlor play nosuchgame exits 64 and lists the games")
    func unknownGame() async throws {
        let result = try await parlor(["play", "nosuchgame"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: unknown game 'nosuchgame'. Known games: connect4, cube4, tictactoe, reversi, dots-and-boxes, chinese-checkers.\n"))
    }

    @Test("every bad command line exits 64 with the same three-part error the parser renders", arguments: badCommandLines)
    func badCommandLine(words: [String], message: String) async throws {
        let result = try await parlor(words)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("Error: \(message)\n"))
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: parlor") == true)
        #expect(lines.last?.hasPrefix("See 'parlor help") == true)
    }

    @Test("parlor play --help and parlor help play print the golden help and exit 0")
    func playHelp() async throws {
        let golden = try String(contentsOf: Golden.url("play-help.txt"), encoding: .utf8)
        for arguments in [["play", "--help"], ["help", "play"], ["play", "-h"]] {
            let result = try await parlor(arguments)
            #expect(result.status == 0)
            #expect(result.stdout == golden, "\(arguments)")
        }
    }

    @Test("bare parlor without a terminal prints the help and exits 0")
    func bare() async throws {
        let result = try await parlor([], stdin: "")
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: parlor [COMMAND] [OPTIONS]"))
    }
}

@Suite("ParlorProcess, the end-to-end helper")
struct ParlorProcessTests {
    @Test("a child that outlives its timeout is killed and reported")
    func timeout() async throws {
        let started = ContinuousClock.now
        let result = try await ParlorProcess.run(["30"], timeout: .milliseconds(300), executable: URL(fileURLWithPath: "/bin/sleep"))
        #expect(result.timedOut)
        #expect(result.status == 128 + 9)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("stdin is fed to the child and stdout comes back")
    func stdin() async throws {
        let result = try await ParlorProcess.run([], stdin: "one\ntwo\n", executable: URL(fileURLWithPath: "/bin/cat"))
        #expect(result.status == 0)
        #expect(result.stdout == "one\ntwo\n")
        #expect(!result.timedOut)
    }

    @Test("a missing executable is a clear error")
    func missing() async {
        await #expect(throws: ParlorProcessError.self) {
            try await ParlorProcess.run([], executable: URL(fileURLWithPath: "/nonexistent/parlor"))
        }
    }

    @Test("the binary is found next to the test bundle")
    func binaryLocation() {
        #expect(FileManager.default.isExecutableFile(atPath: ParlorBinary.url.path))
        #expect(ParlorBinary.url.lastPathComponent == "parlor")
    }
}
