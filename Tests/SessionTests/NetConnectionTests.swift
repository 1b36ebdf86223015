// The TCP shell over real loopback sockets: echo, chunking, closing, limits.
import Foundation
@preconcurrency import Glibc
import Synchronization
import Testing
@testable import Session

@Suite("TCP connection over loopback")
struct NetConnectionTests {
    @Test("bytes sent to an IPv4 echo server come back unchanged, with both addresses reported")
    func echoIPv4() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        defer { listener.close() }
        startEchoServer(listener)
        #expect(listener.port != 0)
        let received = try await withDeadline {
            let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
            defer { client.close() }
            #expect(client.remoteAddress == "127.0.0.1:\(listener.port)")
            #expect(client.localAddress.hasPrefix("127.0.0.1:"))
            #expect(client.hasNoDelay, "small turns must not wait for Nagle")
            #expect(client.send(Array("hello, parlor".utf8)))
            return await receive(from: client, count: 13)
        }
        #expect(received.bytes == Array("hello, parlor".utf8))
    }

    @Test("bytes sent to an IPv6 echo server on ::1 come back unchanged", .enabled(if: ipv6LoopbackAvailable))
    func echoIPv6() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV6))
        defer { listener.close() }
        startEchoServer(listener)
        let received = try await withDeadline {
            let client = try await TCPConnection.connect(host: "[::1]", port: listener.port)
            defer { client.close() }
            #expect(client.remoteAddress == "[::1]:\(listener.port)")
            client.send(pattern(1000))
            return await receive(from: client, count: 1000)
        }
        #expect(received.bytes == pattern(1000))
    }

    @Test("a host name is resolved off the loop and connected to (localhost, from /etc/hosts)")
    func connectByName() async throws {
        let listener = try TCPListener.listen(port: 0)
        defer { listener.close() }
        startEchoServer(listener)
        let received = try await withDeadline {
            let client = try await TCPConnection.connect(host: "localhost", port: listener.port)
            defer { client.close() }
            #expect(client.remote?.isLoopback == true)
            client.send([1, 2, 3])
            return await receive(from: client, count: 3)
        }
        #expect(received.bytes == [1, 2, 3])
    }

    @Test("an IPv6 address with a %interface scope connects", .enabled(if: ipv6LoopbackAvailable))
    func scopedIPv6() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV6))
        defer { listener.close() }
        let client = try await withDeadline { try await TCPConnection.connect(host: "::1%lo", port: listener.port) }
        defer { client.close() }
        #expect(client.isOpen)
    }

    @Test("one all-interfaces listener serves IPv4 and IPv6 clients and shows IPv4 peers as IPv4")
    func dualStack() async throws {
        let listener = try TCPListener.listen(port: 0)
        defer { listener.close() }
        #expect(listener.servesIPv4)
        let peers = try await withDeadline {
            var hosts = ["127.0.0.1"]
            if ipv6LoopbackAvailable, listener.servesIPv6 { hosts.append("::1") }
            var seen: [String] = []
            var accepted = listener.connections.makeAsyncIterator()
            for host in hosts {
                let client = try await TCPConnection.connect(host: host, port: listener.port)
                defer { client.close() }
                guard let server = await accepted.next() else { break }
                seen.append(server.remoteAddress)
                #expect(server.remoteAddress == client.localAddress)
                server.close()
            }
            return seen
        }
        #expect(peers.first?.hasPrefix("127.0.0.1:") == true)
        if ipv6LoopbackAvailable, listener.servesIPv6 { #expect(peers.last?.hasPrefix("[::1]:") == true) }
    }

    @Test("a 3 MiB buffer sent in one call arrives complete and in order, in bounded chunks")
    func largeBufferSplitAcrossReads() async throws {
        let options = TCPConnection.Options(readChunk: 16 * 1024)
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4), connectionOptions: options)
        defer { listener.close() }
        let payload = pattern(3 << 20, seed: 5)
        let received = try await withDeadline(20) {
            let client = try await TCPConnection.connect(addresses: [listener.localAddress])
            var accepted = listener.connections.makeAsyncIterator()
            guard let server = await accepted.next() else { return Received() }
            #expect(client.send(payload))
            client.close()
            return await receive(from: server)
        }
        #expect(received.bytes.count == payload.count)
        #expect(sameBytes(received.bytes, payload))
        #expect(received.chunkSizes.count > 1)
        #expect(received.chunkSizes.allSatisfy { $0 <= 16 * 1024 })
        #expect(received.closed == .peerClosed)
    }

    @Test("a thousand small sends arrive as one byte stream, whatever the chunking")
    func manySmallSendsInOneStream() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        defer { listener.close() }
        let messages = (0..<1000).map { pattern(300, seed: $0) }
        let received = try await withDeadline {
            let client = try await TCPConnection.connect(addresses: [listener.localAddress])
            defer { client.close() }
            var accepted = listener.connections.makeAsyncIterator()
            guard let server = await accepted.next() else { return Received() }
            for message in messages { client.send(message) }
            return await receive(from: server, count: 300_000)
        }
        #expect(sameBytes(received.bytes, messages.flatMap { $0 }))
    }

    @Test("the reader sees the peer's last bytes, then that the peer closed")
    func peerCloseDetected() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        defer { listener.close() }
        let received = try await withDeadline {
            let client = try await TCPConnection.connect(addresses: [listener.localAddress])
            var accepted = listener.connections.makeAsyncIterator()
            guard let server = await accepted.next() else { return Received() }
            server.send(Array("goodbye".utf8))
            server.close()
            #expect(!server.send([1]), "no sends after close")
            return await receive(from: client)
        }
        #expect(received.bytes == Array("goodbye".utf8))
        #expect(received.closed == .peerClosed)
    }

    @Test("abort resets the connection and the peer is told so")
    func abortResetsPeer() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        defer { listener.close() }
        let (local, remote) = try await withDeadline {
            let client = try await TCPConnection.connect(addresses: [listener.localAddress])
            var accepted = listener.connections.makeAsyncIterator()
            guard let server = await accepted.next() else { return (Received(), Received()) }
            server.abort()
            server.abort()  // idempotent
            return (await receive(from: server), await receive(from: client))
        }
        #expect(local.closed == .aborted)
        #expect(remote.closed == .reset)
    }

    @Test("close reports closedLocally once and the socket is released when the peer closes too")
    func closeIsIdempotentAndReleases() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        defer { listener.close() }
        startEchoServer(listener)
        let (received, released) = try await withDeadline {
            let client = try await TCPConnection.connect(addresses: [listener.localAddress])
            client.close()
            client.close()
            let received = await receive(from: client)
            // The echo server sees end of stream and closes; our linger ends.
            var released = client.isReleased
            for _ in 0..<200 where !released {
                try await Task.sleep(for: .milliseconds(10))
                released = client.isReleased
            }
            return (received, released)
        }
        #expect(received.closed == .closedLocally)
        #expect(received.bytes.isEmpty)
        #expect(released)
    }

    @Test("a graceful close flushes everything queued before it")
    func closeFlushesQueue() async throws {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        defer { listener.close() }
        let payload = pattern(8 << 20, seed: 9)
        let received = try await withDeadline(20) {
            let client = try await TCPConnection.connect(
                addresses: [listener.localAddress], options: .init(sendQueueLimit: 16 << 20))
            var accepted = listener.connections.makeAsyncIterator()
            guard let server = await accepted.next() else { return Received() }
            #expect(client.send(payload))
            #expect(client.queuedByteCount > 0, "8 MiB cannot fit in loopback socket buffers at once")
            client.close()
            return await receive(from: server)
        }
        #expect(received.bytes.count == payload.count)
        #expect(sameBytes(received.bytes, payload))
        #expect(received.closed == .peerClosed)
    }

    @Test("a peer that never reads gets its connection closed once the send queue passes its cap")
    func sendQueueCapClosesNonReader() async throws {
        // A bare listening socket that never accepts: the peer never reads.
        let (fd, bound) = try #require(plainListeningSocket(backlog: 4))
        defer { close(fd) }
        let limit = 256 * 1024
        let (sent, received) = try await withDeadline(20) {
            let client = try await TCPConnection.connect(addresses: [bound], options: .init(sendQueueLimit: limit))
            var sent = 0
            let chunk = pattern(64 * 1024)
            // Loopback buffers hold a few MiB; 256 MiB is far beyond them.
            while sent < 256 << 20, client.send(chunk) {
                sent += chunk.count
                if client.queuedByteCount > 0 { try await Task.sleep(for: .milliseconds(1)) }
            }
            return (sent, await receive(from: client))
        }
        #expect(sent < 256 << 20)
        #expect(received.closed == .sendQueueOverflow(limit: limit))
    }

    @Test("waitUntilClosed returns at once on an open connection, and after a close once the peer has closed too (not before, nor much after), its last bytes read")
    func waitUntilClosedWaitsForThePeersEnd() async throws {
        // A plain blocking peer that answers our end 300 ms late (a host whose GOODBYE is retransmitted).
        let (fd, bound) = try #require(plainListeningSocket(backlog: 4))
        defer { close(fd) }
        let peerSaw = Mutex<[UInt8]>([])
        let peer = Thread {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 64)
            // Read up to our end of stream.
            while true {
                let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, 64) }
                if count <= 0 { break }
                peerSaw.withLock { $0 += buffer[0..<count] }
            }
            usleep(300_000)
            let late = Array("goodbye too".utf8)
            _ = late.withUnsafeBytes { write(connection, $0.baseAddress, late.count) }
            close(connection)
        }
        peer.start()
        let clock = ContinuousClock()
        try await withDeadline {
            let client = try await TCPConnection.connect(addresses: [bound])
            let openWait = clock.now
            await client.waitUntilClosed(within: .seconds(5))
            #expect(clock.now - openWait < .milliseconds(100), "an open connection has no close to wait for")

            client.send(Array("bye".utf8))
            client.close()
            let closing = clock.now
            // A limit far beyond the peer's 300 ms (and the 5 s close timeout): the peer's end wakes the wait.
            await client.waitUntilClosed(within: .seconds(20))
            let waited = clock.now - closing
            #expect(waited >= .milliseconds(250), "returned after \(waited), before the peer closed")
            #expect(waited < .seconds(3), "returned \(waited) after the close: the peer's end did not wake the wait")
            #expect(client.isReleased, "the close did not finish")
        }
        #expect(peerSaw.withLock { $0 } == Array("bye".utf8))
    }

    @Test("waitUntilSent returns at once with nothing queued, waits while a peer that does not read holds our bytes, and returns as soon as it reads them")
    func waitUntilSentWaitsForTheQueueToEmpty() async throws {
        let (fd, bound) = try #require(plainListeningSocket(backlog: 4))
        defer { close(fd) }
        let payload = 32 << 20
        // A peer that reads nothing until told, then everything to our end of stream.
        let reading = DispatchSemaphore(value: 0)
        let peerGot = Mutex(0)
        let peer = Thread {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            reading.wait()
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                peerGot.withLock { $0 += count }
            }
        }
        peer.start()
        let clock = ContinuousClock()
        try await withDeadline(30) {
            let client = try await TCPConnection.connect(addresses: [bound], options: .init(sendQueueLimit: 64 << 20))
            let idle = clock.now
            await client.waitUntilSent(within: .seconds(20))
            #expect(clock.now - idle < .milliseconds(100), "nothing was queued")

            client.send(pattern(payload))
            client.close()
            #expect(client.queuedByteCount > 0, "the kernel took all \(payload) bytes: nothing to wait for")
            let waiting = Task { await client.waitUntilSent(within: .seconds(20)) }
            // Still held: the peer reads nothing yet.
            try await Task.sleep(for: .milliseconds(300))
            #expect(client.queuedByteCount > 0)
            let started = clock.now
            reading.signal()
            await waiting.value
            let waited = clock.now - started
            #expect(client.queuedByteCount == 0, "returned with bytes still queued")
            #expect(waited < .seconds(5), "returned \(waited) after the peer began to read: the flush did not wake the wait")
        }
    }

    @Test("waitUntilSent gives up at its limit when the peer never reads, and a cancelled waiter returns at once")
    func waitUntilSentKeepsItsLimit() async throws {
        let (fd, bound) = try #require(plainListeningSocket(backlog: 4))
        defer { close(fd) }
        let clock = ContinuousClock()
        try await withDeadline(30) {
            let client = try await TCPConnection.connect(addresses: [bound], options: .init(sendQueueLimit: 64 << 20))
            defer { client.abort() }
            client.send(pattern(32 << 20))
            #expect(client.queuedByteCount > 0)
            let limited = clock.now
            await client.waitUntilSent(within: .milliseconds(300))
            let waited = clock.now - limited
            #expect(waited >= .milliseconds(250) && waited < .seconds(5), "waited \(waited) for a limit of 300 ms")

            let cancelled = Task { await client.waitUntilSent(within: .seconds(20)) }
            try await Task.sleep(for: .milliseconds(100))
            let cancelling = clock.now
            cancelled.cancel()
            await cancelled.value
            #expect(clock.now - cancelling < .seconds(2), "a cancelled waiter kept waiting")
            #expect(client.queuedByteCount > 0)
        }
    }

    @Test("a graceful close to a peer that never reads gives up after the close timeout")
    func closeHardLimit() async throws {
        let (fd, bound) = try #require(plainListeningSocket(backlog: 4))
        defer { close(fd) }
        let clock = ContinuousClock()
        let (queuedAtClose, elapsed) = try await withDeadline {
            let client = try await TCPConnection.connect(
                addresses: [bound], options: .init(sendQueueLimit: 64 << 20, closeTimeout: .milliseconds(300)))
            client.send(pattern(32 << 20))
            let queued = client.queuedByteCount
            let start = clock.now
            client.close()
            while !client.isReleased { try await Task.sleep(for: .milliseconds(10)) }
            return (queued, clock.now - start)
        }
        #expect(queuedAtClose > 0)
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(3))
    }

    @Test("a consumer that falls behind pauses reading and still gets every byte")
    func backPressure() async throws {
        let options = TCPConnection.Options(inboundBufferLimit: 64 * 1024)
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4), connectionOptions: options)
        defer { listener.close() }
        let payload = pattern(16 << 20, seed: 3)
        let (queuedWhilePaused, received) = try await withDeadline(30) {
            let client = try await TCPConnection.connect(
                addresses: [listener.localAddress], options: .init(sendQueueLimit: 32 << 20))
            var accepted = listener.connections.makeAsyncIterator()
            guard let server = await accepted.next() else { return (0, Received()) }
            client.send(payload)
            // The server reads 64 KiB and stops; the rest waits in kernel
            // buffers and in our send queue instead of in the server's memory.
            try await Task.sleep(for: .milliseconds(200))
            let queued = client.queuedByteCount
            client.close()
            return (queued, await receive(from: server))
        }
        #expect(queuedWhilePaused > 0)
        #expect(sameBytes(received.bytes, payload))
    }
}
