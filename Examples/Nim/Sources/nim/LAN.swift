import Games
import Match
import NimRules
import Secure
import Session

/// Sent in HELLO and WELCOME, for logs and "please update" hints.
let appVersion = "nim-example 1"

/// `nim host`: listens on `port`, waits for one guest, plays the match and saves it.
/// Every connection is encrypted and proves a player key (protocol 3). `game`
/// is `Nim` or `RandomNim`; for the latter parlor draws the seed here, the host.
func hostMatch(_ game: any Game.Type, port: UInt16, bot: Bool, home: NimHome) async throws {
    let key = try home.playerKey()
    let listener = try TCPListener.listen(port: port)
    let host = try MatchHost(configuration: HostConfiguration(
        gameID: game.id, hostName: "Host", hostPlayerID: .random(), appVersion: appVersion))
    Task { await host.serve(listener, security: .encrypted(SecureChannelOptions(identity: key))) }
    print("Hosting Nim on port \(listener.port); your key is \(key.fingerprint)")
    let hosted = try await host.waitForGuest()
    print("\(hosted.guestName) joined, key \(hosted.remote.peerKey.map { "\($0.fingerprint)" } ?? "none")")
    sayDealtHeaps(hosted.initialState)
    let me = seatPlayer(hosted.hostPlayerID, bot: bot)
    let final = try await playToTheEnd(hosted.makeController(with: me), player: me, seat: hosted.hostSeat)
    try home.save(final, role: .host, seat: hosted.hostSeat)
    // Leave only once the guest has the final state: closing at once could
    // roll back its last move (docs/LIBRARY.md, the contract's third rule).
    _ = await hosted.remote.waitForFinalDelivery(within: .seconds(5))
}

/// `nim join HOST:PORT`: joins a hosted match over protocol 3, plays it and saves it.
func joinMatch(host: String, port: UInt16, bot: Bool, home: NimHome) async throws {
    let sealed = ChannelSecurity.encrypted(SecureChannelOptions(identity: try home.playerKey()))
    let connection = try await TCPConnection.connect(host: host, port: port)
    let joined = try await Guest.join(over: sealed.connecting(connection.byteStream()),
                                      hello: Hello(appVersion: appVersion, playerID: .random(), playerName: "Guest",
                                                   // Nim first: sent even when more games than a HELLO's 32 are registered.
                                                   games: GameVersion.catalog(first: Nim.id)))
    print("Joined \(joined.hostName), key \(joined.remote.peerKey.map { "\($0.fingerprint)" } ?? "none")")
    sayDealtHeaps(joined.initialState)  // the host's seed, adopted from its WELCOME
    let me = seatPlayer(joined.playerID, bot: bot)
    let final = try await playToTheEnd(joined.makeController(with: me), player: me, seat: joined.seat)
    try home.save(final, role: .guest, seat: joined.seat)
}
