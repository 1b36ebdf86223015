import Foundation
import ParlorTestSupport
import Testing

/// A bot standing in for an away guest's seat at a table (issue 12 item 4),
/// with real processes over loopback: `parlor host … --away-bot SECONDS`.
@Suite("A bot stands in for an away seat at a table (real processes)", .serialized)
struct TableStandInEndToEndTests {
    /// The JSON events named `name` a process printed so far.
    static func events(_ name: String, _ process: SpawnedParlor) -> [[String: Any]] {
        jsonEvents(process.output).filter { $0["event"] as? String == name }
    }

    @Test("--away-bot 1: a guest killed with SIGKILL has a medium bot play its seat on the host, the other guest gets those moves, and the player resumed takes the seat back; one end everywhere")
    func aBotStandsInUntilThePlayerIsBack() async throws {
        let (host, bot, personHome, port) = try await LANTableEndToEndTests.killedAtATable(grace: 60, hostFlags: ["--away-bot", "1"])
        let standing = try #require(await host.line(containing: "stands in for", timeout: .seconds(30)), Comment(rawValue: host.transcript))
        #expect(standing.contains("Medium bot stands in for"), "\(standing)")
        // The person never moved: every move of seat 2 is the stand-in's, and the other guest has them too.
        // Two or more, so the player back takes more than the one change a resumed guest may have sent unseen.
        var played = false
        for _ in 0..<300 where !played {
            played = Self.events("move", host).filter { $0["seat"] as? Int == 2 }.count >= 2
                && Self.events("move", bot).contains { $0["seat"] as? Int == 2 }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(played, "the stand-in moved twice for seat 2 on the host and the other guest: \(host.transcript)")
        // The other guest is told a bot plays seat 2 (SEAT presence 2), not only that it is away.
        #expect(Self.events("standIn", bot).contains { $0["seat"] as? Int == 2 && $0["bot"] is String }, Comment(rawValue: bot.transcript))

        let back = try SpawnedParlor(["resume", "127.0.0.1:\(port)", "--bot", "easy", "--json"], environment: personHome)
        _ = try #require(await back.line(containing: "\"joined\"", timeout: .seconds(30)), Comment(rawValue: back.transcript))
        _ = try #require(await host.line(containing: "plays their own seat again", timeout: .seconds(20)), Comment(rawValue: host.transcript))
        var handedBack = false
        for _ in 0..<200 where !handedBack {
            handedBack = Self.events("standIn", bot).contains { $0["seat"] as? Int == 2 && $0["bot"] is NSNull }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(handedBack, "the other guest is told the player has the seat back: \(bot.transcript)")
        for process in [host, bot, back] {
            let status = await process.wait(timeout: .seconds(120))
            #expect(status == 0, Comment(rawValue: process.transcript))
        }
        let hostEnd = try LANTableEndToEndTests.end(host)
        #expect(hostEnd["moves"] as? Int == 40)
        #expect(try LANTableEndToEndTests.end(bot)["hash"] as? String == hostEnd["hash"] as? String)
        #expect(try LANTableEndToEndTests.end(back)["hash"] as? String == hostEnd["hash"] as? String,
                "the player back took the host's state with the stand-in's moves: \(back.transcript)")
        let outcomes = try #require(hostEnd["outcomes"] as? [[String: Any]])
        #expect(outcomes.last?["outcome"] as? String != "quit", "the seat stayed in play: \(outcomes)")
    }
}
