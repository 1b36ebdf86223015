// What a host says about the game it hosts: the instance name people read
// and the TXT facts of the match as it stands. Discovery does not know the
// game catalog or the wire protocol: the caller passes their values in.

/// A game this process hosts, as the LAN's lists show it.
public struct HostedGame: Sendable, Hashable {
    /// The game's id in the catalog ("connect4").
    public var gameID: String
    /// The game's name as people read it ("Connect Four").
    public var gameDisplayName: String
    /// The version of the game's rules.
    public var rulesVersion: Int
    /// The host player's name ("Ana").
    public var hostPlayerName: String
    /// The wire protocol version the host speaks.
    public var protocolVersion: Int
    /// The host's parlor version, for display.
    public var appVersion: String
    /// Seats in the match, the host's included.
    public var seatsTotal: Int
    /// Whether joining needs a passcode.
    public var needsPasscode: Bool
    /// Whether the host allows the hint key (`parlor host --hints`).
    public var hintsAllowed: Bool
    /// The host player's short key fingerprint (TXT `key`), nil to leave it out.
    public var hostKey: String?

    /// Describes a hosted game.
    public init(gameID: String, gameDisplayName: String, rulesVersion: Int, hostPlayerName: String,
                protocolVersion: Int, appVersion: String, seatsTotal: Int = 2, needsPasscode: Bool = false,
                hintsAllowed: Bool = false) {
        self.gameID = gameID
        self.gameDisplayName = gameDisplayName
        self.rulesVersion = rulesVersion
        self.hostPlayerName = hostPlayerName
        self.protocolVersion = protocolVersion
        self.appVersion = appVersion
        self.seatsTotal = seatsTotal
        self.needsPasscode = needsPasscode
        self.hintsAllowed = hintsAllowed
    }

    /// The DNS-SD instance name a person recognises: "Ana's Connect Four",
    /// "Chris' Connect Four", cut on a character boundary to the 63 bytes DNS-SD allows.
    public var serviceName: String {
        let possessive = hostPlayerName.hasSuffix("s") ? hostPlayerName + "'" : hostPlayerName + "'s"
        // A display name's explanation in brackets is left out: "Cube Four (3D Connect Four)" → "Cube Four".
        let title = gameDisplayName.range(of: " (").map { String(gameDisplayName[..<$0.lowerBound]) } ?? gameDisplayName
        return ParlorServiceInfo.prefix(of: possessive + " " + title,
                                        maximumBytes: ServiceRegistration.maximumNameBytes)
    }

    /// The TXT facts for the match as it stands: `seatsTaken` of `seatsTotal`,
    /// open or already playing, and its id once there is one.
    public func serviceInfo(seatsTaken: Int, playing: Bool, matchID: String) -> ParlorServiceInfo {
        var info = ParlorServiceInfo(protocolVersion: protocolVersion, gameID: gameID, rulesVersion: rulesVersion,
                                     seatsTaken: seatsTaken, seatsTotal: seatsTotal, state: playing ? .playing : .open,
                                     matchID: matchID, needsPasscode: needsPasscode, appVersion: appVersion,
                                     hostPlayerName: hostPlayerName)
        info.hintsAllowed = hintsAllowed
        info.hostKey = hostKey
        return info
    }
}

extension HostedGame {
    /// The TXT facts of a host of many tables (`parlor host --tables N`,
    /// docs/PROTOCOL.md section 19): a free seat ("open", seats 1/2) while a
    /// table is free, "playing" (seats 2/2) once every table is; TXT `tables`
    /// says how many of the `limit` are in play.
    public func hallInfo(inPlay: Int, limit: Int) -> ParlorServiceInfo {
        let full = inPlay >= limit
        var info = serviceInfo(seatsTaken: full ? 2 : 1, playing: full, matchID: "")
        info.tables = (inPlay: min(inPlay, limit), limit: limit)
        return info
    }
}

/// A hosted game on the LAN's lists: registered once with the facts of the
/// match as it starts, updated as they change, withdrawn on the way out.
/// Advertising never fails the host: without DNS-SD the game is still
/// reachable by address, and `problem` says why it is not listed.
///
/// A registration refused for a reason that may pass (the daemon not started
/// yet, too busy to confirm in time, restarting, at its client limit:
/// `DiscoveryError.mayPass`) is tried again in the background, 2 s after the
/// failure and then less often (up to every 30 s), with the facts of that
/// moment, until it is listed or withdrawn; `listedLater` says when.
public struct HostedListing: Sendable {
    /// The registration to keep and withdraw: nil when advertising failed for
    /// good; while `isPending`, the registration being tried again.
    public let advertisement: (any ServiceAdvertisement)?
    /// Why the game is not on the LAN's lists at the start; nil when it is.
    public let problem: DiscoveryError?
    /// The name asked for; `name` differs after a clash ("Ana's Connect Four #2").
    public let requestedName: String
    private let retry: RetryingAdvertisement?

    /// The instance name registered, nil when not listed (yet).
    public var name: String? { problem == nil ? advertisement?.name : nil }

    /// Whether the game is not listed yet but is being tried again.
    public var isPending: Bool { retry != nil }

    /// Once a pending registration is listed, its name (then the stream ends);
    /// ends with nothing if it is withdrawn first, or if a later attempt fails
    /// for good (then `laterProblem` says why). An empty stream when not pending.
    public var listedLater: AsyncStream<String> {
        guard let retry else { return AsyncStream { $0.finish() } }
        return retry.listed()
    }

    /// Why a pending registration stopped being tried again, if it did.
    public var laterProblem: DiscoveryError? { retry?.gaveUp }

    /// Advertises `info` as `name` on `port`; a failure that may pass is tried
    /// again after `retryAfter`, then after twice as long each time, up to 30 s.
    public static func advertise(_ info: ParlorServiceInfo, as name: String, port: UInt16,
                                 in directory: any ServiceDirectory,
                                 retryAfter: Duration = RetryingAdvertisement.firstDelay) async -> HostedListing {
        let registration: ServiceRegistration
        do { registration = ServiceRegistration(name: name, port: port, txt: try info.txtRecord()) } catch {
            return HostedListing(advertisement: nil, problem: .invalidRegistration("\(error)"), requestedName: name, retry: nil)
        }
        do throws(DiscoveryError) {
            let advertisement = try await directory.advertise(registration)
            return HostedListing(advertisement: advertisement, problem: nil, requestedName: name, retry: nil)
        } catch where error.mayPass {
            let retry = RetryingAdvertisement(registration: registration, directory: directory, firstDelay: retryAfter)
            return HostedListing(advertisement: retry, problem: error, requestedName: name, retry: retry)
        } catch {
            return HostedListing(advertisement: nil, problem: error, requestedName: name, retry: nil)
        }
    }

    /// Says `info` from now on; a failed update is dropped (the next one says
    /// it again). While pending, the next attempt registers with it.
    public func update(_ info: ParlorServiceInfo) async {
        guard let advertisement, let txt = try? info.txtRecord() else { return }
        try? await advertisement.update(txt: txt)
    }

    /// Removes the game from the LAN's lists, or stops trying to list it; later calls do nothing.
    public func withdraw() async { await advertisement?.withdraw() }
}

/// A hall's one advertisement: one service for every table, its TXT
/// `tables` kept current with `update(inPlay:)`.
public struct HallListing: Sendable {
    /// The listing itself.
    public let listing: HostedListing
    private let game: HostedGame
    private let limit: Int

    /// The instance name registered, nil when not advertised.
    public var name: String? { listing.name }
    /// Why the hall is not on the LAN's lists; nil when it is.
    public var problem: DiscoveryError? { listing.problem }

    /// Advertises `game` on `port` with none of `limit` tables in play.
    public static func start(_ game: HostedGame, limit: Int, port: UInt16, in directory: any ServiceDirectory) async -> HallListing {
        let listing = await HostedListing.advertise(game.hallInfo(inPlay: 0, limit: limit), as: game.serviceName, port: port,
                                                    in: directory)
        return HallListing(listing: listing, game: game, limit: limit)
    }

    /// Says `inPlay` tables of the limit are taken now.
    public func update(inPlay: Int) async { await listing.update(game.hallInfo(inPlay: inPlay, limit: limit)) }

    /// Removes the hall from the LAN's lists; later calls do nothing.
    public func withdraw() async { await listing.withdraw() }
}
