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
        return info
    }
}
