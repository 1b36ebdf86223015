/// A link that is not there: the seat of a table's guest that has not come
/// back yet to its resumed host. It is closed from the start, so the seat's
/// `RemoteGuest` counts the guest as disconnected (away, the grace period
/// running) until the guest comes back and `reattach` replaces it.
struct AbsentStream: ByteStream {
    let peerDescription: String
    let events = AsyncStream<ByteStreamEvent> { $0.finish() }

    func send(_ bytes: [UInt8]) {}
    func close() {}
}

extension WireConnection {
    /// A closed connection that never had a peer, described as `description` in logs.
    static func absent(_ description: String) -> WireConnection {
        let connection = WireConnection(stream: AbsentStream(peerDescription: description))
        connection.close()
        return connection
    }
}
