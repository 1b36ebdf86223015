import Foundation
import ParlorTestSupport
import Testing

/// `parlor play GAME --seats N`: tables of more than two seats through the real binary.
@Suite("Offline tables of three or more seats played by the real binary", .serialized)
struct TableEndToEndTests {
    /// Checks what every headless table's events must agree on: N seats in the
    /// start and the end, one move event per move, each by the seat whose turn was announced.
    private func checkTable(_ events: [[String: Any]], end: [String: Any], seats: Int) throws -> [[String: Any]] {
        let started = try #require(events.first { $0["event"] as? String == "started" })
        let names = try #require(started["seats"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names.count == seats && Set(names).count == seats, "every seat named, no two alike: \(names)")
        let outcomes = try #require(end["outcomes"] as? [[String: Any]])
        #expect(outcomes.compactMap { $0["name"] as? String } == names)
        let moves = events.filter { $0["event"] as? String == "move" }
        #expect(moves.count == end["moves"] as? Int)
        var announced: Int?
        for event in events {
            if event["event"] as? String == "turn" { announced = event["seat"] as? Int }
            if event["event"] as? String == "move" {
                #expect(event["seat"] as? Int == announced, "a move by the seat whose turn it was: \(event)")
            }
        }
        return outcomes
    }

    @Test("four easy bots play dots and boxes to the end: 16 boxes shared, the most boxes won")
    func fourSeatDots() async throws {
        let (events, end, _) = try await headlessMatch(["dots-and-boxes", "--seats", "4", "--bot", "easy",
                                                        "--vs", "bot:easy", "--seed", "1"])
        let outcomes = try checkTable(events, end: end, seats: 4)
        #expect(outcomes.compactMap { $0["name"] as? String } == ["Easy bot", "Easy bot 2", "Easy bot 3", "Easy bot 4"])
        #expect(end["moves"] as? Int == 40, "every line of a 5x5 board drawn")
        let scores = outcomes.compactMap { $0["score"] as? Int }
        #expect(scores.count == 4 && scores.reduce(0, +) == 16, "\(scores)")
        let best = try #require(scores.max())
        for (outcome, score) in zip(outcomes, scores) {
            let expected = score == best ? (scores.filter { $0 == best }.count > 1 ? "tied" : "won") : "lost"
            #expect(outcome["outcome"] as? String == expected, "\(outcomes)")
        }
        // Some box earned an extra move: one seat moved twice in a row, so the order is not a strict rotation.
        let movers = events.filter { $0["event"] as? String == "move" }.compactMap { $0["seat"] as? Int }
        #expect(zip(movers, movers.dropFirst()).contains { $0 == $1 })
    }

    @Test("--vs names each other seat in order and --seat 3 seats the local player third")
    func mixedLevelsInOrder() async throws {
        let (events, end, _) = try await headlessMatch(["dots-and-boxes", "--bot", "easy",
                                                        "--vs", "bot:medium,bot:easy,bot:easy", "--seats", "4", "--seat", "3", "--seed", "4"])
        let outcomes = try checkTable(events, end: end, seats: 4)
        #expect(outcomes.compactMap { $0["name"] as? String } == ["Medium bot", "Easy bot 2", "Easy bot", "Easy bot 3"])
    }

    @Test("six easy bots play Chinese checkers until one fills the opposite point")
    func sixSeatCheckers() async throws {
        let (events, end, _) = try await headlessMatch(["chinese-checkers", "--seats", "6", "--bot", "easy",
                                                        "--vs", "bot:easy", "--seed", "1"])
        let outcomes = try checkTable(events, end: end, seats: 6)
        let winners = outcomes.filter { $0["outcome"] as? String == "won" }
        #expect(winners.count == 1, "\(outcomes)")
        #expect(winners.first?["score"] as? Int == 10, "all ten pegs home")
        #expect(outcomes.filter { $0["outcome"] as? String == "lost" }.count == 5)
    }

    @Test("places agree in the JSON end event, the plain result line, 'parlor matches' and 'parlor replay'")
    func placesEverywhere() async throws {
        let home = scratchDataHome()
        let arguments = ["play", "dots-and-boxes", "--seats", "3", "--bot", "easy", "--vs", "bot:easy", "--seed", "3"]
        let json = try await ParlorProcess.run(arguments + ["--json"], environment: home, timeout: .seconds(60))
        #expect(json.status == 0, "\(json.stderr)")
        let end = try #require(jsonEvents(json.stdout).last)
        let outcomes = try #require(end["outcomes"] as? [[String: Any]])
        let places = outcomes.compactMap { $0["place"] as? Int }
        let scores = outcomes.compactMap { $0["score"] as? Int }
        #expect(places.count == 3, "\(outcomes)")
        #expect(places == scores.map { score in 1 + scores.filter { $0 > score }.count }, "places by boxes")
        for (outcome, place) in zip(outcomes, places) {
            #expect(["won", "tied"].contains(outcome["outcome"] as? String) == (place == 1), "\(outcomes)")
        }
        let ordinals = ["1st", "2nd", "3rd"]

        // The same match in plain mode (another data home) lists the seats by place.
        let plain = try await ParlorProcess.run(arguments + ["--plain"], environment: scratchDataHome(), timeout: .seconds(60))
        let result = try #require(plain.stdout.split(separator: "\n").first { $0.hasPrefix("Result: ") }, "\(plain.stdout.suffix(300))")
        let byPlace = zip(outcomes, places).sorted { $0.1 < $1.1 }
        let expected = "Result: " + byPlace.map { outcome, place in
            "\(ordinals[place - 1]) \(outcome["name"] as? String ?? "")"
        }.joined(separator: " ")
        let shown = result.split(separator: ",").map { part in
            part.replacingOccurrences(of: "Result: ", with: "").trimmingCharacters(in: .whitespaces).split(separator: " (")[0]
        }
        #expect("Result: " + shown.joined(separator: " ") == expected, "\(result)")
        // The verdict under it: one winner, or the seats sharing first place named together.
        let firsts = zip(outcomes, places).filter { $0.1 == 1 }.compactMap { $0.0["name"] as? String }
        let verdict = firsts.count == 1 ? "\(firsts[0]) (" : "share first place."
        #expect(plain.stdout.contains(verdict) && (firsts.count == 1) == plain.stdout.contains(" wins"), "\(plain.stdout.suffix(200))")

        // matches: the local seat (seat 0) with its place; replay: every seat's place.
        let matches = try await ParlorProcess.run(["matches", "--json"], environment: home)
        let summary = try #require(jsonEvents(matches.stdout).first)
        #expect(summary["place"] as? Int == places[0])
        let table = try await ParlorProcess.run(["matches"], environment: home)
        #expect(table.stdout.contains("\(outcomes[0]["outcome"] as? String ?? "") (\(ordinals[places[0] - 1]))"), "\(table.stdout)")
        let id = try #require(summary["id"] as? String)
        let replayJSON = try await ParlorProcess.run(["replay", id, "--json"], environment: home)
        let replayEnd = try #require(jsonEvents(replayJSON.stdout).last)
        #expect((replayEnd["outcomes"] as? [[String: Any]])?.compactMap { $0["place"] as? Int } == places)
        let replayPlain = try await ParlorProcess.run(["replay", id, "--plain"], environment: home)
        for (outcome, place) in zip(outcomes, places) {
            #expect(replayPlain.stdout.contains("\(outcome["name"] as? String ?? "") \(outcome["outcome"] as? String ?? "") (\(ordinals[place - 1]))"),
                    "\(replayPlain.stdout.suffix(300))")
        }
    }

    @Test("two hot-seat players quit (/quit); the two bots play the table to the end without them")
    func botsPlayOnAfterDepartures() async throws {
        let result = try await ParlorProcess.run(
            ["play", "dots-and-boxes", "--seats", "4", "--vs", "human,bot:easy,bot:medium", "--json", "--seed", "5"],
            stdin: "/quit\n/quit\n", environment: scratchDataHome(), timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let events = jsonEvents(result.stdout)
        let end = try #require(events.last)
        #expect(end["event"] as? String == "end", "\(result.stdout.suffix(300))")
        let outcomes = try checkTable(events, end: end, seats: 4)
        #expect(outcomes.compactMap { $0["name"] as? String } == ["Player 1", "Player 2", "Easy bot", "Medium bot"])
        #expect(events.filter { $0["event"] as? String == "quit" }.compactMap { $0["seat"] as? Int } == [0, 1])
        #expect(end["moves"] as? Int == 40, "the bots drew every line")
        let moverSeats = Set(events.filter { $0["event"] as? String == "move" }.compactMap { $0["seat"] as? Int })
        #expect(moverSeats == [2, 3])
        let places = outcomes.compactMap { $0["place"] as? Int }
        #expect(places.count == 4 && places[0] > 2 && places[1] > 2, "the players who left rank below the bots: \(places)")
    }
}
