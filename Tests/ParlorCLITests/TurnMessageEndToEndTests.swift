import Foundation
import ParlorTestSupport
import Testing

/// "A message with a turn" (issue 39) between two real `parlor` processes over
/// loopback: a move typed with words after it (`4 Your move, Bo`) reaches the
/// other side with the move, in plain text and in JSON, and both saved
/// matches keep it for `parlor replay` and `parlor matches`.
@Suite("A message with a turn between real processes", .serialized)
struct TurnMessageEndToEndTests {
    typealias Table = ResumeEndToEndTests.Table

    @Test("Ana's '4 Your move, Bo' shows on Bo's plain screen with the move; Bo's '4 Nice' is Ana's JSON move's message; replay and matches show them")
    func aMessageEachWay() async throws {
        let table = Table()
        let plain = ["NO_COLOR": "1", "LANG": "C"]
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--name", "Ana", "--seat", "first"],
                                     environment: table.environment(.host, plain), keepStdinOpen: true)
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening))
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--plain", "--ascii", "--name", "Bo"],
                                      environment: table.environment(.guest, plain), keepStdinOpen: true)
        let started = try #require(await host.line(containing: "\"started\"", timeout: .seconds(20)), Comment(rawValue: host.transcript))
        let id = try #require(ResumeEndToEndTests.matchID(from: started))

        host.type("4 Your move, Bo\n")
        #expect(await guest.line(containing: "Ana (X) played 4 -- 'Your move, Bo'") != nil, Comment(rawValue: guest.transcript))
        guest.type("4 Nice\n")
        let answer = await host.line(containing: "\"message\":\"Nice\"")
        #expect(answer?.contains("\"event\":\"move\"") == true, Comment(rawValue: host.transcript))
        // Refused whole, never cut: nothing is played and the match goes on.
        host.type("3 " + String(repeating: "a", count: 141) + "\n")
        #expect(await host.line(containing: "at most 140 bytes") != nil, Comment(rawValue: host.transcript))
        host.type("/quit\n")
        #expect(await host.wait(timeout: .seconds(30)) == 0, Comment(rawValue: host.transcript))
        guest.closeStdin()
        _ = await guest.wait(timeout: .seconds(30))

        for side in [ResumeEndToEndTests.Side.host, .guest] {
            let replay = try await ParlorProcess.run(["replay", id, "--plain", "--ascii"], environment: table.environment(side, plain),
                                                     timeout: .seconds(30))
            #expect(replay.stdout.contains("1. Ana: 4 -- 'Your move, Bo'\n2. Bo: 4 -- 'Nice'\n"), Comment(rawValue: replay.stdout + replay.stderr))
            let replayJSON = try await table.replay(id, on: side).stdout
            #expect(replayJSON.contains("\"message\":\"Your move, Bo\""), Comment(rawValue: replayJSON))
            #expect(try await table.matches(on: side).contains("\"message\":\"Nice\""))
        }
    }
}
