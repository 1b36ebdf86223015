import Testing

@testable import Discovery

/// A table's advertisement (protocol 2): seats taken and free, and a `pv`
/// that keeps a protocol-1 parlor from trying a table it cannot play.
@Suite struct TableTXTTests {
    static let table = ParlorServiceInfo(
        protocolVersion: 2, gameID: "dots-and-boxes", rulesVersion: 1, seatsTaken: 2, seatsTotal: 4, state: .open,
        matchID: "", needsPasscode: false, appVersion: "0.2.0", hostPlayerName: "Ana")

    @Test func aTableOfFourWithTwoSeatedIsJoinableByProtocolTwoAndNotByOne() throws {
        let txt = try Self.table.txtRecord()
        #expect(txt["seats"] == "2/4")
        #expect(txt["pv"] == "2")
        let now = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 2, knownGameIDs: ["dots-and-boxes"])
        #expect(now.reason == nil)
        #expect(now.info?.seatsTaken == 2 && now.info?.seatsTotal == 4)
        // Release 1 reads any pv but its own as another protocol version.
        let old = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["dots-and-boxes"])
        #expect(old.reason == .protocolVersion(advertised: "2", supported: 1))
    }

    @Test func aTwoSeatHostStillSaysProtocolOneAndProtocolTwoJoinsIt() throws {
        var info = Self.table
        info.protocolVersion = 1
        info.seatsTaken = 1
        info.seatsTotal = 2
        let assessed = ParlorServiceInfo.assess(try info.txtRecord(), supportedProtocolVersion: 2, knownGameIDs: ["dots-and-boxes"])
        #expect(assessed.reason == nil)
        let full = ParlorServiceInfo.assess(try Self.tableFull().txtRecord(), supportedProtocolVersion: 2, knownGameIDs: ["dots-and-boxes"])
        #expect(full.reason == .full(taken: 4, total: 4))
    }

    static func tableFull() -> ParlorServiceInfo {
        var info = table
        info.seatsTaken = 4
        return info
    }
}
