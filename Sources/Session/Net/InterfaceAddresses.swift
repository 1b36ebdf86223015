// The machine's own addresses, for `parlor join ADDRESS:PORT` hints and `parlor doctor`.
@preconcurrency import Glibc

/// One address configured on one network interface.
public struct InterfaceAddress: Sendable, Hashable, CustomStringConvertible {
    /// The interface name, e.g. `eth0`.
    public let interfaceName: String
    /// The interface index (the scope of its link-local IPv6 addresses).
    public let interfaceIndex: UInt32
    /// The address (port 0; use `endpoint(port:)` for a joinable address).
    public let address: SocketAddress
    /// True for fe80::/10 and 169.254/16: reachable only on this link, and an
    /// IPv6 one needs its `%interface` suffix (which `address` carries).
    public let isLinkLocal: Bool
    /// True when the interface does multicast, which DNS-SD discovery needs.
    public let supportsMulticast: Bool
    /// True when the interface is administratively up.
    public let isUp: Bool
    /// True for the loopback interface.
    public let isLoopback: Bool

    /// The address with `port`, printed as `parlor join` accepts it.
    public func endpoint(port: UInt16) -> SocketAddress { address.withPort(port) }

    /// `eth0 192.0.2.7` / `eth0 fe80::1%eth0 (link-local)`.
    public var description: String {
        var text = "\(interfaceName) \(address.ipAddress)"
        if isLinkLocal { text += " (link-local)" }
        if !supportsMulticast { text += " (no multicast)" }
        if !isUp { text += " (down)" }
        return text
    }
}

/// Lists the addresses of this machine's interfaces with getifaddrs.
public enum InterfaceAddresses {
    /// Every IPv4 and IPv6 address of every interface, in the kernel's order.
    ///
    /// Throws `NetError.systemCall` if getifaddrs fails.
    public static func all() throws(NetError) -> [InterfaceAddress] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0 else {
            throw NetError.systemCall(SystemCallError(call: "getifaddrs", errno: errno))
        }
        defer { freeifaddrs(head) }
        var result: [InterfaceAddress] = []
        var cursor = head
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            guard let raw = entry.pointee.ifa_addr, let namePointer = entry.pointee.ifa_name else { continue }
            let family = Int32(raw.pointee.sa_family)
            let length = family == AF_INET ? MemoryLayout<sockaddr_in>.size
                : family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : 0
            guard length > 0, let address = SocketAddress(UnsafeRawPointer(raw), length: length) else { continue }
            let name = String(cString: namePointer)
            let flags = entry.pointee.ifa_flags
            let index = if_nametoindex(namePointer)
            // The kernel gives link-local IPv6 addresses their scope; make sure.
            let scoped = address.isLinkLocal && address.family == .ipv6 && address.scopeID == 0
                ? ((try? SocketAddress(addressBytes: address.addressBytes, port: 0, scopeID: index)) ?? address)
                : address
            result.append(InterfaceAddress(
                interfaceName: name,
                interfaceIndex: index,
                address: scoped,
                isLinkLocal: address.isLinkLocal,
                supportsMulticast: flags & UInt32(IFF_MULTICAST) != 0,
                isUp: flags & UInt32(IFF_UP) != 0,
                isLoopback: flags & UInt32(IFF_LOOPBACK) != 0 || address.isLoopback
            ))
        }
        return result
    }

    /// The addresses other machines could reach: up, not loopback.
    /// IPv4 first, then global IPv6, then link-local IPv6.
    public static func nonLoopback() throws(NetError) -> [InterfaceAddress] {
        let candidates = try all().filter { $0.isUp && !$0.isLoopback }
        func rank(_ entry: InterfaceAddress) -> Int {
            switch (entry.address.family, entry.isLinkLocal) {
            case (.ipv4, false): return 0
            case (.ipv6, false): return 1
            case (.ipv4, true): return 2
            case (.ipv6, true): return 3
            }
        }
        // Stable: keeps the kernel's interface order within each rank.
        return candidates.enumerated()
            .sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
    }
}
