// The real ServiceDirectory: advertising on avahi's dns_sd.h compatibility
// library, browsing and resolving on avahi-client.
//
// The compatibility library makes a thread and a D-Bus connection per
// DNSServiceRef (avahi's compat.c; DNSServiceCreateConnection is a stub).
// For advertising that is one per hosted game, and DNSServiceRegister's
// renaming on a clash and its TXT updates are what parlor needs. Browsing
// needs a resolve per game on the LAN: at 200 games most of the time went
// into making and tearing down those threads and connections (issue 40),
// so browses and resolves go through avahi-client's one connection
// (AvahiConnection, AvahiBrowsing.swift) instead.

import CDNSSD
import Foundation
@preconcurrency import Glibc

/// DNS-SD through avahi-daemon: advertising via avahi's dns_sd.h compatibility
/// library, browsing and resolving via avahi-client.
///
/// Creating one touches nothing; the first advertise or browse connects.
/// Library calls run on a dedicated thread (the dns_sd loop's for
/// advertising, the process's one avahi thread for the rest), never on the caller's.
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

    /// Loads avahi's dns_sd and client libraries (once per process) and says which files they are, or why one cannot be loaded.
    ///
    /// For `parlor doctor`: advertise and browse report the same error themselves.
    public static func loadLibrary() -> Result<String, DiscoveryError> {
        DNSSDLibrary.shared.flatMap { _ in
            AvahiLibrary.shared.map { _ in "\(DNSSDLibrary.defaultName), \(AvahiLibrary.clientName)" }
        }
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
    /// Through the process's one avahi-client connection (`AvahiConnection`):
    /// one browser, and a resolver per service and IP family, however many
    /// services there are.
    public func browse(type: String) -> AsyncStream<BrowseEvent> {
        browse(type: type, depth: .resolving)
    }

    /// Browses for the names of services of `type`; see `ServiceDirectory.browseNames`.
    public func browseNames(type: String) -> AsyncStream<BrowseEvent> {
        browse(type: type, depth: .namesOnly)
    }

    private func browse(type: String, depth: AvahiBrowse.Depth) -> AsyncStream<BrowseEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: BrowseEvent.self, bufferingPolicy: .unbounded)
        let connection: AvahiConnection
        switch AvahiConnection.shared {
        case .success(let shared):
            connection = shared
        case .failure(let error):
            continuation.yield(.failed(error))
            continuation.finish()
            return stream
        }
        let session = AvahiBrowse(connection: connection, type: type, continuation: continuation, depth: depth)
        continuation.onTermination = { _ in
            connection.perform { session.cancel() }
        }
        connection.perform { session.start() }
        return stream
    }

    /// Resolves one service and its addresses (IPv4 and IPv6); see `ServiceDirectory.resolve`.
    public func resolve(_ instance: ServiceInstance, within limit: Duration) async throws(DiscoveryError) -> DiscoveredService {
        let connection = try AvahiConnection.shared.get()
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        let resolution = AvahiResolution(connection: connection, instance: instance, limit: seconds)
        let result: Result<DiscoveredService, DiscoveryError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                connection.perform { resolution.start { continuation.resume(returning: $0) } }
            }
        } onCancel: {
            connection.perform { resolution.finish(.failure(.unresolved(name: instance.name, seconds: limit.components.seconds))) }
        }
        return try result.get()
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
