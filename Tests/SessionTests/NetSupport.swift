// Helpers for the network shell's tests: deadlines, echo servers, byte collection.
import Foundation
@preconcurrency import Glibc
import Testing
@testable import Session

/// A test waited longer than its deadline.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "gave up after \(seconds) s" }
}

/// Runs `body`, failing with `DeadlineExceeded` if it takes longer than
/// `seconds`, so no network test can hang the suite.
func withDeadline<T: Sendable>(_ seconds: Double = 10, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DeadlineExceeded(seconds: seconds) }
        return value
    }
}

let loopbackV4 = (try? SocketAddress(ipAddress: "127.0.0.1", port: 0))!

/// A plain blocking socket listening on loopback with `backlog`, outside
/// parlor's event loop (a peer that behaves as the test needs), and its
/// address; nil when it cannot be made. Close it with `close(fd)`.
func plainListeningSocket(backlog: Int32) -> (fd: Int32, address: SocketAddress)? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    guard loopbackV4.withSockAddr({ bind(fd, $0, $1) }) == 0, listen(fd, backlog) == 0,
          let bound = SocketAddress.of(fd, peer: false) else {
        close(fd)
        return nil
    }
    return (fd, bound)
}
let loopbackV6 = (try? SocketAddress(ipAddress: "::1", port: 0))!

/// True when ::1 can be bound (IPv6 may be disabled in a container).
let ipv6LoopbackAvailable: Bool = {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return loopbackV6.withSockAddr { bind(fd, $0, $1) } == 0
}()

/// Echoes every byte on every accepted connection until the listener closes.
@discardableResult
func startEchoServer(_ listener: TCPListener) -> Task<Void, Never> {
    Task {
        for await connection in listener.connections {
            Task {
                for await event in connection.events {
                    if case .data(let bytes) = event { connection.send(bytes) }
                }
            }
        }
    }
}

/// What a reader saw: the bytes, the sizes of the chunks they came in, and
/// the close reason if the connection ended.
struct Received: Sendable {
    var bytes: [UInt8] = []
    var chunkSizes: [Int] = []
    var closed: TCPConnection.CloseReason?
}

/// Reads until `count` bytes have arrived (or, with `count` nil, until the
/// connection closes).
func receive(from connection: TCPConnection, count: Int? = nil) async -> Received {
    var received = Received()
    var events = connection.events.makeAsyncIterator()
    while count.map({ received.bytes.count < $0 }) ?? true {
        guard let event = await events.next() else { break }
        switch event {
        case .data(let bytes):
            received.bytes.append(contentsOf: bytes)
            received.chunkSizes.append(bytes.count)
        case .closed(let reason):
            received.closed = reason
            return received
        }
    }
    return received
}

/// A recognisable pattern, so reordering or loss shows up as a mismatch:
/// its period (65 521, a prime) lines up with no buffer or chunk size.
/// Built by copying one period, because tests run unoptimised and a
/// byte-by-byte loop over megabytes would stall the shared thread pool.
func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(count)
    var start = ((seed % periodBase.count) + periodBase.count) % periodBase.count
    while result.count < count {
        result.append(contentsOf: periodBase[start...].prefix(count - result.count))
        start = 0
    }
    return result
}

private let periodBase: [UInt8] = (0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ ($0 >> 8)) }

/// Byte-for-byte equality through memcmp (fast in unoptimised builds too).
func sameBytes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
    guard left.count == right.count else { return false }
    return left.withUnsafeBytes { l in right.withUnsafeBytes { r in
        guard let a = l.baseAddress, let b = r.baseAddress else { return true }
        return memcmp(a, b, l.count) == 0
    } }
}

/// Threads in this process right now.
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}
