// A ServiceDirectory in memory, for tests: no daemon, no network. (Moved
// from Sources/Discovery: test doubles live in the test support module.)
// Behaves like avahi where tests can notice: a clashing name is renamed
// "Name #2", browsers see existing services at once and later changes as
// they happen, and withdrawn services are reported lost.

import Discovery
import Foundation

/// A fake network of DNS-SD hosts held in memory.
///
/// Directories made with `host(named:addresses:)` share one network, so a
/// test can advertise from a "host" directory and browse from a "guest" one.
/// `@unchecked Sendable`: all state lives in `Network`, guarded by its lock.
public final class InMemoryDirectory: ServiceDirectory, @unchecked Sendable {
    private let network: Network
    /// The host name services advertised through this directory resolve to.
    public let hostName: String
    /// The addresses services advertised through this directory resolve to.
    public let addresses: [ServiceAddress]

    /// A new, empty network, seen from a host called `hostName`.
    public convenience init(hostName: String = "localhost", addresses: [ServiceAddress] = [.loopbackIPv4]) {
        self.init(network: Network(), hostName: hostName, addresses: addresses)
    }

    private init(network: Network, hostName: String, addresses: [ServiceAddress]) {
        self.network = network
        self.hostName = hostName
        self.addresses = addresses
    }

    /// Another host on the same in-memory network.
    public func host(named hostName: String, addresses: [ServiceAddress] = [.loopbackIPv4]) -> InMemoryDirectory {
        InMemoryDirectory(network: network, hostName: hostName, addresses: addresses)
    }

    /// Makes every later advertise and browse fail with `error` (e.g. `.daemonUnavailable`), or succeed again with nil.
    public func simulateFailure(_ error: DiscoveryError?) {
        network.setFailure(error)
    }

    /// Ends every running browse on the network with `.failed(error)`, as a daemon crash would.
    public func failBrowsers(with error: DiscoveryError) {
        network.failBrowsers(with: error)
    }

    /// The names currently advertised on the network, sorted.
    public var advertisedNames: [String] {
        network.names()
    }

    /// Registers the service, renaming "Name #2", "Name #3"... on a clash.
    public func advertise(_ registration: ServiceRegistration) async throws(DiscoveryError) -> any ServiceAdvertisement {
        try registration.validate()
        return try network.advertise(registration, hostName: hostName, addresses: addresses)
    }

    /// Browses `type`: existing services at once, then changes as they happen.
    public func browse(type: String) -> AsyncStream<BrowseEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: BrowseEvent.self, bufferingPolicy: .unbounded)
        let id = network.addBrowser(type: type, continuation: continuation)
        continuation.onTermination = { [network] _ in network.removeBrowser(id) }
        return stream
    }

    /// The shared state. `@unchecked Sendable`: every property is guarded by `lock`.
    final class Network: @unchecked Sendable {
        private let lock = NSLock()
        private var services: [Int: DiscoveredService] = [:]
        private var browsers: [Int: (type: String, continuation: AsyncStream<BrowseEvent>.Continuation)] = [:]
        private var nextID = 1
        private var failure: DiscoveryError?

        private func locked<T>(_ body: () throws(DiscoveryError) -> T) throws(DiscoveryError) -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }

        private func lockedNoThrow<T>(_ body: () -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body()
        }

        func setFailure(_ error: DiscoveryError?) {
            lockedNoThrow { failure = error }
        }

        func names() -> [String] {
            lockedNoThrow { services.values.map(\.name).sorted() }
        }

        func advertise(_ registration: ServiceRegistration, hostName: String, addresses: [ServiceAddress])
            throws(DiscoveryError) -> InMemoryAdvertisement
        {
            try locked { () throws(DiscoveryError) -> InMemoryAdvertisement in
                if let failure { throw failure }
                let type = Self.fullType(registration.type)
                var attempt = 1
                var name = registration.name
                // DNS names compare without regard to ASCII case.
                while services.values.contains(where: {
                    $0.instance.type == type && $0.name.lowercased() == name.lowercased()
                }) {
                    attempt += 1
                    name = ServiceRegistration.alternativeName(for: registration.name, attempt: attempt)
                }
                let id = nextID
                nextID += 1
                let service = DiscoveredService(
                    instance: ServiceInstance(name: name, type: type, domain: "local."),
                    hostTarget: hostName + ".local.", port: registration.port, interfaceIndex: 1,
                    txt: registration.txt, addresses: addresses.sorted())
                services[id] = service
                notify(type: type, .found(service))
                return InMemoryAdvertisement(network: self, id: id, name: name, type: registration.type)
            }
        }

        func update(id: Int, txt: TXTRecord, name: String) throws(DiscoveryError) {
            try locked { () throws(DiscoveryError) in
                guard var service = services[id] else { throw .withdrawn(name: name) }
                guard service.txt != txt else { return }
                service.txt = txt
                services[id] = service
                notify(type: service.instance.type, .updated(service))
            }
        }

        func withdraw(id: Int) {
            lockedNoThrow {
                guard let service = services.removeValue(forKey: id) else { return }
                notify(type: service.instance.type, .lost(service.instance))
            }
        }

        func addBrowser(type: String, continuation: AsyncStream<BrowseEvent>.Continuation) -> Int {
            lockedNoThrow {
                let id = nextID
                nextID += 1
                if let failure {
                    continuation.yield(.failed(failure))
                    continuation.finish()
                    return id
                }
                let fullType = Self.fullType(type)
                browsers[id] = (fullType, continuation)
                for service in services.values.sorted(by: { $0.name < $1.name })
                where service.instance.type == fullType {
                    continuation.yield(.found(service))
                }
                return id
            }
        }

        func removeBrowser(_ id: Int) {
            lockedNoThrow { _ = browsers.removeValue(forKey: id) }
        }

        func failBrowsers(with error: DiscoveryError) {
            let ended = lockedNoThrow { () -> [AsyncStream<BrowseEvent>.Continuation] in
                let all = browsers.values.map(\.continuation)
                browsers = [:]
                return all
            }
            for continuation in ended {
                continuation.yield(.failed(error))
                continuation.finish()
            }
        }

        /// Caller holds the lock. Yielding to an unbounded AsyncStream does not block.
        private func notify(type: String, _ event: BrowseEvent) {
            for browser in browsers.values where browser.type == type {
                browser.continuation.yield(event)
            }
        }

        /// "_parlor._tcp" -> "_parlor._tcp.", the form dns_sd reports.
        static func fullType(_ type: String) -> String {
            type.hasSuffix(".") ? type : type + "."
        }
    }
}

/// An advertisement on an in-memory network.
///
/// `@unchecked Sendable`: immutable apart from `network`'s own locked state.
final class InMemoryAdvertisement: ServiceAdvertisement, @unchecked Sendable {
    private let network: InMemoryDirectory.Network
    private let id: Int
    let name: String
    let type: String

    init(network: InMemoryDirectory.Network, id: Int, name: String, type: String) {
        self.network = network
        self.id = id
        self.name = name
        self.type = type
    }

    func update(txt: TXTRecord) async throws(DiscoveryError) {
        try network.update(id: id, txt: txt, name: name)
    }

    func withdraw() async {
        network.withdraw(id: id)
    }

    deinit {
        network.withdraw(id: id)
    }
}
