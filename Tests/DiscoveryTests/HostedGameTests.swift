import Testing

@testable import Discovery

/// The name and TXT record a host puts on the LAN, as another parlor reads them.
@Suite struct HostedGameTests {
    static func game(host: String = "Ana", code: Bool = false, hints: Bool = false) -> HostedGame {
        HostedGame(gameID: "connect4", gameDisplayName: "Connect Four", rulesVersion: 1, hostPlayerName: host,
                   protocolVersion: 1, appVersion: "0.9.0", needsPasscode: code, hintsAllowed: hints)
    }

    @Test(arguments: [("Ana", "Ana's Connect Four"), ("Chris", "Chris' Connect Four"), ("", "'s Connect Four")])
    func theNameIsTheHostsPossessiveAndTheGame(host: String, name: String) {
        #expect(Self.game(host: host).serviceName == name)
    }

    @Test func aLongNameIsCutOnACharacterBoundaryToWhatDNSSDAllows() throws {
        let host = String(repeating: "é", count: 40)  // 80 bytes
        let name = Self.game(host: host).serviceName
        #expect(name.utf8.count == 62)  // 31 "é"; a 32nd would need bytes 63 and 64
        #expect(name == String(repeating: "é", count: 31))
        try ServiceRegistration(name: name, port: 7477).validate()
    }

    @Test func anOpenGameIsAdvertisedAsJoinable() throws {
        let txt = try Self.game(code: true).serviceInfo(seatsTaken: 1, playing: false, matchID: "").txtRecord()
        #expect(txt["seats"] == "1/2")
        #expect(txt["state"] == "open")
        #expect(txt["code"] == "1")
        #expect(txt["game"] == "connect4")
        #expect(txt["host"] == "Ana")
        #expect(txt["hints"] == nil)
        let seen = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(seen.isJoinable)
        #expect(seen.info?.needsPasscode == true)
    }

    @Test func aStartedMatchIsAdvertisedWithItsIDAndCannotBeJoined() throws {
        let txt = try Self.game(hints: true).serviceInfo(seatsTaken: 2, playing: true, matchID: "d8ed3ae5").txtRecord()
        #expect(txt["match"] == "d8ed3ae5")
        #expect(txt["hints"] == "1")
        let seen = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
        #expect(seen.reason == .alreadyPlaying)
        #expect(seen.info?.hintsAllowed == true)
    }
}
