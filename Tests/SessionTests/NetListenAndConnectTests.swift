// Listening, port fallback, connect failures and their messages.
@preconcurrency import Glibc
import Testing
@testable import Session

@Suite("Listening and connecting")
struct NetListenAndConnectTests {
    @Test("a taken port is reported as in use, and the preferred-port form falls back to a free one")
    func portInUseFallback() throws {
        let first = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        defer { first.close() }
        #expect(throws: NetError.addressInUse(port: first.port)) {
            try TCPListener.listen(port: first.port, on: .specific(loopbackV4))
        }
        let message = NetError.addressInUse(port: first.port).description
        #expect(message.contains("port \(first.port) is already in use"))
        let (second, gotPreferred) = try TCPListener.listen(preferredPort: first.port, on: .specific(loopbackV4))
        defer { second.close() }
        #expect(!gotPreferred)
        #expect(second.port != first.port && second.port != 0)
    }

    @Test("the preferred port is used when it is free")
    func preferredPortFree() throws {
        let probe = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        let port = probe.port
        probe.close()
        let (listener, gotPreferred) = try TCPListener.listen(preferredPort: port, on: .specific(loopbackV4))
        defer { listener.close() }
        #expect(gotPreferred)
        #expect(listener.port == port)
    }

    @Test("connecting to a closed port fails quickly with 'refused'")
    func refused() async throws {
        let probe = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        let port = probe.port
        probe.close()
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: NetError.self) {
            try await withDeadline { try await TCPConnection.connect(host: "127.0.0.1", port: port) }
        }
        // Refused at once, not after the 5 s connect timeout; the bound allows for
        // a loaded two-core machine (1.6 s was seen with the lab tests beside it).
        #expect(clock.now - start < .seconds(3))
        #expect(error?.connectFailure == .refused)
        #expect(error?.description.contains("connection refused") == true)
        #expect(error?.description.contains("nothing is listening on port \(port)") == true)
    }

    @Test("a listener whose backlog is full does not answer, and the attempt times out")
    func timeoutOnFullBacklog() async throws {
        // Backlog 0 and never accept: Linux queues one connection and then
        // drops further SYNs, which looks to a client like a silent host.
        let (fd, bound) = try #require(plainListeningSocket(backlog: 0))
        defer { close(fd) }
        let failure = try await withDeadline(20) { () -> NetError? in
            var held: [TCPConnection] = []
            defer { held.forEach { $0.abort() } }
            for _ in 0..<8 {
                do {
                    held.append(try await TCPConnection.connect(addresses: [bound], timeout: .milliseconds(300)))
                } catch let error as NetError {
                    return error
                }
            }
            return nil
        }
        #expect(failure?.connectFailure == .timedOut(.milliseconds(300)))
        #expect(failure?.description.contains("timed out") == true)
    }

    @Test("cancelling the task that takes connections closes the listener")
    func cancellingAcceptClosesListener() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        let port = listener.port
        let taker = Task { for await connection in listener.connections { connection.close() } }
        try await Task.sleep(for: .milliseconds(50))
        taker.cancel()
        _ = await taker.value
        let error = await #expect(throws: NetError.self) {
            try await withDeadline { try await TCPConnection.connect(host: "127.0.0.1", port: port) }
        }
        #expect(error?.connectFailure == .refused)
    }

    @Test("the descriptor limit can be read and is never lowered by raise")
    func descriptorLimit() throws {
        let before = try DescriptorLimit.current()
        let raised = try DescriptorLimit.raise(upTo: before.soft)
        #expect(raised == before.soft)
        #expect(try DescriptorLimit.current().soft == before.soft)
    }

    @Test("every address is tried in turn until one answers")
    func triesEachAddress() async throws {
        let probe = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        let deadPort = probe.port
        probe.close()
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        defer { listener.close() }
        let dead = loopbackV4.withPort(deadPort)
        let connection = try await withDeadline {
            try await TCPConnection.connect(addresses: [dead, listener.localAddress], timeout: .seconds(2))
        }
        defer { connection.close() }
        #expect(connection.remoteAddress == listener.localAddress.description)
    }

    @Test("an unknown interface in a scoped address is an invalid address, not a DNS query")
    func unknownScope() async throws {
        await #expect(throws: NetError.invalidAddress("fe80::1%nosuchif0 (no interface named nosuchif0)")) {
            try await TCPConnection.connect(host: "fe80::1%nosuchif0", port: 9)
        }
    }

    @Test("cancelling a connect ends it promptly with CancellationError")
    func cancelConnect() async throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        #expect(loopbackV4.withSockAddr { bind(fd, $0, $1) } == 0)
        #expect(listen(fd, 0) == 0)
        guard let bound = SocketAddress.of(fd, peer: false) else { Issue.record("no address"); return }
        // Fill the one backlog slot so the next connect hangs.
        let filler = try await TCPConnection.connect(addresses: [bound], timeout: .seconds(1))
        defer { filler.abort() }
        let attempt = Task { try await TCPConnection.connect(addresses: [bound], timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(100))
        attempt.cancel()
        let result = try await withDeadline(5) { await attempt.result }
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("failure sentences say what happened and what to do", arguments: [
        (ConnectFailure.refused, "connection refused", "nothing is listening"),
        (ConnectFailure.timedOut(.seconds(2)), "timed out after 2.0 seconds", "firewall"),
        (ConnectFailure.unreachable(errno: ENETUNREACH), "unreachable", "no route"),
    ])
    func failureMessages(failure: ConnectFailure, phrase: String, advice: String) throws {
        let address = try SocketAddress(ipAddress: "192.0.2.7", port: 7777)
        let error = NetError.connectFailed(host: "table", port: 7777, attempts: [ConnectAttempt(address: address, failure: failure)])
        #expect(error.description.hasPrefix("could not connect to table port 7777: "))
        #expect(error.description.contains(phrase))
        #expect(error.description.contains(advice))
        #expect(error.description.contains("192.0.2.7:7777"))
    }

    @Test("with several addresses the headline is the most telling failure")
    func headlinePicksRefused() throws {
        let v6 = try SocketAddress(ipAddress: "fe80::1%1", port: 7777)
        let v4 = try SocketAddress(ipAddress: "192.0.2.7", port: 7777)
        let error = NetError.connectFailed(host: "table", port: 7777, attempts: [
            ConnectAttempt(address: v6, failure: .unreachable(errno: EHOSTUNREACH)),
            ConnectAttempt(address: v4, failure: .refused),
        ])
        #expect(error.connectFailure == .refused)
    }

    @Test("errno values classify into refused, timed out and unreachable")
    func classification() {
        #expect(ConnectFailure.classify(errno: ECONNREFUSED, call: "connect") == .refused)
        #expect(ConnectFailure.classify(errno: ETIMEDOUT, call: "connect") == .timedOut(.zero))
        #expect(ConnectFailure.classify(errno: EHOSTUNREACH, call: "connect") == .unreachable(errno: EHOSTUNREACH))
        #expect(ConnectFailure.classify(errno: EAFNOSUPPORT, call: "socket") == .unreachable(errno: EAFNOSUPPORT))
        #expect(ConnectFailure.classify(errno: EACCES, call: "connect") == .failed(SystemCallError(call: "connect", errno: EACCES)))
    }
}
