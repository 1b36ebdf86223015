import CCrypto
import Glibc

/// Why a call into libcrypto failed. None of these happen with valid
/// arguments on a working system; they are errors rather than traps because
/// the library is outside Swift's control.
public enum CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `RAND_bytes` could not produce random bytes (the system's entropy source failed).
    case randomUnavailable
    /// A libcrypto call returned failure; names the call.
    case failed(String)
    /// An argument does not fit the C interface (e.g. longer than `Int32.max`).
    case argumentTooLarge(String)
    /// libcrypto could not be loaded (or lacks a function); says why.
    case libraryMissing(String)

    public var description: String {
        switch self {
        case .randomUnavailable: "the system could not produce random bytes (libcrypto RAND_bytes failed)"
        case .failed(let call): "libcrypto \(call) failed"
        case .argumentTooLarge(let what): "\(what) is too large for libcrypto"
        case .libraryMissing(let reason): "libcrypto could not be loaded (\(reason)); install libssl3"
        }
    }
}

/// The five libcrypto functions parlor calls, looked up with dlopen/dlsym the
/// first time a passcode is used rather than linked: linking made every
/// `parlor` run (`parlor games`, `--version`) load and relocate libcrypto at
/// start-up although only passcode proofs need it.
struct CryptoFunctions: Sendable {
    typealias SHA256 = @convention(c) () -> OpaquePointer?
    typealias HMACFunction = @convention(c) (
        OpaquePointer?, UnsafeRawPointer?, Int32, UnsafePointer<UInt8>?, Int,
        UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> UnsafeMutablePointer<UInt8>?
    typealias PBKDF2 = @convention(c) (
        UnsafePointer<CChar>?, Int32, UnsafePointer<UInt8>?, Int32, Int32, OpaquePointer?, Int32,
        UnsafeMutablePointer<UInt8>?) -> Int32
    typealias RandBytes = @convention(c) (UnsafeMutablePointer<UInt8>?, Int32) -> Int32
    typealias MemCmp = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, Int) -> Int32

    let sha256: SHA256
    let hmac: HMACFunction
    let pbkdf2: PBKDF2
    let randBytes: RandBytes
    let memcmp: MemCmp

    /// OpenSSL 3's soname (Debian libssl3, which every Debian system has).
    static let libraryName = "libcrypto.so.3"

    /// The library, loaded once on first use.
    static let shared: Result<CryptoFunctions, CryptoError> = load(named: libraryName)

    static func load(named name: String) -> Result<CryptoFunctions, CryptoError> {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.libraryMissing("\(name): \(loaderError())"))
        }
        func symbol<Function>(_ symbolName: String, as type: Function.Type) throws(CryptoError) -> Function {
            guard let address = dlsym(handle, symbolName) else {
                throw .libraryMissing("\(name) has no \(symbolName): \(loaderError())")
            }
            return unsafeBitCast(address, to: type)
        }
        do throws(CryptoError) {
            // The handle is kept for the life of the process.
            return .success(CryptoFunctions(
                sha256: try symbol("EVP_sha256", as: SHA256.self),
                hmac: try symbol("HMAC", as: HMACFunction.self),
                pbkdf2: try symbol("PKCS5_PBKDF2_HMAC", as: PBKDF2.self),
                randBytes: try symbol("RAND_bytes", as: RandBytes.self),
                memcmp: try symbol("CRYPTO_memcmp", as: MemCmp.self)))
        } catch {
            dlclose(handle)
            return .failure(error)
        }
    }

    private static func loaderError() -> String {
        guard let message = dlerror() else { return "unknown loader error" }
        return String(cString: message)
    }
}

/// The few libcrypto primitives parlor uses, with Swift arrays in and out.
///
/// No cryptography is written here: every operation is one OpenSSL call
/// (HMAC, PKCS5_PBKDF2_HMAC, RAND_bytes, CRYPTO_memcmp). This file is the
/// only importer of CCrypto.
public enum Crypto {
    /// Length of an HMAC-SHA256 result.
    public static let sha256Length = 32

    /// HMAC-SHA256 of `data` under `key` (RFC 2104 with SHA-256, as RFC 4231 tests it).
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let keyLength = Int32(exactly: key.count) else { throw .argumentTooLarge("HMAC key") }
        let lib = try CryptoFunctions.shared.get()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outputLength: UInt32 = 0
        let ok = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBufferPointer { dataBytes in
                output.withUnsafeMutableBufferPointer { out in
                    lib.hmac(lib.sha256(), keyBytes.baseAddress, keyLength, dataBytes.baseAddress, dataBytes.count,
                         out.baseAddress, &outputLength) != nil
                }
            }
        }
        guard ok, outputLength == sha256Length else { throw .failed("HMAC") }
        return Array(output.prefix(sha256Length))
    }

    /// PBKDF2 with HMAC-SHA256 (RFC 8018), `length` bytes.
    public static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) throws(CryptoError) -> [UInt8] {
        guard let passwordLength = Int32(exactly: password.count) else { throw .argumentTooLarge("PBKDF2 password") }
        guard let saltLength = Int32(exactly: salt.count) else { throw .argumentTooLarge("PBKDF2 salt") }
        guard let rounds = Int32(exactly: iterations), rounds > 0 else { throw .argumentTooLarge("PBKDF2 iteration count") }
        guard let keyLength = Int32(exactly: length), keyLength > 0 else { throw .argumentTooLarge("PBKDF2 key length") }
        let lib = try CryptoFunctions.shared.get()
        var output = [UInt8](repeating: 0, count: length)
        let ok = password.withUnsafeBufferPointer { passwordBytes in
            salt.withUnsafeBufferPointer { saltBytes in
                output.withUnsafeMutableBufferPointer { out in
                    passwordBytes.withMemoryRebound(to: CChar.self) { passwordChars in
                        lib.pbkdf2(passwordChars.baseAddress, passwordLength, saltBytes.baseAddress, saltLength,
                                   rounds, lib.sha256(), keyLength, out.baseAddress) == 1
                    }
                }
            }
        }
        guard ok else { throw .failed("PKCS5_PBKDF2_HMAC") }
        return output
    }

    /// `count` bytes from libcrypto's CSPRNG.
    public static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard let length = Int32(exactly: count) else { throw .argumentTooLarge("random byte count") }
        let lib = try CryptoFunctions.shared.get()
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { lib.randBytes($0.baseAddress, length) == 1 }
        guard ok else { throw .randomUnavailable }
        return bytes
    }

    /// Whether `a` and `b` are equal, in time that does not depend on where
    /// they differ (CRYPTO_memcmp). Different lengths are unequal at once:
    /// lengths are not secret here. Without libcrypto nothing is equal (a
    /// proof is refused, never accepted).
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        guard case .success(let lib) = CryptoFunctions.shared else { return false }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in lib.memcmp(left.baseAddress, right.baseAddress, a.count) == 0 }
        }
    }
}
