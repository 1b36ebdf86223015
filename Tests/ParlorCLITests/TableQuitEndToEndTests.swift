import Foundation
import ParlorTestSupport
import Testing

/// A guest that quits a LAN table midway (protocol 2, section 16: a quit at a
/// table of three or more leaves the match going for the others), played by
/// real `parlor` processes over loopback.
@Suite("A guest quits a LAN table midway; the others play on", .serialized)
struct TableQuitEndToEndTests {
    @Test("dots-and-boxes at 3 and 4 seats: a person who types /quit on their turn is placed last; the rest play every line, one hash everywhere",
          arguments: [3, 4])
    func aGuestQuitsAndTheOthersPlayOn(seats: Int) async throws {
        let environment = LANTableEndToEndTests.environment
        let host = try SpawnedParlor(["host", "dots-and-boxes", "--seats", String(seats), "--bot", "easy", "--json",
                                      "--port", "0", "--name", "Hana", "--seat", "first"] + (seats == 4 ? ["--bots", "easy"] : []), environment: environment())
        let port = try await LANTableEndToEndTests.port(host)
        let bot = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"], environment: environment())
        _ = try #require(await bot.line(containing: "\"table\"", timeout: .seconds(20)), Comment(rawValue: bot.transcript))
        // A person at the keyboard: nothing typed until the test types it.
        let quitter = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--name", "Quinn"], environment: environment(),
                                        keepStdinOpen: true)
        _ = try #require(await quitter.line(containing: "\"table\"", timeout: .seconds(20)), Comment(rawValue: quitter.transcript))
        // Hana at 0, the joined bot at 1, Quinn at 2 (and the host's bot at 3): the match waits for Quinn at sequence 2 or later.
        let turn = try #require(await quitter.line(containing: "\"event\":\"turn\",\"seat\":2", timeout: .seconds(30)),
                                Comment(rawValue: quitter.transcript + host.transcript))
        let sequenceAtQuit = try #require(jsonEvents(turn).first?["sequence"] as? Int)
        #expect(sequenceAtQuit >= 2, "two seats moved before Quinn's first turn")
        quitter.type("/quit\n")

        for process in [host, bot, quitter] {
            let status = await process.wait(timeout: .seconds(120))
            #expect(status == 0, Comment(rawValue: process.transcript))
        }
        let ends = try [host, bot, quitter].map(LANTableEndToEndTests.end)
        let hash = try #require(ends[0]["hash"] as? String)
        let outcomes = try #require(ends[0]["outcomes"] as? [[String: Any]])
        let places = outcomes.compactMap { $0["place"] as? Int }
        #expect(outcomes.compactMap { $0["name"] as? String } == Array(["Hana", "Easy bot", "Quinn", "Easy bot"].prefix(seats)))
        #expect(places.count == seats)
        // Quinn left with no box: ranked below every seat that played on.
        let others = places.enumerated().filter { $0.offset != 2 }.map(\.element)
        #expect(places.count == seats && others.allSatisfy { $0 < places[2] }, "\(places)")
        for (process, end) in zip([bot, quitter], ends.dropFirst()) {
            #expect(end["hash"] as? String == hash, Comment(rawValue: process.transcript))
            #expect((end["outcomes"] as? [[String: Any]])?.compactMap { $0["place"] as? Int } == places, Comment(rawValue: process.transcript))
        }
        // The others drew every one of the 40 lines; Quinn drew none.
        #expect(ends[0]["moves"] as? Int == 40, Comment(rawValue: host.transcript))
        let hostEvents = jsonEvents(host.output)
        #expect(hostEvents.filter { $0["event"] as? String == "quit" }.compactMap { $0["seat"] as? Int } == [2], Comment(rawValue: host.transcript))
        #expect(!hostEvents.contains { $0["event"] as? String == "move" && $0["seat"] as? Int == 2 })
        // Quinn's own side saw the others' moves after the quit, to the end.
        let quinnMovesAfter = jsonEvents(quitter.output).filter { $0["event"] as? String == "move" && ($0["sequence"] as? Int ?? 0) > sequenceAtQuit }
        #expect(quinnMovesAfter.count >= 40 - sequenceAtQuit, Comment(rawValue: quitter.transcript))
    }
}
