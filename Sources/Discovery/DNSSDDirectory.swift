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
    /// After a service resolves, how long to wait for both A and AAAA before reporting it anyway.
    public let addressSettleTime: Double

    /// A directory talking to the avahi-daemon on the system D-Bus (or `DBUS_SYSTEM_BUS_ADDRESS`).
    public init(registrationTimeout: Double = 15, addressSettleTime: Double = 0.5) {
        loop = DNSSDLibrary.shared.map { DNSSDEventLoop(library: $0) }
        self.registrationTimeout = registrationTimeout
        self.addressSettleTime = addressSettleTime
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

    /// Browses for `type`; see `ServiceDirectory.browse`.
    public func browse(type: String) -> AsyncStream<BrowseEvent> {
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
        let session = BrowseSession(
            loop: loop, type: type, continuation: continuation, settleTime: addressSettleTime)
        continuation.onTermination = { _ in
            loop.perform { session.cancel() }
        }
        loop.perform { session.start() }
        return stream
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

/// One browse: the DNSServiceBrowse ref plus, per service, a resolve and
/// A/AAAA queries. Loop thread only.
///
/// `@unchecked Sendable` only so jobs can carry it to the loop thread.
final class BrowseSession: @unchecked Sendable {
    private let loop: DNSSDEventLoop
    private let type: String
    private let continuation: AsyncStream<BrowseEvent>.Continuation
    private let settleTime: Double
    private var browseRef: ServiceRef?
    private var services: [ServiceInstance: TrackedService] = [:]
    private var finished = false

    init(loop: DNSSDEventLoop, type: String, continuation: AsyncStream<BrowseEvent>.Continuation, settleTime: Double) {
        self.loop = loop
        self.type = type
        self.continuation = continuation
        self.settleTime = settleTime
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
    }

    func cancel() {
        finished = true
        browseRef?.deallocate()
        browseRef = nil
        for service in services.values { service.stop() }
        services = [:]
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
        guard let name, let type, let domain else { return }
        let instance = ServiceInstance(name: name, type: type, domain: domain)
        if added {
            if let service = services[instance] {
                service.sightings[interfaceIndex, default: 0] += 1
            } else {
                let service = TrackedService(instance: instance, session: self, interfaceIndex: interfaceIndex)
                service.sightings[interfaceIndex] = 1
                services[instance] = service
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
        let wasReported = service.reported != nil
        loop.later { service.stop() }
        if wasReported { continuation.yield(.lost(instance)) }
    }

    private func resolve(_ service: TrackedService) {
        var newRef: DNSServiceRef?
        let context = Unmanaged.passUnretained(service).toOpaque()
        let instance = service.instance
        let code = loop.library.resolve(
            &newRef, 0, service.interfaceIndex, instance.name, instance.type, instance.domain,
            { _, _, interfaceIndex, errorCode, _, hostTarget, port, txtLength, txt, context in
                guard let context else { return }
                let service = Unmanaged<TrackedService>.fromOpaque(context).takeUnretainedValue()
                let bytes = txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(txtLength))) } ?? []
                service.session?.handleResolve(
                    service, interfaceIndex: interfaceIndex, errorCode: errorCode,
                    hostTarget: hostTarget.map { String(cString: $0) }, port: UInt16(bigEndian: port), txt: bytes)
            }, context)
        guard code == 0, let newRef else {
            // One service failing to resolve does not end the browse, but a
            // missing daemon does.
            if Int(code) == kDNSServiceErr_Unknown { fail(.daemonDisconnected(operation: "resolving \(instance.name)")) }
            return
        }
        let serviceRef = ServiceRef(newRef, operation: "DNSServiceResolve", library: loop.library)
        service.resolveRef = serviceRef
        loop.add(serviceRef)
    }

    fileprivate func handleResolve(
        _ service: TrackedService, interfaceIndex: UInt32, errorCode: DNSServiceErrorType, hostTarget: String?,
        port: UInt16, txt: [UInt8]
    ) {
        guard errorCode == 0, let hostTarget, services[service.instance] === service else { return }
        if service.hostTarget != hostTarget {
            service.hostTarget = hostTarget
            service.stopQueries()
            service.addresses = []
            service.queryA = query(service, host: hostTarget, recordType: UInt16(kDNSServiceType_A))
            service.queryAAAA = query(service, host: hostTarget, recordType: UInt16(kDNSServiceType_AAAA))
        }
        service.port = port
        service.txt = TXTRecord(decoding: txt)
        if service.settleTimer == nil && service.reported == nil {
            service.settleTimer = loop.schedule(after: settleTime) { [self, service] in
                service.settled = true
                report(service)
            }
        }
        report(service)
    }

    private func query(_ service: TrackedService, host: String, recordType: UInt16) -> ServiceRef? {
        var newRef: DNSServiceRef?
        let context = Unmanaged.passUnretained(service).toOpaque()
        let code = loop.library.queryRecord(
            &newRef, 0, service.interfaceIndex, host, recordType, UInt16(kDNSServiceClass_IN),
            { _, flags, interfaceIndex, errorCode, _, recordType, _, length, data, _, context in
                guard let context else { return }
                let service = Unmanaged<TrackedService>.fromOpaque(context).takeUnretainedValue()
                let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
                service.session?.handleAddress(
                    service, added: flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0,
                    interfaceIndex: interfaceIndex, errorCode: errorCode, recordType: recordType, bytes: bytes)
            }, context)
        guard code == 0, let newRef else { return nil }
        let serviceRef = ServiceRef(newRef, operation: "DNSServiceQueryRecord", library: loop.library)
        loop.add(serviceRef)
        return serviceRef
    }

    fileprivate func handleAddress(
        _ service: TrackedService, added: Bool, interfaceIndex: UInt32, errorCode: DNSServiceErrorType,
        recordType: UInt16, bytes: [UInt8]
    ) {
        guard errorCode == 0, services[service.instance] === service else { return }
        let expected = recordType == UInt16(kDNSServiceType_A) ? 4 : 16
        guard bytes.count == expected, let address = ServiceAddress(bytes: bytes, interfaceIndex: interfaceIndex)
        else { return }
        if added {
            service.addresses.insert(address)
        } else {
            service.addresses.remove(address)
        }
        report(service)
    }

    /// Emits `.found` once the service is resolved and its addresses have
    /// settled (both families seen, or the settle time passed), then
    /// `.updated` whenever what a user sees changes.
    private func report(_ service: TrackedService) {
        guard !finished, services[service.instance] === service, let hostTarget = service.hostTarget else { return }
        let families = Set(service.addresses.map(\.family))
        if service.reported == nil && !service.settled && families.count < 2 { return }
        let snapshot = DiscoveredService(
            instance: service.instance, hostTarget: hostTarget, port: service.port,
            interfaceIndex: service.interfaceIndex, txt: service.txt, addresses: service.addresses.sorted())
        guard snapshot != service.reported else { return }
        let event: BrowseEvent = service.reported == nil ? .found(snapshot) : .updated(snapshot)
        service.reported = snapshot
        loop.cancelTimer(service.settleTimer)
        continuation.yield(event)
    }
}

/// What a browse knows about one service instance. Loop thread only.
final class TrackedService {
    let instance: ServiceInstance
    weak var session: BrowseSession?
    let interfaceIndex: UInt32
    /// Adds minus removes, per interface (avahi sends one per IP family).
    var sightings: [UInt32: Int] = [:]
    var resolveRef: ServiceRef?
    var queryA: ServiceRef?
    var queryAAAA: ServiceRef?
    var hostTarget: String?
    var port: UInt16 = 0
    var txt = TXTRecord()
    var addresses: Set<ServiceAddress> = []
    var settleTimer: Int?
    var settled = false
    var reported: DiscoveredService?

    init(instance: ServiceInstance, session: BrowseSession, interfaceIndex: UInt32) {
        self.instance = instance
        self.session = session
        self.interfaceIndex = interfaceIndex
    }

    func stopQueries() {
        queryA?.deallocate()
        queryAAAA?.deallocate()
        queryA = nil
        queryAAAA = nil
    }

    func stop() {
        resolveRef?.deallocate()
        resolveRef = nil
        stopQueries()
        session?.loopCancelTimer(settleTimer)
        settleTimer = nil
    }
}

extension BrowseSession {
    fileprivate func loopCancelTimer(_ id: Int?) {
        loop.cancelTimer(id)
    }
}
