import Foundation
import Match
import ParlorTestSupport
import Synchronization
import Session
import Testing
@testable import ParlorCLI
@testable import Store

/// Issue 11, "no stall while it syncs": a host's save runs on the store's
/// writer, not on the cooperative pool nor under a lock other tasks need,
/// and the frame that reveals the state leaves when the save completes.
@Suite("durable turns", .serialized)
struct DurableTurnTests {
    @Test("while some matches' syncs are slow, another match in the same process keeps playing; theirs wait for the sync")
    func aSlowSyncStallsNoOtherMatch() async throws {
        let root = NSTemporaryDirectory() + "parlor-slow-sync-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let slowStore = MatchStore(directory: root + "/slow"), fastStore = MatchStore(directory: root + "/fast")
        let slowSync: Duration = .seconds(5)
        // Every host journal append under the slow store takes this long to sync.
        let slowSyncsBegun = SyncCount()
        JournalFile.beforeSync.withLock {
            $0 = { path in
                if path.hasPrefix(slowStore.directory + "/"), path.contains("-host-") {
                    slowSyncsBegun.count.withLock { $0 += 1 }
                    usleep(UInt32(slowSync.components.seconds) * 1_000_000)
                }
            }
        }
        defer { JournalFile.beforeSync.withLock { $0 = nil } }

        // As many slow matches as the cooperative pool has threads: a sync that
        // blocked a pool thread would stop every task in the process.
        let slowCount = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let started = ContinuousClock.now
        var slow: [LoopbackMatch] = []
        // The host's bot waits a moment before its first move, so the match's first save (the
        // match file written whole, which no hook slows) is done and the move's save is a
        // journal append, which is slowed: without it, the two could go to disk as one.
        for index in 0..<slowCount {
            slow.append(try await LoopbackMatch.start(seed: UInt64(index), store: slowStore, hostPause: .milliseconds(500)))
        }
        // The host (a bot) moves first; its push waits for its slow save.
        let firstGuestTurn = slow.map { match in
            Task { () -> Duration? in
                for await event in match.events { if case .turnBegan(let seat, _) = event, seat == match.joined.seat { return ContinuousClock.now - started } }
                return nil
            }
        }

        // The other match plays while every slow match's sync is under way.
        let syncing = ContinuousClock.now + .seconds(4)
        while slowSyncsBegun.count.withLock({ $0 }) < slowCount, ContinuousClock.now < syncing {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(slowSyncsBegun.count.withLock { $0 } >= slowCount, "the slow matches' syncs did not begin")
        let fast = try await LoopbackMatch.start(seed: 99, store: fastStore)
        var played = 0
        for await event in fast.events {
            guard case .turnBegan(let seat, let state) = event, seat == fast.joined.seat,
                  let (move, _) = fast.randomMove(in: state) else { continue }
            guard case .committed = await fast.local.play(move) else { break }
            played += 1
            if played == 5 { break }
        }
        let fastDone = ContinuousClock.now - started
        #expect(played == 5)
        #expect(fastDone < slowSync, "the other match took \(fastDone) for 5 turns while the slow syncs ran")
        await fast.finish()

        for (index, turn) in firstGuestTurn.enumerated() {
            let waited = await turn.value
            // The push of the host's first move left only once its save was done.
            #expect(waited.map { $0 >= slowSync } == true, "slow match \(index): the guest saw the host's move after \(String(describing: waited))")
            #expect(waited.map { $0 > fastDone } == true)
        }
        for match in slow { await match.finish() }
        // Each slow host's copy holds the move the guest saw.
        for match in slow {
            let record = try slowStore.load(path: slowStore.path(for: StoredMatch(
                state: match.hosted.initialState, role: .host, localSeat: match.hosted.hostSeat, lastActivity: 0)))
            #expect(record.state.moves.count >= 1)
        }
    }

    @Test("leaving for now with slow syncs holds no thread of the pool: other tasks run while the marks are written")
    func leavingForNowWithASlowSyncStallsNothing() async throws {
        let root = NSTemporaryDirectory() + "parlor-slow-leave-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = MatchStore(directory: root)
        let slowSync: Duration = .seconds(3)
        // More recorders than the pool has threads, each journal started; then every append syncs slowly.
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        var recorders: [MatchRecorder] = []
        for index in 0..<count {
            let state = try MatchFixtures.after([3, 3], in: MatchFixtures.newMatch(seed: UInt64(index + 1)))
            let recorder = MatchRecorder(store: store, record: StoredMatch(state: state, role: .host, localSeat: 0, lastActivity: 0))
            #expect(recorder.saveNow(state))
            recorders.append(recorder)
        }
        JournalFile.beforeSync.withLock {
            $0 = { path in if path.hasPrefix(store.directory + "/") { usleep(UInt32(slowSync.components.seconds) * 1_000_000) } }
        }
        defer { JournalFile.beforeSync.withLock { $0 = nil } }

        let started = ContinuousClock.now
        let leaving = recorders.map { recorder in Task { await recorder.markInterrupted() } }
        // Meanwhile another task ticks ten times; a mark that blocked a pool thread would stop it.
        let ticked = await Task { () -> Duration in
            for _ in 0..<10 { try? await Task.sleep(for: .milliseconds(20)) }
            return ContinuousClock.now - started
        }.value
        #expect(ticked < slowSync, "ten 20 ms ticks took \(ticked) while the marks were written")
        for task in leaving { await task.value }
        #expect(ContinuousClock.now - started >= slowSync, "the marks returned before their slow syncs")
        for recorder in recorders {
            #expect(try store.load(path: store.path(for: recorder.current)).phase == .interrupted)
        }
    }
}

/// How many slowed syncs have begun (the hook runs on the store's writer threads).
private final class SyncCount: Sendable {
    let count = Mutex(0)
}
