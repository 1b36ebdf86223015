import Foundation
import Match
import ParlorTestSupport
import Session
import Testing
@testable import ParlorCLI
@testable import Store

/// Issue 11: the guest's save of the end runs on the store's writer, and its
/// acknowledgement (GOODBYE(matchOver)) is sent from the save's callback, so
/// no thread of the cooperative pool waits for the disk at the end either.
/// In the serialized "durable turns" suite: its tests share `JournalFile.beforeSync`.
extension DurableTurnTests {
    @Test("more guests than the pool has threads end their matches while every guest sync is slow: another task keeps ticking, and each end is saved")
    func endingWithASlowSyncStallsNothing() async throws {
        let root = NSTemporaryDirectory() + "parlor-slow-end-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = MatchStore(directory: root)
        let slowSync: Duration = .seconds(3)
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        var matches: [LoopbackMatch] = []
        for index in 0..<count { matches.append(try await LoopbackMatch.start(seed: UInt64(index + 7), store: store)) }
        // From now on every append of a guest's journal syncs slowly (the end is an append too).
        JournalFile.beforeSync.withLock {
            $0 = { path in if path.hasPrefix(store.directory + "/"), path.contains("-guest-") { usleep(UInt32(slowSync.components.seconds) * 1_000_000) } }
        }
        defer { JournalFile.beforeSync.withLock { $0 = nil } }

        // Another task ticks all along; a save that blocked a pool thread would stall it for a slow sync.
        let ticker = Task { () -> Duration in
            var longest: Duration = .zero
            var last = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
                let now = ContinuousClock.now
                longest = max(longest, now - last)
                last = now
            }
            return longest
        }
        // Each guest quits, which ends its match: the quit leaves once the guest's earlier
        // saves are on disk, and the guest saves the end before it answers it.
        let quitting = matches.map { match in
            Task {
                for _ in 0..<500 {
                    if await match.guestController.isStopped { return }
                    if case .committed = await match.local.quit() { return }
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
        }
        for task in quitting { await task.value }
        // The ends' slow syncs run now: keep ticking through them.
        try await Task.sleep(for: slowSync + .milliseconds(500))
        ticker.cancel()
        let longest = await ticker.value
        #expect(longest < slowSync / 3, "a 20 ms tick took \(longest) while the guests saved")
        for match in matches { await match.finish() }
        // Every sync of a guest's journal is slowed, so the last end may still be on
        // its way to the disk when the matches are done: give it a few slow syncs' time.
        for match in matches {
            let path = store.path(for: StoredMatch(
                state: match.joined.initialState, role: .guest, localSeat: match.joined.seat, lastActivity: 0))
            let deadline = ContinuousClock.now + slowSync * 4
            var record = try store.load(path: path)
            while !(record.phase == .ended && record.state.isEnded), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                record = try store.load(path: path)
            }
            #expect(record.phase == .ended && record.state.isEnded, "the guest's copy: \(record.phase)")
        }
    }
}
