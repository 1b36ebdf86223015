// Moved from Sources/Match/LocalParticipant.swift: a bot at a seat belongs
// with the bots (Bots -> Match -> Games, one way).
import Dispatch
import Games
import Match
import Synchronization

/// A computer opponent. Thinks on a Dispatch worker, off the UI's thread,
/// and stops thinking when the turn or the match is over.
public final class BotParticipant: Participant {
    /// Chooses a move for the active seat of a game; returns nil if told to stop.
    public typealias Strategy = @Sendable (_ game: any Game, _ shouldStop: @escaping @Sendable () -> Bool) -> Move?
    /// A `Strategy` that is also told by when to answer (nil: no turn
    /// timeout): half the time left before the turn's deadline, so the move
    /// still reaches the host in time.
    public typealias TimedStrategy = @Sendable (
        _ game: any Game, _ answerBy: ContinuousClock.Instant?, _ shouldStop: @escaping @Sendable () -> Bool
    ) -> Move?

    private struct Thinking {
        var controller: MatchController?
        var generation: UInt64 = 0
    }

    /// The player id of the seat this bot plays.
    public let playerID: PlayerID
    private let strategy: TimedStrategy
    private let minimumThinkTime: Duration
    private let thinking = Mutex(Thinking())
    /// Set by `cancel()`; read by the strategy while it searches.
    private let stopFlag = GenerationFlag()

    /// A bot only reads the state it is given: nothing to confirm.
    public var takesDeliveries: Bool { false }

    /// A bot for the seat with `playerID`. `minimumThinkTime` paces fast bots so a person can follow.
    public init(playerID: PlayerID, minimumThinkTime: Duration = .zero, strategy: @escaping Strategy) {
        self.playerID = playerID
        self.strategy = { game, _, shouldStop in strategy(game, shouldStop) }
        self.minimumThinkTime = minimumThinkTime
    }

    /// A bot whose strategy is told by when to answer a turn that has a deadline.
    public init(playerID: PlayerID, minimumThinkTime: Duration = .zero, timedStrategy: @escaping TimedStrategy) {
        self.playerID = playerID
        self.strategy = timedStrategy
        self.minimumThinkTime = minimumThinkTime
    }

    /// parlor's own bot at the seat with `playerID`: `bot` searches any
    /// registered game through its rules (the built-in games with their own
    /// engines), keeping its tables and random choices across the match.
    public convenience init(playerID: PlayerID, bot: Bot, minimumThinkTime: Duration = .zero) {
        self.init(playerID: playerID, minimumThinkTime: minimumThinkTime, timedStrategy: bot.timedStrategy())
    }

    /// When to answer a turn of `state`: half the time left before its
    /// deadline (on `clock`, milliseconds since 1970, the controller's), the
    /// other half for the network and a clock that differs from the host's.
    static func answerBy(_ state: MatchState, clock: () -> Int64) -> ContinuousClock.Instant? {
        guard state.deadline != 0 else { return nil }
        let left = max(0, state.deadline - clock())
        return ContinuousClock.now + .milliseconds(left / 2)
    }

    /// Keeps `controller`, to which the bot submits its moves; called by `MatchController.start()`.
    public func attach(to controller: MatchController) {
        thinking.withLock { $0.controller = controller }
    }

    /// Starts the strategy on `state`'s game on a Dispatch worker (never on
    /// the cooperative pool) and proposes its move from there, after
    /// `minimumThinkTime`, unless the turn is over by then. Returns at once;
    /// called by the controller.
    ///
    /// One hand-off each way: the worker runs the search and gives the move
    /// straight to the controller (`propose`), which steps the match and
    /// sends it on that thread; a pause still to wait is a Dispatch timer,
    /// not a sleeping task.
    public func turnBegan(_ state: MatchState) {
        let game = state.game
        let sequence = state.sequence
        let strategy = self.strategy
        let pause = minimumThinkTime
        let turn = thinking.withLock { current -> (generation: UInt64, controller: MatchController)? in
            current.generation += 1
            stopFlag.value.store(current.generation, ordering: .relaxed)
            guard let controller = current.controller else { return nil }
            return (current.generation, controller)
        }
        guard let (generation, controller) = turn, let seat = state.seat(of: playerID) else { return }
        let flag = stopFlag
        let answerBy = Self.answerBy(state, clock: controller.configuration.clock)
        // The search runs on a Dispatch worker, not on Swift's cooperative
        // pool: a long search must never starve the UI or the network tasks
        // of a process that has only two pool threads. A newer turn or a
        // cancel meanwhile bumps the generation it checks.
        DispatchQueue.global(qos: .userInitiated).async { [weak self] in
            let started = ContinuousClock.now
            let move = strategy(game, answerBy) { flag.value.load(ordering: .relaxed) != generation }
            guard let move, flag.value.load(ordering: .relaxed) == generation else { return }
            let answer: @Sendable () -> Void = { [weak self] in
                guard let self, flag.value.load(ordering: .relaxed) == generation else { return }
                controller.propose(.move(move, by: seat), from: self, chosenAt: sequence)
            }
            let left = pause - (ContinuousClock.now - started)
            guard left > .zero else { return answer() }
            DispatchQueue.global(qos: .userInitiated).asyncAfter(deadline: .now() + .nanoseconds(Int(left.wholeNanoseconds)), execute: answer)
        }
    }

    /// Stops thinking when the turn is no longer this bot's (a quit, a time
    /// expiry or the host's state overtook it); called by the controller.
    public func stateChanged(_ state: MatchState, event: MatchEvent) {
        if state.activeSeat != state.seat(of: playerID) { cancel() }
    }

    /// Stops thinking for good; called by the controller when the match ends or fails.
    public func matchEnded(_ state: MatchState, failure: MatchFailure?) { cancel() }

    /// Stops any search in progress.
    public func cancel() {
        thinking.withLock { current in
            current.generation += 1
            stopFlag.value.store(current.generation, ordering: .relaxed)
        }
    }
}

/// A shared counter that a search polls to know it should stop.
private final class GenerationFlag: Sendable {
    let value = Atomic<UInt64>(0)
}
