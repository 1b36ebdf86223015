// avahi's dns_sd library, loaded at run time.
//
// parlor must start, host and join by address on a machine without
// libdns_sd.so.1 (issue 4: "library missing at run time"). So the
// functions are looked up with dlopen/dlsym instead of being linked, and a
// missing library becomes a DiscoveryError like a missing daemon.
//
// Note: while Package.swift gives CDNSSD `pkgConfig:`, SwiftPM still passes
// -ldns_sd to the linker and the executable keeps a hard dependency on the
// library. Dropping `pkgConfig` there (the header is found by its full path
// in shim.h) removes it; nothing here needs to change.

import CDNSSD
@preconcurrency import Glibc

/// The dns_sd functions parlor uses, resolved from the shared library.
///
/// `@unchecked Sendable`: immutable C function pointers into a library
/// that is never unloaded.
struct DNSSDFunctions: @unchecked Sendable {
    typealias RefSockFD = @convention(c) (DNSServiceRef?) -> Int32
    typealias ProcessResult = @convention(c) (DNSServiceRef?) -> DNSServiceErrorType
    typealias RefDeallocate = @convention(c) (DNSServiceRef?) -> Void
    typealias Register = @convention(c) (
        UnsafeMutablePointer<DNSServiceRef?>?, DNSServiceFlags, UInt32, UnsafePointer<CChar>?,
        UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt16, UInt16, UnsafeRawPointer?,
        DNSServiceRegisterReply?, UnsafeMutableRawPointer?
    ) -> DNSServiceErrorType
    typealias UpdateRecord = @convention(c) (
        DNSServiceRef?, DNSRecordRef?, DNSServiceFlags, UInt16, UnsafeRawPointer?, UInt32
    ) -> DNSServiceErrorType
    typealias Browse = @convention(c) (
        UnsafeMutablePointer<DNSServiceRef?>?, DNSServiceFlags, UInt32, UnsafePointer<CChar>?,
        UnsafePointer<CChar>?, DNSServiceBrowseReply?, UnsafeMutableRawPointer?
    ) -> DNSServiceErrorType
    typealias Resolve = @convention(c) (
        UnsafeMutablePointer<DNSServiceRef?>?, DNSServiceFlags, UInt32, UnsafePointer<CChar>?,
        UnsafePointer<CChar>?, UnsafePointer<CChar>?, DNSServiceResolveReply?, UnsafeMutableRawPointer?
    ) -> DNSServiceErrorType
    typealias QueryRecord = @convention(c) (
        UnsafeMutablePointer<DNSServiceRef?>?, DNSServiceFlags, UInt32, UnsafePointer<CChar>?, UInt16, UInt16,
        DNSServiceQueryRecordReply?, UnsafeMutableRawPointer?
    ) -> DNSServiceErrorType

    let refSockFD: RefSockFD
    let processResult: ProcessResult
    let refDeallocate: RefDeallocate
    let register: Register
    let updateRecord: UpdateRecord
    let browse: Browse
    let resolve: Resolve
    let queryRecord: QueryRecord
}

/// Process-wide access to the library.
enum DNSSDLibrary {
    /// The soname of avahi's compatibility library (Debian libavahi-compat-libdnssd1).
    static let defaultName = "libdns_sd.so.1"

    /// The library, loaded once; the error says what to install when it is missing.
    static let shared: Result<DNSSDFunctions, DiscoveryError> = {
        // Silence avahi's three-line "this is a compatibility layer"
        // warning; it reads the variable on first use.
        setenv("AVAHI_COMPAT_NOWARN", "1", 1)
        return load(named: defaultName)
    }()

    /// Loads `name` and resolves every function, or explains what is missing.
    static func load(named name: String) -> Result<DNSSDFunctions, DiscoveryError> {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.libraryMissing(name: name, reason: lastLoaderError()))
        }
        func symbol<Function>(_ symbolName: String, as type: Function.Type) throws(DiscoveryError) -> Function {
            guard let address = dlsym(handle, symbolName) else {
                throw .libraryMissing(name: name, reason: "it has no \(symbolName): \(lastLoaderError())")
            }
            return unsafeBitCast(address, to: type)
        }
        do throws(DiscoveryError) {
            // The handle is kept for the life of the process: callbacks may
            // run on the library's threads until the last ref is freed.
            return .success(
                DNSSDFunctions(
                    refSockFD: try symbol("DNSServiceRefSockFD", as: DNSSDFunctions.RefSockFD.self),
                    processResult: try symbol("DNSServiceProcessResult", as: DNSSDFunctions.ProcessResult.self),
                    refDeallocate: try symbol("DNSServiceRefDeallocate", as: DNSSDFunctions.RefDeallocate.self),
                    register: try symbol("DNSServiceRegister", as: DNSSDFunctions.Register.self),
                    updateRecord: try symbol("DNSServiceUpdateRecord", as: DNSSDFunctions.UpdateRecord.self),
                    browse: try symbol("DNSServiceBrowse", as: DNSSDFunctions.Browse.self),
                    resolve: try symbol("DNSServiceResolve", as: DNSSDFunctions.Resolve.self),
                    queryRecord: try symbol("DNSServiceQueryRecord", as: DNSSDFunctions.QueryRecord.self)))
        } catch {
            dlclose(handle)
            return .failure(error)
        }
    }

    private static func lastLoaderError() -> String {
        guard let message = dlerror() else { return "unknown loader error" }
        return String(cString: message)
    }

    /// Maps a dns_sd error code to DiscoveryError.
    static func error(_ code: DNSServiceErrorType, operation: String) -> DiscoveryError {
        switch Int(code) {
        case kDNSServiceErr_Unknown:
            // What avahi's compat layer returns when it cannot create its
            // client: no daemon, or no D-Bus system bus.
            return .daemonUnavailable(operation: operation, code: code)
        case kDNSServiceErr_BadParam:
            return .invalidRegistration("the daemon rejected a parameter of \(operation)")
        default:
            return .serviceError(operation: operation, code: code)
        }
    }
}
