import Foundation
import Testing

/// Issue 14 item 1, "`parlor matches` on the host lists them all": a host of
/// many tables with real guest processes, and `parlor matches` in the host's
/// data home naming every table's match with its own state.
@Suite("parlor matches on a host of many tables", .serialized)
struct HallMatchesEndToEndTests {
    /// `parlor matches --json` in `environment`'s data home: state by match id.
    static func states(_ environment: [String: String]) async throws -> [String: String] {
        let list = try SpawnedParlor(["matches", "--json"], environment: environment)
        #expect(await list.wait(timeout: .seconds(20)) == 0, Comment(rawValue: list.transcript))
        var states: [String: String] = [:]
        for record in jsonEvents(list.output) {
            if let id = record["id"] as? String, let state = record["state"] as? String { states[id] = state }
        }
        return states
    }

    @Test("every table is listed with its own state: playing while in play, ended, and interrupted once the host stops")
    func everyTableListed() async throws {
        let hostEnvironment = HallEndToEndTests.environment()
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--tables", "3", "--json", "--port", "0", "--name", "Teach"],
                                     environment: hostEnvironment)
        defer { host.send(SIGKILL) }
        let port = try await HallEndToEndTests.port(host)
        // Two guests who never move hold two tables; a third plays its table to the end.
        var holders: [SpawnedParlor] = []
        for _ in 0..<2 {
            let holder = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--name", "Slow"],
                                           environment: HallEndToEndTests.environment(), keepStdinOpen: true)
            _ = try #require(await holder.line(containing: "\"started\""), Comment(rawValue: holder.transcript))
            holders.append(holder)
        }
        defer { for holder in holders { holder.send(SIGKILL) } }
        let (player, _) = try HallEndToEndTests.botGuest(port: port)
        #expect(await player.wait(timeout: .seconds(90)) == 0, Comment(rawValue: player.transcript))

        let joined = jsonEvents(host.output).filter { $0["event"] as? String == "joined" }
        let ids = joined.compactMap { $0["match"] as? String }
        #expect(Set(joined.compactMap { $0["table"] as? Int }).count == 3, Comment(rawValue: host.transcript))
        let played = try #require(jsonEvents(player.output).first { $0["event"] as? String == "started" }?["match"] as? String)
        var states: [String: String] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            states = try await Self.states(hostEnvironment)
            if states[played] == "ended" { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        #expect(Set(states.keys) == Set(ids), "every table's match is listed: \(states) vs \(ids)")
        #expect(states[played] == "ended", "\(states)")
        #expect(states.filter { $0.key != played }.values.sorted() == ["playing", "playing"], "\(states)")

        // The plain listing has one row per table too.
        let text = try SpawnedParlor(["matches"], environment: hostEnvironment)
        #expect(await text.wait(timeout: .seconds(20)) == 0, Comment(rawValue: text.transcript))
        for id in ids { #expect(text.output.contains(String(id.prefix(8))), Comment(rawValue: text.output)) }
        #expect(text.output.components(separatedBy: " playing ").count == 3, Comment(rawValue: text.output))

        // Stopped, the host leaves both tables in play for now: interrupted, resumable.
        host.send(SIGTERM)
        #expect(await host.wait(timeout: .seconds(20)) != nil, Comment(rawValue: host.transcript))
        states = try await Self.states(hostEnvironment)
        #expect(states.filter { $0.key != played }.values.sorted() == ["interrupted", "interrupted"], "\(states)")
        #expect(states[played] == "ended", "\(states)")
    }
}
