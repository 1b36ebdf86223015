import Foundation
import Games
import Match
import ParlorKit
import ParlorTestSupport
import Session
import Store
import Testing

/// GameKit's rematch through the front door, over real sockets and real stores.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedRematchTests {
    init() { Nim.register() }

    @Test("both want a rematch: a new match, seats swapped, saved on both sides; then one declines and the series ends")
    func aRematchThenNoMore() async throws {
        let root = NSTemporaryDirectory() + "parlorkit-rematch-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hostStore = MatchStore(directory: root + "/host"), guestStore = MatchStore(directory: root + "/guest")
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false, store: hostStore)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo", store: guestStore,
                                              rematches: true)
        let host = try await table.waitForMatch(rematches: true)
        let guest = try await joining
        await #expect(throws: TurnBasedError.refused("the match is not over")) { _ = try await guest.rematch() }
        async let hostPlayed = TurnBasedMatchTests.playToTheEnd(host)
        async let guestPlayed = TurnBasedMatchTests.playToTheEnd(guest)
        _ = try await (hostPlayed, guestPlayed)

        async let guestNext = guest.rematch()
        let hostNext = try #require(try await host.rematch())
        let guestSecond = try #require(try await guestNext)
        let (firstID, secondID, guestsID) = (await host.state.matchID, await hostNext.state.matchID, await guestSecond.state.matchID)
        #expect(firstID != secondID && secondID == guestsID)
        #expect(hostNext.localSeat != host.localSeat, "seats swapped")
        // The rematch is on disk on both sides before it is played.
        #expect(hostStore.list().matches.count == 2 && guestStore.list().matches.count == 2)
        async let hostAgain = TurnBasedMatchTests.playToTheEnd(hostNext)
        async let guestAgain = TurnBasedMatchTests.playToTheEnd(guestSecond)
        let (onHost, onGuest) = try await (hostAgain, guestAgain)
        #expect(onHost.events == onGuest.events && onHost.events.last == "over")

        async let guestDeclines = guestSecond.rematch(wants: false)
        let none = try await hostNext.rematch()
        #expect(none == nil)
        let declined = try await guestDeclines
        #expect(declined == nil)
        #expect(hostStore.list().matches.allSatisfy { $0.phase == .ended })
        #expect(guestStore.list().matches.allSatisfy { $0.phase == .ended })
    }

    @Test("a side that leaves after the end says no to a rematch at once: the other side is not kept waiting")
    func leavingDeclines() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo", rematches: true)
        let host = try await table.waitForMatch(rematches: true)
        let guest = try await joining
        try await guest.quit()
        _ = await (host.finished(), guest.finished())
        let began = ContinuousClock.now
        async let hostAsks = host.rematch(answerTimeout: .seconds(30))
        await guest.leave()
        let answer = try await hostAsks
        #expect(answer == nil)
        #expect(ContinuousClock.now - began < .seconds(10), "answered by the guest's no, not by the timeout")
        await host.leave()
    }

    @Test("a match made without rematches refuses one with a sentence")
    func notMadeForRematches() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo")
        let host = try await table.waitForMatch()
        let guest = try await joining
        try await guest.quit()
        _ = await host.finished()
        await #expect(throws: TurnBasedError.refused("this match was made without rematches: true")) { _ = try await host.rematch() }
        await host.leave()
    }
}
