import Foundation
import Games
import Match
import ParlorKit
import ParlorTestSupport
import Session
import Store
import Testing

/// Left for now and taken back up through the front door, both sides from
/// their own store, over real sockets: the match ends as if never stopped.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedResumeTests {
    init() { Nim.register() }

    /// Plays the first legal move on this side's turns, `turns` times (nil: to the end).
    static func play(_ match: TurnBasedMatch<Nim>, turns: Int?) async throws -> Int {
        var played = 0
        for await event in match.events {
            guard case .turnBegan(let participant, let game) = event, participant.isLocal else { continue }
            guard let move = game.legalMoves.first else { continue }
            try await match.endTurn(with: move)
            played += 1
            if let turns, played == turns { return played }
        }
        return played
    }

    /// A match hosted and joined with a store each, one move each, then both sides leave for now; its host's table.
    static func interruptedMatch(hostStore: MatchStore, guestStore: MatchStore) async throws -> TurnBasedHost<Nim> {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false, store: hostStore)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo", store: guestStore)
        let host = try await table.waitForMatch()
        let guest = try await joining
        async let hostPlayed = play(host, turns: 1)
        async let guestPlayed = play(guest, turns: 1)
        _ = try await (hostPlayed, guestPlayed)
        await host.leaveForNow()
        await guest.leaveForNow()
        return table
    }

    /// Plays a resumed match to its end on both sides, then each side's record of it.
    static func finish(_ host: TurnBasedMatch<Nim>, _ guest: TurnBasedMatch<Nim>, hostStore: MatchStore,
                       guestStore: MatchStore) async throws -> (host: StoredMatch, guest: StoredMatch) {
        async let hostRest = play(host, turns: nil)
        async let guestRest = play(guest, turns: nil)
        _ = try await (hostRest, guestRest)
        _ = await (host.finished(), guest.finished())
        await host.leave()
        return (try theMatch(in: hostStore), try theMatch(in: guestStore))
    }

    static func theMatch(in store: MatchStore) throws -> StoredMatch {
        let matches = store.list().matches
        try #require(matches.count == 1)
        return matches[0]
    }

    @Test("both sides leave for now after a few moves, resume from their stores, and end with one hash")
    func leftForNowAndResumed() async throws {
        let root = NSTemporaryDirectory() + "parlorkit-resume-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hostStore = MatchStore(directory: root + "/host"), guestStore = MatchStore(directory: root + "/guest")
        let table = try await Self.interruptedMatch(hostStore: hostStore, guestStore: guestStore)
        let (hostRecord, guestRecord) = (try Self.theMatch(in: hostStore), try Self.theMatch(in: guestStore))
        #expect(hostRecord.phase == .interrupted && guestRecord.phase == .interrupted)
        #expect(hostRecord.state.moves.count == 2 && guestRecord.state.stateHash == hostRecord.state.stateHash)

        let again = try await TurnBasedLAN.resume(Nim.self, hosting: hostRecord, store: hostStore, advertise: false)
        #expect(again.port == table.port, "the same port, free again")
        async let guestBack = TurnBasedLAN.resume(Nim.self, joined: guestRecord, store: guestStore, grace: .seconds(20))
        let hostBack = try await again.waitForMatch()
        let guestAgain = try await guestBack
        let (hostMoves, guestMoves) = (await hostBack.game.moveCount, await guestAgain.game.moveCount)
        #expect(hostMoves == 2 && guestMoves == 2)
        let (hostEnd, guestEnd) = try await Self.finish(hostBack, guestAgain, hostStore: hostStore, guestStore: guestStore)
        #expect(hostEnd.phase == .ended && guestEnd.phase == .ended)
        #expect(hostEnd.state.stateHash == guestEnd.state.stateHash)
        #expect(hostEnd.state.game(as: Nim.self)?.heaps == [0, 0, 0])
        #expect(hostEnd.state.matchID == hostRecord.state.matchID)
    }

    @Test("a resumed host whose port was taken meanwhile listens on another; its guest finds it on the LAN by the match id")
    func portTakenGuestFindsTheHostByMatchID() async throws {
        let root = NSTemporaryDirectory() + "parlorkit-moved-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hostStore = MatchStore(directory: root + "/host"), guestStore = MatchStore(directory: root + "/guest")
        let lan = InMemoryDirectory()
        let table = try await Self.interruptedMatch(hostStore: hostStore, guestStore: guestStore)
        // Someone else takes the port the match was played on.
        let squatter = try TCPListener.listen(port: table.port)
        defer { squatter.close() }
        let again = try await TurnBasedLAN.resume(Nim.self, hosting: try Self.theMatch(in: hostStore), store: hostStore,
                                                  directory: lan)
        #expect(again.port != table.port)
        async let guestBack = TurnBasedLAN.resume(Nim.self, joined: try Self.theMatch(in: guestStore), store: guestStore,
                                                  grace: .seconds(20), directory: lan)
        let hostBack = try await again.waitForMatch()
        let guestAgain = try await guestBack
        let (hostEnd, guestEnd) = try await Self.finish(hostBack, guestAgain, hostStore: hostStore, guestStore: guestStore)
        #expect(hostEnd.phase == .ended && guestEnd.phase == .ended && hostEnd.state.stateHash == guestEnd.state.stateHash)
        #expect(guestEnd.peerAddress.hasSuffix(":\(again.port)"), "the guest keeps where it found the host")
    }

    @Test("a host that waits within a limit for a guest who never comes says so, and lets its port go")
    func nobodyCame() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false)
        let began = ContinuousClock.now
        await #expect(throws: TurnBasedLANError.nobodyCame(.milliseconds(300))) {
            _ = try await table.waitForMatch(within: .milliseconds(300))
        }
        #expect(ContinuousClock.now - began < .seconds(5))
        // The port is free again.
        let again = try TCPListener.listen(port: table.port)
        again.close()
    }

    @Test("a record this side did not host, or of another game, is refused with a sentence")
    func wrongRecordsAreRefused() async throws {
        let state = MatchState(matchID: .random(), gameType: Nim.self,
                               seats: [Seat(playerID: .random(), name: "Ana"), Seat(playerID: .random(), name: "Bo")])
        let store = MatchStore(directory: NSTemporaryDirectory() + "parlorkit-refused-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        let joinedRecord = StoredMatch(state: state, role: .guest, localSeat: 1, lastActivity: 1, peerAddress: "127.0.0.1:1",
                                       seatToken: [UInt8](repeating: 3, count: 16))
        await #expect(throws: TurnBasedLANError.notResumable("match \(state.matchID.short) is not a match of nim this side hosted")) {
            _ = try await TurnBasedLAN.resume(Nim.self, hosting: joinedRecord, store: store, advertise: false)
        }
        MisereNim.register()
        await #expect(throws: TurnBasedLANError.self) {
            _ = try await TurnBasedLAN.resume(MisereNim.self, joined: joinedRecord, store: store)
        }
    }
}
