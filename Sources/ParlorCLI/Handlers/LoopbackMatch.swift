import Bots
import Match
import ParlorKit
import Session
import Bench
import Store

extension LoopbackMatch {
    /// Session's loopback match with the host's bot (seeded random moves) and,
    /// with a store, both sides recorded there as `parlor host` and `parlor
    /// join` record them (`SessionRunner.record`). With `spectators`, its
    /// process watches over loopback connections of its own from the start.
    /// `hostPause` is the least the host's bot thinks before each move.
    static func start(seed: UInt64, store: MatchStore?, spectators: SpectatorLoad? = nil,
                      hostPause: Duration = .zero, sealed: Bool = false) async throws -> LoopbackMatch {
        try await start(seed: seed, spectators: spectators?.count ?? 0, appVersion: ParlorVersion.current,
            hostPlayer: { id, random in
                BotParticipant(playerID: id, minimumThinkTime: hostPause) { game, _ in random.pick(from: game.legalMoves) }
            },
            beforeGuest: { host, port in
                guard let spectators else { return }
                // They watch from their own process before the guest joins, and so see the match begin.
                spectators.watch(port: port)
                // Each arrival is a change of the gallery's count (the newest kept): no polling.
                let wanted = spectators.count
                let gallery = host.spectators
                let arrived = await withTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        if gallery.count >= wanted { return true }
                        for await count in gallery.changes where count >= wanted { return true }
                        return false
                    }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(10))
                        return false
                    }
                    let first = await group.next() ?? false
                    group.cancelAll()
                    return first
                }
                if !arrived { throw SpectatorLoad.Failure.notWatching(gallery.count, of: wanted) }
            },
            record: { sides in
                guard let store else { return [] }
                let hostRecorder = MatchRecorder(store: store, record: StoredMatch(
                    state: sides.hosted.initialState, role: .host, localSeat: sides.hosted.hostSeat,
                    lastActivity: wallClockMilliseconds(), seatToken: sides.hosted.seatToken.bytes, listenPort: sides.port))
                hostRecorder.keep(sides.hosted)
                let guestRecorder = MatchRecorder(store: store, record: StoredMatch(
                    state: sides.joined.initialState, role: .guest, localSeat: sides.joined.seat,
                    lastActivity: wallClockMilliseconds(), peerAddress: "127.0.0.1:\(sides.port)",
                    seatToken: sides.joined.seatToken.bytes))
                guestRecorder.keep(sides.joined)
                return [await hostRecorder.follow(sides.hostController), await guestRecorder.follow(sides.guestController)]
            },
            sealed: sealed)
    }
}
