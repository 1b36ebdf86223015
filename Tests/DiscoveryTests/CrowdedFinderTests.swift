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

    /// `join host077` with a 10 s look through `directory`: the game, and how long it took.
    static func joinHost077(through directory: any ServiceDirectory) async throws -> (game: ListedGame, took: Duration) {
        let finder = GameFinder(directory: directory, timeout: .seconds(10), assess: GameListTests.assess)
        let began = ContinuousClock.now
        let game = try await finder.find(name: "host077", picker: nil)
        #expect(game.name == "Host077's Connect Four")
        return (game, ContinuousClock.now - began)
    }

    @Test func aUniquePrefixIsJoinedOnceTheNamesGoQuietNotAfterTheWholeLook() async throws {
        let took = try await Self.joinHost077(through: directory).took
        #expect(took < .seconds(2), "took \(took); the look lasts 10 s")
        #expect(directory.resolved == ["Host077's Connect Four"])
    }

    @Test func anAmbiguousPrefixNamesTheMatchesWithoutResolvingThemAll() async throws {
        let finder = GameFinder(directory: directory, timeout: .seconds(10), assess: GameListTests.assess)
        let error = await #expect(throws: GameSearchError.self) { try await finder.find(name: "host19", picker: nil) }
        guard case .ambiguous(_, let games)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(games.map(\.name) == (190...199).map { "Host\($0)'s Connect Four" })
        // Only the first match, while it was the only one (its resolve is dropped when the second comes).
        #expect(directory.resolved.count <= 1, "\(directory.resolved)")
    }
}

/// `parlor join PREFIX` when the LAN's answers come late: the one match is
/// resolved while the names settle, and taken though they never go quiet.
@Suite struct LateNamesFinderTests {
    /// A LAN whose answers come late: the game asked for at once, then another
    /// name every `every` for as long as the join looks (never quiet). It
    /// records when a resolve began and when the browse ended, in order.
    final class TricklingDirectory: ServiceDirectory, @unchecked Sendable {
        let every: Duration
        private let log = Mutex<[String]>([])
        /// "resolve NAME" and "browse ended", in the order they happened.
        var happened: [String] { log.withLock { $0 } }

        init(every: Duration) { self.every = every }

        func advertise(_ registration: ServiceRegistration) async throws(DiscoveryError) -> any ServiceAdvertisement {
            throw .invalidRegistration("not here")
        }

        func browse(type: String) -> AsyncStream<BrowseEvent> { browseNames(type: type) }

        func browseNames(type: String) -> AsyncStream<BrowseEvent> {
            let every = every
            return AsyncStream { continuation in
                let task = Task {
                    func named(_ name: String) -> BrowseEvent {
                        .found(DiscoveredService(instance: ServiceInstance(name: name, type: "_parlor._tcp.", domain: "local."),
                                                 hostTarget: "", port: 0, interfaceIndex: 0, txt: TXTRecord(), addresses: []))
                    }
                    continuation.yield(named("Host077's Connect Four"))
                    var index = 100
                    while !Task.isCancelled {
                        try? await Task.sleep(for: every)
                        continuation.yield(named("Host\(index)'s Connect Four"))
                        index += 1
                    }
                    continuation.finish()
                }
                continuation.onTermination = { [weak self] _ in
                    task.cancel()
                    self?.log.withLock { $0.append("browse ended") }
                }
            }
        }

        func resolve(_ instance: ServiceInstance, within limit: Duration) async throws(DiscoveryError) -> DiscoveredService {
            log.withLock { $0.append("resolve \(instance.name)") }
            return DiscoveredService(instance: instance, hostTarget: "host077.local.", port: 7477, interfaceIndex: 1,
                                     txt: GameListTests.txt(state: .open, taken: 1), addresses: [.loopbackIPv4])
        }
    }

    /// The 2.5 s prefix join of issue 40 at 200 hosts: when names keep
    /// coming the browse never goes quiet, and the join waited for the whole look.
    @Test func aUniquePrefixIsTakenWhileOtherNamesKeepComing() async throws {
        let trickling = TricklingDirectory(every: .milliseconds(150))
        let took = try await CrowdedFinderTests.joinHost077(through: trickling).took
        #expect(took < .seconds(5), "took \(took); the look lasts 10 s and the names never go quiet")
        #expect(trickling.happened.filter { $0.hasPrefix("resolve") } == ["resolve Host077's Connect Four"])
    }

    /// The one match is resolved while the names settle, not after the
    /// browse: the join waits for the longer of the two, not for both in turn.
    @Test func aUniquePrefixIsResolvedWhileTheNamesSettle() async throws {
        let quiet = TricklingDirectory(every: .seconds(60))
        _ = try await CrowdedFinderTests.joinHost077(through: quiet)
        #expect(quiet.happened == ["resolve Host077's Connect Four", "browse ended"])
    }
}
