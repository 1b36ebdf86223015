import Discovery
import Games
import Match
import Secure
import Session

/// Where matches of a game come from on a LAN: GameKit's matchmaking
/// (`GKTurnBasedMatch.find(for:)`) for peers with no server.
///
/// A game that lives outside parlor registers itself once
/// (`GameCatalog.register(MyGame.self)`), then one side hosts and the
/// others join, by address or by the name the host is listed under:
///
/// ```swift
/// // The host
/// let table = try await TurnBasedLAN.host(Nim.self, as: "Ana")
/// print("listening on port \(table.port)")
/// let match = try await table.waitForMatch()
///
/// // A guest
/// let match = try await TurnBasedLAN.join(Nim.self, named: "Ana's Nim", as: "Bo")
/// ```
public enum TurnBasedLAN {
    /// What a match is played with when the caller does not say.
    public static let defaultAppVersion = "parlorkit 1"

    /// Listens on `port` (0: any free port) and, with `advertise`, lists the
    /// game on the LAN by DNS-SD as "NAME's GAME" (`TurnBasedHost.listedName`).
    /// Without a DNS-SD daemon the game is still reachable by address.
    /// - Parameters:
    ///   - security: `.encrypted` (protocol 3, what the `parlor` command
    ///     always speaks) or `.clear`.
    ///   - directory: where to advertise (avahi's DNS-SD by default).
    /// - Throws: `HostError` (an unregistered game), `NetError` (the port).
    public static func host<G: Game>(_ game: G.Type, as playerName: String, port: UInt16 = 0,
                                     security: ChannelSecurity = .clear, advertise: Bool = true,
                                     directory: any ServiceDirectory = DNSSDDirectory(),
                                     appVersion: String = defaultAppVersion) async throws -> TurnBasedHost<G> {
        let listener = try TCPListener.listen(port: port)
        let host: MatchHost
        do {
            host = try MatchHost(configuration: HostConfiguration(gameID: G.id, hostName: playerName, hostPlayerID: .random(),
                                                                  appVersion: appVersion))
        } catch {
            listener.close()
            throw error
        }
        let acceptor = Task { await host.serve(listener, security: security) }
        var listing: HostedListing?
        if advertise {
            let encrypted = if case .encrypted = security { true } else { false }
            let hosted = Listing.hostedGame(G.self, host: playerName, encrypted: encrypted, appVersion: appVersion)
            listing = await HostedListing.advertise(hosted.serviceInfo(seatsTaken: 1, playing: false, matchID: ""),
                                                    as: hosted.serviceName, port: listener.port, in: directory)
        }
        return TurnBasedHost(host: host, listener: listener, acceptor: acceptor, listing: listing)
    }

    /// Joins the match hosted at `host`:`port` as `playerName`.
    /// - Throws: `NetError` (nobody listens there), `JoinError` (the host
    ///   refused: another game, a full table, an older or newer parlor).
    public static func join<G: Game>(_ game: G.Type, host: String, port: UInt16, as playerName: String,
                                     security: ChannelSecurity = .clear,
                                     appVersion: String = defaultAppVersion) async throws -> TurnBasedMatch<G> {
        let connection = try await TCPConnection.connect(host: host, port: port)
        return try await join(G.self, over: connection, as: playerName, security: security, appVersion: appVersion)
    }

    /// Finds the game listed on the LAN as `name` (its exact name, ignoring
    /// case, or a prefix only it has) and joins it as `playerName`.
    /// - Throws: `GameSearchError` (no such game, several, not joinable,
    ///   no DNS-SD), `NetError`, `JoinError`.
    public static func join<G: Game>(_ game: G.Type, named name: String, as playerName: String,
                                     security: ChannelSecurity = .clear, timeout: Duration = GameFinder.defaultTimeout,
                                     directory: any ServiceDirectory = DNSSDDirectory(),
                                     appVersion: String = defaultAppVersion) async throws -> TurnBasedMatch<G> {
        let finder = GameFinder(directory: directory, timeout: timeout, assess: Listing.assess)
        let listed = try await finder.find(name: name, picker: nil)
        let connection = try await TCPConnection.connect(addresses: Listing.socketAddresses(of: listed.service),
                                                         timeout: .seconds(5))
        return try await join(G.self, over: connection, as: playerName, security: security, appVersion: appVersion)
    }

    private static func join<G: Game>(_ game: G.Type, over connection: TCPConnection, as playerName: String,
                                      security: ChannelSecurity, appVersion: String) async throws -> TurnBasedMatch<G> {
        // Only `G`: a host of another game refuses the guest with a sentence naming it.
        let hello = Hello(appVersion: appVersion, playerID: .random(), playerName: playerName,
                          games: [GameVersion(id: G.id, rulesVersion: UInt16(clamping: G.rulesVersion))])
        let joined = try await Guest.join(over: security.connecting(connection.byteStream()), hello: hello)
        // A host that does not read the games list (protocol 1) may still seat us at another game.
        guard joined.initialState.gameID == G.id else {
            await joined.remote.leaveForNow("this player came for another game")
            throw TurnBasedLANError.otherGame(hosted: joined.initialState.gameID, wanted: G.id)
        }
        let (controller, local) = joined.makeController { LocalParticipant(playerID: $0) }
        return try await TurnBasedMatch(side: .guest(joined), controller: controller, local: local, localSeat: joined.seat)
    }
}

/// Why a join found a match it cannot play.
public enum TurnBasedLANError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host plays another game than the one asked for.
    case otherGame(hosted: String, wanted: String)

    public var description: String {
        switch self {
        case .otherGame(let hosted, let wanted): "the host plays \(hosted), not \(wanted)"
        }
    }
}

/// A hosted game waiting for its guest (`TurnBasedLAN.host`).
public final class TurnBasedHost<G: Game>: Sendable {
    /// The TCP port guests connect to.
    public let port: UInt16
    /// The name the game is listed under on the LAN; nil when it is not
    /// advertised, or not listed yet (`listingProblem` says why).
    public var listedName: String? { listing?.name }
    /// Why the game is not on the LAN's lists (no DNS-SD daemon, a refusal); nil when it is.
    public var listingProblem: String? { listing?.problem.map { "\($0)" } }

    private let host: MatchHost
    private let listener: TCPListener
    private let acceptor: Task<Void, Never>
    private let listing: HostedListing?

    init(host: MatchHost, listener: TCPListener, acceptor: Task<Void, Never>, listing: HostedListing?) {
        self.host = host
        self.listener = listener
        self.acceptor = acceptor
        self.listing = listing
        self.port = listener.port
    }

    /// Waits for a guest, then starts the match with the host's player at its seat.
    /// The game leaves the LAN's lists once the guest is seated.
    public func waitForMatch() async throws -> TurnBasedMatch<G> {
        let hosted: HostedMatch
        do { hosted = try await host.waitForGuest() } catch {
            await close()
            throw error
        }
        await listing?.withdraw()
        listener.close()
        let (controller, local) = hosted.makeController { LocalParticipant(playerID: $0) }
        return try await TurnBasedMatch(side: .host(hosted), controller: controller, local: local, localSeat: hosted.hostSeat)
    }

    /// Stops waiting: withdraws the listing and closes the port.
    public func close() async {
        await listing?.withdraw()
        acceptor.cancel()
        listener.close()
        await host.shutdown()
    }
}

/// What a LAN listing says and where it leads, decided once for the front
/// door and the `parlor` command.
public enum Listing {
    /// The facts a host advertises for `game` (TXT, docs/PROTOCOL.md section
    /// 13): protocol 3 when every guest must be encrypted, else what a clear
    /// host of that many seats speaks, so older parlors still join.
    public static func hostedGame(_ game: any Game.Type, host: String, seatsTotal: Int = 2, encrypted: Bool,
                                  needsCode: Bool = false, hints: Bool = false, appVersion: String,
                                  hostKey: String? = nil) -> HostedGame {
        let version = encrypted ? Int(SecureChannel.protocolVersion) : (seatsTotal > 2 ? Int(FrameFormat.tableVersion) : 1)
        var hosted = HostedGame(gameID: game.id, gameDisplayName: game.displayName, rulesVersion: game.rulesVersion,
                                hostPlayerName: host, protocolVersion: version, appVersion: appVersion,
                                seatsTotal: seatsTotal, needsPasscode: needsCode, hintsAllowed: hints)
        hosted.hostKey = hostKey
        return hosted
    }

    /// Where to connect to a resolved service: its addresses in DNS-SD's
    /// order (IPv4 first), link-local IPv6 through the interface it was seen on.
    public static func socketAddresses(of service: DiscoveredService) -> [SocketAddress] {
        service.addresses.compactMap { address in
            try? SocketAddress(addressBytes: address.bytes, port: service.port, scopeID: address.isLinkLocal ? address.interfaceIndex : 0)
        }
    }

    /// Whether this parlor can join a service with this TXT record, and why not.
    public static func assess(_ txt: TXTRecord) -> ParlorServiceAssessment {
        ParlorServiceInfo.assess(txt, supportedProtocolVersion: Int(SecureChannel.protocolVersion)) { id, rules in
            GameCatalog.game(id: id)?.rulesVersion == rules
        }
    }
}
