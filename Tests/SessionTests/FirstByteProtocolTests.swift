import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// docs/PROTOCOL.md, section 3: which first bytes are refused at once and
/// which wait (the start of an HTTP method word), byte by byte and against
/// a running host over loopback TCP.
@Suite struct FirstByteProtocolTests {
    /// First bytes that wait: `P` of "PL", and the first letters of the HTTP methods the document lists.
    static let waiting = Set("PGHDOCT".utf8)

    @Test func everyFirstByteButTheDocumentedOnesIsRefusedAtOnce() throws {
        for byte in UInt8.min...UInt8.max {
            if Self.waiting.contains(byte) {
                #expect(try FrameDecoder.decode([byte][...]) == nil, "first byte \(byte) should wait")
            } else {
                #expect(throws: FrameError.badMagic([byte]), "first byte \(byte) should be refused") {
                    try FrameDecoder.decode([byte][...])
                }
            }
        }
    }

    @Test func theStartOfAMethodWaitsAndTheFirstByteThatLeavesItIsRefused() throws {
        for start in ["G", "GE", "GET", "PO", "PU", "PA", "HEA", "DELET", "OPTION", "CONNEC", "TRAC"] {
            #expect(try FrameDecoder.decode(Array(start.utf8)[...]) == nil, "'\(start)' should wait")
            #expect(throws: FrameError.badMagic(Array((start + "X").utf8))) { try FrameDecoder.decode(Array((start + "X").utf8)[...]) }
        }
        #expect(throws: FrameError.httpRequest(method: "GET")) { try FrameDecoder.decode(Array("GET ".utf8)[...]) }
    }

    static func tcpHost(handshake: Duration) throws -> HostDoor {
        let timeouts = SessionTimeouts(handshake: handshake, heartbeatInterval: .milliseconds(100),
                                       heartbeatTimeout: .seconds(2), confirmation: .seconds(2), grace: .seconds(2))
        let host = try MatchHost(configuration: HostConfiguration(gameID: "connect4", hostName: "Hostess", hostPlayerID: .random(),
                                                                  timeouts: timeouts, appVersion: "test"))
        return try HostDoor(.tcp, host: host)
    }

    @Test func aWrongFirstByteIsClosedWithoutAWordLongBeforeTheHandshakeTimeout() async throws {
        let door = try Self.tcpHost(handshake: .seconds(10))
        let peer = try await door.connect()
        let sent = ContinuousClock.now
        await peer.send(bytes: Array("X".utf8))
        #expect(await peer.waitForClose(timeout: .seconds(5)))
        #expect(ContinuousClock.now - sent < .seconds(5), "the host waited for its handshake timeout")
        #expect(await peer.received.isEmpty)
    }

    @Test func aLoneGWaitsUntilTheHandshakeTimeoutAndIsThenRejected() async throws {
        let door = try Self.tcpHost(handshake: .seconds(2))
        let peer = try await door.connect()
        await peer.send(bytes: Array("G".utf8))
        // Still open and unanswered well inside the timeout.
        #expect(await peer.next(timeout: .milliseconds(800)) == nil)
        guard case .message(.reject(let reason, _))? = await peer.next(timeout: .seconds(5)) else {
            Issue.record("expected REJECT handshakeTimeout")
            return
        }
        #expect(reason == .handshakeTimeout)
        #expect(await peer.waitForClose())
    }

    @Test func aGThenAByteThatLeavesEveryMethodIsClosedAtOnce() async throws {
        let door = try Self.tcpHost(handshake: .seconds(10))
        let peer = try await door.connect()
        await peer.send(bytes: Array("G".utf8))
        #expect(await peer.next(timeout: .milliseconds(300)) == nil)
        let sent = ContinuousClock.now
        await peer.send(bytes: Array("X".utf8))
        #expect(await peer.waitForClose(timeout: .seconds(5)))
        #expect(ContinuousClock.now - sent < .seconds(5))
        #expect(await peer.received.isEmpty)
    }
}
