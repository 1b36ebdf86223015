import Foundation
import Secure
import Synchronization
import Testing
@testable import Session

/// A link over TCP is pushed: what arrives is decoded and handed to its
/// handler on the event loop's thread as it is read, inline, with no task
/// between the socket and the handler (issue 37). A handler that has to wait
/// holds back the frames after it, in arrival order, and a peer that floods
/// meanwhile is paused at the socket, losing nothing. Over real sockets on 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct PushedLinkTests {
    static func beat() -> [UInt8] { Message.heartbeat(senderTime: 42).encoded }

    /// A server-side `WireConnection` reading what a client's raw socket sends, started with `handler`.
    static func link(handler: @escaping WireConnection.Handler) async throws
        -> (client: TCPConnection, wire: WireConnection, listener: TCPListener) {
        let listener = try TCPListener.listen(port: 0, on: .specific(loopbackV4))
        let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        var accepted: TCPConnection?
        for await connection in listener.connections { accepted = connection; break }
        let wire = WireConnection(stream: try #require(accepted).byteStream())
        wire.start(handler: handler)
        return (client, wire, listener)
    }

    /// What a handler was given, with the thread each came on.
    final class Seen: Sendable {
        private let items = Mutex<[(text: String, thread: String)]>([])
        func add(_ inbound: Inbound) {
            let text = switch inbound {
            case .message(let message): "\(message.type)"
            case .frameError: "frameError"
            case .messageError: "messageError"
            case .closed(_, let midFrame): midFrame ? "closed mid-frame" : "closed"
            }
            // The kernel's name of this thread, as `ps -L` shows it.
            let thread = ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            items.withLock { $0.append((text, thread)) }
        }
        var all: [String] { items.withLock { $0.map(\.text) } }
        var threads: Set<String> { items.withLock { Set($0.map(\.thread)) } }
        /// Waits until `count` have been seen, at most 4 s.
        func waitFor(_ count: Int) async {
            for _ in 0..<400 where all.count < count { try? await Task.sleep(for: .milliseconds(10)) }
        }
        /// A handler that notes each inbound and is done with it at once.
        var handler: WireConnection.Handler {
            { [self] inbound in
                add(inbound)
                return nil
            }
        }
    }

    @Test("frames, heartbeats among them, reach the handler on the event loop's thread, in order, and the end after them")
    func framesAreHandledOnTheLoopThreadInOrder() async throws {
        let seen = Seen()
        let (client, wire, listener) = try await Self.link(handler: seen.handler)
        defer { listener.close() }
        for _ in 0..<5 {
            _ = client.send(Self.beat() + Self.beat())
            try await Task.sleep(for: .milliseconds(20))
        }
        let lastSent = ContinuousClock.now
        _ = client.send(Message.stateRequest(knownSequence: 1).encoded + Self.beat())
        await seen.waitFor(12)
        #expect(seen.all == Array(repeating: "HEARTBEAT", count: 10) + ["STATE_REQUEST", "HEARTBEAT"])
        #expect(wire.lastHeard >= lastSent, "what arrives counts as heard")
        client.close()
        await seen.waitFor(13)
        #expect(seen.all.last == "closed")
        #expect(seen.threads == ["parlor-net"], "handled on the loop's thread, not in a task: \(seen.threads)")
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

    /// What `server`'s link is handed, once a first HEARTBEAT from `client` has set up the channel and arrived.
    static func handling(_ server: SecureByteStream, firstFrom client: SecureByteStream) async -> Seen {
        let wire = WireConnection(stream: server)
        let seen = Seen()
        wire.start(handler: seen.handler)
        client.send(beat())
        await seen.waitFor(1)
        return seen
    }

    @Test("sealed (protocol 3): records are opened and their frames handled on the loop's thread, in order")
    func sealedFramesAreHandledOnTheLoopThread() async throws {
        let (client, server, listener) = try await Self.sealedLink()
        defer { listener.close() }
        let clientReader = Task { for await _ in client.events {} }
        defer { clientReader.cancel() }
        let seen = await Self.handling(server, firstFrom: client)
        #expect(server.isPrivate)
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(20))
            client.send(Self.beat() + Self.beat())
        }
        client.send(Message.stateRequest(knownSequence: 1).encoded + Self.beat())
        await seen.waitFor(13)
        #expect(seen.all == Array(repeating: "HEARTBEAT", count: 11) + ["STATE_REQUEST", "HEARTBEAT"])
        #expect(seen.threads == ["parlor-net"], "handled on the loop's thread: \(seen.threads)")
        #expect(server.failure == nil)
    }

    @Test("sealed: frames arriving while this side sends flat out neither deadlock the loop nor get lost")
    func sealedReceivingWhileSendingDoesNotDeadlock() async throws {
        let (client, server, listener) = try await Self.sealedLink()
        defer { listener.close() }
        let received = Mutex(0)
        let clientReader = Task { for await event in client.events { if case .data(let bytes) = event { received.withLock { $0 += bytes.count } } } }
        defer { clientReader.cancel() }
        let seen = await Self.handling(server, firstFrom: client)
        // The host's side sends flat out (channel lock, then the transport's) while heartbeats
        // keep arriving on the loop thread (the transport's, then the channel's to open them).
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
        for _ in 0..<200 where !seen.all.contains("STATE_REQUEST") { try await Task.sleep(for: .milliseconds(20)) }
        #expect(seen.all.count == 402 && seen.all.last == "STATE_REQUEST", "every frame, in order: \(seen.all.count), \(seen.all.suffix(3))")
        #expect(server.failure == nil)
        for _ in 0..<200 where received.withLock({ $0 }) < 20_000 * 64 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(received.withLock { $0 } == 20_000 * 64, "every byte sent arrived")
    }

    @Test("a handler that waits holds back the frames after it; a flood meanwhile pauses the socket and loses nothing")
    func aWaitingHandlerHoldsBackTheRestInOrder() async throws {
        let seen = Seen()
        let release = Gate()
        let waited = Mutex(false)
        let (client, _, listener) = try await Self.link { inbound in
            seen.add(inbound)
            // The first frame waits (as a TURN waits for its controller); the others are done at once.
            let first = waited.withLock { done in
                defer { done = true }
                return !done
            }
            guard first else { return nil }
            return { await release.wait() }
        }
        defer { listener.close() }
        var flood: [UInt8] = []
        for sequence in 1...500 { flood += Message.stateRequest(knownSequence: UInt32(sequence)).encoded }
        _ = client.send(Message.stateRequest(knownSequence: 0).encoded)
        await seen.waitFor(1)
        for start in stride(from: 0, to: flood.count, by: 512) {
            _ = client.send(Array(flood[start..<min(flood.count, start + 512)]))
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.all.count == 1, "nothing overtakes a frame still being handled")
        release.open()
        await seen.waitFor(501)
        #expect(seen.all == Array(repeating: "STATE_REQUEST", count: 501))
        client.close()
        await seen.waitFor(502)
        #expect(seen.all.last == "closed")
    }

    @Test func bytesThatFinishAFrameAreNeverTakenForAHeartbeat() async throws {
        let seen = Seen()
        let (client, _, listener) = try await Self.link(handler: seen.handler)
        defer { listener.close() }
        _ = client.send(Message.stateRequest(knownSequence: 1).encoded)
        await seen.waitFor(1)
        // A TALK header announcing 16 bytes, then 16 bytes that are a whole HEARTBEAT frame:
        // they are the TALK's payload, so the handler must get them.
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
