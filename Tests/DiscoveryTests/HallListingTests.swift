import Testing

@testable import Discovery
import ParlorTestSupport

/// A host of many tables, as another parlor's browse sees it: joinable while
/// a table is free, playing once every table is, and gone when it stops.
@Suite struct HallListingTests {
    static let game = HostedGame(gameID: "connect4", gameDisplayName: "Connect Four", rulesVersion: 1, hostPlayerName: "Ana",
                                 protocolVersion: 1, appVersion: "0.9.0")

    static func assess(_ txt: TXTRecord) -> ParlorServiceAssessment {
        ParlorServiceInfo.assess(txt, supportedProtocolVersion: 2, knownGameIDs: ["connect4"])
    }

    @Test func aHallIsJoinableUntilEveryTableIsTakenThenPlaying() async throws {
        let host = InMemoryDirectory(hostName: "hosta")
        var events = host.host(named: "hostb").browse(type: parlorServiceType).makeAsyncIterator()
        let listing = await HallListing.start(Self.game, limit: 3, port: 7477, in: host)
        #expect(listing.problem == nil)
        #expect(listing.name == "Ana's Connect Four")
        guard case .found(let open)? = await events.next() else { Issue.record("expected found"); return }
        #expect(open.txt["tables"] == "0/3")
        #expect(Self.assess(open.txt).isJoinable)

        await listing.update(inPlay: 2)
        guard case .updated(let busy)? = await events.next() else { Issue.record("expected updated"); return }
        #expect(busy.txt["tables"] == "2/3")
        #expect(Self.assess(busy.txt).isJoinable)

        await listing.update(inPlay: 3)
        guard case .updated(let full)? = await events.next() else { Issue.record("expected updated"); return }
        #expect(full.txt["tables"] == "3/3")
        #expect(Self.assess(full.txt).reason == .alreadyPlaying)

        await listing.withdraw()
        guard case .lost? = await events.next() else { Issue.record("expected lost"); return }
    }

    @Test func aHallThatCannotAdvertiseSaysWhyAndStillRuns() async {
        let directory = InMemoryDirectory()
        directory.simulateFailure(.daemonUnavailable(operation: "DNSServiceRegister", code: -65537))
        let listing = await HallListing.start(Self.game, limit: 2, port: 7477, in: directory)
        #expect(listing.name == nil)
        #expect(listing.problem != nil)
        await listing.update(inPlay: 1)  // nothing to update, nothing thrown
        await listing.withdraw()
    }

    @Test func aHostedGameIsListedWithItsFactsUpdatedAndRenamedOnAClash() async throws {
        let host = InMemoryDirectory(hostName: "hosta")
        let other = host.host(named: "hostc")
        let first = try await other.advertise(ServiceRegistration(name: "Ana's Connect Four", port: 7000))
        var events = host.host(named: "hostb").browse(type: parlorServiceType).makeAsyncIterator()
        _ = await events.next()  // the other host's game
        let game = Self.game
        let listing = await HostedListing.advertise(game.serviceInfo(seatsTaken: 1, playing: false, matchID: ""),
                                                    as: game.serviceName, port: 7477, in: host)
        #expect(listing.requestedName == "Ana's Connect Four")
        #expect(listing.name == "Ana's Connect Four #2")
        guard case .found(let open)? = await events.next() else { Issue.record("expected found"); return }
        #expect(open.name == "Ana's Connect Four #2")
        #expect(Self.assess(open.txt).isJoinable)
        await listing.update(game.serviceInfo(seatsTaken: 2, playing: true, matchID: "d8ed3ae5"))
        guard case .updated(let playing)? = await events.next() else { Issue.record("expected updated"); return }
        #expect(playing.txt["match"] == "d8ed3ae5")
        #expect(Self.assess(playing.txt).reason == .alreadyPlaying)
        await listing.withdraw()
        guard case .lost(let gone)? = await events.next() else { Issue.record("expected lost"); return }
        #expect(gone.name == "Ana's Connect Four #2")
        withExtendedLifetime(first) {}
    }
}
