// The shape of DNS-SD as parlor uses it: advertise one service, browse a
// service type. DNSSDDirectory is the real one (avahi's dns_sd.h library);
// InMemoryDirectory (Tests/ParlorTestSupport) is the fake for tests. Nothing outside this module
// sees CDNSSD.

@preconcurrency import Glibc

/// Advertises services and browses for them on the local network.
///
/// Implementations are safe to call from any task. Neither call blocks the
/// cooperative thread pool.
public protocol ServiceDirectory: Sendable {
    /// Registers `registration` and returns once the name is established.
    ///
    /// The returned advertisement's `name` is the name actually registered:
    /// on a clash the daemon renames ("Ana's game #2"). Keep the
    /// advertisement alive for as long as the service should be visible.
    /// - Throws: `DiscoveryError`, e.g. `.daemonUnavailable` without avahi.
    func advertise(_ registration: ServiceRegistration) async throws(DiscoveryError) -> any ServiceAdvertisement

    /// A live stream of services of `type` (e.g. `parlorServiceType`).
    ///
    /// Each service is reported once however many interfaces and address
    /// families it is seen on: `.found` when it is resolved, `.updated` when
    /// its TXT, port or addresses change, `.lost` when it goes. A failure is
    /// reported as `.failed` and ends the stream. Stop browsing by
    /// dropping or cancelling the iteration.
    func browse(type: String) -> AsyncStream<BrowseEvent>

    /// A live stream of the names of services of `type`, resolving none of them.
    ///
    /// `.found` may carry only the instance (no host, port, TXT or
    /// addresses); `.lost` and `.failed` as in `browse`. For finding one game
    /// by name on a crowded network: resolve only the one picked, with
    /// `resolve(_:within:)`. The default is `browse(type:)`.
    func browseNames(type: String) -> AsyncStream<BrowseEvent>

    /// Resolves one service: its host, port, TXT record and at least one
    /// address, trying again until `limit` has passed.
    ///
    /// - Throws: `DiscoveryError.unresolved` when no address came in time,
    ///   or why the daemon could not be asked.
    func resolve(_ instance: ServiceInstance, within limit: Duration) async throws(DiscoveryError) -> DiscoveredService
}

extension ServiceDirectory {
    /// The whole browse: its `.found` events carry everything.
    public func browseNames(type: String) -> AsyncStream<BrowseEvent> {
        browse(type: type)
    }

    /// Browses the instance's type until the instance is seen with an address.
    public func resolve(_ instance: ServiceInstance, within limit: Duration) async throws(DiscoveryError) -> DiscoveredService {
        let type = instance.type.hasSuffix(".") ? String(instance.type.dropLast()) : instance.type
        let name = instance.name.lowercased()
        let sighting = await firstService(ofType: type, within: limit) {
            $0.name.lowercased() == name && !$0.addresses.isEmpty
        }
        switch sighting {
        case .seen(let service): return service
        case .failed(let error): throw error
        case .notSeen, .ended: throw .unresolved(name: instance.name, seconds: limit.components.seconds)
        }
    }
}

/// A registered service; withdrawing it (or dropping the last reference) removes it from the network.
///
/// When the process dies, even by SIGKILL, avahi-daemon sees its client go
/// and withdraws the service itself.
public protocol ServiceAdvertisement: AnyObject, Sendable {
    /// The instance name actually registered; may differ from the requested one after a clash.
    var name: String { get }
    /// The name it is listed under at this moment, nil while it is not listed
    /// (a `RetryingAdvertisement` still trying). Read it each time it matters:
    /// a listing made later, or renamed after a clash, changes it.
    var listedName: String? { get }
    /// The service type, e.g. "_parlor._tcp".
    var type: String { get }
    /// Replaces the TXT record peers see.
    /// - Throws: `DiscoveryError.withdrawn` after `withdraw()`, or the daemon's error.
    func update(txt: TXTRecord) async throws(DiscoveryError)
    /// Removes the service from the network; later calls do nothing.
    func withdraw() async
}

extension ServiceAdvertisement {
    /// A registration the daemon confirmed is listed under its `name`.
    public var listedName: String? { name }
}

/// What to register: an instance name, a type, a TCP port and a TXT record.
public struct ServiceRegistration: Sendable, Hashable {
    /// The instance name people read ("Ana's Connect Four"); at most 63 bytes of UTF-8.
    public var name: String
    /// The service type, `_name._tcp` or `_name._udp`.
    public var type: String
    /// The TCP (or UDP) port the service listens on.
    public var port: UInt16
    /// The TXT record.
    public var txt: TXTRecord

    /// The longest instance name DNS allows, in UTF-8 bytes.
    public static let maximumNameBytes = 63

    /// Describes a service to register.
    public init(name: String, type: String = parlorServiceType, port: UInt16, txt: TXTRecord = TXTRecord()) {
        self.name = name
        self.type = type
        self.port = port
        self.txt = txt
    }

    /// Throws `.invalidRegistration` unless the name, type and port can be registered.
    public func validate() throws(DiscoveryError) {
        if name.isEmpty { throw .invalidRegistration("the service name is empty") }
        if name.utf8.count > Self.maximumNameBytes {
            throw .invalidRegistration(
                "the service name is \(name.utf8.count) bytes; at most \(Self.maximumNameBytes) are allowed")
        }
        if !Self.isValidServiceType(type) {
            throw .invalidRegistration("'\(type)' is not a service type like _parlor._tcp")
        }
        if port == 0 { throw .invalidRegistration("port 0 cannot be advertised") }
    }

    /// Whether `type` looks like `_label._tcp` or `_label._udp` (RFC 6763 section 7).
    public static func isValidServiceType(_ type: String) -> Bool {
        let parts = type.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1] == "_tcp" || parts[1] == "_udp" else { return false }
        let label = parts[0].utf8
        guard label.count >= 2, label.count <= 16, label.first == UInt8(ascii: "_") else { return false }
        return label.dropFirst().allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                || $0 == UInt8(ascii: "-")
        }
    }

    /// `name` if free, else the next name in avahi's style: "Name #2", "Name #3", ...
    public static func alternativeName(for name: String, attempt: Int) -> String {
        guard attempt > 1 else { return name }
        let suffix = " #\(attempt)"
        let base = ParlorServiceInfo.prefix(of: name, maximumBytes: maximumNameBytes - suffix.utf8.count)
        return base + suffix
    }
}

/// A service instance's identity: its name, type and domain.
public struct ServiceInstance: Sendable, Hashable, CustomStringConvertible {
    /// The instance name ("Ana's Connect Four").
    public var name: String
    /// The type with a trailing dot as DNS-SD reports it ("_parlor._tcp.").
    public var type: String
    /// The domain ("local.").
    public var domain: String

    /// Names an instance.
    public init(name: String, type: String, domain: String) {
        self.name = name
        self.type = type
        self.domain = domain
    }

    /// "name" — the part a person reads.
    public var description: String { name }
}

/// An IPv4 or IPv6 address a service was resolved to.
public struct ServiceAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Which IP version.
    public enum Family: Sendable, Hashable {
        /// 4 address bytes.
        case ipv4
        /// 16 address bytes.
        case ipv6
    }

    /// IPv4 or IPv6.
    public let family: Family
    /// The address in network byte order (4 or 16 bytes).
    public let bytes: [UInt8]
    /// The interface it was seen on; needed to connect to IPv6 link-local addresses.
    public let interfaceIndex: UInt32

    /// An address from raw bytes; `nil` unless there are exactly 4 or 16.
    public init?(bytes: [UInt8], interfaceIndex: UInt32) {
        switch bytes.count {
        case 4: family = .ipv4
        case 16: family = .ipv6
        default: return nil
        }
        self.bytes = bytes
        self.interfaceIndex = interfaceIndex
    }

    /// 127.0.0.1, for fakes and tests.
    public static let loopbackIPv4 = ServiceAddress(ipv4: (127, 0, 0, 1))

    /// An IPv4 address from its four parts.
    public init(ipv4 parts: (UInt8, UInt8, UInt8, UInt8), interfaceIndex: UInt32 = 0) {
        family = .ipv4
        bytes = [parts.0, parts.1, parts.2, parts.3]
        self.interfaceIndex = interfaceIndex
    }

    /// True for fe80::/10, which only means something together with an interface.
    public var isLinkLocal: Bool {
        family == .ipv6 && bytes[0] == 0xFE && (bytes[1] & 0xC0) == 0x80
    }

    /// The numeric address, with `%interface` for IPv6 link-local ("fe80::1%eth0").
    ///
    /// This is the form `getaddrinfo` with `AI_NUMERICHOST` accepts, so a
    /// connector can pass it straight on.
    public var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        let converted = bytes.withUnsafeBytes { raw in
            inet_ntop(domain, raw.baseAddress, &text, socklen_t(text.count))
        }
        guard converted != nil else { return "?" }
        let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard isLinkLocal else { return numeric }
        return "\(numeric)%\(Self.interfaceName(interfaceIndex))"
    }

    /// Same as `host`.
    public var description: String { host }

    /// IPv4 before IPv6, then by bytes: the order to try connecting in.
    public static func < (lhs: ServiceAddress, rhs: ServiceAddress) -> Bool {
        if lhs.family != rhs.family { return lhs.family == .ipv4 }
        if lhs.bytes != rhs.bytes { return lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
        return lhs.interfaceIndex < rhs.interfaceIndex
    }

    private static func interfaceName(_ index: UInt32) -> String {
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard index != 0, if_indextoname(index, &name) != nil else { return String(index) }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A resolved service: where it runs and what its TXT record says.
public struct DiscoveredService: Sendable, Hashable {
    /// Name, type and domain.
    public var instance: ServiceInstance
    /// The host's DNS name ("hosta.local.").
    public var hostTarget: String
    /// The port, in host byte order.
    public var port: UInt16
    /// The interface it was first seen on (0 when unknown).
    public var interfaceIndex: UInt32
    /// The TXT record, decoded leniently.
    public var txt: TXTRecord
    /// Resolved addresses, IPv4 first; may be empty if the host's A/AAAA records never arrived.
    public var addresses: [ServiceAddress]

    /// The instance name, for display.
    public var name: String { instance.name }

    /// Describes a resolved service.
    public init(
        instance: ServiceInstance, hostTarget: String, port: UInt16, interfaceIndex: UInt32,
        txt: TXTRecord, addresses: [ServiceAddress]
    ) {
        self.instance = instance
        self.hostTarget = hostTarget
        self.port = port
        self.interfaceIndex = interfaceIndex
        self.txt = txt
        self.addresses = addresses
    }
}

/// One change seen while browsing.
public enum BrowseEvent: Sendable, Hashable {
    /// A service appeared and was resolved.
    case found(DiscoveredService)
    /// A known service's TXT record, port, host or addresses changed.
    case updated(DiscoveredService)
    /// A service went away on every interface.
    case lost(ServiceInstance)
    /// Browsing failed; the stream ends after this event.
    case failed(DiscoveryError)
    /// The daemon refused a lookup (its connection limit, its rate limit):
    /// said once per browse, which goes on and tries the lookup again.
    case refused(DiscoveryError)
}
