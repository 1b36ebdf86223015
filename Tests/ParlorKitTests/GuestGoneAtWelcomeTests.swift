import Foundation
import Games
import Match
import ParlorKit
import ParlorTestSupport
import Session
import Store
import Testing

/// A guest that goes away is reported away by the host's front door (its
/// `away` event), at two seats as at a table: right after its WELCOME, before
/// its side of the match has started, or once it has.
@Suite(.timeLimit(.minutes(1)))
struct GuestGoneAtWelcomeTests {
    init() { Nim.register() }

    @Test("a guest whose connection closes after WELCOME is reported away by the host, its side started or not", arguments: [false, true])
    func closedAfterWelcome(started: Bool) async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false)
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: table.port)
        let hello = Hello(appVersion: "test", playerID: .random(), playerName: "Bo",
                          games: [GameVersion(id: Nim.id, rulesVersion: UInt16(Nim.rulesVersion))])
        async let joined = Guest.join(over: connection.byteStream(), hello: hello)
        let host = try await table.waitForMatch()
        let match = try await joined
        if started {
            let (controller, _) = match.makeController { LocalParticipant(playerID: $0) }
            try await controller.start()
            try await Task.sleep(for: .milliseconds(200))
        }
        connection.close()
        var away: TurnBasedParticipant?
        for await event in host.events {
            if case .away(let who, let graceLeft) = event {
                away = who
                #expect(graceLeft > .seconds(30), "the seat is kept for the grace")
                break
            }
            if case .stopped = event { break }
        }
        #expect(away?.name == "Bo" && away?.isLocal == false, "the host never said its guest was away")
        await host.leave()
    }
}

/// The host's side going away and coming back, as its guest sees it through
/// the front door: `away` for the host's seat, the guest dialing back by
/// itself, `back`, and the match played on to one end.
@Suite(.timeLimit(.minutes(1)))
struct HostAwayAndBackTests {
    init() { Nim.register() }

    @Test("a guest hears its host go away and come back (resumed from its store), and the match ends alike")
    func hostLeavesForNowAndResumes() async throws {
        let root = NSTemporaryDirectory() + "parlorkit-away-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hostStore = MatchStore(directory: root + "/host")
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false, store: hostStore)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo")
        let host = try await table.waitForMatch()
        let guest = try await joining
        // Nothing played yet: the host steps away at once.
        await host.leaveForNow()
        var presence: [String] = []
        var resumed: TurnBasedMatch<Nim>?
        var hostSeat = -1
        for await event in guest.events {
            switch event {
            case .away(let who, let graceLeft):
                presence.append("away \(who.name)")
                hostSeat = who.seat
                #expect(graceLeft > .seconds(60))
                let record = try #require(hostStore.list().matches.first)
                let again = try await TurnBasedLAN.resume(Nim.self, hosting: record, store: hostStore, advertise: false)
                resumed = try await again.waitForMatch(playedBy: .bot(.easy))
            case .back(let who):
                presence.append("back \(who.name)")
            case .turnBegan(let who, let game) where who.isLocal:
                if let move = game.legalMoves.first { try await guest.endTurn(with: move) }
            default:
                break
            }
        }
        #expect(presence == ["away Ana", "back Ana"])
        #expect(hostSeat != guest.localSeat)
        let host2 = try #require(resumed)
        _ = await host2.finished()
        let (onHost, onGuest) = (await host2.state, await guest.state)
        #expect(onHost.isEnded && onGuest.isEnded && onHost.stateHash == onGuest.stateHash)
        await host2.leave()
    }
}
