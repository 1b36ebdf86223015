// The real ServiceDirectory, on avahi's dns_sd.h compatibility library.
//
// What that library supports (see docs/LAB.md and shared/LAB.md): flags
// must be 0; there is no DNSServiceGetAddrInfo, so a service is resolved
// with DNSServiceResolve and its host's addresses with DNSServiceQueryRecord
// for A and AAAA; browse results come once per interface and IP family.

import CDNSSD
import Foundation
@preconcurrency import Glibc

/// DNS-SD through avahi-daemon, via avahi's dns_sd.h compatibility library.
///
/// Creating one touches nothing; the first advertise or browse connects.
/// All library calls run on one dedicated thread, never on the caller's.
/// Without a reachable avahi-daemon, `advertise` throws and `browse`
/// yields `.failed(.daemonUnavailable)`.
public final class DNSSDDirectory: ServiceDirectory {
    /// The loop, or why there can be none (the library is missing).
    private let loop: Result<DNSSDEventLoop, DiscoveryError>

    /// How long `advertise` waits for the daemon to confirm a name.
    public let registrationTimeout: Double
    /// A directory talking to the avahi-daemon on the system D-Bus (or `DBUS_SYSTEM_BUS_ADDRESS`).
    public init(registrationTimeout: Double = 15) {
        loop = DNSSDLibrary.shared.map { DNSSDEventLoop(library: $0) }
        self.registrationTimeout = registrationTimeout
    }

    /// Loads avahi's dns_sd library (once per process) and says which file it is, or why it cannot be loaded.
    ///
    /// For `parlor doctor`: advertise and browse report the same error themselves.
    public static func loadLibrary() -> Result<String, DiscoveryError> {
        DNSSDLibrary.shared.map { _ in DNSSDLibrary.defaultName }
    }

    /// Registers the service; see `ServiceDirectory.advertise`.
    public func advertise(_ registration: ServiceRegistration) async throws(DiscoveryError) -> any ServiceAdvertisement {
        try registration.validate()
        let loop = try self.loop.get()
        let advertisement = DNSSDAdvertisement(loop: loop, registration: registration, timeout: registrationTimeout)
        try await advertisement.start()
        return advertisement
    }

    /// Browses for `type`, resolving every service; see `ServiceDirectory.browse`.
    ///
    /// At most `DNSSDEventLoop.lookupCapacity` resolves and address queries
    /// are open at once, however many services there are.
    public func browse(type: String) -> AsyncStream<BrowseEvent> {
        browse(type: type, depth: .resolving)
    }

    /// Browses for the names of services of `type`; see `ServiceDirectory.browseNames`.
    public func browseNames(type: String) -> AsyncStream<BrowseEvent> {
        browse(type: type, depth: .namesOnly)
    }

    private func browse(type: String, depth: BrowseSession.Depth) -> AsyncStream<BrowseEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: BrowseEvent.self, bufferingPolicy: .unbounded)
        let loop: DNSSDEventLoop
        switch self.loop {
        case .success(let running):
            loop = running
        case .failure(let error):
            continuation.yield(.failed(error))
            continuation.finish()
            return stream
        }
        let session = BrowseSession(loop: loop, type: type, continuation: continuation, depth: depth)
        continuation.onTermination = { _ in
            loop.perform { session.cancel() }
        }
        loop.perform { session.start() }
        return stream
    }

    /// Resolves one service and its host's addresses, ahead of any browse's lookups; see `ServiceDirectory.resolve`.
    public func resolve(_ instance: ServiceInstance, within limit: Duration) async throws(DiscoveryError) -> DiscoveredService {
        let loop = try self.loop.get()
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        let resolution = SingleResolution(loop: loop, instance: instance, limit: seconds)
        let result: Result<DiscoveredService, DiscoveryError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                loop.perform { resolution.start { continuation.resume(returning: $0) } }
            }
        } onCancel: {
            loop.perform { resolution.finish(.failure(.unresolved(name: instance.name, seconds: limit.components.seconds))) }
        }
        return try result.get()
    }

    /// How many resolves and address queries this directory's browses hold open now (for tests and the bench).
    public func openLookups() async -> Int {
        guard case .success(let loop) = self.loop else { return 0 }
        return await loop.run { loop.openLookups }
    }
}

// MARK: - Advertising

/// The public handle of one registration.
///
/// `@unchecked Sendable`: `currentName` is guarded by `lock`; the
/// registration itself lives on the loop thread.
final class DNSSDAdvertisement: ServiceAdvertisement, @unchecked Sendable {
    private let loop: DNSSDEventLoop
    private let state: RegistrationState
    private let lock = NSLock()
    private var currentName: String

    let type: String

    var name: String {
        lock.lock()
        defer { lock.unlock() }
        return currentName
    }

    init(loop: DNSSDEventLoop, registration: ServiceRegistration, timeout: Double) {
        self.loop = loop
        type = registration.type
        currentName = registration.name
        state = RegistrationState(loop: loop, registration: registration, timeout: timeout)
        state.onRename = { [weak self] name in self?.setName(name) }
    }

    private func setName(_ name: String) {
        lock.lock()
        currentName = name
        lock.unlock()
    }

    func start() async throws(DiscoveryError) {
        let state = self.state
        let result: Result<String, DiscoveryError> = await withCheckedContinuation { continuation in
            loop.perform {
                state.start { continuation.resume(returning: $0) }
            }
        }
        setName(try result.get())
    }

    func update(txt: TXTRecord) async throws(DiscoveryError) {
        let state = self.state
        try await loop.run { state.update(txt: txt) }.get()
    }

    func withdraw() async {
        let state = self.state
        await loop.run { state.withdraw() }
    }

    deinit {
        // Dropping the handle withdraws the service, on the loop thread.
        let state = self.state
        loop.perform { state.withdraw() }
    }
}

/// One DNSServiceRegister and its renames. Loop thread only.
///
/// `@unchecked Sendable` only so jobs can carry it to the loop thread; it
/// is never touched elsewhere.
final class RegistrationState: @unchecked Sendable {
    private let loop: DNSSDEventLoop
    private var registration: ServiceRegistration
    private let timeout: Double
    private var ref: ServiceRef?
    private var attempt = 1
    private var pending: ((Result<String, DiscoveryError>) -> Void)?
    private var timer: Int?
    private var withdrawn = false
    /// The daemon confirmed a name once: from then on, losing the daemon means registering again.
    private var confirmed = false
    /// The timer of a pending re-registration, and the wait before the next one.
    private var retryTimer: Int?
    private var retryDelay = RegistrationState.firstRetryDelay
    /// Told every name the daemon confirms, so `name` follows later renames.
    var onRename: ((String) -> Void)?

    /// How many " #N" names to try when the daemon reports a local clash.
    private static let maximumAttempts = 100
    /// Waits between attempts to register again after the daemon went away: 1 s doubling to 30 s.
    static let firstRetryDelay = 1.0
    static let longestRetryDelay = 30.0

    init(loop: DNSSDEventLoop, registration: ServiceRegistration, timeout: Double) {
        self.loop = loop
        self.registration = registration
        self.timeout = timeout
    }

    func start(completion: @escaping (Result<String, DiscoveryError>) -> Void) {
        pending = completion
        timer = loop.schedule(after: timeout) { [self] in
            finish(.failure(.timedOut(operation: "DNSServiceRegister", seconds: Int(timeout))))
            withdraw()
        }
        register()
    }

    private func register() {
        while !withdrawn {
            guard attempt <= Self.maximumAttempts else {
                finish(.failure(.nameConflict(name: registration.name)))
                withdraw()
                return
            }
            let name = ServiceRegistration.alternativeName(for: registration.name, attempt: attempt)
            let txt = registration.txt.encoded()
            var newRef: DNSServiceRef?
            let context = Unmanaged.passUnretained(self).toOpaque()
            let code = txt.withUnsafeBytes { txtBytes in
                loop.library.register(
                    &newRef, 0, 0, name, registration.type, nil, nil, registration.port.bigEndian,
                    UInt16(txtBytes.count), txtBytes.baseAddress,
                    { _, _, errorCode, name, _, _, context in
                        guard let context else { return }
                        let state = Unmanaged<RegistrationState>.fromOpaque(context).takeUnretainedValue()
                        state.handleReply(errorCode: errorCode, name: name.map { String(cString: $0) })
                    }, context)
            }
            if Int(code) == kDNSServiceErr_NameConflict {
                // Another client of this daemon holds the name: avahi
                // reports that at once instead of renaming. Rename like it.
                attempt += 1
                continue
            }
            guard code == 0, let newRef else {
                if confirmed {
                    // The daemon is still away: try again later.
                    scheduleRegistrationAgain()
                    return
                }
                finish(.failure(DNSSDLibrary.error(code, operation: "DNSServiceRegister")))
                withdraw()
                return
            }
            let serviceRef = ServiceRef(newRef, operation: "DNSServiceRegister", library: loop.library)
            serviceRef.onFailure = { [self] code in
                // The loop has already freed the ref.
                ref = nil
                if confirmed {
                    scheduleRegistrationAgain()
                } else {
                    finish(.failure(DNSSDLibrary.error(code, operation: "DNSServiceRegister")))
                }
            }
            ref = serviceRef
            loop.add(serviceRef)
            return
        }
    }

    private func handleReply(errorCode: DNSServiceErrorType, name: String?) {
        if errorCode == 0 {
            if let name {
                confirmed = true
                retryDelay = Self.firstRetryDelay
                onRename?(name)
                finish(.success(name))
            }
            return
        }
        if Int(errorCode) == kDNSServiceErr_NameConflict {
            // Free the ref after this callback returns, then try the next name.
            let old = ref
            ref = nil
            attempt += 1
            loop.later { [self] in
                old?.deallocate()
                register()
            }
            return
        }
        if confirmed {
            // avahi-daemon went away (restarted, upgraded): avahi's library
            // reports it as an error on a registration that was up. Without
            // registering again the game would vanish from every browser for
            // good while the host keeps waiting. Free the ref after this
            // callback returns.
            let old = ref
            ref = nil
            loop.later { old?.deallocate() }
            scheduleRegistrationAgain()
            return
        }
        finish(.failure(DNSSDLibrary.error(errorCode, operation: "DNSServiceRegister")))
    }

    /// Registers again after `retryDelay` (doubling up to 30 s), with the latest TXT record.
    private func scheduleRegistrationAgain() {
        guard !withdrawn, retryTimer == nil else { return }
        retryTimer = loop.schedule(after: retryDelay) { [self] in
            retryTimer = nil
            retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
            register()
        }
    }

    private func finish(_ result: Result<String, DiscoveryError>) {
        loop.cancelTimer(timer)
        timer = nil
        if let pending {
            self.pending = nil
            pending(result)
        }
    }

    func update(txt: TXTRecord) -> Result<Void, DiscoveryError> {
        guard !withdrawn else { return .failure(.withdrawn(name: registration.name)) }
        registration.txt = txt
        guard let ref = ref?.ref else {
            // Waiting to register again after the daemon went away: that
            // registration carries this record.
            return confirmed ? .success(()) : .failure(.withdrawn(name: registration.name))
        }
        let bytes = txt.encoded()
        let code = bytes.withUnsafeBytes { raw in
            loop.library.updateRecord(ref, nil, 0, UInt16(raw.count), raw.baseAddress, 0)
        }
        return code == 0 ? .success(()) : .failure(DNSSDLibrary.error(code, operation: "DNSServiceUpdateRecord"))
    }

    func withdraw() {
        guard !withdrawn else { return }
        withdrawn = true
        loop.cancelTimer(retryTimer)
        retryTimer = nil
        ref?.deallocate()
        ref = nil
        finish(.failure(.withdrawn(name: registration.name)))
    }

    deinit {
        ref?.deallocate()
    }
}

// MARK: - Browsing

/// One browse: one DNSServiceBrowse ref, and per service a resolve and
/// per host an A and an AAAA query, each waiting for a place in the loop's
/// pool (`LookupPool`) and closed once it answered. Loop thread only.
///
/// A service is reported `.found` as soon as its resolve answered (name,
/// port, TXT), and `.updated` when its addresses come. A resolve that
/// answered stays open while the pool has room, so TXT changes (open to
/// playing) keep coming; on a crowded LAN the oldest make room. Then,
/// whenever no lookup waits, a game whose resolve was closed is resolved
/// again every `refreshInterval`, the one read longest ago first, so every
/// game's TXT is read again in turn (without this, a game whose resolve
/// made room for others never showed a TXT change again).
///
/// `@unchecked Sendable` only so jobs can carry it to the loop thread.
final class BrowseSession: @unchecked Sendable {
    /// How much to learn about each service.
    enum Depth {
        /// Resolve every service and its host's addresses (`browse`).
        case resolving
        /// Names only (`join NAME`): a `.found` with no host, port or TXT per instance.
        case namesOnly
    }

    /// How long a resolve may take before it is closed and tried again.
    static let resolveTimeout = 5.0
    /// How long an address query waits for its first answer (a host may have no IPv6 at all).
    static let addressTimeout = 3.0
    /// After the first address of a query, how long more answers (other interfaces) may come.
    static let addressLinger = 0.05
    /// The first wait before a refused or failed lookup is tried again; it doubles up to 8 s.
    static let firstRetryDelay = 0.5
    /// How often a browse resolves again one game whose resolve was closed
    /// to make room (each time a thread and a D-Bus connection are made and
    /// freed again in avahi's library, so not more often).
    static let refreshInterval = 0.5

    private let loop: DNSSDEventLoop
    private let type: String
    private let continuation: AsyncStream<BrowseEvent>.Continuation
    private let depth: Depth
    private var browseRef: ServiceRef?
    private var services: [ServiceInstance: TrackedService] = [:]
    private var hosts: [HostKey: TrackedHost] = [:]
    private var finished = false
    /// Whether a refusal was already reported: it is said once per browse.
    private var refusalReported = false
    /// The timer of the next refresh (see `refreshInterval`).
    private var refreshTimer: Int?

    init(loop: DNSSDEventLoop, type: String, continuation: AsyncStream<BrowseEvent>.Continuation, depth: Depth) {
        self.loop = loop
        self.type = type
        self.continuation = continuation
        self.depth = depth
    }

    func start() {
        guard !finished else { return }
        var newRef: DNSServiceRef?
        let context = Unmanaged.passUnretained(self).toOpaque()
        // avahi's DNSServiceBrowse asserts on a NULL domain: pass "local.".
        let code = loop.library.browse(
            &newRef, 0, 0, type, "local.",
            { _, flags, interfaceIndex, errorCode, name, type, domain, context in
                guard let context else { return }
                let session = Unmanaged<BrowseSession>.fromOpaque(context).takeUnretainedValue()
                session.handleBrowse(
                    added: flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0, interfaceIndex: interfaceIndex,
                    errorCode: errorCode, name: name.map { String(cString: $0) },
                    type: type.map { String(cString: $0) }, domain: domain.map { String(cString: $0) })
            }, context)
        guard code == 0, let newRef else {
            fail(DNSSDLibrary.error(code, operation: "DNSServiceBrowse"))
            return
        }
        let serviceRef = ServiceRef(newRef, operation: "DNSServiceBrowse", library: loop.library)
        serviceRef.onFailure = { [self] code in fail(DNSSDLibrary.error(code, operation: "DNSServiceBrowse")) }
        browseRef = serviceRef
        loop.add(serviceRef)
        if depth == .resolving { scheduleRefresh() }
    }

    func cancel() {
        finished = true
        loop.cancelTimer(refreshTimer)
        refreshTimer = nil
        browseRef?.deallocate()
        browseRef = nil
        for service in services.values { stop(service) }
        services = [:]
        for host in hosts.values { stop(host) }
        hosts = [:]
    }

    private func fail(_ error: DiscoveryError) {
        guard !finished else { return }
        finished = true
        continuation.yield(.failed(error))
        continuation.finish()
        // Often called from inside a callback of the browse ref itself:
        // free the refs once that callback has returned.
        loop.later { [self] in cancel() }
    }

    private func handleBrowse(
        added: Bool, interfaceIndex: UInt32, errorCode: DNSServiceErrorType, name: String?, type: String?,
        domain: String?
    ) {
        guard errorCode == 0 else {
            // avahi reports a lost daemon connection as an error with no name.
            if Int(errorCode) == kDNSServiceErr_Unknown {
                fail(.daemonDisconnected(operation: "browsing \(self.type)"))
            } else {
                fail(DNSSDLibrary.error(errorCode, operation: "DNSServiceBrowse"))
            }
            return
        }
        guard !finished, let name, let type, let domain else { return }
        let instance = ServiceInstance(name: name, type: type, domain: domain)
        if added {
            if let service = services[instance] {
                service.sightings[interfaceIndex, default: 0] += 1
                return
            }
            let service = TrackedService(instance: instance, interfaceIndex: interfaceIndex)
            service.sightings[interfaceIndex] = 1
            services[instance] = service
            switch depth {
            case .namesOnly:
                let snapshot = DiscoveredService(
                    instance: instance, hostTarget: "", port: 0, interfaceIndex: interfaceIndex, txt: TXTRecord(),
                    addresses: [])
                service.reported = snapshot
                continuation.yield(.found(snapshot))
            case .resolving:
                resolve(service)
            }
            return
        }
        // One add and one remove come per interface and IP family; the
        // service is gone when every sighting is.
        guard let service = services[instance] else { return }
        let remaining = (service.sightings[interfaceIndex] ?? 0) - 1
        service.sightings[interfaceIndex] = remaining > 0 ? remaining : nil
        guard service.sightings.isEmpty else { return }
        services[instance] = nil
        stop(service)
        if service.reported != nil { continuation.yield(.lost(instance)) }
    }

    // MARK: Resolving

    private func resolve(_ service: TrackedService) {
        service.resolveAnswered = false
        service.session = self
        let lookup = PooledLookup(
            operation: "DNSServiceResolve", make: Self.resolving(service, library: loop.library),
            opened: { [weak self, weak service] code in
                guard let self, let service else { return }
                self.resolveOpened(service, code: code)
            })
        lookup.onFailure = { [weak self, weak service] _ in
            guard let self, let service else { return }
            self.retryResolve(service)
        }
        service.resolveLookup = lookup
        // A game not listed yet goes before the addresses and TXT re-reads of listed ones.
        loop.lookUp(lookup, priority: service.reported == nil ? .listing : .filling)
    }

    /// The dns_sd call of a service's resolve, for a maker thread.
    private static func resolving(_ service: TrackedService, library: DNSSDFunctions) -> @Sendable () -> MadeRef {
        let context = CallbackContext(service)
        let instance = service.instance
        let interfaceIndex = service.interfaceIndex
        return {
            var newRef: DNSServiceRef?
            let code = library.resolve(
                &newRef, 0, interfaceIndex, instance.name, instance.type, instance.domain,
                { _, _, interfaceIndex, errorCode, _, hostTarget, port, txtLength, txt, context in
                    guard let context else { return }
                    let service = Unmanaged<TrackedService>.fromOpaque(context).takeUnretainedValue()
                    let bytes = txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(txtLength))) } ?? []
                    service.session?.handleResolve(
                        service, errorCode: errorCode, hostTarget: hostTarget.map { String(cString: $0) },
                        port: UInt16(bigEndian: port), txt: bytes)
                }, context.pointer)
            return MadeRef(ref: newRef, code: code)
        }
    }

    private func resolveOpened(_ service: TrackedService, code: DNSServiceErrorType) {
        guard code == 0 else {
            refused(code, operation: "DNSServiceResolve")
            // The pool freed the place; try again later.
            retryResolve(service)
            return
        }
        service.resolveTimer = loop.schedule(after: Self.resolveTimeout) { [weak self, weak service] in
            guard let self, let service, !service.resolveAnswered else { return }
            self.retryResolve(service)
        }
    }

    /// Closes the service's resolve and asks for it again after a wait.
    private func retryResolve(_ service: TrackedService) {
        guard !finished, services[service.instance] === service else { return }
        loop.cancelTimer(service.resolveTimer)
        service.resolveTimer = nil
        if let lookup = service.resolveLookup { loop.cancel(lookup) }
        service.resolveLookup = nil
        let delay = service.retryDelay
        service.retryDelay = min(delay * 2, 8)
        service.retryTimer = loop.schedule(after: delay) { [weak self, weak service] in
            guard let self, let service else { return }
            service.retryTimer = nil
            guard !self.finished, self.services[service.instance] === service else { return }
            self.resolve(service)
        }
    }

    fileprivate func handleResolve(
        _ service: TrackedService, errorCode: DNSServiceErrorType, hostTarget: String?, port: UInt16, txt: [UInt8]
    ) {
        guard !finished, services[service.instance] === service else { return }
        guard errorCode == 0, let hostTarget else {
            // avahi's resolver gave up (its own timeout) or lost the daemon.
            loop.later { [weak self, weak service] in
                guard let self, let service else { return }
                self.retryResolve(service)
            }
            return
        }
        if let lookup = service.resolveLookup, !service.resolveAnswered {
            // Answered: keep it open for TXT changes while the pool has room.
            service.resolveAnswered = true
            loop.cancelTimer(service.resolveTimer)
            service.resolveTimer = nil
            service.retryDelay = Self.firstRetryDelay
            loop.answered(lookup, keep: true)
        }
        service.lastRead = DNSSDEventLoop.now()
        service.port = port
        service.txt = TXTRecord(decoding: txt)
        let key = HostKey(target: hostTarget, interfaceIndex: service.interfaceIndex)
        if service.host != key {
            if let old = service.host { detach(service, from: old) }
            service.hostTarget = hostTarget
            service.host = key
            attach(service, to: key)
        }
        report(service)
    }

    // MARK: Refreshing

    private func scheduleRefresh() {
        refreshTimer = loop.schedule(after: Self.refreshInterval) { [weak self] in
            guard let self, !self.finished else { return }
            self.refreshOne()
            self.scheduleRefresh()
        }
    }

    /// Resolves again the game read longest ago among those whose resolve was closed, if no lookup waits.
    private func refreshOne() {
        guard loop.waitingLookups == 0 else { return }
        var oldest: TrackedService?
        for service in services.values
        where service.resolveAnswered && service.resolveLookup?.ref == nil && service.retryTimer == nil {
            if oldest == nil || service.lastRead < oldest!.lastRead { oldest = service }
        }
        guard let oldest else { return }
        // The pool already forgot the closed lookup: cancelling it only makes sure.
        if let old = oldest.resolveLookup { loop.cancel(old) }
        resolve(oldest)
    }

    // MARK: Addresses

    private func attach(_ service: TrackedService, to key: HostKey) {
        if let host = hosts[key] {
            host.services += 1
            return
        }
        let host = TrackedHost(key: key)
        host.services = 1
        hosts[key] = host
        for recordType in [UInt16(kDNSServiceType_A), UInt16(kDNSServiceType_AAAA)] {
            let query = AddressQuery(host: host, recordType: recordType)
            query.session = self
            query.lookup = PooledLookup(
                operation: "DNSServiceQueryRecord", make: Self.querying(query, key: key, library: loop.library),
                opened: { [weak self, weak query] code in
                    guard let self, let query else { return }
                    self.queryOpened(query, code: code)
                })
            query.lookup?.onFailure = { [weak self, weak query] _ in
                guard let self, let query else { return }
                self.finishQuery(query, retry: query.addresses.isEmpty)
            }
            host.queries.append(query)
            if let lookup = query.lookup { loop.lookUp(lookup, priority: .filling) }
        }
    }

    private func detach(_ service: TrackedService, from key: HostKey) {
        guard let host = hosts[key] else { return }
        host.services -= 1
        guard host.services <= 0 else { return }
        hosts[key] = nil
        stop(host)
    }

    /// The dns_sd call of a host's A or AAAA query, for a maker thread.
    private static func querying(_ query: AddressQuery, key: HostKey, library: DNSSDFunctions) -> @Sendable () -> MadeRef {
        let context = CallbackContext(query)
        let recordType = query.recordType
        return {
            var newRef: DNSServiceRef?
            let code = library.queryRecord(
                &newRef, 0, key.interfaceIndex, key.target, recordType, UInt16(kDNSServiceClass_IN),
                { _, flags, interfaceIndex, errorCode, _, recordType, _, length, data, _, context in
                    guard let context else { return }
                    let query = Unmanaged<AddressQuery>.fromOpaque(context).takeUnretainedValue()
                    let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
                    query.session?.handleAddress(
                        query, added: flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0,
                        interfaceIndex: interfaceIndex, errorCode: errorCode, recordType: recordType, bytes: bytes)
                }, context.pointer)
            return MadeRef(ref: newRef, code: code)
        }
    }

    private func queryOpened(_ query: AddressQuery, code: DNSServiceErrorType) {
        guard code == 0 else {
            refused(code, operation: "DNSServiceQueryRecord")
            finishQuery(query, retry: true)
            return
        }
        query.timer = loop.schedule(after: Self.addressTimeout) { [weak self, weak query] in
            guard let self, let query else { return }
            // No answer: a host without IPv6 (or IPv4) is normal.
            self.finishQuery(query, retry: false)
        }
    }

    fileprivate func handleAddress(
        _ query: AddressQuery, added: Bool, interfaceIndex: UInt32, errorCode: DNSServiceErrorType,
        recordType: UInt16, bytes: [UInt8]
    ) {
        guard !finished, let host = query.host, hosts[host.key] === host else { return }
        guard errorCode == 0 else {
            loop.later { [weak self, weak query] in
                guard let self, let query else { return }
                self.finishQuery(query, retry: query.addresses.isEmpty)
            }
            return
        }
        let expected = recordType == UInt16(kDNSServiceType_A) ? 4 : 16
        guard bytes.count == expected, let address = ServiceAddress(bytes: bytes, interfaceIndex: interfaceIndex)
        else { return }
        if added { query.addresses.insert(address) } else { query.addresses.remove(address) }
        if added && !query.answered {
            query.answered = true
            // Answers on other interfaces come in the same breath: close a moment later.
            loop.cancelTimer(query.timer)
            query.timer = loop.schedule(after: Self.addressLinger) { [weak self, weak query] in
                guard let self, let query else { return }
                self.finishQuery(query, retry: false)
            }
        }
        for service in services.values where service.host == host.key { report(service) }
    }

    /// Closes an address query; with `retry`, asks for it again after a wait.
    private func finishQuery(_ query: AddressQuery, retry: Bool) {
        loop.cancelTimer(query.timer)
        query.timer = nil
        guard let lookup = query.lookup else { return }
        if lookup.ref != nil { loop.answered(lookup) } else { loop.cancel(lookup) }
        guard retry, !finished, let host = query.host, hosts[host.key] === host else { return }
        let delay = query.retryDelay
        query.retryDelay = min(delay * 2, 8)
        query.timer = loop.schedule(after: delay) { [weak self, weak query] in
            guard let self, let query, let lookup = query.lookup else { return }
            query.timer = nil
            guard !self.finished, let host = query.host, self.hosts[host.key] === host else { return }
            self.loop.lookUp(lookup, priority: .filling)
        }
    }

    private func stop(_ service: TrackedService) {
        if let lookup = service.resolveLookup { loop.cancel(lookup) }
        service.resolveLookup = nil
        loop.cancelTimer(service.resolveTimer)
        loop.cancelTimer(service.retryTimer)
        service.resolveTimer = nil
        service.retryTimer = nil
        if let key = service.host {
            service.host = nil
            detach(service, from: key)
        }
    }

    private func stop(_ host: TrackedHost) {
        for query in host.queries {
            loop.cancelTimer(query.timer)
            query.timer = nil
            if let lookup = query.lookup { loop.cancel(lookup) }
        }
        host.queries = []
    }

    /// Notes that the library refused to make a ref (the daemon's connection limit, its rate limit).
    private func refused(_ code: DNSServiceErrorType, operation: String) {
        guard !refusalReported, !finished else { return }
        refusalReported = true
        continuation.yield(.refused(DNSSDLibrary.error(code, operation: operation)))
    }

    /// Emits `.found` once the service is resolved, then `.updated` whenever what a user sees changes.
    private func report(_ service: TrackedService) {
        guard !finished, services[service.instance] === service, let hostTarget = service.hostTarget else { return }
        var addresses: Set<ServiceAddress> = []
        if let key = service.host, let host = hosts[key] {
            for query in host.queries { addresses.formUnion(query.addresses) }
        }
        let snapshot = DiscoveredService(
            instance: service.instance, hostTarget: hostTarget, port: service.port,
            interfaceIndex: service.interfaceIndex, txt: service.txt, addresses: addresses.sorted())
        guard snapshot != service.reported else { return }
        let event: BrowseEvent = service.reported == nil ? .found(snapshot) : .updated(snapshot)
        service.reported = snapshot
        continuation.yield(event)
    }
}

/// A host's DNS name on one interface: the services on it share its address queries.
struct HostKey: Hashable {
    var target: String
    var interfaceIndex: UInt32

    init(target: String, interfaceIndex: UInt32) {
        self.target = target.lowercased()
        self.interfaceIndex = interfaceIndex
    }
}

/// What a browse knows about one service instance. Loop thread only.
final class TrackedService {
    let instance: ServiceInstance
    weak var session: BrowseSession?
    let interfaceIndex: UInt32
    /// Adds minus removes, per interface (avahi sends one per IP family).
    var sightings: [UInt32: Int] = [:]
    var resolveLookup: PooledLookup?
    /// Whether the current resolve answered (it is then kept open, or closed to make room).
    var resolveAnswered = false
    /// When the TXT record was last read (the loop's clock).
    var lastRead = 0.0
    var resolveTimer: Int?
    var retryTimer: Int?
    var retryDelay = BrowseSession.firstRetryDelay
    var hostTarget: String?
    var host: HostKey?
    var port: UInt16 = 0
    var txt = TXTRecord()
    var reported: DiscoveredService?

    init(instance: ServiceInstance, interfaceIndex: UInt32) {
        self.instance = instance
        self.interfaceIndex = interfaceIndex
    }
}

/// A host's address queries and how many services use them. Loop thread only.
final class TrackedHost {
    let key: HostKey
    var services = 0
    var queries: [AddressQuery] = []

    init(key: HostKey) {
        self.key = key
    }
}

/// One A or AAAA query for a host, closed once it answered. Loop thread only.
final class AddressQuery {
    weak var host: TrackedHost?
    weak var session: BrowseSession?
    let recordType: UInt16
    var lookup: PooledLookup?
    var addresses: Set<ServiceAddress> = []
    var answered = false
    var timer: Int?
    var retryDelay = BrowseSession.firstRetryDelay

    init(host: TrackedHost, recordType: UInt16) {
        self.host = host
        self.recordType = recordType
    }
}

// MARK: - Resolving one service

/// `join NAME`'s one resolve: the service, then its host's A and AAAA
/// records, each an urgent lookup in the loop's pool, tried again until the
/// time is up. Loop thread only.
///
/// `@unchecked Sendable` only so jobs can carry it to the loop thread.
final class SingleResolution: @unchecked Sendable {
    /// How long one resolve may take before it is tried again.
    static let attemptTimeout = 1.5
    /// After the first address, how long the other family may still come.
    static let otherFamilyWait = 0.2

    private let loop: DNSSDEventLoop
    private let instance: ServiceInstance
    private let limit: Double
    private var completion: ((Result<DiscoveredService, DiscoveryError>) -> Void)?
    private var lookups: [PooledLookup] = []
    private var timers: [Int] = []
    private var resolved: (hostTarget: String, port: UInt16, interfaceIndex: UInt32, txt: TXTRecord)?
    private var addresses: Set<ServiceAddress> = []
    private var refusal: DiscoveryError?

    init(loop: DNSSDEventLoop, instance: ServiceInstance, limit: Double) {
        self.loop = loop
        self.instance = instance
        self.limit = limit
    }

    func start(completion: @escaping (Result<DiscoveredService, DiscoveryError>) -> Void) {
        self.completion = completion
        timers.append(loop.schedule(after: limit) { [self] in
            finish(.failure(refusal ?? .unresolved(name: instance.name, seconds: Int64(limit.rounded()))))
        })
        attempt()
    }

    private func attempt() {
        guard completion != nil else { return }
        closeLookups()
        resolved = nil
        addresses = []
        let lookup = PooledLookup(
            operation: "DNSServiceResolve", make: resolving(),
            opened: { [weak self] code in
                guard let self, code != 0 else { return }
                self.refusal = DNSSDLibrary.error(code, operation: "DNSServiceResolve")
                self.attemptLater()
            })
        lookup.onFailure = { [weak self] _ in self?.attemptLater() }
        lookups.append(lookup)
        loop.lookUp(lookup, urgent: true)
        timers.append(loop.schedule(after: Self.attemptTimeout) { [weak self] in
            guard let self, self.addresses.isEmpty else { return }
            self.attempt()
        })
    }

    private func attemptLater() {
        timers.append(loop.schedule(after: 0.2) { [weak self] in self?.attempt() })
    }

    /// The dns_sd call of the resolve, for a maker thread.
    private func resolving() -> @Sendable () -> MadeRef {
        let context = CallbackContext(self)
        let instance = instance
        let library = loop.library
        return {
            var newRef: DNSServiceRef?
            let code = library.resolve(
                &newRef, 0, 0, instance.name, instance.type, instance.domain,
                { _, _, interfaceIndex, errorCode, _, hostTarget, port, txtLength, txt, context in
                    guard let context else { return }
                    let resolution = Unmanaged<SingleResolution>.fromOpaque(context).takeUnretainedValue()
                    let bytes = txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(txtLength))) } ?? []
                    resolution.handleResolve(
                        errorCode: errorCode, interfaceIndex: interfaceIndex,
                        hostTarget: hostTarget.map { String(cString: $0) }, port: UInt16(bigEndian: port), txt: bytes)
                }, context.pointer)
            return MadeRef(ref: newRef, code: code)
        }
    }

    private func handleResolve(errorCode: DNSServiceErrorType, interfaceIndex: UInt32, hostTarget: String?,
                               port: UInt16, txt: [UInt8]) {
        guard completion != nil, resolved == nil else { return }
        guard errorCode == 0, let hostTarget else {
            loop.later { [weak self] in self?.attemptLater() }
            return
        }
        resolved = (hostTarget, port, interfaceIndex, TXTRecord(decoding: txt))
        if let lookup = lookups.first { loop.answered(lookup) }
        for recordType in [UInt16(kDNSServiceType_A), UInt16(kDNSServiceType_AAAA)] {
            let lookup = PooledLookup(
                operation: "DNSServiceQueryRecord",
                make: querying(host: hostTarget, interfaceIndex: interfaceIndex, recordType: recordType),
                opened: { [weak self] code in
                    guard let self, code != 0 else { return }
                    self.refusal = DNSSDLibrary.error(code, operation: "DNSServiceQueryRecord")
                })
            lookups.append(lookup)
            loop.lookUp(lookup, urgent: true)
        }
    }

    /// The dns_sd call of an A or AAAA query, for a maker thread.
    private func querying(host: String, interfaceIndex: UInt32, recordType: UInt16) -> @Sendable () -> MadeRef {
        let context = CallbackContext(self)
        let library = loop.library
        return {
            var newRef: DNSServiceRef?
            let code = library.queryRecord(
                &newRef, 0, interfaceIndex, host, recordType, UInt16(kDNSServiceClass_IN),
                { _, flags, interfaceIndex, errorCode, _, recordType, _, length, data, _, context in
                    guard let context, errorCode == 0, flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0 else { return }
                    let resolution = Unmanaged<SingleResolution>.fromOpaque(context).takeUnretainedValue()
                    let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
                    resolution.handleAddress(interfaceIndex: interfaceIndex, recordType: recordType, bytes: bytes)
                }, context.pointer)
            return MadeRef(ref: newRef, code: code)
        }
    }

    private func handleAddress(interfaceIndex: UInt32, recordType: UInt16, bytes: [UInt8]) {
        guard completion != nil else { return }
        let expected = recordType == UInt16(kDNSServiceType_A) ? 4 : 16
        guard bytes.count == expected, let address = ServiceAddress(bytes: bytes, interfaceIndex: interfaceIndex)
        else { return }
        let first = addresses.isEmpty
        addresses.insert(address)
        if Set(addresses.map(\.family)).count == 2 {
            loop.later { [weak self] in self?.succeed() }
        } else if first {
            timers.append(loop.schedule(after: Self.otherFamilyWait) { [weak self] in self?.succeed() })
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
        closeLookups()
        for timer in timers { loop.cancelTimer(timer) }
        timers = []
        completion(result)
    }

    private func closeLookups() {
        for lookup in lookups { loop.cancel(lookup) }
        lookups = []
    }
}
