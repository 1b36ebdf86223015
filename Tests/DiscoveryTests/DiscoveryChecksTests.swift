import Discovery
import ParlorTestSupport
import Testing

/// `parlor doctor`'s DNS-SD checks, on an in-memory network.
@Suite("Discovery: the doctor's checks")
struct DiscoveryChecksTests {
    @Test("a daemon that accepts a browse answers; one that refuses gives its error")
    func daemon() async {
        let lan = InMemoryDirectory()
        #expect(await DiscoveryChecks.daemonRefusal(in: lan, within: .milliseconds(50)) == nil)
        lan.simulateFailure(.daemonUnavailable(operation: "browse", code: -65537))
        guard case .daemonUnavailable? = await DiscoveryChecks.daemonRefusal(in: lan, within: .seconds(5)) else {
            Issue.record("a refused browse was not reported"); return
        }
    }

    @Test("the round trip finds the service it published, under the doctor's own type, and withdraws it")
    func roundTrip() async throws {
        let lan = InMemoryDirectory()
        let result = await DiscoveryChecks.roundTrip(in: lan, port: 7477, within: .seconds(5))
        guard case .found(let name, _, let addresses) = result else { Issue.record("\(result)"); return }
        #expect(result.passed)
        #expect(name.hasPrefix("parlor doctor "))
        #expect(addresses == ["127.0.0.1"])
        #expect(lan.advertisedNames.isEmpty, "the doctor's service was left on the network")
        // Nobody's `parlor browse` sees it: it was never of parlor's type.
        let sighting = await lan.firstService(ofType: parlorServiceType, within: .milliseconds(50)) { _ in true }
        guard case .notSeen = sighting else { Issue.record("\(sighting)"); return }
    }

    @Test("a daemon that refuses to publish fails the round trip with its error")
    func publishRefused() async {
        let lan = InMemoryDirectory()
        lan.simulateFailure(.daemonUnavailable(operation: "register", code: -65537))
        let result = await DiscoveryChecks.roundTrip(in: lan, port: 7477, within: .seconds(5))
        guard case .publishFailed(.daemonUnavailable) = result else { Issue.record("\(result)"); return }
        #expect(!result.passed)
    }
}
