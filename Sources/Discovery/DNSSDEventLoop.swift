// The thread that talks to avahi's dns_sd library: advertising only
// (browsing and resolving are avahi-client's, AvahiConnection).
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

    // Loop thread only.
    private var refs: [ServiceRef] = []
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
        // registration or two that is rarely, not on every
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
