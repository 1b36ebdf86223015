// The thread that talks to avahi's dns_sd library.
//
// dns_sd calls block (each one is a D-Bus round trip) and results arrive
// on a socket per DNSServiceRef that must be polled, so none of this may
// run on Swift's cooperative pool. Every DNSServiceRef is created, polled,
// processed and deallocated on this one thread; callers hand it jobs.

import CDNSSD
import Foundation
@preconcurrency import Glibc

/// Owns one DNSServiceRef and deallocates it exactly once, at the latest in deinit.
///
/// Confined to the event loop thread, like every object holding one.
final class ServiceRef {
    private(set) var ref: DNSServiceRef?
    private let library: DNSSDFunctions
    /// The dns_sd call that made it, for error messages.
    let operation: String
    /// The socket to poll; valid while `ref` is non-nil.
    let socket: Int32
    /// Called on the loop thread when DNSServiceProcessResult fails; the ref is then deallocated.
    var onFailure: ((DNSServiceErrorType) -> Void)?

    init(_ ref: DNSServiceRef, operation: String, library: DNSSDFunctions) {
        self.ref = ref
        self.library = library
        self.operation = operation
        socket = library.refSockFD(ref)
    }

    var isOpen: Bool { ref != nil }

    /// Stops the callbacks and frees the library's thread and D-Bus connection for this ref.
    func deallocate() {
        if let ref {
            self.ref = nil
            library.refDeallocate(ref)
        }
    }

    deinit {
        deallocate()
    }
}

/// What a maker thread's dns_sd call gave: the new ref, or the library's error.
///
/// `@unchecked Sendable`: the ref is handed from the maker thread to the
/// loop thread once, and nobody touches it in between.
struct MadeRef: @unchecked Sendable {
    let ref: DNSServiceRef?
    let code: DNSServiceErrorType
}

/// A raw pointer (a callback's context) carried to a maker thread; it is
/// only passed to the library there, never read.
struct CallbackContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init(_ object: AnyObject) {
        pointer = Unmanaged.passUnretained(object).toOpaque()
    }
}

/// One resolve or address query that waits for a place in the loop's pool. Loop thread only.
///
/// Its ref is made on one of the loop's maker threads (`make`: the dns_sd
/// call alone, which is a dozen D-Bus round trips in avahi's library), and
/// handed back to the loop thread, which tells the owner (`opened`) and
/// starts polling it. Compared by identity: two lookups of the same record
/// are two lookups.
final class PooledLookup: Hashable {
    /// The dns_sd call that made it, for error messages.
    let operation: String
    /// Makes the ref, on a maker thread: it touches nothing of the loop's.
    let make: @Sendable () -> MadeRef
    /// On the loop thread, once `make` returned: 0 when the ref is open and
    /// polled, else the library's refusal (the owner says why, and decides
    /// when to ask again; the pool has already freed the place).
    let opened: (DNSServiceErrorType) -> Void
    /// The open ref, while the lookup holds a place.
    var ref: ServiceRef?
    /// Told when the open ref fails in DNSServiceProcessResult (the ref is already freed).
    var onFailure: ((DNSServiceErrorType) -> Void)?
    /// Which start of this lookup a maker thread is making a ref for; nil
    /// when none, or when the lookup was stopped meanwhile (that ref is then
    /// freed on arrival, never polled).
    fileprivate var making: Int?
    fileprivate var starts = 0

    init(operation: String, make: @escaping @Sendable () -> MadeRef, opened: @escaping (DNSServiceErrorType) -> Void) {
        self.operation = operation
        self.make = make
        self.opened = opened
    }

    static func == (lhs: PooledLookup, rhs: PooledLookup) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A lookup carried through a maker thread and back; only the loop thread touches it.
private struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    let value: Value
}

/// The threads that make the pool's refs.
///
/// In avahi's library a ref costs a new D-Bus connection, its handshake and
/// the daemon's calls: about 3 ms, nearly all of it waiting on the bus.
/// Made one after another on the loop thread, that was what limited a
/// crowded browse (200 games listed in 0.9 s, warm). A few threads make
/// them side by side; each thread ends after a moment with nothing to do.
///
/// `@unchecked Sendable`: its fields are guarded by `condition`.
final class RefMakers: @unchecked Sendable {
    /// Most threads at once.
    let limit: Int
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var threads = 0
    private var idle = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `job` on a maker thread, soon. Callable from any thread.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        if idle > 0 { condition.signal() }
        // More jobs waiting than idle threads to take them (two submitted
        // before a signalled thread woke): another thread, within the limit.
        if jobs.count > idle, threads < limit {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = "parlor.dnssd-make"
            thread.start()
        }
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty {
                idle += 1
                let woken = condition.wait(until: Date(timeIntervalSinceNow: 2))
                idle -= 1
                if !woken && jobs.isEmpty {
                    threads -= 1
                    condition.unlock()
                    return
                }
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
            condition.lock()
        }
    }
}

/// A thread that polls the sockets of open ServiceRefs and runs jobs.
///
/// `@unchecked Sendable`: `jobs` and `threadRunning` are guarded by `lock`;
/// everything else is touched only on the loop thread. The thread exits
/// when it has no refs, timers or jobs, and is started again by the next job.
final class DNSSDEventLoop: @unchecked Sendable {
    /// The library's functions; immutable, usable from the loop thread.
    let library: DNSSDFunctions
    private let lock = NSLock()
    private var jobs: [() -> Void] = []
    private var threadRunning = false
    private var wakeRead: Int32 = -1
    private var wakeWrite: Int32 = -1

    /// The most lookups (resolves and address queries) open at once, whatever
    /// the number of services: each is a thread and a D-Bus connection in
    /// avahi's library. With the browse, the maker threads and the process's
    /// own threads (about six), a browsing parlor stays within 16 of each
    /// (issue 40's bound; 8 places and two makers peaked at 16).
    static let lookupCapacity = 7
    /// The threads that make lookups' refs side by side (see `RefMakers`):
    /// two list 200 games about 1.6 times as fast as the loop thread alone;
    /// a third bought nothing more measurable on two cores.
    static let makerThreads = 2

    private let makers = RefMakers(limit: DNSSDEventLoop.makerThreads)

    // Loop thread only.
    private var refs: [ServiceRef] = []
    private var pool = LookupPool<PooledLookup>(capacity: DNSSDEventLoop.lookupCapacity)
    private var timers: [(id: Int, deadline: Double, job: () -> Void)] = []
    private var nextTimerID = 1

    init(library: DNSSDFunctions) {
        self.library = library
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
            wakeRead = ends[0]
            wakeWrite = ends[1]
        }
        // Without a wake pipe the loop still works: it polls with a short
        // timeout instead of sleeping until woken (see pollTimeout).
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Runs `job` on the loop thread, soon. Callable from any thread.
    func perform(_ job: @escaping @Sendable () -> Void) {
        enqueue(job)
    }

    /// Runs `job` on the loop thread and returns its result without blocking the caller's thread.
    func run<Value: Sendable>(_ job: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            perform { continuation.resume(returning: job()) }
        }
    }

    /// Queues a job from the loop thread itself, e.g. to free a ref after its callback returns.
    func later(_ job: @escaping () -> Void) {
        enqueue(job)
    }

    /// Starts polling `ref`. Loop thread only.
    func add(_ ref: ServiceRef) {
        refs.append(ref)
    }

    /// Runs `lookup` once one of the pool's places is free; `urgent` ones go first. Loop thread only.
    func lookUp(_ lookup: PooledLookup, urgent: Bool = false) {
        perform(pool.want(lookup, urgent: urgent))
    }

    /// Runs `lookup` once one of the pool's places is free, after those of a higher priority. Loop thread only.
    func lookUp(_ lookup: PooledLookup, priority: LookupPool<PooledLookup>.Priority) {
        perform(pool.want(lookup, priority: priority))
    }

    /// `lookup` answered: its ref is closed, or with `keep` stays open until its place is needed. Loop thread only.
    func answered(_ lookup: PooledLookup, keep: Bool = false) {
        perform(pool.answered(lookup, keep: keep))
    }

    /// `lookup` is not wanted any more: closed if open, forgotten if waiting. Loop thread only.
    func cancel(_ lookup: PooledLookup) {
        perform(pool.cancel(lookup))
    }

    /// How many pooled lookups are open now, for tests and the bench. Loop thread only.
    var openLookups: Int { pool.open }

    /// How many pooled lookups wait for a place. Loop thread only.
    var waitingLookups: Int { pool.waiting.count }

    private func perform(_ actions: [LookupPool<PooledLookup>.Action]) {
        var pending = actions
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .start(let lookup):
                lookup.starts += 1
                let start = lookup.starts
                lookup.making = start
                let make = lookup.make
                let bound = LoopBound(value: lookup)
                makers.submit { [self] in
                    let made = make()
                    enqueue { self.made(made, for: bound.value, start: start) }
                }
            case .stop(let lookup):
                lookup.making = nil
                lookup.ref?.deallocate()
                lookup.ref = nil
            }
        }
    }

    /// A maker thread made (or could not make) the ref of `lookup`'s `start`. Loop thread only.
    private func made(_ made: MadeRef, for lookup: PooledLookup, start: Int) {
        guard lookup.making == start else {
            // Stopped while it was made: nobody will poll it.
            if let ref = made.ref { library.refDeallocate(ref) }
            return
        }
        lookup.making = nil
        guard made.code == 0, let newRef = made.ref else {
            // Refused (e.g. the daemon's connection limit): the place is free
            // again; the lookup's owner decides when to retry.
            if let ref = made.ref { library.refDeallocate(ref) }
            perform(pool.failed(lookup))
            lookup.opened(made.code == 0 ? DNSServiceErrorType(kDNSServiceErr_Unknown) : made.code)
            return
        }
        let ref = ServiceRef(newRef, operation: lookup.operation, library: library)
        lookup.ref = ref
        ref.onFailure = { [weak self, weak lookup] code in
            guard let self, let lookup else { return }
            lookup.ref = nil
            self.perform(self.pool.failed(lookup))
            lookup.onFailure?(code)
        }
        add(ref)
        lookup.opened(0)
    }

    /// Runs `job` on the loop thread after `seconds`; returns an id for `cancelTimer`. Loop thread only.
    @discardableResult
    func schedule(after seconds: Double, _ job: @escaping () -> Void) -> Int {
        let id = nextTimerID
        nextTimerID += 1
        timers.append((id: id, deadline: Self.now() + seconds, job: job))
        return id
    }

    /// Cancels a timer that has not fired. Loop thread only.
    func cancelTimer(_ id: Int?) {
        guard let id else { return }
        timers.removeAll { $0.id == id }
    }

    private func enqueue(_ job: @escaping () -> Void) {
        lock.lock()
        jobs.append(job)
        let start = !threadRunning
        threadRunning = true
        lock.unlock()
        if start {
            let thread = Thread { [self] in self.runThread() }
            thread.name = "parlor.dnssd"
            thread.start()
        } else {
            wake()
        }
    }

    private func wake() {
        guard wakeWrite >= 0 else { return }
        var byte: UInt8 = 1
        // A full pipe already means "wake up": EAGAIN is fine.
        _ = write(wakeWrite, &byte, 1)
    }

    private func drainWakePipe() {
        guard wakeRead >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func runThread() {
        // What poll watches, rebuilt only when a ref opens or closes: with a
        // pool of a dozen lookups that is a few times per game, not on every
        // wake-up.
        var watched: [ServiceRef] = []
        var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while true {
            lock.lock()
            let batch = jobs
            jobs = []
            if batch.isEmpty && !refs.contains(where: \.isOpen) && timers.isEmpty {
                refs = []
                threadRunning = false
                lock.unlock()
                return
            }
            lock.unlock()

            for job in batch { job() }
            if refs.count != watched.count || refs.contains(where: { !$0.isOpen }) {
                refs.removeAll { !$0.isOpen }
                watched = refs
                descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                descriptors += watched.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), pollTimeout())
            if ready < 0 {
                // EINTR: go round again. Anything else would repeat forever;
                // back off instead of spinning.
                if errno != EINTR { usleep(10_000) }
                continue
            }
            if descriptors[0].revents != 0 { drainWakePipe() }
            if ready > 0 {
                for offset in watched.indices where descriptors[offset + 1].revents != 0 {
                    descriptors[offset + 1].revents = 0
                    // An earlier callback in this round may have closed it.
                    let serviceRef = watched[offset]
                    guard let ref = serviceRef.ref else { continue }
                    let result = library.processResult(ref)
                    if result != 0 {
                        serviceRef.deallocate()
                        serviceRef.onFailure?(result)
                    }
                }
            }
            descriptors[0].revents = 0
            fireDueTimers()
        }
    }

    private func pollTimeout() -> Int32 {
        lock.lock()
        let pending = !jobs.isEmpty
        lock.unlock()
        if pending { return 0 }
        var milliseconds: Int32 = wakeRead >= 0 ? -1 : 50
        if let first = timers.map(\.deadline).min() {
            let wait = Int32(max(0, min((first - Self.now()) * 1000, 60_000)).rounded(.up))
            milliseconds = milliseconds < 0 ? wait : min(milliseconds, wait)
        }
        return milliseconds
    }

    private func fireDueTimers() {
        let now = Self.now()
        let due = timers.filter { $0.deadline <= now }
        guard !due.isEmpty else { return }
        timers.removeAll { $0.deadline <= now }
        for timer in due { timer.job() }
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
