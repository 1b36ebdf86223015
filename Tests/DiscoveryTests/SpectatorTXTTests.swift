import Testing

@testable import Discovery

/// What a host's TXT record says of spectators (docs/PROTOCOL.md, section 17):
/// `watch` "watching/allowed" and `wcode`, and which games `parlor watch` may pick.
@Suite struct SpectatorTXTTests {
    static var playing: ParlorServiceInfo {
        var info = ParlorServiceInfo(protocolVersion: 1, gameID: "connect4", rulesVersion: 1, seatsTaken: 2, seatsTotal: 2, state: .playing,
                                     matchID: "00112233445566778899aabbccddeeff", needsPasscode: true, appVersion: "0.2.0", hostPlayerName: "Ana")
        info.spectators = (3, 16)
        info.watchNeedsPasscode = true
        return info
    }

    static func assessed(_ info: ParlorServiceInfo) throws -> ParlorServiceAssessment {
        ParlorServiceInfo.assess(try info.txtRecord(), supportedProtocolVersion: 2, knownGameIDs: ["connect4"])
    }

    @Test func watchingAndTheWatchCodeTravelInTheRecordAndReadBack() throws {
        let txt = try Self.playing.txtRecord()
        #expect(txt["watch"] == "3/16")
        #expect(txt["wcode"] == "1")
        let read = try ParlorServiceInfo(txt: txt)
        #expect(read.spectators?.watching == 3 && read.spectators?.allowed == 16)
        #expect(read.watchNeedsPasscode && read.welcomesSpectators)
    }

    @Test func aGameInProgressCannotBeJoinedButCanBeWatched() throws {
        let assessment = try Self.assessed(Self.playing)
        #expect(assessment.reason == .alreadyPlaying)
        #expect(ParlorServiceInfo.assessForWatching(assessment).isJoinable)
    }

    @Test func aHostWithoutSpectatorsOrWithNoRoomLeftIsNotOfferedToWatch() throws {
        var closed = Self.playing
        closed.spectators = (0, 0)
        #expect(ParlorServiceInfo.assessForWatching(try Self.assessed(closed)).reason == .noSpectators)
        var full = Self.playing
        full.spectators = (16, 16)
        #expect(ParlorServiceInfo.assessForWatching(try Self.assessed(full)).reason == .spectatorsFull(watching: 16))
        // A host from before spectators says nothing of them: never offered to watch.
        var old = Self.playing
        old.spectators = nil
        old.watchNeedsPasscode = false
        let txt = try old.txtRecord()
        #expect(txt["watch"] == nil && txt["wcode"] == nil)
        #expect(ParlorServiceInfo.assessForWatching(try Self.assessed(old)).reason == .noSpectators)
    }

    @Test func anUnreadableWatchValueIsIgnoredNotAnError() throws {
        var txt = try Self.playing.txtRecord()
        try txt.set("watch", to: "lots")
        let read = try ParlorServiceInfo(txt: txt)
        #expect(read.spectators == nil && read.gameID == "connect4")
    }
}

/// TXT `key` (protocol 3): the start of the host's key fingerprint, for lists to mark known players.
@Suite struct HostKeyTXTTests {
    static func info(key: String?) -> ParlorServiceInfo {
        var info = ParlorServiceInfo(protocolVersion: 1, gameID: "connect4", rulesVersion: 1, seatsTaken: 1, seatsTotal: 2, state: .open,
                                     matchID: "", needsPasscode: false, appVersion: "3", hostPlayerName: "Ana")
        info.hostKey = key
        return info
    }

    @Test("a short fingerprint round-trips through the TXT record; anything else in `key` is ignored, and the game is still listed")
    func keyRoundTrip() throws {
        let read = try ParlorServiceInfo(txt: Self.info(key: "RDRHLUG-V6WCKWX").txtRecord())
        #expect(read.hostKey == "RDRHLUG-V6WCKWX")
        #expect(try ParlorServiceInfo(txt: Self.info(key: nil).txtRecord()).hostKey == nil)
        for odd in ["rdrhlug-v6wckwx", "RDRHLUG", "RDRHLUG-V6WCKW1", "RDRHLUGV6WCKWXA", "\u{1B}[31mRDRHLU-V6WCKWX"] {
            var txt = try Self.info(key: nil).txtRecord()
            try txt.set("key", to: odd)
            let parsed = try ParlorServiceInfo(txt: txt)
            #expect(parsed.hostKey == nil, "\(odd) was taken for a key")
            #expect(parsed.gameID == "connect4")
        }
    }
}
