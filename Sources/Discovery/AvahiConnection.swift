// The process's one connection to avahi-daemon for browsing and resolving.
//
// One avahi threaded poll (one thread) runs the one AvahiClient (one D-Bus
// connection) and every callback of every browser and resolver made on it.
// Jobs come in from any thread through a pipe the poll watches, so no
// caller ever takes avahi's lock or waits on a D-Bus round trip: each
// avahi call (a blocking D-Bus call on the shared connection) is made on
// the avahi thread. Advertising stays on the dns_sd library
// (DNSSDEventLoop): one ref per hosted game, never per game on the LAN.
//
// When the daemon goes away (restart, upgrade) the client fails: every
// browser and resolver made on it is gone with it. The owners are told
// (`onDaemonLost`), the client is freed, and the next operation connects
// again (a daemon still away is refused then, and the owner's retry says so).

import CAvahiClient
import Foundation
@preconcurrency import Glibc

/// The one avahi thread and its client. Process-wide: `shared`.
///
/// `@unchecked Sendable`: `jobs` is guarded by `lock`; everything else is
/// touched only on the avahi thread.
final class AvahiConnection: @unchecked Sendable {
    /// The process's connection, started on first use, or why there can be none.
    static let shared: Result<AvahiConnection, DiscoveryError> = AvahiLibrary.shared.flatMap { AvahiConnection.start(library: $0) }

    /// The library's functions; usable on the avahi thread.
    let library: AvahiFunctions
    private let api: UnsafePointer<AvahiPoll>
    private let lock = NSLock()
    private var jobs: [() -> Void] = []
    private let wakeRead: Int32
    private let wakeWrite: Int32

    // Avahi thread only.
    private var client: OpaquePointer?
    /// Counts clients made: an object made on an earlier client was freed with it.
    private(set) var generation = 0
    private var watchers: [ObjectIdentifier: () -> Void] = [:]
    private var timers: [Int: AvahiTimer] = [:]
    private var nextTimerID = 1

    private init(library: AvahiFunctions, api: UnsafePointer<AvahiPoll>, wakeRead: Int32, wakeWrite: Int32) {
        self.library = library
        self.api = api
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    private static func start(library: AvahiFunctions) -> Result<AvahiConnection, DiscoveryError> {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            return .failure(.avahiError(operation: "pipe", reason: String(cString: strerror(errno))))
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        guard let poll = library.threadedPollNew(), let api = library.threadedPollGet(poll) else {
            close(ends[0])
            close(ends[1])
            return .failure(.avahiError(operation: "avahi_threaded_poll_new", reason: "out of memory"))
        }
        let connection = AvahiConnection(library: library, api: api, wakeRead: ends[0], wakeWrite: ends[1])
        // Before the thread starts, so without avahi's lock. The connection
        // lives as long as the process: the pointer stays valid.
        let context = Unmanaged.passRetained(connection).toOpaque()
        _ = api.pointee.watch_new(api, ends[0], AVAHI_WATCH_IN, { _, _, _, context in
            guard let context else { return }
            Unmanaged<AvahiConnection>.fromOpaque(context).takeUnretainedValue().runJobs()
        }, context)
        guard library.threadedPollStart(poll) == 0 else {
            return .failure(.avahiError(operation: "avahi_threaded_poll_start", reason: "the thread did not start"))
        }
        return .success(connection)
    }

    /// Runs `job` on the avahi thread, soon. Callable from any thread; never waits on avahi.
    func perform(_ job: @escaping @Sendable () -> Void) {
        enqueue(job)
    }

    /// Queues a job from the avahi thread itself, e.g. to free an object after its callback returned.
    func later(_ job: @escaping () -> Void) {
        enqueue(job)
    }

    private func enqueue(_ job: @escaping () -> Void) {
        lock.lock()
        jobs.append(job)
        let first = jobs.count == 1
        lock.unlock()
        guard first else { return }
        var byte: UInt8 = 1
        // A full pipe already means "wake up": EAGAIN is fine.
        _ = write(wakeWrite, &byte, 1)
    }

    private func runJobs() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
        lock.lock()
        let batch = jobs
        jobs = []
        lock.unlock()
        for job in batch { job() }
    }

    // MARK: The client

    /// The connected client, connecting first if there is none. Avahi thread only.
    ///
    /// avahi_client_new waits for the daemon's answer (a few D-Bus round
    /// trips, once per daemon start).
    func connectedClient() -> Result<OpaquePointer, DiscoveryError> {
        if let client { return .success(client) }
        var code: Int32 = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        let made = library.clientNew(api, AvahiClientFlags(0), { client, state, context in
            guard let context, state == AVAHI_CLIENT_FAILURE else { return }
            Unmanaged<AvahiConnection>.fromOpaque(context).takeUnretainedValue().daemonLost(client)
        }, context, &code)
        // What failed is making the client (the daemon's answer), so the error names that.
        guard let made else {
            return .failure(AvahiLibrary.error(code, operation: "avahi_client_new", library: library))
        }
        client = made
        generation += 1
        return .success(made)
    }

    /// Why the client's last call failed, for `operation`. Avahi thread only.
    func lastError(operation: String) -> DiscoveryError {
        guard let client else { return .daemonDisconnected(operation: operation) }
        return AvahiLibrary.error(library.clientErrno(client), operation: operation, library: library)
    }

    /// Whether an object made under `generation` still exists (its client was not freed).
    func isAlive(_ generation: Int) -> Bool {
        client != nil && generation == self.generation
    }

    /// Calls `onLost` on the avahi thread if the daemon goes away, until `stopWatching(owner)`. Avahi thread only.
    ///
    /// The owner's browsers and resolvers are gone by then: it forgets them
    /// without freeing them. The registry holds `onLost` (and what it captures) until then.
    func watchDaemon(_ owner: AnyObject, onLost: @escaping () -> Void) {
        watchers[ObjectIdentifier(owner)] = onLost
    }

    /// Ends `watchDaemon`. Avahi thread only.
    func stopWatching(_ owner: AnyObject) {
        watchers[ObjectIdentifier(owner)] = nil
    }

    private func daemonLost(_ failed: OpaquePointer?) {
        // Called inside avahi_client_new too, for a client not returned yet.
        guard let failed, failed == client else { return }
        client = nil
        generation += 1
        let told = watchers
        watchers = [:]
        for onLost in told.values { onLost() }
        // Freeing a client inside its own callback is not allowed: once it returned.
        later { [library] in library.clientFree(failed) }
    }

    // MARK: Timers

    /// Runs `job` on the avahi thread after `seconds`; returns an id for `cancelTimer`. Avahi thread only.
    @discardableResult
    func schedule(after seconds: Double, _ job: @escaping () -> Void) -> Int {
        let id = nextTimerID
        nextTimerID += 1
        var now = timeval()
        gettimeofday(&now, nil)
        let microseconds = Int(now.tv_usec) + Int((max(0, seconds) * 1e6).rounded())
        var deadline = timeval(tv_sec: now.tv_sec + microseconds / 1_000_000, tv_usec: microseconds % 1_000_000)
        let timer = AvahiTimer(id: id, job: job, connection: self)
        timers[id] = timer
        timer.timeout = api.pointee.timeout_new(api, &deadline, { _, context in
            guard let context else { return }
            let timer = Unmanaged<AvahiTimer>.fromOpaque(context).takeUnretainedValue()
            timer.connection?.fire(timer)
        }, Unmanaged.passUnretained(timer).toOpaque())
        return id
    }

    /// Cancels a timer that has not fired. Avahi thread only.
    func cancelTimer(_ id: Int?) {
        guard let id, let timer = timers.removeValue(forKey: id) else { return }
        if let timeout = timer.timeout { api.pointee.timeout_free(timeout) }
    }

    private func fire(_ timer: AvahiTimer) {
        guard timers.removeValue(forKey: timer.id) != nil else { return }
        // Safe inside its own callback (watch.h).
        if let timeout = timer.timeout { api.pointee.timeout_free(timeout) }
        timer.job()
    }

    /// The monotonic clock, in seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// One pending timer: its avahi timeout and the job. Avahi thread only.
final class AvahiTimer {
    let id: Int
    let job: () -> Void
    weak var connection: AvahiConnection?
    var timeout: OpaquePointer?

    init(id: Int, job: @escaping () -> Void, connection: AvahiConnection) {
        self.id = id
        self.job = job
        self.connection = connection
    }
}
