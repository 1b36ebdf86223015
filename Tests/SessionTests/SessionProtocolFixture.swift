import Bots
import Games
import Match
import ParlorTestSupport
import Session

/// Timeouts short enough for tests, long enough not to fire by accident.
let quickTimeouts = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(100),
                                    heartbeatTimeout: .seconds(2), confirmation: .seconds(2), grace: .seconds(2))

/// A host and a guest joined over an in-memory stream, before their controllers exist.
struct JoinedPair {
    let host: MatchHost
    let hosted: HostedMatch
    let joined: JoinedMatch
    /// The guest's end and the host's end of the stream.
    let guestEnd: InMemoryByteStream
    let hostEnd: InMemoryByteStream

    static func make(game: String = "connect4", seat: HostConfiguration.SeatPreference = .first,
                     turnTimeout: UInt32 = 0, timeouts: SessionTimeouts = quickTimeouts,
                     guestName: String = "Guest", guestOptions: GuestOptions = GuestOptions()) async throws -> JoinedPair {
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: game, hostName: "Hostess", hostPlayerID: .random(), seatPreference: seat,
            turnTimeoutSeconds: turnTimeout, timeouts: timeouts, appVersion: "test"))
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let hello = Hello(appVersion: "test", playerID: .random(), playerName: guestName,
                          games: [GameVersion.local(game)].compactMap { $0 })
        async let joining = Guest.join(over: guestEnd, hello: hello, options: guestOptions)
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        return JoinedPair(host: host, hosted: hosted, joined: joined, guestEnd: guestEnd, hostEnd: hostEnd)
    }
}

/// Both controllers of a LAN match with bots (or given participants) at both seats.
struct BotMatch {
    let pair: JoinedPair
    let hostController: MatchController
    let guestController: MatchController
    let hostEvents = EventRecorder()
    let guestEvents = EventRecorder()

    static func start(_ pair: JoinedPair, host hostStrategy: @escaping BotParticipant.Strategy = TestStrategies.firstLegal,
                      guest guestStrategy: @escaping BotParticipant.Strategy = TestStrategies.firstLegal) async throws -> BotMatch {
        let (hostController, _) = pair.hosted.makeController { BotParticipant(playerID: $0, strategy: hostStrategy) }
        let (guestController, _) = pair.joined.makeController { BotParticipant(playerID: $0, strategy: guestStrategy) }
        let match = BotMatch(pair: pair, hostController: hostController, guestController: guestController)
        await match.hostEvents.record(hostController)
        await match.guestEvents.record(guestController)
        try await hostController.start()
        try await guestController.start()
        return match
    }
}

/// Waits for `controller` to stop, or nil after `timeout`.
func finished(_ controller: MatchController, within timeout: Duration = .seconds(10)) async -> MatchState? {
    await withTaskGroup(of: MatchState?.self) { group in
        group.addTask { await controller.finished() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
