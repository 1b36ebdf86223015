import Foundation
import Synchronization
import Testing

@testable import Discovery

/// The loop's lookups are made on maker threads, side by side, and handed
/// back to the loop thread (issue 40: one thread making every ref in turn
/// was what limited a browse of 200 games).
@Suite(.serialized) struct RefMakersTests {
    /// avahi's library stood in for: a ref is a pipe (what the loop polls),
    /// and the refs freed are recorded.
    enum FakeLibrary {
        struct State {
            var pipes: [UInt: (read: Int32, write: Int32)] = [:]
            var freed: Set<UInt> = []
        }

        static let state = Mutex(State())

        static func key(_ ref: OpaquePointer?) -> UInt { UInt(bitPattern: ref.map { Int(bitPattern: UnsafeRawPointer($0)) } ?? 0) }

        /// A new ref, as the library's DNSServiceResolve would give.
        static func newRef() -> OpaquePointer {
            let ref = OpaquePointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))
            var ends: [Int32] = [-1, -1]
            _ = pipe(&ends)
            state.withLock { $0.pipes[key(ref)] = (ends[0], ends[1]) }
            return ref
        }

        static func wasFreed(_ ref: OpaquePointer) -> Bool { state.withLock { $0.freed.contains(key(ref)) } }

        static let functions = DNSSDFunctions(
            refSockFD: { ref in FakeLibrary.state.withLock { $0.pipes[FakeLibrary.key(ref)]?.read ?? -1 } },
            processResult: { _ in 0 },
            refDeallocate: { ref in
                FakeLibrary.state.withLock { state in
                    let key = FakeLibrary.key(ref)
                    if let ends = state.pipes.removeValue(forKey: key) {
                        close(ends.read)
                        close(ends.write)
                    }
                    state.freed.insert(key)
                }
            },
            register: { _, _, _, _, _, _, _, _, _, _, _, _ in -65537 },
            updateRecord: { _, _, _, _, _, _ in -65537 },
            browse: { _, _, _, _, _, _, _ in -65537 },
            resolve: { _, _, _, _, _, _, _, _ in -65537 },
            queryRecord: { _, _, _, _, _, _, _, _ in -65537 })
    }

    /// Carries loop-thread objects into the jobs a test hands the loop.
    struct OnLoop<Value>: @unchecked Sendable {
        let value: Value
    }

    /// What the lookups' owners heard, on the loop thread.
    final class Heard: @unchecked Sendable {
        let lock = NSLock()
        var opened: [String: Int32] = [:]

        func note(_ name: String, _ code: Int32) {
            lock.withLock { opened[name] = code }
        }

        func code(of name: String) -> Int32? { lock.withLock { opened[name] } }
    }

    /// Waits up to `seconds` for `condition`, checking every 10 ms.
    func eventually(_ seconds: Double = 5, _ condition: () async -> Bool) async -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }

    @Test func twoRefsAreMadeSideBySideNotOneAfterTheOther() async {
        let loop = DNSSDEventLoop(library: FakeLibrary.functions)
        let heard = Heard()
        // Each make waits until both have begun: made one after the other,
        // the first would give up after 5 s and be refused.
        let begun = Mutex(0)
        @Sendable func make() -> MadeRef {
            begun.withLock { $0 += 1 }
            let deadline = Date(timeIntervalSinceNow: 5)
            while begun.withLock({ $0 }) < 2 && Date() < deadline { usleep(1_000) }
            return begun.withLock { $0 } >= 2 ? MadeRef(ref: FakeLibrary.newRef(), code: 0) : MadeRef(ref: nil, code: -65537)
        }
        let lookups = OnLoop(value: ["first", "second"].map { name in
            PooledLookup(operation: "DNSServiceResolve", make: make, opened: { heard.note(name, $0) })
        })
        loop.perform { for lookup in lookups.value { loop.lookUp(lookup) } }
        let bothOpened = await eventually(10) { heard.code(of: "first") != nil && heard.code(of: "second") != nil }
        #expect(bothOpened)
        #expect(heard.code(of: "first") == 0 && heard.code(of: "second") == 0, "a ref waited for the other to be made first")
        #expect(await loop.run { loop.openLookups } == 2)
        loop.perform { for lookup in lookups.value { loop.cancel(lookup) } }
    }

    @Test func aLookupStoppedWhileItsRefIsMadeHasThatRefFreedAndItsPlaceGivenOn() async {
        let loop = DNSSDEventLoop(library: FakeLibrary.functions)
        let heard = Heard()
        let release = DispatchSemaphore(value: 0)
        let slowRef = OnLoop(value: FakeLibrary.newRef())
        let slow = OnLoop(value: PooledLookup(
            operation: "DNSServiceResolve",
            make: {
                _ = release.wait(timeout: .now() + 10)
                return MadeRef(ref: slowRef.value, code: 0)
            },
            opened: { heard.note("slow", $0) }))
        loop.perform { loop.lookUp(slow.value) }
        #expect(await eventually { await loop.run { loop.openLookups } == 1 })
        // The game went away while its resolve was being made.
        loop.perform { loop.cancel(slow.value) }
        #expect(await eventually { await loop.run { loop.openLookups } == 0 })
        release.signal()
        #expect(await eventually { FakeLibrary.wasFreed(slowRef.value) }, "the ref made for a stopped lookup was never freed")
        #expect(heard.code(of: "slow") == nil, "a stopped lookup's owner was told its ref opened")

        // The place it held serves the next lookup.
        let next = OnLoop(value: PooledLookup(
            operation: "DNSServiceQueryRecord", make: { MadeRef(ref: FakeLibrary.newRef(), code: 0) },
            opened: { heard.note("next", $0) }))
        loop.perform { loop.lookUp(next.value) }
        #expect(await eventually { heard.code(of: "next") == 0 })
        loop.perform { loop.cancel(next.value) }
    }

    @Test func aRefusedMakeFreesThePlaceAndTellsTheOwnerWhy() async {
        let loop = DNSSDEventLoop(library: FakeLibrary.functions)
        let heard = Heard()
        // The daemon's connection limit: the library says no.
        let refused = OnLoop(value: PooledLookup(
            operation: "DNSServiceResolve", make: { MadeRef(ref: nil, code: -65537) },
            opened: { heard.note("refused", $0) }))
        loop.perform { loop.lookUp(refused.value) }
        #expect(await eventually { heard.code(of: "refused") != nil })
        #expect(heard.code(of: "refused") == -65537)
        #expect(await loop.run { loop.openLookups } == 0)
    }

    @Test func twoJobsSubmittedWhileOneThreadIdlesRunSideBySide() async {
        var apart = 0
        // Twenty times (the race is won only when both jobs are in before the idle thread wakes).
        for _ in 0..<20 {
            // One thread, done with its job and idle.
            let makers = RefMakers(limit: 2)
            let warm = Mutex(false)
            makers.submit { warm.withLock { $0 = true } }
            _ = await eventually { warm.withLock { $0 } }
            try? await Task.sleep(for: .milliseconds(20))
            // Two jobs at once, each of which waits for the other: the idle
            // thread takes one, and the second must not wait behind it.
            let met = Mutex(0)
            let both = Mutex(0)
            @Sendable func meet() {
                met.withLock { $0 += 1 }
                let limit = ContinuousClock.now + .milliseconds(500)
                while met.withLock({ $0 }) < 2, ContinuousClock.now < limit { usleep(200) }
                if met.withLock({ $0 }) == 2 { both.withLock { $0 += 1 } }
            }
            makers.submit(meet)
            makers.submit(meet)
            if !(await eventually(2) { both.withLock { $0 } == 2 }) { apart += 1 }
        }
        #expect(apart == 0, "in \(apart) of 20 rounds the second job waited for the first instead of running beside it")
    }
}
