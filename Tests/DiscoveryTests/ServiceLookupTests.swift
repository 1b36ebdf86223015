import Testing

@testable import Discovery
import ParlorTestSupport

/// A bounded look for one service (`parlor doctor`'s round trip and daemon check, resume's match lookup).
@Suite struct ServiceLookupTests {
    /// A directory whose browses end at once, without a failure.
    struct EndingDirectory: ServiceDirectory {
        func advertise(_ registration: ServiceRegistration) async throws(DiscoveryError) -> any ServiceAdvertisement {
            throw .daemonDisconnected(operation: "register")
        }
        func browse(type: String) -> AsyncStream<BrowseEvent> { AsyncStream { $0.finish() } }
    }

    @Test func theFirstWantedServiceIsReturnedAtOnce() async throws {
        let lan = InMemoryDirectory()
        var txt = TXTRecord()
        try txt.set("check", to: "c0ffee")
        let decoy = try await lan.advertise(ServiceRegistration(name: "parlor doctor 1", type: "_parlor-doctor._tcp", port: 7477))
        let probe = try await lan.advertise(ServiceRegistration(name: "parlor doctor 2", type: "_parlor-doctor._tcp", port: 7477, txt: txt))
        let began = ContinuousClock.now
        let sighting = await lan.firstService(ofType: "_parlor-doctor._tcp", within: .seconds(30)) { $0.txt["check"] == "c0ffee" }
        guard case .seen(let service) = sighting else { Issue.record("\(sighting)"); return }
        #expect(service.name == "parlor doctor 2")
        #expect(ContinuousClock.now - began < .seconds(10))
        withExtendedLifetime((decoy, probe)) {}
    }

    @Test func servicesOfAnotherTypeAreNotSeenAndTheLookEndsOnTime() async throws {
        let lan = InMemoryDirectory()
        let game = try await lan.advertise(ServiceRegistration(name: "Ana's game", port: 7477))
        let began = ContinuousClock.now
        let sighting = await lan.firstService(ofType: "_parlor-doctor._tcp", within: .milliseconds(200)) { _ in true }
        guard case .notSeen = sighting else { Issue.record("\(sighting)"); return }
        #expect(ContinuousClock.now - began >= .milliseconds(200))
        #expect(ContinuousClock.now - began < .seconds(10))
        withExtendedLifetime(game) {}
    }

    @Test func aRefusedBrowseIsAFailureNotAnEmptyLook() async throws {
        let lan = InMemoryDirectory()
        lan.simulateFailure(.daemonUnavailable(operation: "browse", code: -65537))
        let sighting = await lan.firstService(ofType: parlorServiceType, within: .seconds(30)) { _ in false }
        guard case .failed(.daemonUnavailable) = sighting else { Issue.record("\(sighting)"); return }
    }

    @Test func aBrowseThatEndsEarlySaysSo() async throws {
        let sighting = await EndingDirectory().firstService(ofType: parlorServiceType, within: .seconds(30)) { _ in true }
        guard case .ended = sighting else { Issue.record("\(sighting)"); return }
    }
}
