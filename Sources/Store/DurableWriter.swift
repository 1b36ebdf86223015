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
/// a round is everything queued since the last one. Recorders sharing one
/// writer made with `groupCommit` (a host of many tables) have every append
/// of a round made durable by one sync at its end, and their callbacks run
/// after it, in order (docs/STORE.md "Group commit").
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
    /// One sync per round for every journal the round appended to (group commit), rather than one per job.
    public let groupsCommits: Bool
    /// What the round under way waits for; touched only on the writer's thread (or, without one, under `fallback`).
    private let round = WriterOwned(Round())
    /// Held by a caller that runs a job itself (the writer has no thread, or has finished).
    private let fallback = Mutex(0)
    /// Rounds and syncs so far, for the bench and tests: (rounds that synced, sync calls made, frames they covered).
    private let counts = Mutex((rounds: 0, syncs: 0, frames: 0))

    /// The journals a round appended to and the callbacks waiting for the round, in the order asked for.
    private struct Round {
        var files: [JournalFile] = []
        var frames = 0
        var completions: [(file: ObjectIdentifier?, done: (StoreError?) -> Void)] = []
        var results: [ObjectIdentifier: StoreError?] = [:]
    }

    /// A writer with a thread of its own, started now. With `groupCommit`,
    /// the appends of every job in a round (everything queued since the last
    /// one: several matches' turns committed at once) are made durable by one
    /// sync at the round's end (`fdatasync` for one journal, `syncfs` for
    /// several), and then every job's callback runs, in order; without it each
    /// job's append is synced as the job ends (docs/STORE.md "Group commit").
    public init(groupCommit: Bool = false) {
        self.groupsCommits = groupCommit
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
        if queued {
            wake.signal()
        } else {
            // No thread (or finished): the job and its round run here.
            fallback.withLock { _ in
                work()
                endRound()
            }
        }
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
            for job in round {
                job()
                if !groupsCommits { endRound() }
            }
            if groupsCommits { endRound() }
            if finished, queue.withLock({ $0.jobs.isEmpty }) { return }
        }
    }

    // MARK: Rounds (used by the jobs, on the writer's thread)

    /// In a job: `file` has frames written but not synced; the round's sync
    /// covers them, then `then` gets its result (nil: on disk).
    func syncAtRoundEnd(_ file: JournalFile, frames: Int = 1, then: @escaping (StoreError?) -> Void) {
        if !round.value.files.contains(where: { $0 === file }) { round.value.files.append(file) }
        round.value.frames += frames
        round.value.completions.append((ObjectIdentifier(file), then))
    }

    /// In a job: runs `then` when the round ends, after the callbacks asked for before it.
    func atRoundEnd(_ then: @escaping () -> Void) {
        round.value.completions.append((nil, { _ in then() }))
    }

    /// In a job about to replace `file` (a match file written whole): its
    /// pending frames are synced now, not at the round's end.
    func syncEarly(_ file: JournalFile) {
        guard let index = round.value.files.firstIndex(where: { $0 === file }) else { return }
        round.value.files.remove(at: index)
        round.value.results[ObjectIdentifier(file)] = file.syncPending()
        counts.withLock { $0.syncs += 1 }
    }

    /// The round's one sync, then every callback in order.
    private func endRound() {
        let pending = round.value
        round.value = Round()
        var results = pending.results
        if pending.files.count == 1, let file = pending.files.first {
            results[ObjectIdentifier(file)] = file.syncPending()
        } else if pending.files.count > 1 {
            // One syncfs covers every journal of the round; if it fails, each is synced
            // on its own so that each match learns whether its own frame is on disk.
            if let first = pending.files.first, first.syncFileSystem() {
                for file in pending.files { results[ObjectIdentifier(file)] = file.markSynced() }
            } else {
                for file in pending.files { results[ObjectIdentifier(file)] = file.syncPending() }
            }
        }
        if !pending.files.isEmpty {
            counts.withLock { counts in
                counts.rounds += 1
                counts.syncs += pending.files.count > 1 ? 1 : pending.files.count
                counts.frames += pending.frames
            }
        }
        for completion in pending.completions {
            completion.done(completion.file.flatMap { results[$0] ?? nil })
        }
    }

    /// Rounds that synced so far, the sync calls they made, and the frames those covered.
    public var syncFigures: (rounds: Int, syncs: Int, frames: Int) { counts.withLock { $0 } }

    /// Runs `work` on the writer and waits until the round it ran in has
    /// ended (its sync done, its callbacks run). Blocks the calling thread.
    func performAndWaitForRound(_ work: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        submit {
            work()
            self.atRoundEnd { done.signal() }
        }
        done.wait()
    }
}
