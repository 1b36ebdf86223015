// Browsing and resolving on the process's one avahi connection.
//
// avahi reports a service once per interface and IP family (a sighting);
// each sighting of a browse gets one resolver on the shared client, asking
// for an address of the sighting's own family, as `avahi-browse -r` does.
// A resolver stays open and reports the service again whenever its TXT,
// port or address change (lookup.h), so a game's "open" turning to
// "playing" shows without reading anything again. At most
// `AvahiBrowse.unansweredLimit` resolvers wait for an answer at once,
// games not listed yet first (one sighting each: the other family's
// resolver only adds an address, and making a resolver is a blocking D-Bus
// call, which is where a long list's time goes: at 200 games in the lab,
// 345 resolvers made before the last game was listed took 1.7 s of the
// browse's 1.8; making them on several clients at once does not help:
// 200 took 0.07 s on one client of a quiet daemon and the same on 2, 4 or
// 8, as the daemon answers them one by one), each for at most half a second, so a
// resolver whose answer was lost gives its place up rather than holding
// the list until avahi's next query or its 5 s timeout. (The lab figures
// first quoted here, 6.5-7.2 s for 100 games, were taken with a daemon
// cache the lab's readiness check had already filled, during the storm of
// its answers; see scripts/lab-bench-discovery.) Resolvers cost the
// daemon an object each, not a thread and a D-Bus connection in this
// process: 200 games are 400 objects, under avahi-daemon's default
// objects-per-client-max of 1024. Past the daemon's limits a resolver is
// refused: the browse says so once, and tries again.

import CAvahiClient
@preconcurrency import Glibc

/// avahi's constants, typed as its functions take them (Swift imports them as Int).
let avahiAnyInterface = AvahiIfIndex(AVAHI_IF_UNSPEC)
let avahiAnyProtocol = AvahiProtocol(AVAHI_PROTO_UNSPEC)
let avahiIPv4 = AvahiProtocol(AVAHI_PROTO_INET)
let avahiIPv6 = AvahiProtocol(AVAHI_PROTO_INET6)

/// avahi's names carry no trailing dot; parlor's instances do, as dns_sd gave them ("_parlor._tcp.", "local.").
private func withDot(_ name: String) -> String { name.hasSuffix(".") ? name : name + "." }
private func withoutDot(_ name: String) -> String { name.hasSuffix(".") ? String(name.dropLast()) : name }

/// The TXT record's bytes from avahi's string list (length-prefixed strings, as on the wire).
private func txtBytes(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [UInt8] {
    var bytes: [UInt8] = []
    var entry = list
    while let current = entry {
        let size = min(current.pointee.size, 255)
        bytes.append(UInt8(size))
        withUnsafePointer(to: &current.pointee.text) { text in
            text.withMemoryRebound(to: UInt8.self, capacity: size) { bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: size)) }
        }
        entry = current.pointee.next
    }
    return bytes
}

/// A resolved address from avahi's, with the interface it was seen on.
private func serviceAddress(_ address: UnsafePointer<AvahiAddress>?, interface: AvahiIfIndex) -> ServiceAddress? {
    guard let address else { return nil }
    let count = address.pointee.proto == avahiIPv4 ? 4 : address.pointee.proto == avahiIPv6 ? 16 : 0
    guard count > 0 else { return nil }
    var data = address.pointee.data
    let bytes = withUnsafeBytes(of: &data) { Array($0.prefix(count)) }
    return ServiceAddress(bytes: bytes, interfaceIndex: UInt32(max(0, interface)))
}

// MARK: - Browsing

/// One browse: one service browser and a resolver per sighting, on the
/// shared client. Avahi thread only.
///
/// A service is reported `.found` as soon as one sighting's resolver
/// answered (name, port, TXT, an address), `.updated` when another
/// address or a new TXT comes, `.lost` when its last sighting goes.
///
/// `@unchecked Sendable` only so jobs can carry it to the avahi thread.
final class AvahiBrowse: @unchecked Sendable {
    /// How much to learn about each service.
    enum Depth {
        /// Resolve every service (`browse`).
        case resolving
        /// Names only (`join NAME`): a `.found` with no host, port or TXT per instance.
        case namesOnly
    }

    /// The first wait before a refused browser or resolver is tried again; it doubles up to 8 s.
    static let firstRetryDelay = 0.5
    static let longestRetryDelay = 8.0
    /// How often a browse whose daemon went away asks whether one answers again.
    static let reconnectDelay = 0.25
    /// After a new daemon's first all-for-now, how long games not seen again may still come before they are lost.
    static let reconnectGrace = 3.0
    /// The most resolvers waiting for their first answer at once (see the top of this file).
    static let unansweredLimit = 8
    /// How long a resolver holds its place while it waits for its first
    /// answer; then it gives the place to the next and goes on waiting
    /// (avahi asks again, and gives up after 5 s). Making it again instead
    /// threw away answers that were on their way: in a cold lab of 200 the
    /// list never finished within 30 s.
    static let unansweredTimeout = 0.5

    private let connection: AvahiConnection
    private let type: String
    private let continuation: AsyncStream<BrowseEvent>.Continuation
    private let depth: Depth
    private var browser: OpaquePointer?
    private var browserGeneration = 0
    private var browserRetryDelay = AvahiBrowse.firstRetryDelay
    private var browserRetryTimer: Int?
    private var services: [ServiceInstance: BrowsedService] = [:]
    private var finished = false
    /// Whether a refusal was already reported: it is said once per browse.
    private var refusalReported = false
    /// The daemon went away: its games are kept until `reconnectGrace` after the next browser's first all-for-now.
    private var reconnecting = false
    /// Resolvers waiting for a place: those of games not listed yet, then the others.
    private var waitingToList: [SightingResolver] = []
    private var waitingToFill: [SightingResolver] = []
    /// Resolvers made and not answered yet (at most `unansweredLimit`).
    private var unanswered = 0

    init(connection: AvahiConnection, type: String, continuation: AsyncStream<BrowseEvent>.Continuation, depth: Depth) {
        self.connection = connection
        self.type = type
        self.continuation = continuation
        self.depth = depth
    }

    func start() {
        guard !finished, browser == nil else { return }
        let operation = "avahi_service_browser_new"
        let client: OpaquePointer
        switch connection.connectedClient() {
        case .success(let connected): client = connected
        case .failure(let error): return failedToMake(error)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let made = connection.library.browserNew(
            client, avahiAnyInterface, avahiAnyProtocol, withoutDot(type), nil, AvahiLookupFlags(0),
            { _, interface, proto, event, name, type, domain, _, context in
                guard let context else { return }
                let browse = Unmanaged<AvahiBrowse>.fromOpaque(context).takeUnretainedValue()
                browse.handleBrowse(
                    event: event, sighting: Sighting(interface: interface, proto: proto),
                    name: name.map { String(cString: $0) }, type: type.map { String(cString: $0) },
                    domain: domain.map { String(cString: $0) })
            }, context)
        guard let made else { return failedToMake(connection.lastError(operation: operation)) }
        browser = made
        browserGeneration = connection.generation
        browserRetryDelay = Self.firstRetryDelay
        connection.watchDaemon(self) { [self] in daemonLost() }
    }

    /// The daemon went away (restarted, upgraded): every browser and resolver
    /// went with the client. Said once, as a refusal; the browse keeps its
    /// games and makes its browser again as soon as a daemon answers. The
    /// games seen again are resolved again; those the new browser does not
    /// report within `reconnectGrace` of its first all-for-now went while the daemon was away.
    private func daemonLost() {
        browser = nil
        for service in services.values {
            for resolver in service.sightings.values {
                connection.cancelTimer(resolver.retryTimer)
                connection.cancelTimer(resolver.stallTimer)
                resolver.unanswered = false
                resolver.object = nil
                resolver.browse = nil
            }
            service.sightings = [:]
        }
        waitingToList = []
        waitingToFill = []
        unanswered = 0
        refused(.daemonDisconnected(operation: "browsing \(type)"))
        reconnecting = true
        browserRetryDelay = Self.firstRetryDelay
        browserRetryTimer = connection.schedule(after: Self.reconnectDelay) { [self] in
            browserRetryTimer = nil
            start()
        }
    }

    /// A browser could not be made: refused ones are said once and tried
    /// again, as is any that may pass while the daemon comes back; the rest end the browse.
    private func failedToMake(_ error: DiscoveryError) {
        let delay: Double
        if case .daemonRefused = error {
            refused(error)
            delay = browserRetryDelay
            browserRetryDelay = min(delay * 2, Self.longestRetryDelay)
        } else if reconnecting && error.mayPass {
            delay = Self.reconnectDelay
        } else {
            return fail(error)
        }
        // Held by the timer until it fires or the browse is cancelled.
        browserRetryTimer = connection.schedule(after: delay) { [self] in
            browserRetryTimer = nil
            start()
        }
    }

    func cancel() {
        finished = true
        connection.stopWatching(self)
        connection.cancelTimer(browserRetryTimer)
        browserRetryTimer = nil
        if let browser, connection.isAlive(browserGeneration) { _ = connection.library.browserFree(browser) }
        browser = nil
        for service in services.values { stop(service) }
        services = [:]
        waitingToList = []
        waitingToFill = []
    }

    private func fail(_ error: DiscoveryError) {
        guard !finished else { return }
        continuation.yield(.failed(error))
        continuation.finish()
        // Often called inside the browser's own callback: free it once that returned.
        finished = true
        connection.later { [self] in cancel() }
    }

    private func refused(_ error: DiscoveryError) {
        guard !refusalReported, !finished else { return }
        refusalReported = true
        continuation.yield(.refused(error))
    }

    private func handleBrowse(event: AvahiBrowserEvent, sighting: Sighting, name: String?, type: String?, domain: String?) {
        guard !finished else { return }
        switch event {
        case AVAHI_BROWSER_FAILURE:
            fail(connection.lastError(operation: "browsing \(self.type)"))
        case AVAHI_BROWSER_NEW:
            guard let name, let type, let domain else { return }
            let instance = ServiceInstance(name: name, type: withDot(type), domain: withDot(domain))
            let service: BrowsedService
            if let known = services[instance] {
                service = known
            } else {
                service = BrowsedService(instance: instance, interfaceIndex: UInt32(max(0, sighting.interface)))
                services[instance] = service
                if depth == .namesOnly {
                    let snapshot = DiscoveredService(
                        instance: instance, hostTarget: "", port: 0, interfaceIndex: service.interfaceIndex,
                        txt: TXTRecord(), addresses: [])
                    service.reported = snapshot
                    continuation.yield(.found(snapshot))
                }
            }
            guard service.sightings[sighting] == nil else { return }
            let resolver = SightingResolver(sighting: sighting, service: service, browse: self)
            service.sightings[sighting] = resolver
            if depth == .resolving { want(resolver) }
        case AVAHI_BROWSER_REMOVE:
            guard let name, let type, let domain else { return }
            let instance = ServiceInstance(name: name, type: withDot(type), domain: withDot(domain))
            guard let service = services[instance], let resolver = service.sightings.removeValue(forKey: sighting)
            else { return }
            stop(resolver)
            if service.sightings.isEmpty {
                services[instance] = nil
                if service.reported != nil { continuation.yield(.lost(instance)) }
            } else {
                report(service)
            }
            makeWaitingResolvers()
        case AVAHI_BROWSER_ALL_FOR_NOW where reconnecting:
            reconnecting = false
            // A daemon just started has an empty cache, and on a busy LAN
            // answers still come after its first all-for-now (in the lab,
            // under load, a game that stayed was not seen again by then).
            connection.cancelTimer(browserRetryTimer)
            browserRetryTimer = connection.schedule(after: Self.reconnectGrace) { [self] in
                browserRetryTimer = nil
                for (instance, service) in services where service.sightings.isEmpty {
                    services[instance] = nil
                    if service.reported != nil { continuation.yield(.lost(instance)) }
                }
            }
        default:
            // CACHE_EXHAUSTED, and ALL_FOR_NOW otherwise: nothing a listing shows.
            break
        }
    }

    // MARK: Resolving

    /// Queues a sighting's resolver: made once fewer than `unansweredLimit`
    /// wait for an answer. One sighting per game not listed yet goes ahead
    /// (the other family's only adds an address): making a resolver is a
    /// blocking D-Bus call, and those calls are what a long list waits for.
    private func want(_ resolver: SightingResolver) {
        if let service = resolver.service, service.reported == nil, !hasListingSibling(resolver, in: service) {
            resolver.queuedToList = true
            waitingToList.append(resolver)
        } else {
            waitingToFill.append(resolver)
        }
        makeWaitingResolvers()
    }

    /// `resolver` of a game not listed yet stalled or failed: another sighting of that game goes ahead of the filling ones.
    private func promoteSibling(of resolver: SightingResolver) {
        guard let service = resolver.service, service.reported == nil, !hasListingSibling(resolver, in: service),
              let index = waitingToFill.firstIndex(where: { $0 !== resolver && $0.service === service }) else { return }
        let sibling = waitingToFill.remove(at: index)
        sibling.queuedToList = true
        waitingToList.insert(sibling, at: 0)
    }

    /// Whether another sighting of `service` is already on its way to list it (queued ahead, or made and unanswered).
    private func hasListingSibling(_ resolver: SightingResolver, in service: BrowsedService) -> Bool {
        service.sightings.values.contains { $0 !== resolver && ($0.queuedToList || $0.unanswered) }
    }

    private func makeWaitingResolvers() {
        while !finished, unanswered < Self.unansweredLimit {
            let next = waitingToList.isEmpty ? (waitingToFill.isEmpty ? nil : waitingToFill.removeFirst()) : waitingToList.removeFirst()
            guard let next else { return }
            next.queuedToList = false
            // Gone meanwhile (its sighting removed), or listed meanwhile by another sighting: still made, in turn.
            guard next.browse === self, next.object == nil, let service = next.service,
                  service.sightings[next.sighting] === next else { continue }
            resolve(next)
        }
    }

    /// The resolver's wait for a first answer ended (answered, failed, stopped, timed out): its place is free.
    private func answered(_ resolver: SightingResolver) {
        guard resolver.unanswered else { return }
        resolver.unanswered = false
        unanswered -= 1
        connection.cancelTimer(resolver.stallTimer)
        resolver.stallTimer = nil
    }

    private func resolve(_ resolver: SightingResolver) {
        guard !finished, let service = resolver.service else { return }
        let operation = "avahi_service_resolver_new"
        let made: OpaquePointer?
        switch connection.connectedClient() {
        case .failure(let error):
            return resolveFailed(resolver, error: error)
        case .success(let client):
            let instance = service.instance
            made = connection.library.resolverNew(
                client, resolver.sighting.interface, resolver.sighting.proto, instance.name,
                withoutDot(instance.type), withoutDot(instance.domain), resolver.sighting.proto,
                AvahiLookupFlags(0),
                { _, interface, _, event, _, _, _, hostName, address, port, txt, _, context in
                    guard let context else { return }
                    let resolver = Unmanaged<SightingResolver>.fromOpaque(context).takeUnretainedValue()
                    guard let browse = resolver.browse else { return }
                    if event == AVAHI_RESOLVER_FOUND, let hostName {
                        browse.handleFound(
                            resolver, hostName: String(cString: hostName),
                            address: serviceAddress(address, interface: interface), port: port,
                            txt: txtBytes(txt))
                    } else {
                        browse.resolveFailed(resolver, error: browse.connection.lastError(operation: "resolving"))
                    }
                }, Unmanaged.passUnretained(resolver).toOpaque())
        }
        guard let made else { return resolveFailed(resolver, error: connection.lastError(operation: operation)) }
        resolver.object = made
        resolver.generation = connection.generation
        resolver.unanswered = true
        unanswered += 1
        resolver.stallTimer = connection.schedule(after: Self.unansweredTimeout) { [weak self, weak resolver] in
            guard let self, let resolver else { return }
            resolver.stallTimer = nil
            self.answered(resolver)
            self.promoteSibling(of: resolver)
            self.makeWaitingResolvers()
        }
    }

    /// A resolver was refused or gave up (avahi's own timeout): tried again
    /// after a wait while the service has no address yet; once it has one,
    /// the other family's resolver is not worth a daemon object.
    private func resolveFailed(_ resolver: SightingResolver, error: DiscoveryError) {
        guard !finished, let service = resolver.service, service.sightings[resolver.sighting] === resolver else { return }
        answered(resolver)
        promoteSibling(of: resolver)
        if case .daemonRefused = error { refused(error) }
        let old = resolver.object
        let generation = resolver.generation
        resolver.object = nil
        // Freed once this callback returned; the resolver (its context) lives until then.
        connection.later { [connection, resolver] in
            if let old, connection.isAlive(generation) { _ = connection.library.resolverFree(old) }
            withExtendedLifetime(resolver) {}
        }
        defer { connection.later { [self] in makeWaitingResolvers() } }
        guard service.sightings.values.allSatisfy({ $0.address == nil }) else { return }
        let delay = resolver.retryDelay
        resolver.retryDelay = min(delay * 2, Self.longestRetryDelay)
        resolver.retryTimer = connection.schedule(after: delay) { [weak self, weak resolver] in
            guard let self, let resolver else { return }
            resolver.retryTimer = nil
            guard !self.finished, resolver.service?.sightings[resolver.sighting] === resolver else { return }
            self.want(resolver)
        }
    }

    private func handleFound(_ resolver: SightingResolver, hostName: String, address: ServiceAddress?, port: UInt16,
                             txt: [UInt8]) {
        guard !finished, let service = resolver.service, services[service.instance] === service else { return }
        if resolver.unanswered {
            answered(resolver)
            connection.later { [self] in makeWaitingResolvers() }
        }
        resolver.retryDelay = Self.firstRetryDelay
        resolver.address = address
        service.hostTarget = withDot(hostName)
        service.port = port
        service.txt = TXTRecord(decoding: txt)
        report(service)
    }

    private func stop(_ service: BrowsedService) {
        for resolver in service.sightings.values { stop(resolver) }
        service.sightings = [:]
    }

    private func stop(_ resolver: SightingResolver) {
        answered(resolver)
        connection.cancelTimer(resolver.retryTimer)
        resolver.retryTimer = nil
        if let object = resolver.object, connection.isAlive(resolver.generation) {
            _ = connection.library.resolverFree(object)
        }
        resolver.object = nil
        resolver.browse = nil
    }

    /// Emits `.found` once the service is resolved, then `.updated` whenever what a user sees changes.
    private func report(_ service: BrowsedService) {
        guard !finished, services[service.instance] === service, let hostTarget = service.hostTarget else { return }
        let addresses = Set(service.sightings.values.compactMap(\.address))
        let snapshot = DiscoveredService(
            instance: service.instance, hostTarget: hostTarget, port: service.port,
            interfaceIndex: service.interfaceIndex, txt: service.txt, addresses: addresses.sorted())
        guard snapshot != service.reported else { return }
        let event: BrowseEvent = service.reported == nil ? .found(snapshot) : .updated(snapshot)
        service.reported = snapshot
        continuation.yield(event)
    }
}

/// An interface and the IP family a service was seen over.
struct Sighting: Hashable {
    var interface: AvahiIfIndex
    var proto: AvahiProtocol
}

/// What a browse knows about one service instance. Avahi thread only.
final class BrowsedService {
    let instance: ServiceInstance
    /// The interface it was first seen on.
    let interfaceIndex: UInt32
    var sightings: [Sighting: SightingResolver] = [:]
    var hostTarget: String?
    var port: UInt16 = 0
    var txt = TXTRecord()
    var reported: DiscoveredService?

    init(instance: ServiceInstance, interfaceIndex: UInt32) {
        self.instance = instance
        self.interfaceIndex = interfaceIndex
    }
}

/// One sighting's resolver and the address it gave. Avahi thread only.
final class SightingResolver {
    let sighting: Sighting
    weak var service: BrowsedService?
    weak var browse: AvahiBrowse?
    var object: OpaquePointer?
    var generation = 0
    var address: ServiceAddress?
    var retryTimer: Int?
    var retryDelay = AvahiBrowse.firstRetryDelay
    /// Made and not answered yet: it holds one of the browse's `unansweredLimit` places.
    var unanswered = false
    /// Waiting in the browse's queue of resolvers that list a game (one per game not listed yet).
    var queuedToList = false
    var stallTimer: Int?

    init(sighting: Sighting, service: BrowsedService, browse: AvahiBrowse) {
        self.sighting = sighting
        self.service = service
        self.browse = browse
    }
}

// MARK: - Resolving one service

/// `join NAME`'s one resolve: an IPv4 and an IPv6 resolver on the shared
/// client, on every interface, tried again until the time is up. Avahi thread only.
///
/// Each asks for its address family over that family's transport, as the
/// browse's resolvers do: an IPv6 address asked for over any transport
/// came some 0.2 s later in the lab (a join by exact name took 0.35 s
/// instead of 0.10-0.17 s).
///
/// `@unchecked Sendable` only so jobs can carry it to the avahi thread.
final class AvahiResolution: @unchecked Sendable {
    /// After the first address, how long the other family may still come.
    static let otherFamilyWait = 0.2
    /// The wait before a refused or failed resolve is tried again.
    static let retryDelay = 0.2
    /// How long one attempt may go unanswered before it is made again: a
    /// new resolver asks the LAN at once, where avahi's own would wait for
    /// its next query (1 s, 2 s, ... after a lost answer) and give up after 5 s.
    static let attemptTimeout = 1.5

    private let connection: AvahiConnection
    private let instance: ServiceInstance
    private let limit: Double
    private var completion: ((Result<DiscoveredService, DiscoveryError>) -> Void)?
    private var resolvers: [OpaquePointer] = []
    private var generation = 0
    private var failures = 0
    private var timers: [Int] = []
    private var resolved: (hostTarget: String, port: UInt16, interfaceIndex: UInt32, txt: TXTRecord)?
    private var addresses: Set<ServiceAddress> = []
    private var refusal: DiscoveryError?

    init(connection: AvahiConnection, instance: ServiceInstance, limit: Double) {
        self.connection = connection
        self.instance = instance
        self.limit = limit
    }

    func start(completion: @escaping (Result<DiscoveredService, DiscoveryError>) -> Void) {
        self.completion = completion
        timers.append(connection.schedule(after: limit) { [self] in
            finish(.failure(refusal ?? .unresolved(name: instance.name, seconds: Int64(limit.rounded()))))
        })
        attempt()
    }

    private func attempt() {
        guard completion != nil else { return }
        closeResolvers()
        failures = 0
        let operation = "avahi_service_resolver_new"
        let client: OpaquePointer
        switch connection.connectedClient() {
        case .success(let connected): client = connected
        case .failure(let error): return refused(error)
        }
        connection.watchDaemon(self) { [self] in
            resolvers = []
            attemptLater()
        }
        generation = connection.generation
        let context = Unmanaged.passUnretained(self).toOpaque()
        for family in [avahiIPv4, avahiIPv6] {
            let made = connection.library.resolverNew(
                client, avahiAnyInterface, family, instance.name, withoutDot(instance.type),
                withoutDot(instance.domain), family, AvahiLookupFlags(0),
                { _, interface, _, event, _, _, _, hostName, address, port, txt, _, context in
                    guard let context else { return }
                    let resolution = Unmanaged<AvahiResolution>.fromOpaque(context).takeUnretainedValue()
                    if event == AVAHI_RESOLVER_FOUND, let hostName {
                        resolution.handleFound(
                            interface: interface, hostName: String(cString: hostName),
                            address: serviceAddress(address, interface: interface), port: port, txt: txtBytes(txt))
                    } else {
                        resolution.handleFailure()
                    }
                }, context)
            guard let made else { return refused(connection.lastError(operation: operation)) }
            resolvers.append(made)
        }
        timers.append(connection.schedule(after: Self.attemptTimeout) { [weak self] in
            guard let self, self.addresses.isEmpty else { return }
            self.attempt()
        })
    }

    private func refused(_ error: DiscoveryError) {
        guard error.mayPass else { return finish(.failure(error)) }
        refusal = error
        attemptLater()
    }

    private func attemptLater() {
        timers.append(connection.schedule(after: Self.retryDelay) { [weak self] in self?.attempt() })
    }

    private func handleFailure() {
        // avahi's resolver gave up (no such service on the LAN yet, or a
        // host with no address of that family): once both have, ask again.
        failures += 1
        guard failures >= 2, addresses.isEmpty else { return }
        connection.later { [weak self] in self?.attemptLater() }
    }

    private func handleFound(interface: AvahiIfIndex, hostName: String, address: ServiceAddress?, port: UInt16,
                             txt: [UInt8]) {
        guard completion != nil else { return }
        if resolved == nil {
            resolved = (withDot(hostName), port, UInt32(max(0, interface)), TXTRecord(decoding: txt))
        }
        guard let address else { return }
        let first = addresses.isEmpty
        addresses.insert(address)
        if Set(addresses.map(\.family)).count == 2 {
            connection.later { [weak self] in self?.succeed() }
        } else if first {
            timers.append(connection.schedule(after: Self.otherFamilyWait) { [weak self] in self?.succeed() })
        }
    }

    private func succeed() {
        guard let resolved, !addresses.isEmpty else { return }
        finish(.success(DiscoveredService(
            instance: instance, hostTarget: resolved.hostTarget, port: resolved.port,
            interfaceIndex: resolved.interfaceIndex, txt: resolved.txt, addresses: addresses.sorted())))
    }

    func finish(_ result: Result<DiscoveredService, DiscoveryError>) {
        guard let completion else { return }
        self.completion = nil
        connection.stopWatching(self)
        closeResolvers()
        for timer in timers { connection.cancelTimer(timer) }
        timers = []
        completion(result)
    }

    private func closeResolvers() {
        guard !resolvers.isEmpty else { return }
        let closing = resolvers
        let generation = self.generation
        resolvers = []
        // Often inside a resolver's own callback: free them once it returned.
        // Until then this resolution (their context) lives.
        connection.later { [connection, self] in
            if connection.isAlive(generation) {
                for resolver in closing { _ = connection.library.resolverFree(resolver) }
            }
            withExtendedLifetime(self) {}
        }
    }
}
