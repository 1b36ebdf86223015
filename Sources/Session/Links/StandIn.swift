import Dispatch
import Games
import Match
import Synchronization

/// A bot standing in for an away guest's seat at a table (issue 12): the
/// host may hand the seat of a guest whose link dropped to a bot, which
/// moves for it until the guest comes back with its seat token; then the
/// seat is the guest's again. Only at a table of three or more seats, where
/// the host already speaks for an away seat (it quits it when its grace runs
/// out); a match of two seats is never played for the guest.
///
/// The bot's moves are submitted as the guest's seat (`RemoteGuest` is the
/// seat's participant), so the other guests get them as pushes and the
/// guest, back, finds them in its WELCOME (docs/PROTOCOL.md section 16).
/// While a bot stands in, the seat is not quit when the grace runs out.
public struct StandInPolicy: Sendable {
    /// Chooses a move for the active seat of a game; nil when told to stop.
    public typealias Strategy = @Sendable (_ game: any Game, _ shouldStop: @escaping @Sendable () -> Bool) -> Move?
    /// How the bot plays.
    public var strategy: Strategy
    /// How long the guest is away before the bot takes over (zero: at once).
    public var after: Duration
    /// The bot's name in notices ("Easy bot").
    public var name: String
    /// The least time a move takes, so a person can follow.
    public var pause: Duration

    /// A policy; see the fields.
    public init(strategy: @escaping Strategy, after: Duration, name: String, pause: Duration = .zero) {
        self.strategy = strategy
        self.after = after
        self.name = name
        self.pause = pause
    }
}

/// The stand-in bookkeeping of one guest seat. Final class with a mutex:
/// used from `RemoteGuest`'s synchronous callbacks and its ticker.
final class StandIn: Sendable {
    private struct State {
        var policy: StandInPolicy?
        var awaySince: ContinuousClock.Instant?
        var standing = false
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Sets (or with nil, ends) the policy; a bot standing in stops when it ends.
    func set(_ policy: StandInPolicy?) {
        state.withLock { state in
            state.policy = policy
            if policy == nil { state.standing = false; state.generation += 1 }
        }
    }

    /// Whether a bot plays the seat now.
    var isStanding: Bool { state.withLock { $0.standing } }

    /// Whether a bot may take the seat over at a later tick (a policy, the guest away, no bot yet).
    var mayTakeOver: Bool { state.withLock { $0.policy != nil && !$0.standing && $0.awaySince != nil } }

    /// The guest went away now (a second call keeps the first time).
    func away(now: ContinuousClock.Instant = .now) {
        state.withLock { state in if state.awaySince == nil { state.awaySince = now } }
    }

    /// The guest is back: true when a bot had stood in (and now stops).
    @discardableResult
    func back() -> Bool {
        state.withLock { state in
            let was = state.standing
            state.awaySince = nil
            state.standing = false
            state.generation += 1
            return was
        }
    }

    /// The bot's name when it takes over now (the guest has been away long enough), else nil.
    func takesOver(now: ContinuousClock.Instant = .now) -> String? {
        state.withLock { state in
            guard let policy = state.policy, !state.standing, let since = state.awaySince, now - since >= policy.after else { return nil }
            state.standing = true
            state.generation += 1
            return policy.name
        }
    }

    /// When a bot stands in and `committed` has `seat` to move: thinks off
    /// the cooperative pool and hands the move to `propose` from the thread
    /// it thought on (after the policy's pause, a Dispatch timer), unless the
    /// guest came back or the match moved on meanwhile.
    func play(_ committed: MatchState, seat: SeatIndex, propose: @escaping @Sendable (MatchChange) -> Void) {
        guard committed.activeSeat == seat, !committed.isEnded else { return }
        guard let (policy, generation) = state.withLock({ state -> (StandInPolicy, UInt64)? in
            guard state.standing, let policy = state.policy else { return nil }
            return (policy, state.generation)
        }) else { return }
        let current: @Sendable () -> Bool = { [self] in state.withLock { $0.generation == generation && $0.standing } }
        let game = committed.game
        DispatchQueue.global(qos: .userInitiated).async {
            let started = ContinuousClock.now
            guard let move = policy.strategy(game, { !current() }), current() else { return }
            let answer: @Sendable () -> Void = {
                guard current() else { return }
                propose(.move(move, by: seat))
            }
            let left = policy.pause - (ContinuousClock.now - started)
            guard left > .zero else { return answer() }
            DispatchQueue.global(qos: .userInitiated).asyncAfter(deadline: .now() + .nanoseconds(Int(left.wholeNanoseconds)), execute: answer)
        }
    }
}
