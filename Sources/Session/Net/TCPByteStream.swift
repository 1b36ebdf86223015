/// The bridge between the TCP shell and the protocol layer: a connection as a `ByteStream`.
extension TCPConnection {
    /// This connection as the protocol layer's byte stream. Call once: the
    /// connection's events have a single consumer.
    ///
    /// Pushed (`push(to:)`, as every link's `WireConnection` does), each chunk
    /// goes to the receiver on the event loop's thread as it is read; when the
    /// receiver asks to pause, the socket is not read until it resumes.
    /// Pulled through `events`, the next chunk is taken from the connection
    /// only when the reader asks for it. Either way nothing sits between the
    /// socket and the code that reads it except the connection's own bounded
    /// inbound queue: when the reader falls behind, reading stops, the
    /// kernel's buffers fill and TCP's window closes, so a peer that floods
    /// frames is paused at the socket instead of growing this process's memory.
    public func byteStream() -> AdaptedByteStream {
        let events = AsyncStream<ByteStreamEvent> { [self] in
            // nil once `.closed` has been handed out, or when the reading task is cancelled.
            switch await nextEvent() {
            case .data(let bytes): .data(bytes)
            case .closed(let reason): .closed(reason.isOrderly ? nil : reason.description)
            case nil: nil
            }
        }
        return AdaptedByteStream(
            peerDescription: remoteAddress, events: events,
            send: { [self] bytes in _ = self.send(bytes) },
            close: { [self] in self.close() },
            peerHasClosed: { [self] in self.peerHasClosed }, queuedByteCount: { [self] in self.queuedByteCount },
            waitUntilClosed: { [self] in await self.waitUntilClosed(within: $0) },
            waitUntilSent: { [self] in await self.waitUntilSent(within: $0) },
            push: { [self] receiver in
                self.push { event in
                    switch event {
                    case .data(let bytes): receiver(.data(bytes))
                    case .closed(let reason): receiver(.closed(reason.isOrderly ? nil : reason.description))
                    }
                }
            },
            resumeReading: { [self] in self.resumeReading() })
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
