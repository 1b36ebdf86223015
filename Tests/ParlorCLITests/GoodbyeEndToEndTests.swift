import Foundation
import Games
import Match
import ParlorTestSupport
import Session
import Testing

/// Issue 17, items 8 and 9, against a real `parlor host` process over
/// loopback TCP, the guest written from docs/PROTOCOL.md: frames after a
/// GOODBYE are ignored, and a losing guest's forged GOODBYE(desync) does not
/// erase the host's win (docs/PROTOCOL.md, sections 4 and 8).
@Suite(.serialized) struct GoodbyeEndToEndTests {
    typealias Table = ResumeEndToEndTests.Table

    static func connect(_ port: UInt16) async throws -> RawPeer {
        RawPeer(stream: try sealedAsGuest(try await TCPConnection.connect(host: "127.0.0.1", port: port).byteStream()))
    }

    @Test func aTurnAfterGoodbyeIsIgnoredAndAForgedDesyncLosesOnTime() async throws {
        let table = Table()
        // The host's bot plays second: the guest is to move, with 5 s for it.
        let host = try SpawnedParlor(["host", "connect4", "--bot", "easy", "--json", "--port", "0", "--seat", "second",
                                      "--turn-timeout", "5", "--grace", "30"], environment: table.environment(.host))
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(ResumeEndToEndTests.port(from: listening).flatMap { UInt16($0) })

        var hello = Hello(appVersion: "test", playerID: .random(), playerName: "Mallory")
        let peer = try await Self.connect(port)
        let (welcome, start) = try #require(await peer.handshake(hello), Comment(rawValue: host.transcript))
        let seat = welcome.seat
        hello.matchID = start.matchID
        hello.seatToken = welcome.seatToken

        // GOODBYE(leaving) and a TURN in one write: the host takes the departure only.
        let moved = try start.applying(.move(Move(3), by: seat), now: wallClockMilliseconds())
        await peer.send(bytes: Message.goodbye(.goodbyeLeaving, sentence: "leaving, may resume", finalBlob: []).encoded
                        + Message.turn(sequence: moved.sequence, blob: MatchBlob.encode(moved)).encoded)
        #expect(await host.line(containing: "Mallory disconnected (leaving") != nil, Comment(rawValue: host.transcript))
        let back = try await Self.connect(port)
        let (_, seen) = try #require(await back.handshake(hello), Comment(rawValue: host.transcript))
        #expect(seen.sequence == 0 && seen.moves.isEmpty, "the host committed the TURN that followed GOODBYE")

        // Instead of moving, the guest claims a desync: it is away, and its time runs out.
        await back.send(.goodbye(.goodbyeDesync, sentence: "hash differs", finalBlob: []))
        #expect(await host.line(containing: "its copy of the match disagrees") != nil, Comment(rawValue: host.transcript))
        var final: MatchState?
        for _ in 0..<20 where final == nil {
            try await Task.sleep(for: .seconds(1))
            let again = try await Self.connect(port)
            guard let (_, state) = await again.handshake(hello) else { continue }
            if state.isEnded {
                final = state
                #expect(await again.nextMessage().map { if case .goodbye(.goodbyeMatchOver, _, _) = $0 { true } else { false } } == true)
            }
            await again.close()
        }
        let ended = try #require(final, Comment(rawValue: host.transcript))
        #expect(ended.seats[seat].outcome == .timeExpired)
        #expect(ended.seats[1 - seat].outcome == .won)
        #expect(await host.wait(timeout: .seconds(40)) == 0, Comment(rawValue: host.transcript))
        #expect(try await table.matches(on: .host).contains("\"state\":\"ended\""))
    }
}
