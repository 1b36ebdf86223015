@preconcurrency import Glibc
import Dispatch
import Synchronization

/// Where the store's durable writes run: a thread of its own (a plain
/// pthread, not a dispatch queue: on Linux dispatch queues and Swift's
/// cooperative pool draw on one pool of worker threads, so a sync there
/// could still hold up tasks), so no `fsync` ever runs on the cooperative
/// pool or under a lock another task waits on. Work is done in the order it
/// was submitted, and whoever waits for a write is called back when it is
/// on disk.
///
/// Each `MatchRecorder` has a writer of its own by default, so one match's
/// slow disk never holds up another match's turns. Jobs are taken in rounds:
/// a round is everything queued since the last one. That is the seam for
/// group commit (docs/STORE.md): recorders sharing one writer, and a round
/// that appends every match's frame to one journal and syncs it once.
///
/// The thread ends once `finish` was called and its queue is empty.
public final class DurableWriter: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var finished = false
    }

    private let queue = Mutex(Queue())
    /// Counts jobs queued (and the finish), so the thread sleeps while there is nothing to do.
    private let wake = DispatchSemaphore(value: 0)

    /// A writer with a thread of its own, started now.
    public init() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            // The thread holds the writer until it finishes.
            Unmanaged<DurableWriter>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            // No thread to be had: the work runs on the caller's thread instead (`submit`).
            Unmanaged<DurableWriter>.fromOpaque(context).release()
            queue.withLock { $0.finished = true }
        }
    }

    /// Runs `work` on the writer's thread after everything submitted before it; returns at once.
    /// After `finish` (or with no thread), `work` runs on the caller's thread.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        let queued = queue.withLock { queue -> Bool in
            guard !queue.finished else { return false }
            queue.jobs.append(work)
            return true
        }
        if queued { wake.signal() } else { work() }
    }

    /// Lets the thread end once what is queued is done.
    public func finish() {
        queue.withLock { $0.finished = true }
        wake.signal()
    }

    private func run() {
        while true {
            wake.wait()
            let (round, finished) = queue.withLock { queue -> ([@Sendable () -> Void], Bool) in
                let jobs = queue.jobs
                queue.jobs = []
                return (jobs, queue.finished)
            }
            for job in round { job() }
            if finished, queue.withLock({ $0.jobs.isEmpty }) { return }
        }
    }

    /// Runs `work` on the writer and waits for it. Blocks the calling thread:
    /// for callers that are on a thread of their own, or must not go on
    /// before the write (the guest's save of the end, a process about to exit).
    public func perform<Result: Sendable>(_ work: @escaping @Sendable () -> Result) -> Result {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result?>(nil)
        submit {
            let result = work()
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        // The job stored its result before signalling.
        return box.withLock { $0 }!
    }
}
