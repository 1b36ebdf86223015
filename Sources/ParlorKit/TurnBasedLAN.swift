import Bots
import Discovery
import Games
import Match
import Secure
import Session
import Store
import Synchronization

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
    /// `seats`: the table's size, one of the game's seat counts; with more
    /// than two, `waitForMatch()` returns once every seat is taken.
    /// Without a DNS-SD daemon the game is still reachable by address.
    /// - Parameters:
    ///   - security: `.encrypted` (protocol 3, what the `parlor` command
    ///     always speaks) or `.clear`.
    ///   - directory: where to advertise (avahi's DNS-SD by default).
    ///   - store: where the match is saved (nil: nowhere). It is on disk
    ///     before the guest is welcomed, and each change before anyone sees it.
    ///   - bots: seats of the table this side's bots play from the start
    ///     (`.bot(level)`, named "Easy bot"…, or `.strategy`, named "Bot"),
    ///     at least one seat left for a guest: "me, a friend and a bot" is
    ///     `seats: 3, bots: [.bot(.easy)]`.
    /// - Throws: `HostError` (an unregistered game; `.badTable`: no seat left
    ///   for a guest, or `.caller` among the bots), `NetError` (the port).
    public static func host<G: Game>(_ game: G.Type, as playerName: String, seats: Int = 2, bots: [TurnBasedPlayer<G>] = [],
                                     port: UInt16 = 0, security: ChannelSecurity = .clear, advertise: Bool = true,
                                     directory: any ServiceDirectory = DNSSDDirectory(), store: MatchStore? = nil,
                                     appVersion: String = defaultAppVersion) async throws -> TurnBasedHost<G> {
        guard let botNames = TurnBasedPlayer.botNames(bots) else {
            throw HostError.badTable("a bot seat is played by .bot(level) or .strategy; .caller plays only this side's own seat")
        }
        // Before listening: nobody is welcomed into a match that cannot be saved.
        try store?.checkWritable()
        let listener = try TCPListener.listen(port: port)
        var configuration = HostConfiguration(gameID: G.id, hostName: playerName, hostPlayerID: .random(), appVersion: appVersion)
        configuration.seats = seats
        configuration.botNames = botNames
        let listenPort = listener.port
        let saves = store.map { store in
            SavedBeforeWelcome(store: store) { hosted in
                StoredMatch(state: hosted.initialState, role: .host, localSeat: hosted.hostSeat, lastActivity: wallClockMilliseconds(),
                            seatToken: hosted.seatToken.bytes, listenPort: listenPort,
                            // A table keeps every guest seat's token and key and its bots' levels, to be hosted again.
                            tableSeats: TableRecord.seats(of: hosted, botLevels: bots.map(\.level)),
                            // A two-seat match keeps its guest's key: resumed, the seat goes back only to that player.
                            peerKey: hosted.guests.count == 1 ? hosted.remote.peerKey?.bytes : nil)
            }
        }
        // A record that could not be removed stays as an interrupted match at move 0, which resuming lists.
        saves?.install(in: &configuration, forgetFailed: { _, _ in })
        return try await serve(G.self, configuration, resuming: nil, on: listener, security: security,
                               advertise: advertise ? directory : nil, appVersion: appVersion, saves: saves, bots: bots)
    }

    /// The games of `G` listed on the LAN now, looking for `timeout`:
    /// GameKit's matchmaking list for peers. Each has its listed `name` (join
    /// it with `join(_:named:as:)`), its host and seats in its `info`, and
    /// whether this side can join it (`isJoinable`, and why not in its
    /// `assessment`: a newer parlor, a table that is full or playing).
    /// - Throws: `GameSearchError.browseFailed` (no DNS-SD daemon, refused).
    public static func games<G: Game>(of game: G.Type, lookingFor timeout: Duration = GameFinder.defaultTimeout,
                                      directory: any ServiceDirectory = DNSSDDirectory()) async throws -> [ListedGame] {
        let list = try await GameFinder(directory: directory, timeout: timeout, assess: Listing.assess).collect(name: nil)
        return list.games.filter { $0.gameID == G.id }
    }

    /// Takes a saved host's match (`record`, from `store`) back up: listens on
    /// its port again (any free one if it is taken), lists it with its match
    /// id when `advertise`, and waits in `waitForMatch()` for its guest to
    /// come back (`resume(_:joined:...)` on the guest's side). Changes go on
    /// being saved into `store`.
    ///
    /// A table of three or more comes back the same way: each guest takes
    /// its own seat back with its own token, `waitForMatch()` returns when the
    /// first is back and the others follow in any order, and the host's bots
    /// play their seats again at the levels saved (`bots:` instead, in seat
    /// order, for bots that were strategies).
    /// - Throws: `TurnBasedLANError.notResumable` (not a host's record, no
    ///   seat token, another game, a strategy's seat with no `bots:`),
    ///   `StoreError`, `NetError`.
    public static func resume<G: Game>(_ game: G.Type, hosting record: StoredMatch, store: MatchStore,
                                       bots: [TurnBasedPlayer<G>]? = nil,
                                       security: ChannelSecurity = .clear, advertise: Bool = true,
                                       directory: any ServiceDirectory = DNSSDDirectory(),
                                       appVersion: String = defaultAppVersion) async throws -> TurnBasedHost<G> {
        let state = record.state
        guard record.role == .host, state.gameID == G.id else {
            throw TurnBasedLANError.notResumable("match \(state.matchID.short) is not a match of \(G.id) this side hosted")
        }
        let (saved, players) = try savedMatch(G.self, record, bots: bots)
        try store.checkWritable()
        let listener: TCPListener
        do { listener = try TCPListener.listen(port: record.listenPort) } catch { listener = try TCPListener.listen(port: 0) }
        var configuration = HostConfiguration(gameID: G.id, hostName: state.seats[record.localSeat].name,
                                              hostPlayerID: state.seats[record.localSeat].playerID, appVersion: appVersion)
        configuration.turnTimeoutSeconds = state.turnTimeout
        configuration.seats = state.seats.count
        var resumed = record
        resumed.listenPort = listener.port
        return try await serve(G.self, configuration, resuming: saved, on: listener, security: security,
                               advertise: advertise ? directory : nil, appVersion: appVersion, resumed: (store, resumed), bots: players)
    }

    /// The match a host's `record` offers again and who plays its bot seats.
    private static func savedMatch<G: Game>(_ game: G.Type, _ record: StoredMatch,
                                            bots: [TurnBasedPlayer<G>]?) throws -> (SavedHostMatch, [TurnBasedPlayer<G>]) {
        let state = record.state
        guard state.seats.count > 2 else {
            guard let token = SeatToken(bytes: record.seatToken) else {
                throw TurnBasedLANError.notResumable("match \(state.matchID.short) has no seat token saved; it cannot be resumed")
            }
            return (SavedHostMatch(twoSeat: record, token: token), [])
        }
        let table: (match: SavedHostMatch, botLevels: [BotLevel?])
        switch TableRecord.saved(record) {
        case .success(let saved): table = saved
        case .failure(let problem): throw TurnBasedLANError.notResumable(problem.description)
        }
        if let bots {
            guard bots.count == table.botLevels.count, TurnBasedPlayer.botNames(bots) != nil else {
                throw TurnBasedLANError.notResumable("match \(state.matchID.short) has \(table.botLevels.count) bot seats; "
                                                     + "bots: names \(bots.count), or .caller")
            }
            return (table.match, bots)
        }
        var players: [TurnBasedPlayer<G>] = []
        for (seat, level) in zip(table.match.botSeats, table.botLevels) {
            guard let level else {
                throw TurnBasedLANError.notResumable("seat \(seat + 1) of match \(state.matchID.short) was played by a strategy; "
                                                     + "pass bots: to say who plays it now")
            }
            players.append(.bot(level))
        }
        return (table.match, players)
    }

    /// Hosts `configuration` (a saved match when `resuming`) on `listener`,
    /// listed in `advertise` when given (with the match id of a resumed one).
    private static func serve<G: Game>(_ game: G.Type, _ configuration: HostConfiguration, resuming: SavedHostMatch?,
                                       on listener: TCPListener, security: ChannelSecurity, advertise: (any ServiceDirectory)?,
                                       appVersion: String, saves: SavedBeforeWelcome? = nil,
                                       resumed: (store: MatchStore, record: StoredMatch)? = nil,
                                       bots: [TurnBasedPlayer<G>] = []) async throws -> TurnBasedHost<G> {
        let host: MatchHost
        do { host = try MatchHost(configuration: configuration, resuming: resuming) } catch {
            listener.close()
            throw error
        }
        let acceptor = Task { await host.serve(listener, security: security) }
        var listing: HostedListing?
        if let directory = advertise {
            let encrypted = if case .encrypted = security { true } else { false }
            let hosted = Listing.hostedGame(G.self, host: configuration.hostName, seatsTotal: configuration.seats, encrypted: encrypted,
                                            appVersion: appVersion)
            let matchID = resuming.map { $0.state.matchID.hex } ?? ""
            listing = await HostedListing.advertise(hosted.serviceInfo(seatsTaken: 1 + bots.count, playing: resuming != nil, matchID: matchID),
                                                    as: hosted.serviceName, port: listener.port, in: directory)
        }
        return TurnBasedHost(host: host, listener: listener, acceptor: acceptor, listing: listing, saves: saves, resumed: resumed,
                             bots: bots)
    }

    /// Takes a saved guest's match (`record`, from `store`) back up: dials
    /// the host advertising the match on the LAN (`lookOnTheLAN`: it may have
    /// had to take another port), else where it was reached
    /// (`record.peerAddress`), again and again within `grace`, until the
    /// host (resumed, or still waiting) takes the seat back. Changes go on
    /// being saved into `store`. `directory`: where to look (nil: avahi's
    /// DNS-SD, browsed afresh at each try).
    /// - Throws: `TurnBasedLANError.notResumable`, `ResumeError` (the host
    ///   did not take the seat back within `grace`, or its state disagrees).
    public static func resume<G: Game>(_ game: G.Type, joined record: StoredMatch, store: MatchStore,
                                       security: ChannelSecurity = .clear, grace: Duration = .seconds(60),
                                       lookOnTheLAN: Bool = true, directory: (any ServiceDirectory)? = nil,
                                       playedBy player: TurnBasedPlayer<G> = .caller, rematches: Bool = false,
                                       appVersion: String = defaultAppVersion) async throws -> TurnBasedMatch<G> {
        let state = record.state
        guard record.role == .guest, state.gameID == G.id, let token = SeatToken(bytes: record.seatToken),
              let (host, port) = Self.hostAndPort(record.peerAddress) else {
            throw TurnBasedLANError.notResumable("match \(state.matchID.short) is not a match of \(G.id) this side joined")
        }
        try store.checkWritable()
        let seat = state.seats[record.localSeat]
        let hello = Hello(appVersion: appVersion, playerID: seat.playerID, playerName: seat.name,
                          games: [GameVersion(id: G.id, rulesVersion: UInt16(clamping: G.rulesVersion))],
                          matchID: state.matchID, seatToken: token)
        var options = GuestOptions()
        options.grace = grace
        let reached = Mutex<String?>(nil)
        let dial = Listing.dialer(toHostOf: state.matchID.hex, lookOnTheLAN: lookOnTheLAN, address: (host, port),
                                  directory: { directory ?? DNSSDDirectory() }, security: { security }, reached: { address in reached.withLock { $0 = address } })
        let joined = try await Guest.resume(dial: dial, hello: hello, saved: state, options: options)
        // Where the host was found this time is where to look first next time.
        var updated = record
        if let address = reached.withLock({ $0 }) { updated.peerAddress = address }
        let series = TurnBasedSeries<G>(player: player, rematches: rematches, store: store, peerAddress: updated.peerAddress)
        return try await series.guestMatch(joined, recorder: MatchRecorder(store: store, record: updated))
    }

    /// `HOST:PORT` or `[IPV6]:PORT`, as a connection's `remoteAddress` says it.
    static func hostAndPort(_ address: String) -> (String, UInt16)? {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// Joins the match hosted at `host`:`port` as `playerName`.
    /// - Throws: `NetError` (nobody listens there), `JoinError` (the host
    ///   refused: another game, a full table, an older or newer parlor).
    /// With a `store`, the match is saved there before this returns, and each
    /// change before it is acknowledged or shown; a store where nothing can
    /// be saved throws `StoreError` before anything is sent.
    /// When the connection drops or the host goes away, this side dials
    /// `host`:`port` again for `grace` (the `away` and `back` events say so);
    /// past it the match stops, saved as interrupted, for `resume`.
    public static func join<G: Game>(_ game: G.Type, host: String, port: UInt16, as playerName: String,
                                     security: ChannelSecurity = .clear, grace: Duration = .seconds(120),
                                     store: MatchStore? = nil, playedBy player: TurnBasedPlayer<G> = .caller,
                                     rematches: Bool = false, appVersion: String = defaultAppVersion) async throws -> TurnBasedMatch<G> {
        // Before connecting: a seat this side could not save is not taken from others.
        try store?.checkWritable()
        let connection = try await TCPConnection.connect(host: host, port: port)
        let dial = Listing.dialer(host: host, port: port, security: { security })
        return try await join(G.self, over: connection, as: playerName, security: security, redial: GuestOptions(grace: grace, redial: dial),
                              store: store, player: player, rematches: rematches, appVersion: appVersion)
    }

    /// Finds the game listed on the LAN as `name` (its exact name, ignoring
    /// case, or a prefix only it has) and joins it as `playerName`.
    /// Gets back to the host by itself, as `join(_:host:port:...)` does.
    /// - Throws: `GameSearchError` (no such game, several, not joinable,
    ///   no DNS-SD), `NetError`, `JoinError`.
    public static func join<G: Game>(_ game: G.Type, named name: String, as playerName: String,
                                     security: ChannelSecurity = .clear, grace: Duration = .seconds(120),
                                     timeout: Duration = GameFinder.defaultTimeout,
                                     directory: any ServiceDirectory = DNSSDDirectory(), store: MatchStore? = nil,
                                     playedBy player: TurnBasedPlayer<G> = .caller, rematches: Bool = false,
                                     appVersion: String = defaultAppVersion) async throws -> TurnBasedMatch<G> {
        try store?.checkWritable()
        let finder = GameFinder(directory: directory, timeout: timeout, assess: Listing.assess)
        let listed = try await finder.find(name: name, picker: nil)
        let addresses = Listing.socketAddresses(of: listed.service)
        let connection = try await TCPConnection.connect(addresses: addresses, timeout: .seconds(5))
        let dial = Listing.dialer(addresses: addresses, security: { security })
        return try await join(G.self, over: connection, as: playerName, security: security, redial: GuestOptions(grace: grace, redial: dial),
                              store: store, player: player, rematches: rematches, appVersion: appVersion)
    }

    private static func join<G: Game>(_ game: G.Type, over connection: TCPConnection, as playerName: String,
                                      security: ChannelSecurity, redial options: GuestOptions, store: MatchStore?,
                                      player: TurnBasedPlayer<G>, rematches: Bool, appVersion: String) async throws -> TurnBasedMatch<G> {
        // Only `G`: a host of another game refuses the guest with a sentence naming it.
        let hello = Hello(appVersion: appVersion, playerID: .random(), playerName: playerName,
                          games: [GameVersion(id: G.id, rulesVersion: UInt16(clamping: G.rulesVersion))])
        let joined = try await Guest.join(over: security.connecting(connection.byteStream()), hello: hello, options: options)
        // A host that does not read the games list (protocol 1) may still seat us at another game.
        guard joined.initialState.gameID == G.id else {
            await joined.remote.leaveForNow("this player came for another game")
            connection.close()
            throw TurnBasedLANError.otherGame(hosted: joined.initialState.gameID, wanted: G.id)
        }
        let series = TurnBasedSeries<G>(player: player, rematches: rematches, store: store, peerAddress: connection.remoteAddress)
        do { return try await series.guestMatch(joined) } catch {
            connection.close()
            throw error
        }
    }
}

/// Why a join found a match it cannot play.
public enum TurnBasedLANError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host plays another game than the one asked for.
    case otherGame(hosted: String, wanted: String)
    /// The match could not be saved as it started, so this side left it (for now: the host keeps it).
    case notSaved(String)
    /// The saved match is not one this call can take back up; the sentence says why.
    case notResumable(String)
    /// The host stopped before there was anything to watch; the sentence says why.
    case stopped(String)
    /// Nobody took the seat (or came back to it) within the wait.
    case nobodyCame(Duration)

    /// The sentence to show, in lower case: "the host plays reversi, not
    /// nim", "could not save the match, so it was left: <why>", "stopped
    /// watching: <why>", "nobody came within 120 s"; for `notResumable`, the
    /// sentence it carries.
    public var description: String {
        switch self {
        case .otherGame(let hosted, let wanted): "the host plays \(hosted), not \(wanted)"
        case .notSaved(let why): "could not save the match, so it was left: \(why)"
        case .notResumable(let why): why
        case .stopped(let why): "stopped watching: \(why)"
        case .nobodyCame(let limit): "nobody came within \(limit.components.seconds) s"
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
    private let saves: SavedBeforeWelcome?
    /// A resumed match: where it is saved, and its record.
    private let resumed: (store: MatchStore, record: StoredMatch)?
    /// Who plays the table's bot seats, in the order of `HostedMatch.botSeats`.
    private let bots: [TurnBasedPlayer<G>]

    init(host: MatchHost, listener: TCPListener, acceptor: Task<Void, Never>, listing: HostedListing?,
         saves: SavedBeforeWelcome?, resumed: (store: MatchStore, record: StoredMatch)? = nil, bots: [TurnBasedPlayer<G>] = []) {
        self.saves = saves
        self.bots = bots
        self.resumed = resumed
        self.host = host
        self.listener = listener
        self.acceptor = acceptor
        self.listing = listing
        self.port = listener.port
    }

    /// Waits for a guest (a resumed match: for its guest to come back), then
    /// starts the match with the host's player at its seat. The game leaves
    /// the LAN's lists; the port stays open for the match (a guest coming
    /// back, spectators) until the match's `leave()`.
    /// The game leaves the LAN's lists once the guest is seated.
    /// `player`: who plays the host's seat (your code by default, or parlor's bot, or a strategy).
    /// `limit`: how long to wait (nil: until `close()`); past it the port is
    /// closed and `TurnBasedLANError.nobodyCame` thrown (a resumed match stays
    /// interrupted in its store).
    /// `rematches`: keep the connection past a normal end, so that
    /// `TurnBasedMatch.rematch()` can agree on another match (two seats).
    public func waitForMatch(playedBy player: TurnBasedPlayer<G> = .caller, rematches: Bool = false,
                             within limit: Duration? = nil) async throws -> TurnBasedMatch<G> {
        let expired = Expiry()
        let deadline = limit.map { limit in
            Task {
                try await Task.sleep(for: limit)
                expired.fired.withLock { $0 = true }
                await self.close()
            }
        }
        let hosted: HostedMatch
        do { hosted = try await host.waitForGuest() } catch {
            deadline?.cancel()
            await close()
            if let limit, expired.fired.withLock({ $0 }) { throw TurnBasedLANError.nobodyCame(limit) }
            throw error
        }
        deadline?.cancel()
        // The port stays open through the match: a guest that drops comes back on it, spectators watch through it.
        await listing?.withdraw()
        // Saved before the guest was welcomed: its recorder goes on with the match (a resumed one, with its record).
        var series = TurnBasedSeries<G>(player: player, rematches: rematches, host: host, saves: saves, onLeave: { await self.close() })
        series.bots = bots
        return try await series.hostMatch(hosted, recorder: resumed.map { MatchRecorder(store: $0.store, record: $0.record) })
    }

    /// Stops hosting: withdraws the listing and closes the port (a match's
    /// `leave()` and `leaveForNow()` do it).
    public func close() async {
        await listing?.withdraw()
        acceptor.cancel()
        listener.close()
        await host.shutdown()
    }
}

/// Whether a wait's limit has passed.
private final class Expiry: Sendable {
    let fired = Mutex(false)
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

    /// Dials `host`:`port` again (resolving the name each time), for a guest
    /// getting back to its host, behind `security` as it is at each dial.
    public static func dialer(host: String, port: UInt16, security: @escaping @Sendable () -> ChannelSecurity) -> Dialer {
        { timeout in security().connecting(try await TCPConnection.connect(host: host, port: port, timeout: timeout).byteStream()) }
    }

    /// Dials `addresses` again (in order), for a guest getting back to its
    /// host, behind `security` as it is at each dial.
    public static func dialer(addresses: [SocketAddress], security: @escaping @Sendable () -> ChannelSecurity) -> Dialer {
        { timeout in security().connecting(try await TCPConnection.connect(addresses: addresses, timeout: timeout).byteStream()) }
    }

    /// Dials the host of match `matchID` (hex) again, for a guest getting
    /// back to its seat: the host advertising that match on the LAN first
    /// (`lookOnTheLAN`; a resumed host may have had to take another port),
    /// else `address`. One dial stays within its `timeout`, the looking
    /// included. `security` is read at each dial (a passcode learnt meanwhile);
    /// `reached` hears where a dial got to.
    public static func dialer(toHostOf matchID: String, lookOnTheLAN: Bool, address: (host: String, port: UInt16)?,
                              directory: @escaping @Sendable () -> any ServiceDirectory = { DNSSDDirectory() },
                              security: @escaping @Sendable () -> ChannelSecurity,
                              reached: @escaping @Sendable (String) -> Void = { _ in }) -> Dialer {
        { timeout in
            let began = ContinuousClock.now
            let left = { max(timeout - (ContinuousClock.now - began), .milliseconds(100)) }
            if lookOnTheLAN,
               // A directory of its own each time: each look is a browse from scratch.
               let service = await MatchFinder.find(matchID: matchID, within: min(.seconds(2), timeout / 2), in: directory()),
               let connection = try? await TCPConnection.connect(addresses: socketAddresses(of: service), timeout: left()) {
                reached(connection.remoteAddress)
                return security().connecting(connection.byteStream())
            }
            guard let address else {
                throw NetError.connectFailed(host: "match \(matchID.prefix(8))", port: 0, attempts: [])
            }
            let connection = try await TCPConnection.connect(host: address.host, port: address.port, timeout: left())
            reached(address.host.contains(":") ? "[\(address.host)]:\(address.port)" : "\(address.host):\(address.port)")
            return security().connecting(connection.byteStream())
        }
    }
}
