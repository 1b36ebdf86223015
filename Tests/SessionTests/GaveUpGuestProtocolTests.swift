import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Issue 17 item 13: a host never seats a guest that has given up on its
/// handshake (its HELLO and its close were both waiting while the host was
/// stopped), and the seat stays open for the next real guest.
@Suite struct GaveUpGuestProtocolTests {
    /// A connection whose peer sent HELLO and then closed: both already arrived.
    static func goneGuest(_ hello: Hello) -> AdaptedByteStream {
        let (events, continuation) = AsyncStream<ByteStreamEvent>.makeStream()
        continuation.yield(.data(Message.hello(hello).encoded))
        continuation.yield(.closed(nil))
        continuation.finish()
        return AdaptedByteStream(peerDescription: "192.0.2.9:4000", events: events, send: { _ in }, close: {},
                                 peerHasClosed: { true })
    }

    @Test func aGuestThatClosedBeforeItWasSeatedIsDroppedAndTheNextOneIsSeated() async throws {
        let host = try HostBadInputProtocolTests.makeHost()
        var reports = host.reports.makeAsyncIterator()
        await host.accept(Self.goneGuest(HostBadInputProtocolTests.hello(name: "Gone")))
        let report = try #require(await reports.next())
        #expect(report.outcome == .dropped("the guest closed the connection before it was seated"), "\(report)")
        #expect(await !host.hasGuest)
        try await HostBadInputProtocolTests.realGuestStillPlays(host)
    }

    @Test func aHelloReadAfterTheHandshakeAlmostRanOutIsNotSeated() async throws {
        // A one-second handshake whose guest HELLO arrives late (a slow or stopped host reads it late).
        let timeouts = SessionTimeouts(handshake: .milliseconds(800), heartbeatInterval: .milliseconds(100),
                                       heartbeatTimeout: .seconds(2), confirmation: .seconds(2), grace: .seconds(2))
        let host = try MatchHost(configuration: HostConfiguration(gameID: "connect4", hostName: "Hostess", hostPlayerID: .random(),
                                                                  timeouts: timeouts, appVersion: "test"))
        var reports = host.reports.makeAsyncIterator()
        let peer = await HostBadInputProtocolTests.connect(host)
        try await Task.sleep(for: .milliseconds(700))
        await peer.send(.hello(HostBadInputProtocolTests.hello(name: "Late")))
        let report = try #require(await reports.next())
        #expect(report.outcome != .admitted(name: "Late", seat: 1) && report.outcome != .admitted(name: "Late", seat: 0), "\(report)")
        #expect(await !host.hasGuest)
    }
}
