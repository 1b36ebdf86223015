import Synchronization

/// How one host paces passcode guesses made in the encrypted handshake
/// (docs/PROTOCOL.md, "Slowing down guessing"): `PasscodeQueue`'s rules,
/// shared by every connection the host accepts.
///
/// An offer's answer is held until its turn (`arrive`), so a right code is
/// answered no sooner than a wrong one would have been; the third handshake
/// message then tells right from wrong (`judged`). An offer refused unchecked
/// (its address has its share waiting, or the queue is full) gets a rejection
/// `busy`; so does an offer whose place a newer address takes.
public final class PasscodeGuesses: Sendable {
    /// The times the pacing works in: the host's monotonic clock.
    public typealias Instant = ContinuousClock.Instant

    private struct State {
        var queue: PasscodeQueue
        var nextID: UInt64 = 0
        /// How to refuse each offer still waiting for its turn.
        var refusers: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state: Mutex<State>

    /// Pacing by `throttle`.
    public init(throttle: PasscodeThrottle = PasscodeThrottle()) {
        state = Mutex(State(queue: PasscodeQueue(throttle: throttle)))
    }

    /// Offers now waiting for their turn.
    public var waitingCount: Int { state.withLock { $0.queue.waitingCount } }

    /// An offer from `address` arrived: its id and when to answer it, or nil to refuse it now.
    /// `refuse` is called (outside any lock of this pacer) if a newer offer takes its place.
    func arrive(from address: String, at now: Instant = .now, refuse: @escaping @Sendable () -> Void) -> (id: UInt64, at: Instant)? {
        let (answer, evicted) = state.withLock { state -> ((UInt64, Instant)?, (@Sendable () -> Void)?) in
            state.nextID += 1
            let id = state.nextID
            switch state.queue.arrive(id, from: address, at: now) {
            case .refuse:
                return (nil, nil)
            case .judge(let at, let evicting):
                state.refusers[id] = refuse
                let evicted = evicting.flatMap { state.refusers.removeValue(forKey: $0) }
                return ((id, at), evicted)
            }
        }
        evicted?()
        return answer
    }

    /// Offer `id`'s answer went out; the refuser is no longer needed.
    func released(_ id: UInt64) {
        state.withLock { _ = $0.refusers.removeValue(forKey: id) }
    }

    /// Offer `id` proved its code (`wrong` false) or did not.
    func judged(_ id: UInt64, wrong: Bool, at now: Instant = .now) {
        state.withLock { state in
            state.refusers[id] = nil
            state.queue.judged(id, wrong: wrong, at: now)
        }
    }

    /// Offer `id`'s connection ended before it was judged.
    func remove(_ id: UInt64) {
        state.withLock { state in
            state.refusers[id] = nil
            state.queue.remove(id)
        }
    }
}
