// The baseline for `parlor bench turns`: plain bytes bounced over loopback
// through the same listener, connection and loop that sessions use.

/// Measures raw TCP round trips over loopback.
public enum RawPingPong {
    /// Sends `payloadBytes` bytes to an echo server on 127.0.0.1 and waits for
    /// all of them to come back, `count` times, after `warmup` untimed rounds.
    ///
    /// Both ends are `TCPConnection`s on `loop` consumed by tasks, so the
    /// figure includes the same hops a session's turn takes (socket, loop
    /// thread, task wake-up) minus encoding and validation.
    /// - Returns: one duration per timed round trip, in order.
    /// - Throws: `NetError` if loopback cannot be used,
    ///   `RawPingPong.Failure` if the echo stops, `CancellationError` when the task is cancelled.
    public static func measure(payloadBytes: Int, count: Int, warmup: Int = 20, loop: EventLoop? = nil) async throws -> [Duration] {
        let size = max(1, payloadBytes)
        let loop = try EventLoop.given(loop)
        let loopback = try SocketAddress(ipAddress: "127.0.0.1", port: 0)
        let listener = try TCPListener.listen(port: 0, on: .specific(loopback), loop: loop)
        defer { listener.close() }
        let server = Task {
            for await connection in listener.connections {
                for await event in connection.events {
                    if case .data(let bytes) = event { connection.send(bytes) }
                }
                return
            }
        }
        defer { server.cancel() }
        let client = try await TCPConnection.connect(addresses: [listener.localAddress], timeout: .seconds(5), loop: loop)
        defer { client.close() }
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var events = client.events.makeAsyncIterator()
        let clock = ContinuousClock()
        var durations: [Duration] = []
        durations.reserveCapacity(max(0, count))
        for round in 0..<(max(0, warmup) + max(0, count)) {
            try Task.checkCancellation()
            let start = clock.now
            guard client.send(payload) else { throw Failure.echoStopped }
            var received = 0
            while received < size {
                switch await events.next() {
                case .data(let bytes)?: received += bytes.count
                case .closed?, nil: throw Failure.echoStopped
                }
            }
            let elapsed = clock.now - start
            if round >= warmup { durations.append(elapsed) }
        }
        return durations
    }

    /// The echo connection ended before the measurement did.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The echo server's connection closed mid-measurement.
        case echoStopped

        /// The human sentence.
        public var description: String { "the loopback echo connection closed during the measurement" }
    }
}
