import Testing

@testable import Discovery
import ParlorTestSupport

/// A host whose first registration is refused for a reason that may pass
/// (no daemon yet, a daemon too busy to confirm, one at its client limit)
/// keeps trying, and the game turns up on other hosts' lists once the
/// daemon answers; one refused for good is not tried again.
@Suite struct ListingRetryTests {
    static let game = HallListingTests.game
    static let unavailable = DiscoveryError.daemonUnavailable(operation: "DNSServiceRegister", code: -65537)

    static func open(_ taken: Int) -> ParlorServiceInfo {
        game.serviceInfo(seatsTaken: taken, playing: false, matchID: "")
    }

    /// Waits until `directory` lists `name`, for at most `limit`.
    static func listed(_ name: String, on directory: InMemoryDirectory, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if directory.advertisedNames.contains(name) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func aGameRefusedWhileTheDaemonIsAwayIsListedOnceItAnswersWithTheNewestFacts() async throws {
        let host = InMemoryDirectory(hostName: "hosta")
        host.simulateFailure(Self.unavailable)
        let listing = await HostedListing.advertise(Self.open(1), as: Self.game.serviceName, port: 7477, in: host,
                                                    retryAfter: .milliseconds(50))
        #expect(listing.problem == Self.unavailable)
        #expect(listing.name == nil)
        #expect(listing.isPending)
        // The table fills while the daemon is away: the game is listed with that, not with how it started.
        await listing.update(Self.open(2))
        try await Task.sleep(for: .milliseconds(200))
        #expect(host.advertisedNames.isEmpty)

        var later = listing.listedLater.makeAsyncIterator()
        host.simulateFailure(nil)
        #expect(await later.next() == "Ana's Connect Four")
        #expect(await later.next() == nil)
        var events = host.host(named: "hostb").browse(type: parlorServiceType).makeAsyncIterator()
        guard case .found(let seen)? = await events.next() else { Issue.record("expected found"); return }
        #expect(seen.name == "Ana's Connect Four")
        #expect(seen.txt["seats"] == "2/2")
        #expect(seen.port == 7477)

        // Updated and withdrawn as any listing.
        await listing.update(Self.game.serviceInfo(seatsTaken: 2, playing: true, matchID: "d8ed3ae5"))
        guard case .updated(let playing)? = await events.next() else { Issue.record("expected updated"); return }
        #expect(playing.txt["match"] == "d8ed3ae5")
        await listing.withdraw()
        guard case .lost? = await events.next() else { Issue.record("expected lost"); return }
        #expect(host.advertisedNames.isEmpty)
    }

    @Test func aPendingGameWithdrawnOrDroppedIsNeverListedAfterwards() async throws {
        let host = InMemoryDirectory(hostName: "hosta")
        host.simulateFailure(Self.unavailable)
        let withdrawn = await HostedListing.advertise(Self.open(1), as: "Withdrawn", port: 7477, in: host,
                                                      retryAfter: .milliseconds(50))
        var dropped: HostedListing? = await HostedListing.advertise(Self.open(1), as: "Dropped", port: 7478, in: host,
                                                                    retryAfter: .milliseconds(50))
        #expect(withdrawn.isPending && dropped?.isPending == true)
        var later = withdrawn.listedLater.makeAsyncIterator()
        await withdrawn.withdraw()
        #expect(await later.next() == nil)
        dropped = nil
        host.simulateFailure(nil)
        // A third, still pending, shows the retries do run meanwhile.
        host.simulateFailure(Self.unavailable)
        let kept = await HostedListing.advertise(Self.open(1), as: "Kept", port: 7479, in: host, retryAfter: .milliseconds(50))
        host.simulateFailure(nil)
        #expect(await Self.listed("Kept", on: host, within: .seconds(5)))
        try await Task.sleep(for: .milliseconds(300))
        #expect(host.advertisedNames == ["Kept"])
        withExtendedLifetime(dropped) {}
        await kept.withdraw()
    }

    @Test func aRefusalForGoodIsSaidAndNotTriedAgain() async throws {
        let host = InMemoryDirectory(hostName: "hosta")
        host.simulateFailure(.nameConflict(name: "Ana's Connect Four"))
        let listing = await HostedListing.advertise(Self.open(1), as: Self.game.serviceName, port: 7477, in: host,
                                                    retryAfter: .milliseconds(20))
        #expect(!listing.isPending)
        #expect(listing.advertisement == nil)
        #expect(listing.problem == .nameConflict(name: "Ana's Connect Four"))
        host.simulateFailure(nil)
        try await Task.sleep(for: .milliseconds(200))
        #expect(host.advertisedNames.isEmpty)
        var later = listing.listedLater.makeAsyncIterator()
        #expect(await later.next() == nil)
    }

    @Test func aPendingGameThatMeetsARefusalForGoodStopsAndSaysWhy() async throws {
        let host = InMemoryDirectory(hostName: "hosta")
        host.simulateFailure(.timedOut(operation: "DNSServiceRegister", seconds: 15))
        let listing = await HostedListing.advertise(Self.open(1), as: Self.game.serviceName, port: 7477, in: host,
                                                    retryAfter: .milliseconds(20))
        #expect(listing.isPending)
        var later = listing.listedLater.makeAsyncIterator()
        host.simulateFailure(.serviceError(operation: "DNSServiceRegister", code: -65549))
        #expect(await later.next() == nil)
        #expect(listing.laterProblem == .serviceError(operation: "DNSServiceRegister", code: -65549))
        host.simulateFailure(nil)
        try await Task.sleep(for: .milliseconds(200))
        #expect(host.advertisedNames.isEmpty)
    }

    @Test func whichRefusalsMayPassIsDecidedOnce() {
        #expect(DiscoveryError.daemonUnavailable(operation: "DNSServiceRegister", code: -65537).mayPass)
        #expect(DiscoveryError.timedOut(operation: "DNSServiceRegister", seconds: 15).mayPass)
        #expect(DiscoveryError.daemonDisconnected(operation: "DNSServiceRegister").mayPass)
        #expect(DiscoveryError.serviceError(operation: "DNSServiceRegister", code: -65553).mayPass)
        #expect(!DiscoveryError.serviceError(operation: "DNSServiceRegister", code: -65549).mayPass)
        #expect(!DiscoveryError.nameConflict(name: "Ana").mayPass)
        #expect(!DiscoveryError.invalidRegistration("bad").mayPass)
        #expect(!DiscoveryError.libraryMissing(name: "libdns_sd.so.1", reason: "not found").mayPass)
    }
}
