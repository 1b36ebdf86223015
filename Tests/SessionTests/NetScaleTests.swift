// Many connections, one thread; addresses; the raw ping-pong baseline.
@preconcurrency import Glibc
import Testing
@testable import Session

@Suite("One loop, many connections")
struct NetScaleTests {
    @Test("200 concurrent connections are served by one loop thread")
    func twoHundredConnectionsOneThread() async throws {
        let loop = try EventLoop(name: "parlor-net-test")
        defer { loop.shutdown() }
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4), backlog: 256, loop: loop)
        startEchoServer(listener)
        let before = threadCount()
        let (echoed, registrations, during) = try await withDeadline(30) {
            var clients: [TCPConnection] = []
            for _ in 0..<200 {
                clients.append(try await TCPConnection.connect(addresses: [listener.localAddress], loop: loop))
            }
            let echoed = await withTaskGroup(of: Bool.self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        let message = pattern(100, seed: index)
                        client.send(message)
                        return await receive(from: client, count: 100).bytes == message
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            let registrations = loop.registrationCount
            let during = threadCount()
            for client in clients { client.abort() }
            return (echoed, registrations, during)
        }
        listener.close()
        #expect(echoed == 200)
        #expect(registrations >= 401, "200 clients + 200 served + the listener")
        // A thread per connection would add hundreds; allow a little slack for
        // the test runner's own pools.
        #expect(during - before < 10, "threads before \(before), with 400 sockets open \(during)")
    }

    @Test("the loop runs timers in deadline order and cancelled ones not at all")
    func timers() async throws {
        let loop = try EventLoop(name: "parlor-net-timers")
        defer { loop.shutdown() }
        let order = try await withDeadline {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Int], Never>) in
                let log = Log()
                loop.schedule(after: .milliseconds(60)) { log.append(3); continuation.resume(returning: log.items) }
                let cancelled = loop.schedule(after: .milliseconds(30)) { log.append(99) }
                loop.schedule(after: .milliseconds(40)) { log.append(2) }
                loop.schedule(after: .milliseconds(10)) { log.append(1) }
                loop.cancelTimer(cancelled)
            }
        }
        #expect(order == [1, 2, 3])
    }

    @Test("raw ping-pong returns one positive round trip per exchange")
    func rawPingPong() async throws {
        let durations = try await withDeadline(20) {
            try await RawPingPong.measure(payloadBytes: 300, count: 50, warmup: 5)
        }
        #expect(durations.count == 50)
        #expect(durations.allSatisfy { $0 > .zero && $0 < .seconds(1) })
    }
}

/// A thread-safe list for timer callbacks.
private final class Log: @unchecked Sendable {
    // @unchecked: `items` is only touched on the one loop thread in this test.
    var items: [Int] = []
    func append(_ value: Int) { items.append(value) }
}

@Suite("Addresses")
struct NetAddressTests {
    @Test("addresses print the way parlor join reads them", arguments: [
        ("127.0.0.1", UInt16(7777), "127.0.0.1:7777"),
        ("::1", 7777, "[::1]:7777"),
        ("[::1]", 80, "[::1]:80"),
        ("::ffff:192.0.2.7", 1, "[::ffff:192.0.2.7]:1"),
        ("fe80::1%1", 7777, "[fe80::1%lo]:7777"),
    ])
    func printing(text: String, port: UInt16, expected: String) throws {
        #expect(try SocketAddress(ipAddress: text, port: port).description == expected)
    }

    @Test("an IPv4 peer of a dual-stack socket is shown as plain IPv4")
    func unmapping() throws {
        let mapped = try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 5)
        #expect(mapped.isIPv4Mapped)
        #expect(mapped.unmappingIPv4.description == "192.0.2.7:5")
    }

    @Test("loopback and link-local are recognised", arguments: [
        ("127.0.0.1", true, false), ("127.9.9.9", true, false), ("::1", true, false),
        ("fe80::1", false, true), ("169.254.1.1", false, true), ("192.0.2.7", false, false), ("fd00::2", false, false),
    ])
    func kinds(text: String, loopback: Bool, linkLocal: Bool) throws {
        let address = try SocketAddress(ipAddress: text, port: 0)
        #expect(address.isLoopback == loopback)
        #expect(address.isLinkLocal == linkLocal)
    }

    @Test("names and nonsense are not numeric addresses", arguments: ["localhost", "1.2.3", "::g", "", "1.2.3.4%eth0"])
    func rejects(text: String) {
        #expect(throws: NetError.self) { try SocketAddress(ipAddress: text, port: 1) }
    }

    @Test("DNS-SD's interface index becomes the scope of a link-local address")
    func interfaceIndexScope() throws {
        let address = try SocketAddress(ipAddress: "fe80::1", port: 7777, interfaceIndex: 1)
        #expect(address.scopeID == 1)
        #expect(address.description == "[fe80::1%lo]:7777")
    }

    @Test("interface listing finds loopback, and the non-loopback list leaves it out")
    func interfaces() throws {
        let all = try InterfaceAddresses.all()
        #expect(all.contains { $0.address.ipAddress == "127.0.0.1" && $0.isLoopback })
        let outward = try InterfaceAddresses.nonLoopback()
        #expect(!outward.contains { $0.isLoopback || $0.address.isLoopback })
        for entry in outward where entry.address.family == .ipv6 && entry.isLinkLocal {
            #expect(entry.address.ipAddress.contains("%\(entry.interfaceName)"))
        }
        let ranks = outward.map { $0.address.family == .ipv4 && !$0.isLinkLocal }
        #expect(ranks == ranks.sorted { $0 && !$1 }, "IPv4 first")
    }
}
