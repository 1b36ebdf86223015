import Foundation
import Secure
import Synchronization
import Testing
@testable import Session

/// An in-match link's heartbeats are noted on the event loop's thread while
/// its reader waits, and go no further: a thousand idle tables hear 333 a
/// second, and waking a task for each was most of an idle host's work. Over
/// real sockets on 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct HeartbeatAbsorbTests {
    static func beat() -> [UInt8] { Message.heartbeat(senderTime: 42).encoded }

    /// A server-side `WireConnection` reading what a client's raw socket sends, its reader started.
    static func link() async throws -> (client: TCPConnection, wire: WireConnection, seen: Seen, listener: TCPListener) {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        var accepted: TCPConnection?
        for await connection in listener.connections { accepted = connection; break }
        let wire = WireConnection(stream: try #require(accepted).byteStream())
        let seen = Seen()
        wire.start { inbound in seen.add(inbound) }
        wire.absorbHeartbeats()
        return (client, wire, seen, listener)
    }

    final class Seen: Sendable {
        private let items = Mutex<[String]>([])
        func add(_ inbound: Inbound) {
            let text = switch inbound {
            case .message(let message): "\(message.type)"
            case .frameError: "frameError"
            case .messageError: "messageError"
            case .closed(_, let midFrame): midFrame ? "closed mid-frame" : "closed"
            }
            items.withLock { $0.append(text) }
        }
        var all: [String] { items.withLock { $0 } }
        func waitFor(_ count: Int) async {
            for _ in 0..<400 where all.count < count { try? await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test func heartbeatsWhileTheReaderWaitsAreHeardButHandedToNobody() async throws {
        let (client, wire, seen, listener) = try await Self.link()
        defer { listener.close() }
        // The first one arrives before the reader has finished a chunk: handed on as always.
        _ = client.send(Self.beat())
        await seen.waitFor(1)
        #expect(seen.all == ["HEARTBEAT"])
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(40))
            _ = client.send(Self.beat() + Self.beat())
        }
        let lastSent = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.all == ["HEARTBEAT"])
        #expect(wire.lastHeard > lastSent - .milliseconds(20), "an absorbed heartbeat still counts as heard")
        // Anything else still reaches the reader, in order, and so does the end.
        _ = client.send(Message.stateRequest(knownSequence: 1).encoded + Self.beat())
        await seen.waitFor(3)
        #expect(seen.all == ["HEARTBEAT", "STATE_REQUEST", "HEARTBEAT"])
        client.close()
        await seen.waitFor(4)
        #expect(seen.all.last == "closed")
    }

    /// A sealed guest (`client`) and host (`server`) over TCP on 127.0.0.1, each with a fresh key.
    static func sealedLink() async throws -> (client: SecureByteStream, server: SecureByteStream, listener: TCPListener) {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        let tcp = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        var accepted: TCPConnection?
        for await connection in listener.connections { accepted = connection; break }
        let client = SecureByteStream(over: tcp.byteStream(), role: .initiator,
                                      options: SecureChannelOptions(identity: try IdentityKeyPair.generate()))
        let server = SecureByteStream(over: try #require(accepted).byteStream(), role: .responder(allowClear: false),
                                      options: SecureChannelOptions(identity: try IdentityKeyPair.generate()))
        return (client, server, listener)
    }

    @Test("sealed (protocol 3), heartbeats are still absorbed on the loop's thread: whole records opened on a copy of the channel")
    func sealedHeartbeatsAreAbsorbedToo() async throws {
        let (client, server, listener) = try await Self.sealedLink()
        defer { listener.close() }
        let clientReader = Task { for await _ in client.events {} }
        defer { clientReader.cancel() }
        let wire = WireConnection(stream: server)
        let seen = Seen()
        wire.start { inbound in seen.add(inbound) }
        wire.absorbHeartbeats()
        client.send(Self.beat())
        await seen.waitFor(1)
        #expect(seen.all == ["HEARTBEAT"])
        #expect(server.isPrivate)
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(40))
            client.send(Self.beat() + Self.beat())
        }
        let lastSent = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.all == ["HEARTBEAT"], "sealed heartbeats woke the reader")
        #expect(wire.lastHeard > lastSent - .milliseconds(20), "an absorbed heartbeat still counts as heard")
        // The channel moved past the absorbed records: what follows still opens, in order.
        client.send(Message.stateRequest(knownSequence: 1).encoded + Self.beat())
        await seen.waitFor(3)
        #expect(seen.all == ["HEARTBEAT", "STATE_REQUEST", "HEARTBEAT"])
        #expect(server.failure == nil)
    }

    @Test("sealed: heartbeats arriving while this side sends flat out neither deadlock the loop nor get lost (the absorber never waits for the channel's lock)")
    func sealedAbsorbingWhileSendingDoesNotDeadlock() async throws {
        let (client, server, listener) = try await Self.sealedLink()
        defer { listener.close() }
        let received = Mutex(0)
        let clientReader = Task { for await event in client.events { if case .data(let bytes) = event { received.withLock { $0 += bytes.count } } } }
        defer { clientReader.cancel() }
        let wire = WireConnection(stream: server)
        let seen = Seen()
        wire.start { inbound in seen.add(inbound) }
        client.send(Self.beat())
        await seen.waitFor(1)
        wire.absorbHeartbeats()
        // The host's side sends flat out (channel lock, then the transport's) while heartbeats
        // keep arriving on the loop thread (the transport's lock, then the absorber).
        let chunk = Array(repeating: UInt8(7), count: 64)
        let sending = Task.detached { for _ in 0..<20_000 { server.send(chunk) } }
        let beating = Task.detached {
            for _ in 0..<400 {
                client.send(Self.beat())
                try? await Task.sleep(for: .microseconds(200))
            }
        }
        await sending.value
        await beating.value
        client.send(Message.stateRequest(knownSequence: 1).encoded)
        // A heartbeat that came while the channel was busy went to the reader, as any chunk does.
        for _ in 0..<200 where !seen.all.contains("STATE_REQUEST") { try await Task.sleep(for: .milliseconds(20)) }
        #expect(seen.all.last == "STATE_REQUEST", "the link still reads, in order, after the storm: \(seen.all.suffix(3))")
        #expect(Set(seen.all) == ["HEARTBEAT", "STATE_REQUEST"])
        #expect(server.failure == nil)
        for _ in 0..<200 where received.withLock({ $0 }) < 20_000 * 64 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(received.withLock { $0 } == 20_000 * 64, "every byte sent arrived")
    }

    @Test func bytesThatFinishAFrameAreNeverTakenForAHeartbeat() async throws {
        let (client, _, seen, listener) = try await Self.link()
        defer { listener.close() }
        _ = client.send(Message.stateRequest(knownSequence: 1).encoded)
        await seen.waitFor(1)
        // A TALK header announcing 16 bytes, then 16 bytes that are a whole HEARTBEAT frame:
        // they are the TALK's payload, so the reader must get them.
        let beat = Self.beat()
        var header = Array(beat.prefix(4))
        header[3] = MessageType.talk.rawValue
        header += [0, 0, 0, UInt8(beat.count)]
        _ = client.send(header)
        try await Task.sleep(for: .milliseconds(100))
        _ = client.send(beat)
        await seen.waitFor(2)
        client.close()
        await seen.waitFor(2)
        let afterRequest = Array(seen.all.dropFirst())
        #expect(afterRequest.first == "TALK" || afterRequest.first == "messageError", "seen: \(seen.all)")
        #expect(!afterRequest.contains("closed mid-frame"))
    }
}
