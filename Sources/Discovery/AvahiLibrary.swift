// avahi's client library, loaded at run time.
//
// Browsing and resolving go through avahi-client: one D-Bus connection and
// one thread for every browser and resolver of the process, where avahi's
// dns_sd compatibility library made a thread and a D-Bus connection per
// DNSServiceRef (issue 40: at 200 games most of a browse's time was the
// kernel making and tearing those down). Like libdns_sd it is loaded with
// dlopen, so parlor still starts, hosts and joins by address on a machine
// without it (issue 4), and a missing library is a DiscoveryError.

import CAvahiClient
@preconcurrency import Glibc

/// The avahi-client and avahi-common functions parlor uses.
///
/// `@unchecked Sendable`: immutable C function pointers into libraries that
/// are never unloaded.
struct AvahiFunctions: @unchecked Sendable {
    typealias ThreadedPollNew = @convention(c) () -> OpaquePointer?
    typealias ThreadedPollGet = @convention(c) (OpaquePointer?) -> UnsafePointer<AvahiPoll>?
    typealias ThreadedPollStart = @convention(c) (OpaquePointer?) -> Int32
    typealias ClientNew = @convention(c) (
        UnsafePointer<AvahiPoll>?, AvahiClientFlags, AvahiClientCallback?, UnsafeMutableRawPointer?,
        UnsafeMutablePointer<Int32>?
    ) -> OpaquePointer?
    typealias ClientFree = @convention(c) (OpaquePointer?) -> Void
    typealias ClientErrno = @convention(c) (OpaquePointer?) -> Int32
    typealias BrowserNew = @convention(c) (
        OpaquePointer?, AvahiIfIndex, AvahiProtocol, UnsafePointer<CChar>?, UnsafePointer<CChar>?, AvahiLookupFlags,
        AvahiServiceBrowserCallback?, UnsafeMutableRawPointer?
    ) -> OpaquePointer?
    typealias ResolverNew = @convention(c) (
        OpaquePointer?, AvahiIfIndex, AvahiProtocol, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
        UnsafePointer<CChar>?, AvahiProtocol, AvahiLookupFlags, AvahiServiceResolverCallback?,
        UnsafeMutableRawPointer?
    ) -> OpaquePointer?
    typealias ObjectFree = @convention(c) (OpaquePointer?) -> Int32
    typealias StrError = @convention(c) (Int32) -> UnsafePointer<CChar>?

    let threadedPollNew: ThreadedPollNew
    let threadedPollGet: ThreadedPollGet
    let threadedPollStart: ThreadedPollStart
    let clientNew: ClientNew
    let clientFree: ClientFree
    let clientErrno: ClientErrno
    let browserNew: BrowserNew
    let browserFree: ObjectFree
    let resolverNew: ResolverNew
    let resolverFree: ObjectFree
    let strerror: StrError

    /// avahi's sentence for an error code.
    func message(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}

/// Process-wide access to avahi-client.
enum AvahiLibrary {
    /// The sonames (Debian libavahi-client3, libavahi-common3).
    static let clientName = "libavahi-client.so.3"
    static let commonName = "libavahi-common.so.3"

    /// The libraries, loaded once; the error says what to install when one is missing.
    static let shared: Result<AvahiFunctions, DiscoveryError> = load()

    private static func load() -> Result<AvahiFunctions, DiscoveryError> {
        // The handles are kept for the life of the process: the avahi thread
        // runs their code until the process ends.
        guard let common = dlopen(commonName, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.libraryMissing(name: commonName, reason: lastLoaderError()))
        }
        guard let client = dlopen(clientName, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.libraryMissing(name: clientName, reason: lastLoaderError()))
        }
        func symbol<Function>(_ handle: UnsafeMutableRawPointer, _ name: String, _ library: String,
                              as type: Function.Type) throws(DiscoveryError) -> Function {
            guard let address = dlsym(handle, name) else {
                throw .libraryMissing(name: library, reason: "it has no \(name): \(lastLoaderError())")
            }
            return unsafeBitCast(address, to: type)
        }
        do throws(DiscoveryError) {
            return .success(AvahiFunctions(
                threadedPollNew: try symbol(common, "avahi_threaded_poll_new", commonName, as: AvahiFunctions.ThreadedPollNew.self),
                threadedPollGet: try symbol(common, "avahi_threaded_poll_get", commonName, as: AvahiFunctions.ThreadedPollGet.self),
                threadedPollStart: try symbol(common, "avahi_threaded_poll_start", commonName, as: AvahiFunctions.ThreadedPollStart.self),
                clientNew: try symbol(client, "avahi_client_new", clientName, as: AvahiFunctions.ClientNew.self),
                clientFree: try symbol(client, "avahi_client_free", clientName, as: AvahiFunctions.ClientFree.self),
                clientErrno: try symbol(client, "avahi_client_errno", clientName, as: AvahiFunctions.ClientErrno.self),
                browserNew: try symbol(client, "avahi_service_browser_new", clientName, as: AvahiFunctions.BrowserNew.self),
                browserFree: try symbol(client, "avahi_service_browser_free", clientName, as: AvahiFunctions.ObjectFree.self),
                resolverNew: try symbol(client, "avahi_service_resolver_new", clientName, as: AvahiFunctions.ResolverNew.self),
                resolverFree: try symbol(client, "avahi_service_resolver_free", clientName, as: AvahiFunctions.ObjectFree.self),
                strerror: try symbol(common, "avahi_strerror", commonName, as: AvahiFunctions.StrError.self)))
        } catch {
            return .failure(error)
        }
    }

    private static func lastLoaderError() -> String {
        guard let message = dlerror() else { return "unknown loader error" }
        return String(cString: message)
    }

    /// Maps an avahi error code to DiscoveryError: the one place this is decided.
    static func error(_ code: Int32, operation: String, library: AvahiFunctions) -> DiscoveryError {
        switch Int(code) {
        case AVAHI_ERR_NO_DAEMON, AVAHI_ERR_DBUS_ERROR, AVAHI_ERR_NOT_PERMITTED, AVAHI_ERR_ACCESS_DENIED:
            return .daemonUnavailable(operation: operation, code: code)
        case AVAHI_ERR_DISCONNECTED:
            return .daemonDisconnected(operation: operation)
        case AVAHI_ERR_TOO_MANY_CLIENTS, AVAHI_ERR_TOO_MANY_OBJECTS, AVAHI_ERR_TOO_MANY_ENTRIES:
            return .daemonRefused(operation: operation, reason: library.message(code))
        default:
            return .avahiError(operation: operation, reason: library.message(code))
        }
    }
}
