import Discovery
import Games
import ParlorKit
import Session
import Testing
@testable import ParlorCLI

/// What a host's advertisement says of its protocol (TXT `pv`, docs/PROTOCOL.md section 20):
/// an older parlor lists a protocol-3 host as needing an update instead of trying it and
/// being closed on without a word; a host that admits clear guests still says what they speak.
@Suite("The protocol a host advertises")
struct AdvertisedVersionTests {
    static func pv(_ hosted: HostedGame) throws -> String? {
        try hosted.serviceInfo(seatsTaken: 1, playing: false, matchID: "").txtRecord()["pv"]
    }

    @Test("a host that needs encryption advertises pv=3; this parlor lists it, a protocol-2 parlor says to update")
    func encryptedHostsSayThree() throws {
        let txt = try LAN.hostedGame(Connect4.self, host: "Ana").serviceInfo(seatsTaken: 1, playing: false, matchID: "").txtRecord()
        #expect(txt["pv"] == "3")
        #expect(try Self.pv(LAN.hostedGame(DotsAndBoxes.self, host: "Ana", seatsTotal: 3)) == "3")
        #expect(Listing.assess(txt).reason == nil, "this parlor joins it")
        let older = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 2, knownGameIDs: ["connect4"])
        #expect(older.reason == .protocolVersion(advertised: "3", supported: 2))
        #expect(older.reason?.description.contains("update this parlor") == true, "\(String(describing: older.reason))")
    }

    @Test("with --allow-unencrypted a host keeps protocol 2's pv (1 for two seats, 2 for a table), so older parlors still join")
    func clearHostsKeepTheOldVersion() throws {
        #expect(try Self.pv(LAN.hostedGame(Connect4.self, host: "Ana", allowsClear: true)) == "1")
        #expect(try Self.pv(LAN.hostedGame(DotsAndBoxes.self, host: "Ana", seatsTotal: 3, allowsClear: true)) == "2")
    }
}
