@preconcurrency import Glibc
import Foundation

/// A loopback TCP port for a test's `--port`: free a moment ago, and outside
/// the kernel's ephemeral range, so no outgoing connection (another test's
/// client, a redial) can be handed it before the test's host binds it.
///
/// A port in the ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`,
/// 32768–60999 by default) can be taken at any moment by a connecting socket;
/// a host that binds it then fails with "port … is already in use". Ports
/// below the range are only ever taken by a `bind`, which this checks.
public func freePort() -> UInt16 {
    let (low, high) = ephemeralRange()
    // Below the ephemeral range (above the services most machines run), or else above it.
    guard low > 12_000 || high < 64_000 else {
        fatalError("the ephemeral ports (\(low)-\(high), ip_local_port_range) leave no room for a test's port")
    }
    let candidates: ClosedRange<Int> = low > 12_000 ? 10_000...(low - 1) : (high + 1)...65_535
    for _ in 0..<200 {
        let port = UInt16(Int.random(in: candidates))
        if canBind(port) { return port }
    }
    fatalError("no free loopback port in \(candidates) after 200 tries")
}

/// The kernel's ephemeral port range.
func ephemeralRange() -> (Int, Int) {
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
    let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
    return numbers.count == 2 ? (numbers[0], numbers[1]) : (32_768, 60_999)
}

/// Whether a listening socket could bind 127.0.0.1:`port` now.
func canBind(_ port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var on: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } } == 0
}
