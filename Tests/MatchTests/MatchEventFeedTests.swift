import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing

/// The screen's events: none lost or reordered between the recorder and a
/// screen that connects late, and the end said once.
@Suite struct MatchEventFeedTests {
    static func notices(_ events: [MatchEvent?]) -> [String] {
        events.map { event in
            switch event {
            case .notice(let text)?: text
            case nil: "end"
            default: "other"
            }
        }
    }

    @Test("events yielded before the screen connects come first, in order, then the rest as they come, then the end once")
    func keptThenHandedOn() {
        let feed = MatchEventFeed()
        feed.yield(.notice("a"))
        feed.yield(.notice("b"))
        let seen = Mutex<[MatchEvent?]>([])
        feed.connect { event in seen.withLock { $0.append(event) } }
        #expect(Self.notices(seen.withLock { $0 }) == ["a", "b"])
        feed.yield(.notice("c"))
        feed.finish()
        feed.yield(.notice("after the end"))
        feed.finish()
        #expect(Self.notices(seen.withLock { $0 }) == ["a", "b", "c", "end"])
    }

    @Test("a feed that ended before anyone connected still hands on everything, and the end")
    func endedBeforeConnecting() async {
        let feed = MatchEventFeed()
        feed.yield(.notice("a"))
        feed.finish()
        var seen: [String] = []
        for await event in feed.stream { if case .notice(let text) = event { seen.append(text) } }
        #expect(seen == ["a"])
    }

    @Test("a controller's feed has the whole match, from its start to its end, in the order the controller made it")
    func controllersFeed() async throws {
        let state = MatchFixtures.newMatch(seed: 5)
        let ana = LocalParticipant(playerID: state.seats[0].playerID)
        let ben = LocalParticipant(playerID: state.seats[1].playerID)
        let controller = MatchController(state: state, participants: [ana, ben])
        let feed = await MatchEventFeed.of(controller)
        try await controller.start()
        _ = await ana.play(Move(3))
        _ = await ben.quit()
        var kinds: [String] = []
        for await event in feed.stream {
            switch event {
            case .started: kinds.append("started")
            case .committed: kinds.append("committed")
            case .ended: kinds.append("ended")
            default: break
            }
        }
        #expect(kinds == ["started", "committed", "committed", "ended"])
    }
}
