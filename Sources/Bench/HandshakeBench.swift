import Games
import Match
import Secure
import Session

/// What joining costs in protocol 3: the time from a guest's connect to the
/// WELCOME it reads, in clear and behind the encrypted channel, alternating
/// (one join of each in turn), each against a fresh host on 127.0.0.1 in this
/// process. The difference is what the Noise handshake and the player keys
/// add to joining (issue 38's goal: at most 2 ms).
public enum HandshakeBench {
    /// The joins timed each way, and their p50 and p99.
    public struct Figures: Sendable {
        public var joins: Int
        public var clear: Percentiles, sealed: Percentiles
        /// Sealed, proving a passcode in the handshake (CPace and `XXpsk3`).
        public var withCode: Percentiles
        /// Issue 38's goal: the handshake adds at most 2 ms to joining (p50), with a passcode too.
        public var goalMet: Bool { max(sealed.p50, withCode.p50) - clear.p50 <= .milliseconds(2) }
    }

    /// Times `count` joins each way (at least 5).
    public static func measure(count: Int, appVersion: String) async throws -> Figures {
        let hostKey = try IdentityKeyPair.generate()
        let guestKey = try IdentityKeyPair.generate()
        var clear: [Duration] = [], sealed: [Duration] = [], withCode: [Duration] = []
        var offering = SecureChannelOptions(identity: guestKey)
        offering.passcode = PasscodeOffer(code: "K7M-Q4P", use: .seat)
        for _ in 0..<max(5, count) {
            try Task.checkCancellation()
            clear.append(try await timeJoin(host: .clear, guest: .clear, appVersion: appVersion))
            sealed.append(try await timeJoin(host: .encrypted(SecureChannelOptions(identity: hostKey)),
                                             guest: .encrypted(SecureChannelOptions(identity: guestKey)), appVersion: appVersion))
            withCode.append(try await timeJoin(host: .encrypted(SecureChannelOptions(identity: hostKey)), guest: .encrypted(offering),
                                               code: "K7M-Q4P", appVersion: appVersion))
        }
        return Figures(joins: clear.count, clear: Percentiles(clear), sealed: Percentiles(sealed), withCode: Percentiles(withCode))
    }

    private static func timeJoin(host security: ChannelSecurity, guest: ChannelSecurity, code: String? = nil,
                                 appVersion: String) async throws -> Duration {
        let listener = try TCPListener.listen(port: 0, on: .specific(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))
        defer { listener.close() }
        var configuration = HostConfiguration(gameID: Connect4.id, hostName: "Host", hostPlayerID: .random(),
                                              seatPreference: .first, appVersion: appVersion)
        configuration.passcode = code
        let host = try MatchHost(configuration: configuration)
        let acceptor = Task { await host.serve(listener, security: security) }
        defer { acceptor.cancel() }
        let hello = Hello(appVersion: appVersion, playerID: .random(), playerName: "Guest")
        let started = ContinuousClock.now
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        let joined = try await Guest.join(over: guest.connecting(connection.byteStream()), hello: hello)
        let took = ContinuousClock.now - started
        _ = joined
        connection.close()
        await host.shutdown()
        return took
    }
}
