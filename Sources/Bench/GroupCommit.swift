import Dispatch
import Games
import Match
import Store
import Synchronization

/// The group-commit figure of `parlor bench turns` (issue 11 item 4): several
/// matches in one process committing a turn at the same moment, as a host of
/// many tables does, each waiting for its write-ahead save. Timed per round of
/// one turn per match, from the first save asked for to the last called back:
///
/// - one writer for every match with group commit (`DurableWriter(groupCommit:)`):
///   what is queued together is synced together, one `syncfs` for several journals;
/// - a writer per match (the default): each match's own `fdatasync`, in parallel.
public enum BenchGroupCommit {
    /// The two writers' times per round.
    public struct Figures: Sendable {
        public var grouped: Percentiles
        public var separate: Percentiles
        /// Turns made durable per sync call with the shared writer.
        public var framesPerSync: Double
    }

    /// Times `rounds` rounds of `matches` matches saving into `directory`, with
    /// the shared group-commit writer, then with a writer per match.
    public static func measure(directory: String, matches: Int, rounds: Int) async -> Figures {
        let store = MatchStore(directory: directory)
        let shared = DurableWriter(groupCommit: true)
        defer { shared.finish() }
        let before = shared.syncFigures
        let grouped = await time(store: store, matches: matches, rounds: rounds, writer: { shared })
        let after = shared.syncFigures
        let separate = await time(store: store, matches: matches, rounds: rounds, writer: { nil })
        let syncs = max(1, after.syncs - before.syncs)
        return Figures(grouped: Percentiles(grouped), separate: Percentiles(separate),
                       framesPerSync: Double(after.frames - before.frames) / Double(syncs))
    }

    /// Dots and boxes of two: forty moves, none of them the last before all forty lines are drawn.
    private static func states(count: Int) -> [MatchState] {
        let seats = [Seat(playerID: PlayerID.random(), name: "Ana"), Seat(playerID: PlayerID.random(), name: "Bo")]
        var state = MatchState(matchID: MatchID.random(), game: DotsAndBoxes(seats: 2), seats: seats)
        var states = [state]
        while states.count < count, let seat = state.activeSeat, let move = state.game.legalMoves.first,
              let next = try? state.applying(.move(move, by: seat), now: 1) {
            state = next
            states.append(state)
        }
        return states
    }

    private static func time(store: MatchStore, matches: Int, rounds: Int, writer: () -> DurableWriter?) async -> [Duration] {
        var times: [Duration] = []
        var left = rounds
        while left > 0 {
            // A fresh set of matches every 30 turns (a match of dots and boxes has 40).
            let batch = min(left, 30)
            let games = (0..<matches).map { _ in states(count: batch + 1) }
            let recorders = games.map { MatchRecorder(store: store, record: StoredMatch(state: $0[0], role: .host, localSeat: 0,
                                                                                        lastActivity: 0), writer: writer()) }
            for (recorder, game) in zip(recorders, games) { recorder.saveNow(game[0]) }
            for turn in 1...batch {
                let started = ContinuousClock.now
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let waiting = Mutex(matches)
                    for (recorder, game) in zip(recorders, games) {
                        recorder.saveBeforeRevealing(game[min(turn, game.count - 1)]) { _ in
                            if waiting.withLock({ $0 -= 1; return $0 }) == 0 { done.resume() }
                        }
                    }
                }
                times.append(ContinuousClock.now - started)
            }
            left -= batch
        }
        return times
    }
}
