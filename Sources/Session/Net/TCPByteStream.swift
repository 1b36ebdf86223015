/// The bridge between the TCP shell and the protocol layer: a connection as a `ByteStream`.
extension TCPConnection {
    /// This connection as the protocol layer's byte stream. Call once: the
    /// connection's events have a single consumer.
    public func byteStream() -> AdaptedByteStream {
        let (stream, continuation) = AsyncStream<ByteStreamEvent>.makeStream(bufferingPolicy: .unbounded)
        let source = events
        let pump = Task {
            for await event in source {
                switch event {
                case .data(let bytes): continuation.yield(.data(bytes))
                case .closed(let reason):
                    continuation.yield(.closed(reason.isOrderly ? nil : reason.description))
                    continuation.finish()
                    return
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in pump.cancel() }
        return AdaptedByteStream(
            peerDescription: remoteAddress, events: stream,
            send: { [self] bytes in _ = self.send(bytes) },
            close: { [self] in self.close() },
            peerHasClosed: { [self] in self.peerHasClosed })
    }
}

extension TCPConnection.CloseReason {
    /// Whether the connection ended the normal way (EOF or our own close).
    var isOrderly: Bool {
        switch self {
        case .peerClosed, .closedLocally: true
        default: false
        }
    }
}
