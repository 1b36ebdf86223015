/// When each passcode proof is judged (docs/PROTOCOL.md, "Slowing down
/// guessing"), as a pure value the host's shell drives with its clock.
///
/// Every proof, right or wrong, waits on its own connection before it is
/// checked, and the time it is checked is fixed when it arrives, from what
/// is known before it is checked: so the answer to a right proof comes no
/// sooner than the answer to a wrong one would have, and a guesser cannot
/// learn more by racing many proofs than the queue lets it check. The time
/// is the later of:
///
/// - its address's delay: `PasscodeThrottle.delay(afterWrongProofs:)` of the
///   address's wrong proofs of late plus its proofs waiting now (so a clean
///   address waits nothing, and parallel proofs from one address wait as if
///   each before it had been wrong);
/// - its turn: proofs are checked at most one per `judgingInterval` over the
///   whole host (the guess-rate cap of the match, whatever the addresses).
///
/// Waiting proofs are capped per address and in all. A proof from an address
/// at its own cap is refused `busy` unchecked. When the queue is full, a
/// proof from an address with fewer waiting than the address with the most
/// (two or more) takes the newest waiting place of that one (which is
/// refused `busy` unchecked) and its turn: so one address, or a few, cannot
/// keep the rest out, and a proof that has a place keeps it; only as many
/// guessing addresses as the queue has places can fill it.
public struct PasscodeQueue: Sendable {
    /// The times the queue works in: the host's monotonic clock, which the shell passes in.
    public typealias Instant = ContinuousClock.Instant

    /// What becomes of a proof that arrives.
    public enum Arrival: Hashable, Sendable {
        /// Check the proof at `at`. `evicting`, if set, is the waiting proof
        /// whose place it takes: refuse that one `busy` now, unchecked.
        case judge(at: Instant, evicting: UInt64?)
        /// Refuse it `busy`, unchecked: its address has its share waiting, or
        /// the queue is full of addresses with no more waiting than its own.
        case refuse
    }

    private struct Waiting: Sendable {
        var address: String
        var arrived: Instant
        /// The turn this proof holds (at most one per `judgingInterval`).
        var turn: Instant
    }

    /// The limits and delays.
    public let throttle: PasscodeThrottle
    private var waiting: [UInt64: Waiting] = [:]
    private var wrong: [String: (count: Int, last: Instant)] = [:]
    private var lastTurn: Instant?

    /// An empty queue.
    public init(throttle: PasscodeThrottle) {
        self.throttle = throttle
    }

    /// Proofs waiting now, from everyone.
    public var waitingCount: Int { waiting.count }

    /// Proofs waiting now from `address`.
    public func waitingCount(from address: String) -> Int {
        waiting.values.count { $0.address == address }
    }

    /// Wrong proofs from `address` not yet forgotten at `now`.
    public func recentWrongProofs(from address: String, at now: Instant) -> Int {
        guard let record = wrong[address], now - record.last < throttle.memory else { return 0 }
        return record.count
    }

    /// A proof with handshake id `id` arrived from `address` at `now`.
    public mutating func arrive(_ id: UInt64, from address: String, at now: Instant) -> Arrival {
        let mine = waitingCount(from: address)
        guard mine < throttle.maximumWaitingPerAddress else { return .refuse }
        var evicted: UInt64?
        let turn: Instant
        if waiting.count >= throttle.maximumWaiting {
            var counts: [String: Int] = [:]
            for entry in waiting.values { counts[entry.address, default: 0] += 1 }
            // Only an address with two or more waiting gives up a place, so a
            // proof that has one is never pushed out by later ones.
            let most = counts.values.max() ?? 0
            guard most >= 2, most > mine,
                  let victim = waiting.filter({ counts[$0.value.address] == most })
                      .max(by: { ($0.value.arrived, $0.key) < ($1.value.arrived, $1.key) }) else { return .refuse }
            evicted = victim.key
            turn = victim.value.turn
            waiting[victim.key] = nil
        } else {
            let next = lastTurn.map { $0 + throttle.judgingInterval } ?? now
            turn = max(now, next)
            lastTurn = turn
        }
        let attempts = recentWrongProofs(from: address, at: now) + mine
        waiting[id] = Waiting(address: address, arrived: now, turn: turn)
        return .judge(at: max(turn, now + throttle.delay(afterWrongProofs: attempts)), evicting: evicted)
    }

    /// The proof `id` was checked at `now`; a wrong one counts against its
    /// address for `throttle.memory`.
    public mutating func judged(_ id: UInt64, wrong isWrong: Bool, at now: Instant) {
        guard let entry = waiting.removeValue(forKey: id), isWrong else { return }
        if wrong.count >= 4096 { wrong = wrong.filter { now - $0.value.last < throttle.memory } }
        let count = recentWrongProofs(from: entry.address, at: now)
        wrong[entry.address] = (count + 1, now)
    }

    /// The proof `id` no longer waits (its connection closed, or the host
    /// shut down). Its turn stays used: leaving early never speeds others up.
    public mutating func remove(_ id: UInt64) {
        waiting[id] = nil
    }
}
