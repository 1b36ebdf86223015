/// The one way a host serves a listening socket.
extension MatchHost {
    /// Hands every connection `listener` accepts to the handshake (`accept`),
    /// each as a pulling byte stream, until the listener closes or the calling
    /// task is cancelled.
    ///
    /// Run it on a task of its own and cancel that task (or close the
    /// listener) when the host stops taking guests:
    /// `let acceptor = Task { await host.serve(listener) }`.
    public nonisolated func serve(_ listener: TCPListener) async {
        for await connection in listener.connections {
            await accept(connection.byteStream())
        }
    }
}
