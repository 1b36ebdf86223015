import Testing

@testable import Discovery
import ParlorTestSupport

/// `parlor resume` looking for the host that advertises its match id, over an in-memory LAN.
@Suite struct MatchFinderTests {
    static func txt(match: String) -> TXTRecord {
        var info = ParlorServiceInfoTests.sample
        info.matchID = match
        info.state = .playing
        return (try? info.txtRecord()) ?? TXTRecord()
    }

    @Test func findsTheHostAdvertisingTheMatchIgnoringCase() async throws {
        let lan = InMemoryDirectory(hostName: "hosta", addresses: [ServiceAddress(ipv4: (10, 77, 0, 1))])
        let other = try await lan.advertise(ServiceRegistration(name: "Bob's game", port: 7477, txt: Self.txt(match: "0badcafe")))
        let ours = try await lan.advertise(ServiceRegistration(name: "Ana's game", port: 7490, txt: Self.txt(match: "D8ED3AE5")))
        let began = ContinuousClock.now
        let found = await MatchFinder.find(matchID: "d8ed3ae5", within: .seconds(30), in: lan.host(named: "hostb"))
        #expect(found?.name == "Ana's game")
        #expect(found?.port == 7490)
        #expect(found?.addresses.map(\.host) == ["10.77.0.1"])
        #expect(ContinuousClock.now - began < .seconds(10))
        withExtendedLifetime((other, ours)) {}
    }

    @Test func anotherMatchIsNotTakenAndTheLookEndsAtItsLimit() async throws {
        let lan = InMemoryDirectory()
        let other = try await lan.advertise(ServiceRegistration(name: "Bob's game", port: 7477, txt: Self.txt(match: "0badcafe")))
        let began = ContinuousClock.now
        let found = await MatchFinder.find(matchID: "d8ed3ae5", within: .milliseconds(200), in: lan)
        #expect(found == nil)
        #expect(ContinuousClock.now - began >= .milliseconds(200))
        withExtendedLifetime(other) {}
    }

    @Test func aHostThatStartsAdvertisingTheMatchLaterIsFound() async throws {
        let lan = InMemoryDirectory()
        let advertisement = try await lan.advertise(ServiceRegistration(name: "Ana's game", port: 7490, txt: Self.txt(match: "0badcafe")))
        let update = Task {
            try await Task.sleep(for: .milliseconds(100))
            try await advertisement.update(txt: Self.txt(match: "d8ed3ae5"))
        }
        let found = await MatchFinder.find(matchID: "d8ed3ae5", within: .seconds(30), in: lan)
        try await update.value
        #expect(found?.name == "Ana's game")
    }

    @Test func aServiceWithoutAddressesCannotBeReachedAndIsSkipped() async throws {
        let lan = InMemoryDirectory(hostName: "noaddress", addresses: [])
        let advertisement = try await lan.advertise(ServiceRegistration(name: "Ana's game", port: 7490, txt: Self.txt(match: "d8ed3ae5")))
        #expect(await MatchFinder.find(matchID: "d8ed3ae5", within: .milliseconds(200), in: lan) == nil)
        withExtendedLifetime(advertisement) {}
    }

    @Test func withoutDNSSDItGivesUpAtOnce() async throws {
        let lan = InMemoryDirectory()
        lan.simulateFailure(.daemonUnavailable(operation: "browse", code: -65537))
        let began = ContinuousClock.now
        #expect(await MatchFinder.find(matchID: "d8ed3ae5", within: .seconds(30), in: lan) == nil)
        #expect(ContinuousClock.now - began < .seconds(10))
    }
}
