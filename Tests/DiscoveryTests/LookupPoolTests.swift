import Testing

@testable import Discovery

/// The pool that keeps a crowded LAN's lookups under the daemon's limits (issue 40).
@Suite struct LookupPoolTests {
    /// Plays `actions` on a set of open lookups, failing on a second start or a stop of a closed one.
    struct Refs {
        var open: Set<Int> = []
        var started: [Int] = []
        var most = 0

        mutating func perform(_ actions: [LookupPool<Int>.Action]) {
            for action in actions {
                switch action {
                case .start(let lookup):
                    #expect(!open.contains(lookup), "lookup \(lookup) started twice")
                    open.insert(lookup)
                    started.append(lookup)
                case .stop(let lookup):
                    #expect(open.contains(lookup), "lookup \(lookup) stopped while closed")
                    open.remove(lookup)
                }
                most = max(most, open.count)
            }
        }
    }

    @Test func twoHundredGamesNeverHoldMoreThanTheCapacityAndEveryOneIsLookedUp() {
        var pool = LookupPool<Int>(capacity: 12)
        var refs = Refs()
        for game in 1...200 { refs.perform(pool.want(game)) }
        #expect(refs.open.count == 12)
        // Each answers in turn and is kept open for its TXT changes while it may.
        while let next = pool.running.first {
            refs.perform(pool.answered(next, keep: true))
        }
        #expect(refs.most == 12)
        #expect(Set(refs.started) == Set(1...200))
        // The last twelve stay open to follow their games; none is left waiting.
        #expect(pool.waiting.isEmpty && pool.open == 12)
    }

    /// A crowded browse lists every game before it fills in addresses: the
    /// resolves (which put a game in the list) go before the address lookups
    /// and TXT re-reads wanted earlier, and a join's lookup before both.
    @Test func resolvesThatListGamesGoBeforeAddressLookupsWantedEarlier() {
        var pool = LookupPool<Int>(capacity: 1)
        var refs = Refs()
        refs.perform(pool.want(1, priority: .listing))
        refs.perform(pool.want(101, priority: .filling))   // game 1's addresses
        refs.perform(pool.want(102, priority: .filling))
        refs.perform(pool.want(2, priority: .listing))
        refs.perform(pool.want(3, priority: .listing))
        refs.perform(pool.want(900, urgent: true))
        while let next = pool.running.first {
            refs.perform(pool.answered(next, keep: false))
        }
        #expect(refs.started == [1, 900, 2, 3, 101, 102])
    }

    @Test func wantingAWaitingLookupAgainOnlyEverRaisesItsPriority() {
        var pool = LookupPool<Int>(capacity: 1)
        var refs = Refs()
        refs.perform(pool.want(1))
        refs.perform(pool.want(2, priority: .filling))
        refs.perform(pool.want(3, priority: .listing))
        refs.perform(pool.want(2, priority: .urgent))
        refs.perform(pool.want(3, priority: .filling))   // no lower
        while let next = pool.running.first {
            refs.perform(pool.answered(next, keep: false))
        }
        #expect(refs.started == [1, 2, 3])
    }

    @Test func aLookupThatAnsweredIsClosedAtOnceUnlessKept() {
        var pool = LookupPool<Int>(capacity: 2)
        var refs = Refs()
        refs.perform(pool.want(1))
        refs.perform(pool.answered(1, keep: false))
        #expect(refs.open.isEmpty)
        refs.perform(pool.want(2))
        refs.perform(pool.answered(2, keep: true))
        #expect(refs.open == [2])
    }

    @Test func anUrgentLookupGoesBeforeTheQueueAndClosesAKeptOneForItsPlace() {
        var pool = LookupPool<Int>(capacity: 2)
        var refs = Refs()
        refs.perform(pool.want(1))
        refs.perform(pool.want(2))
        refs.perform(pool.answered(1, keep: true))
        refs.perform(pool.want(3))
        // 1 is kept open only until another lookup needs its place.
        #expect(refs.open == [2, 3])
        refs.perform(pool.want(4))
        refs.perform(pool.want(99, urgent: true))
        refs.perform(pool.answered(2, keep: false))
        #expect(refs.open == [3, 99], "the join's lookup jumps the browse's queue")
    }

    @Test func aRefusedOrCancelledLookupFreesItsPlaceForTheNext() {
        var pool = LookupPool<Int>(capacity: 1)
        var refs = Refs()
        refs.perform(pool.want(1))
        refs.perform(pool.want(2))
        refs.perform(pool.want(3))
        // The library refused 1 (and freed nothing: there was no ref).
        refs.open.remove(1)
        refs.perform(pool.failed(1))
        #expect(refs.open == [2])
        refs.perform(pool.cancel(3))
        refs.perform(pool.cancel(2))
        #expect(refs.open.isEmpty && pool.waiting.isEmpty)
    }
}
