// Every Discovery failure, and the one place its text is written.

@preconcurrency import Glibc

/// What went wrong advertising or browsing.
public enum DiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// avahi's dns_sd library (`name`) could not be loaded.
    case libraryMissing(name: String, reason: String)
    /// No avahi-daemon answered (not running, or D-Bus unreachable). `operation` is the dns_sd call.
    case daemonUnavailable(operation: String, code: Int32)
    /// The daemon went away while a registration or browse was running.
    case daemonDisconnected(operation: String)
    /// Every alternative name was taken.
    case nameConflict(name: String)
    /// The registration cannot be sent as given (bad name, type, port).
    case invalidRegistration(String)
    /// The TXT record could not be encoded.
    case invalidTXTRecord(TXTRecordError)
    /// The advertisement was already withdrawn.
    case withdrawn(name: String)
    /// The daemon did not confirm in time.
    case timedOut(operation: String, seconds: Int)
    /// A service was seen but avahi gave no address for it in time.
    case unresolved(name: String, seconds: Int64)
    /// Another dns_sd error code.
    case serviceError(operation: String, code: Int32)
    /// avahi-daemon refused a browser or resolver: its limit on clients or on one client's objects.
    case daemonRefused(operation: String, reason: String)
    /// Another avahi-client error, with avahi's sentence for it.
    case avahiError(operation: String, reason: String)
    /// Diverting standard error to a file failed.
    case cannotDivertStandardError(path: String, errno: Int32)

    /// What to tell a person, including how to get going again.
    public var description: String {
        switch self {
        case .libraryMissing(let name, let reason):
            return """
                DNS-SD is not available: the library \(name) could not be loaded (\(reason)).
                Install it with 'sudo apt-get install libavahi-compat-libdnssd1 avahi-daemon', \
                or skip discovery: 'parlor join HOST:PORT' works without it.
                """
        case .daemonUnavailable(let operation, let code):
            return """
                DNS-SD is not available: no avahi-daemon is running or D-Bus is unreachable \
                (\(operation) failed with \(Self.codeName(code))).
                Start it with 'sudo systemctl start avahi-daemon' (install it with \
                'sudo apt-get install avahi-daemon'), or skip discovery: \
                'parlor join HOST:PORT' works without it.
                """
        case .daemonDisconnected(let operation):
            return """
                avahi-daemon went away during \(operation). Restart it with \
                'sudo systemctl restart avahi-daemon', or use 'parlor join HOST:PORT', which works without it.
                """
        case .nameConflict(let name):
            return "the service name '\(name)' and its alternatives are all taken on this network; pick another name"
        case .invalidRegistration(let reason):
            return "cannot advertise: \(reason)"
        case .invalidTXTRecord(let error):
            return "cannot advertise: \(error)"
        case .withdrawn(let name):
            return "the advertisement '\(name)' was already withdrawn"
        case .timedOut(let operation, let seconds):
            return "avahi-daemon did not answer \(operation) within \(seconds) seconds; is it healthy? ('avahi-daemon --check')"
        case .unresolved(let name, let seconds):
            return """
                avahi-daemon sees "\(name)" but could not resolve its address within \(seconds) s; \
                try again, or join it by the address its host printed: 'parlor join HOST:PORT'
                """
        case .serviceError(let operation, let code) where Int(code) == -65553:
            return """
                avahi-daemon refused \(operation) (kDNSServiceErr_Refused: too many clients or lookups); \
                parlor tries again. 'parlor doctor' shows the daemon's limits.
                """
        case .serviceError(let operation, let code):
            return "\(operation) failed: \(Self.codeName(code))"
        case .daemonRefused(let operation, let reason):
            return """
                avahi-daemon refused \(operation) (\(reason)); parlor tries again. \
                'parlor doctor' shows the daemon's limits.
                """
        case .avahiError(let operation, let reason):
            return "\(operation) failed: \(reason)"
        case .cannotDivertStandardError(let path, let errno):
            return "cannot send standard error to \(path): \(String(cString: strerror(errno)))"
        }
    }

    /// Whether the refusal may pass by itself, so that trying again later can
    /// succeed: no daemon answering yet (not started, D-Bus not up), one too
    /// busy to confirm in time, one that went away (restarting), or one at its
    /// client limit (`kDNSServiceErr_Refused`). The one place this is decided.
    public var mayPass: Bool {
        switch self {
        case .daemonUnavailable, .daemonDisconnected, .timedOut, .daemonRefused: true
        case .serviceError(_, let code): code == -65553
        case .libraryMissing, .nameConflict, .invalidRegistration, .invalidTXTRecord, .withdrawn, .unresolved,
             .cannotDivertStandardError, .avahiError: false
        }
    }

    /// A dns_sd.h error code's name, e.g. "kDNSServiceErr_Unknown (-65537)", or an avahi one's ("AVAHI_ERR_NO_DAEMON (-26)").
    static func codeName(_ code: Int32) -> String {
        let avahiNames: [Int32: String] = [
            -20: "ACCESS_DENIED", -22: "DBUS_ERROR", -23: "DISCONNECTED", -26: "NO_DAEMON", -50: "NOT_PERMITTED",
        ]
        if code > -100 { return "AVAHI_ERR_\(avahiNames[code] ?? "?") (\(code))" }
        let names: [Int32: String] = [
            -65537: "Unknown", -65538: "NoSuchName", -65539: "NoMemory", -65540: "BadParam",
            -65541: "BadReference", -65542: "BadState", -65543: "BadFlags", -65544: "Unsupported",
            -65545: "NotInitialized", -65547: "AlreadyRegistered", -65548: "NameConflict",
            -65549: "Invalid", -65550: "Firewall", -65551: "Incompatible", -65552: "BadInterfaceIndex",
            -65553: "Refused", -65554: "NoSuchRecord", -65555: "NoAuth", -65556: "NoSuchKey",
            -65557: "NATTraversal", -65558: "DoubleNAT", -65559: "BadTime",
        ]
        return "kDNSServiceErr_\(names[code] ?? "?") (\(code))"
    }
}
