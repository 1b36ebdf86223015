// An IPv4 or IPv6 address with a port, convertible to and from C sockaddrs.
@preconcurrency import Glibc

/// An IP address and TCP port, IPv4 or IPv6 (with the interface scope that
/// link-local IPv6 addresses need).
///
/// Printed as `192.0.2.7:7777` or `[fe80::1%eth0]:7777`, the form that
/// `parlor join` accepts.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        /// IPv4 (`AF_INET`).
        case ipv4
        /// IPv6 (`AF_INET6`).
        case ipv6
    }

    /// IPv4 or IPv6.
    public let family: Family
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let addressBytes: [UInt8]
    /// The TCP port.
    public let port: UInt16
    /// The interface index a link-local IPv6 address is reached through (0 when none).
    public let scopeID: UInt32

    /// A peer's description without its port: "192.0.2.7:5000" → "192.0.2.7",
    /// "[::1]:5000" → "[::1]". Admission and the encrypted channel count
    /// wrong passcode guesses per address, not per port.
    static func host(ofPeer peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":"), !peer[colon...].contains("]") else { return peer }
        return String(peer[..<colon])
    }

    /// Creates an address from raw network-order bytes (4 or 16 of them).
    ///
    /// Throws `NetError.invalidAddress` for any other length.
    public init(addressBytes: [UInt8], port: UInt16, scopeID: UInt32 = 0) throws(NetError) {
        switch addressBytes.count {
        case 4: family = .ipv4
        case 16: family = .ipv6
        default: throw NetError.invalidAddress("\(addressBytes.count) address bytes (expected 4 or 16)")
        }
        self.addressBytes = addressBytes
        self.port = port
        self.scopeID = family == .ipv6 ? scopeID : 0
    }

    /// Parses a numeric address such as `127.0.0.1`, `::1`, `[::1]` or
    /// `fe80::1%eth0` (the scope may be an interface name or index).
    ///
    /// `interfaceIndex`, when not 0, sets the scope of an IPv6 address that
    /// has none in the text (DNS-SD reports the interface separately).
    /// Throws `NetError.invalidAddress`; never resolves names.
    public init(ipAddress text: String, port: UInt16, interfaceIndex: UInt32 = 0) throws(NetError) {
        var host = text
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var scopeText: Substring? = nil
        if let percent = host.firstIndex(of: "%") {
            scopeText = host[host.index(after: percent)...]
            host = String(host[..<percent])
        }
        var v4 = in_addr()
        if scopeText == nil, inet_pton(AF_INET, host, &v4) == 1 {
            self.init(ipv4: v4, port: port)
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else {
            throw NetError.invalidAddress(text)
        }
        var scope = interfaceIndex
        if let scopeText {
            if let number = UInt32(scopeText) {
                scope = number
            } else {
                let index = if_nametoindex(String(scopeText))
                guard index != 0 else { throw NetError.invalidAddress("\(text) (no interface named \(scopeText))") }
                scope = index
            }
        }
        self.init(ipv6: v6, port: port, scopeID: scope)
    }

    init(ipv4 address: in_addr, port: UInt16) {
        family = .ipv4
        addressBytes = withUnsafeBytes(of: address) { Array($0) }
        self.port = port
        scopeID = 0
    }

    init(ipv6 address: in6_addr, port: UInt16, scopeID: UInt32) {
        family = .ipv6
        addressBytes = withUnsafeBytes(of: address) { Array($0) }
        self.port = port
        self.scopeID = scopeID
    }

    /// Reads a C socket address; nil for families other than IPv4 and IPv6.
    init?(_ pointer: UnsafeRawPointer, length: Int) {
        guard length >= MemoryLayout<sa_family_t>.size else { return nil }
        let family = pointer.loadUnaligned(as: sa_family_t.self)
        if Int32(family) == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
            let address = pointer.loadUnaligned(as: sockaddr_in.self)
            self.init(ipv4: address.sin_addr, port: UInt16(bigEndian: address.sin_port))
        } else if Int32(family) == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
            let address = pointer.loadUnaligned(as: sockaddr_in6.self)
            self.init(ipv6: address.sin6_addr, port: UInt16(bigEndian: address.sin6_port), scopeID: address.sin6_scope_id)
        } else {
            return nil
        }
    }

    /// The same address with another port.
    public func withPort(_ newPort: UInt16) -> SocketAddress {
        // Cannot fail: the byte count came from an existing address.
        (try? SocketAddress(addressBytes: addressBytes, port: newPort, scopeID: scopeID)) ?? self
    }

    /// True for 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        switch family {
        case .ipv4: return addressBytes[0] == 127
        case .ipv6: return addressBytes == [UInt8](repeating: 0, count: 15) + [1]
        }
    }

    /// True for IPv6 fe80::/10 and IPv4 169.254.0.0/16.
    public var isLinkLocal: Bool {
        switch family {
        case .ipv4: return addressBytes[0] == 169 && addressBytes[1] == 254
        case .ipv6: return addressBytes[0] == 0xfe && (addressBytes[1] & 0xc0) == 0x80
        }
    }

    /// An IPv4 address written as IPv6 (`::ffff:a.b.c.d`), as a dual-stack
    /// listener reports IPv4 peers.
    public var isIPv4Mapped: Bool {
        family == .ipv6 && addressBytes[0..<10].allSatisfy { $0 == 0 } && addressBytes[10] == 0xff && addressBytes[11] == 0xff
    }

    /// The IPv4 address behind an IPv4-mapped IPv6 address; otherwise `self`.
    public var unmappingIPv4: SocketAddress {
        guard isIPv4Mapped else { return self }
        return (try? SocketAddress(addressBytes: Array(addressBytes[12..<16]), port: port)) ?? self
    }

    /// The address alone: `192.0.2.7`, `fe80::1%eth0` (no brackets, no port).
    public var ipAddress: String {
        let familyCode = family == .ipv4 ? AF_INET : AF_INET6
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written = addressBytes.withUnsafeBytes { raw in
            inet_ntop(familyCode, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "?" }
        var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if family == .ipv6, scopeID != 0 {
            var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
            if if_indextoname(scopeID, &name) != nil {
                text += "%" + String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            } else {
                text += "%\(scopeID)"
            }
        }
        return text
    }

    /// `192.0.2.7:7777` or `[fe80::1%eth0]:7777`.
    public var description: String {
        family == .ipv4 ? "\(ipAddress):\(port)" : "[\(ipAddress)]:\(port)"
    }

    var cFamily: Int32 { family == .ipv4 ? AF_INET : AF_INET6 }

    /// Calls `body` with this address as a C `sockaddr` and its length.
    func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: addressBytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: addressBytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// The local (`getsockname`) or remote (`getpeername`) address of a socket.
    static func of(_ fd: Int32, peer: Bool) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
            }
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: &storage) { raw in
            guard let base = raw.baseAddress else { return nil }
            return SocketAddress(base, length: Int(length))
        }
    }
}
