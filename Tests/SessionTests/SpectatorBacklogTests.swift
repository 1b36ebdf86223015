import Games
import Match
import Testing
@testable import Session
import ParlorTestSupport

/// A spectator whose screen starts late still sees every line of talk, after the change it follows.
@Suite struct SpectatorBacklogTests {
    @Test(.timeLimit(.minutes(1))) func talkThatComesBeforeTheControllerStartsIsShownAfterItsMoveNotDropped() async throws {
        let start = MatchState(matchID: .random(), game: Connect4(),
                               seats: [Seat(playerID: .random(), name: "Hana"), Seat(playerID: .random(), name: "Bot")],
                               turnTimeout: 0, now: 1_700_000_000_000)
        let (watcherEnd, hostEnd) = InMemoryByteStream.pair()
        let host = RawPeer(stream: hostEnd)
        let watching = Task {
            try await Spectator.watch(over: watcherEnd, hello: Hello(appVersion: "test", playerID: .random(), playerName: "Vi"))
        }
        guard case .watch? = await host.nextMessage() else { Issue.record("expected WATCH"); return }
        await host.send(.watching(SpectatorWelcome(protocolVersion: 2, heartbeatIntervalMilliseconds: 5000, heartbeatTimeoutMilliseconds: 15000,
                                                   hostAppVersion: "test", watching: 1, matchBlob: MatchBlob.encode(start))))
        let watched = try await watching.value
        let first = try #require(await watched.firstState())
        // Before this side's controller exists: a move, then a line said after it.
        let moved = try first.applying(.move(Move(3), by: 0), now: 1_700_000_000_100)
        await host.send(.turn(sequence: moved.sequence, blob: MatchBlob.encode(moved)))
        await host.send(.talk(.relayed(TalkLine(role: .player, seat: 0, name: "Hana", text: "well met", afterSequence: moved.sequence))))
        try await Task.sleep(for: .milliseconds(100))

        let controller = watched.makeController(for: first)
        let events = await controller.events()
        try await controller.start()
        var seen: [String] = []
        for await event in events {
            switch event {
            case .committed(_, let state): seen.append("move \(state.sequence)")
            case .adopted(let state): seen.append("adopted \(state.sequence)")
            case .talk(let line): seen.append("talk \(line.text) after \(line.afterSequence)")
            default: continue
            }
            if seen.contains(where: { $0.hasPrefix("talk") }) { break }
        }
        #expect(seen == ["move 1", "talk well met after 1"])
        await host.close()
    }
}
