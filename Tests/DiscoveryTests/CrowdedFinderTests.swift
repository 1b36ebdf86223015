import Synchronization
import Testing

@testable import Discovery
import ParlorTestSupport

/// `parlor join NAME` on a crowded LAN: only the game joined is resolved, and
/// a unique prefix is taken once the names go quiet, not after the whole look (issue 40).
@Suite struct CrowdedFinderTests {
    /// The LAN as avahi's library shows it to a join: names first, and a
    /// resolve only for the one asked for (counted).
    final class NamesFirstDirectory: ServiceDirectory, @unchecked Sendable {
        let lan = InMemoryDirectory()
        private let resolves = Mutex<[String]>([])
        /// The names resolved, in order.
        var resolved: [String] { resolves.withLock { $0 } }

        func advertise(_ registration: ServiceRegistration) async throws(DiscoveryError) -> any ServiceAdvertisement {
            try await lan.advertise(registration)
        }

        func browse(type: String) -> AsyncStream<BrowseEvent> { lan.browse(type: type) }

        func browseNames(type: String) -> AsyncStream<BrowseEvent> {
            let full = lan.browse(type: type)
            return AsyncStream { continuation in
                let task = Task {
                    for await event in full {
                        if case .found(let service) = event {
                            continuation.yield(.found(DiscoveredService(
                                instance: service.instance, hostTarget: "", port: 0, interfaceIndex: 0,
                                txt: TXTRecord(), addresses: [])))
                        } else {
                            continuation.yield(event)
                        }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }

        func resolve(_ instance: ServiceInstance, within limit: Duration) async throws(DiscoveryError) -> DiscoveredService {
            resolves.withLock { $0.append(instance.name) }
            return try await lan.resolve(instance, within: limit)
        }
    }

    let directory = NamesFirstDirectory()
    var advertisements: [any ServiceAdvertisement] = []

    init() async throws {
        for index in 1...200 {
            let name = String(format: "Host%03d's Connect Four", index)
            advertisements.append(try await directory.advertise(
                ServiceRegistration(name: name, port: 7477, txt: GameListTests.txt(state: .open, taken: 1))))
        }
    }

    @Test func anExactNameAmongTwoHundredResolvesThatGameOnly() async throws {
        let finder = GameFinder(directory: directory, timeout: .seconds(3), assess: GameListTests.assess)
        let game = try await finder.find(name: "host123's connect four", picker: nil)
        #expect(game.name == "Host123's Connect Four")
        #expect(game.service.addresses == [.loopbackIPv4])
        #expect(directory.resolved == ["Host123's Connect Four"])
    }

    @Test func aUniquePrefixIsJoinedOnceTheNamesGoQuietNotAfterTheWholeLook() async throws {
        let finder = GameFinder(directory: directory, timeout: .seconds(10), assess: GameListTests.assess)
        let began = ContinuousClock.now
        let game = try await finder.find(name: "host077", picker: nil)
        let took = ContinuousClock.now - began
        #expect(game.name == "Host077's Connect Four")
        #expect(took < .seconds(2), "took \(took); the look lasts 10 s")
        #expect(directory.resolved == ["Host077's Connect Four"])
    }

    @Test func anAmbiguousPrefixNamesTheMatchesWithoutResolvingAny() async throws {
        let finder = GameFinder(directory: directory, timeout: .seconds(10), assess: GameListTests.assess)
        let error = await #expect(throws: GameSearchError.self) { try await finder.find(name: "host19", picker: nil) }
        guard case .ambiguous(_, let games)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(games.map(\.name) == (190...199).map { "Host\($0)'s Connect Four" })
        #expect(directory.resolved.isEmpty)
    }
}
