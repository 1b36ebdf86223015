/// The one way a host serves a listening socket.
extension MatchHost {
    /// Hands every connection `listener` accepts to the handshake (`accept`),
    /// each as a pulling byte stream behind `security`'s channel (protocol 3's
    /// encryption, or clear frames), until the listener closes or the calling
    /// task is cancelled.
    ///
    /// Run it on a task of its own and cancel that task (or close the
    /// listener) when the host stops taking guests:
    /// `let acceptor = Task { await host.serve(listener, security: security) }`.
    /// With protocol 3, the channel checks this host's passcodes (`HostConfiguration.channelPasscodes`).
    public nonisolated func serve(_ listener: TCPListener, security: ChannelSecurity) async {
        let security = security.checking(configuration.channelPasscodes, guesses: guesses) { [weak self] peer in
            self?.reportWrongPasscode(from: peer)
        }
        for await connection in listener.connections {
            await accept(security.accepting(connection.byteStream()))
        }
    }
}
