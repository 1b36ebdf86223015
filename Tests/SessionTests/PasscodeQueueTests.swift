import Testing
@testable import Session

/// When passcode proofs are checked (`PasscodeQueue`), driven with a made-up
/// clock: every proof waits on its own connection, a guesser's proofs cost
/// its own address, and the whole host checks at most 4 a second.
@Suite struct PasscodeQueueTests {
    static let start = ContinuousClock.now
    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1000)) }

    /// The time `arrival` is checked at, or nil when refused.
    static func judgedAt(_ arrival: PasscodeQueue.Arrival) -> ContinuousClock.Instant? {
        if case .judge(let at, _) = arrival { return at }
        return nil
    }

    @Test("a clean address is checked at once; its parallel proofs wait as if each before had been wrong; a fifth is refused")
    func oneAddressPaysForItsOwnProofs() {
        var queue = PasscodeQueue(throttle: PasscodeThrottle())
        let waits = (1...4).map { id in Self.judgedAt(queue.arrive(UInt64(id), from: "10.0.0.9", at: Self.at(0))).map { $0 - Self.at(0) } }
        #expect(waits == [.zero, .seconds(1), .seconds(2), .seconds(4)])
        #expect(queue.arrive(5, from: "10.0.0.9", at: Self.at(0)) == .refuse, "the address has its 4 waiting")
        // Another address is not held up by the guesser's proofs: it only takes the next turn.
        #expect(Self.judgedAt(queue.arrive(6, from: "10.0.0.20", at: Self.at(0))) == Self.at(1.0))
    }

    @Test("a right proof waits exactly as long as a wrong one would: the time is fixed before the proof is checked")
    func theWaitDoesNotDependOnTheProof() {
        // The queue never sees the proof: two queues fed the same arrivals give
        // the same times, whichever of the proofs turn out right.
        var first = PasscodeQueue(throttle: PasscodeThrottle())
        var second = PasscodeQueue(throttle: PasscodeThrottle())
        for id in 1...3 {
            #expect(first.arrive(UInt64(id), from: "10.0.0.9", at: Self.at(0)) == second.arrive(UInt64(id), from: "10.0.0.9", at: Self.at(0)))
        }
        first.judged(1, wrong: true, at: Self.at(0))
        second.judged(1, wrong: true, at: Self.at(0))
        #expect(first.arrive(4, from: "10.0.0.9", at: Self.at(0.5)) == second.arrive(4, from: "10.0.0.9", at: Self.at(0.5)))
    }

    @Test("wrong proofs make the address's next proof wait 1, 2, 4, then 6 s; a right one does not count; all is forgotten after 10 minutes")
    func delaysGrowWithWrongProofs() {
        var queue = PasscodeQueue(throttle: PasscodeThrottle())
        var now = 0.0
        var waits: [Duration] = []
        for id in 1...6 {
            let due = Self.judgedAt(queue.arrive(UInt64(id), from: "10.0.0.9", at: Self.at(now))) ?? Self.at(-1)
            waits.append(due - Self.at(now))
            queue.judged(UInt64(id), wrong: true, at: due)
            now = (due - Self.start) / .seconds(1)
        }
        #expect(waits == [.zero, .seconds(1), .seconds(2), .seconds(4), .seconds(6), .seconds(6)])
        let rightAt = Self.judgedAt(queue.arrive(7, from: "10.0.0.9", at: Self.at(now))) ?? Self.at(-1)
        queue.judged(7, wrong: false, at: rightAt)
        #expect(queue.recentWrongProofs(from: "10.0.0.9", at: rightAt) == 6)
        #expect(queue.recentWrongProofs(from: "10.0.0.9", at: rightAt + .seconds(601)) == 0)
        let later = rightAt + .seconds(601)
        #expect(Self.judgedAt(queue.arrive(8, from: "10.0.0.9", at: later)) == later)
    }

    @Test("a full queue makes room for a new address by refusing the newest proof of the address with the most; one proof that has a place keeps it")
    func aFullQueueMakesRoomFairly() {
        var queue = PasscodeQueue(throttle: PasscodeThrottle())
        var id: UInt64 = 0
        // Eight guessing addresses, the issue's count: 6 fill the 24 places with 4 each.
        for address in 1...6 {
            for _ in 0..<4 {
                id += 1
                #expect(Self.judgedAt(queue.arrive(id, from: "10.0.0.\(address)", at: Self.at(0))) != nil)
            }
        }
        #expect(queue.waitingCount == 24)
        // A seventh guessing address still gets places, pushing out other addresses' newest proofs.
        id += 1
        guard case .judge(_, let evicted?) = queue.arrive(id, from: "10.0.0.7", at: Self.at(0.1)) else {
            Issue.record("no room was made"); return
        }
        #expect(evicted == 24, "the newest proof of an address with 4 waiting gives up its place")
        // The real guest, from its own address, gets a place and its turn within 6 s (24 turns of 250 ms).
        id += 1
        let guest = id
        guard case .judge(let due, _) = queue.arrive(guest, from: "10.0.0.200", at: Self.at(0.2)) else {
            Issue.record("the guest was refused"); return
        }
        #expect(due - Self.at(0.2) <= PasscodeThrottle().longestWait)
        // Later guesses from the guessing addresses never push the guest out.
        for round in 0..<40 {
            id += 1
            if case .judge(_, let evicted?) = queue.arrive(id, from: "10.0.0.\(1 + round % 8)", at: Self.at(0.3)) {
                #expect(evicted != guest)
            }
        }
        #expect(queue.waitingCount(from: "10.0.0.200") == 1)
    }

    @Test("the limit: 24 guessing addresses with one proof each fill the queue, and a new address is refused")
    func enoughAddressesFillTheQueue() {
        var queue = PasscodeQueue(throttle: PasscodeThrottle())
        for address in 1...24 { _ = queue.arrive(UInt64(address), from: "10.0.1.\(address)", at: Self.at(0)) }
        #expect(queue.arrive(99, from: "10.0.0.200", at: Self.at(0)) == .refuse)
    }

    /// Simulates guessers that keep every place they may have filled, for
    /// `seconds`; returns the proofs checked and the waits of real guests
    /// arriving every 5 s from `guestAddress`.
    static func simulate(addresses: Int, seconds: Double, guestAddress: (Int) -> String) -> (checked: Int, guestWaits: [Duration?]) {
        var queue = PasscodeQueue(throttle: PasscodeThrottle())
        var due: [UInt64: ContinuousClock.Instant] = [:]
        var guests: [UInt64: ContinuousClock.Instant] = [:]
        var waits: [Duration?] = []
        var id: UInt64 = 0
        var checked = 0
        var nextGuest = 2.5
        var tick = 0.0
        while tick < seconds {
            let now = at(tick)
            for (proof, time) in due where time <= now {
                due[proof] = nil
                checked += 1
                if let arrived = guests.removeValue(forKey: proof) {
                    waits.append(time - arrived)
                    queue.judged(proof, wrong: false, at: now)
                } else {
                    queue.judged(proof, wrong: true, at: now)
                }
            }
            // Up to 40 guessing addresses, in rotation, try once per tick for another place.
            for step in 0..<min(addresses, 40) {
                let address = (Int(tick * 100) * 40 + step) % addresses
                id += 1
                if case .judge(let time, let evicted) = queue.arrive(id, from: "10.1.\(address / 250).\(address % 250)", at: now) {
                    due[id] = time
                    if let evicted { due[evicted] = nil }
                }
            }
            if tick >= nextGuest {
                id += 1
                switch queue.arrive(id, from: guestAddress(waits.count), at: now) {
                case .judge(let time, let evicted):
                    due[id] = time
                    guests[id] = now
                    if let evicted { due[evicted] = nil }
                case .refuse:
                    waits.append(nil)
                }
                nextGuest += 5
            }
            tick += 0.02
        }
        return (checked, waits)
    }

    @Test("guessers from 8 or from 1000 addresses get at most 4 checks a second; a guest on its own address always gets in within 6 s")
    func theGuessRateIsCappedAndTheGuestGetsIn() {
        for addresses in [8, 1000] {
            let run = Self.simulate(addresses: addresses, seconds: 60, guestAddress: { "10.9.9.\($0)" })
            print("passcode queue: \(addresses) guessing addresses, \(run.checked) proofs checked in 60 s (\(Double(run.checked) / 60) a second)")
            #expect(run.checked <= 60 * 4 + 1, "\(run.checked) checks in 60 s from \(addresses) addresses")
            if addresses == 8 {
                #expect(run.guestWaits.count >= 10)
                for wait in run.guestWaits {
                    #expect(wait != nil && wait! <= PasscodeThrottle().longestWait, "a guest waited \(String(describing: wait))")
                }
            }
        }
    }
}
