import Foundation
import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Store

/// Issue 37, item 5: what a side shows (the screen, `--json`) follows the
/// save that makes it durable. The recorder hands the controller's events on
/// to the screen once their saves have called back.
@Suite("shown after saved", .serialized)
struct ShownAfterSavedTests {
    /// Collects what the screen would show, in order.
    final class Screen: Sendable {
        final class Log: Sendable {
            let list = Mutex<[MatchEvent]>([])
            func withLock<R>(_ body: (inout [MatchEvent]) -> R) -> R { list.withLock { body(&$0) } }
        }
        let events = Log()
        let task: Task<Void, Never>

        init(_ shown: AsyncStream<MatchEvent>) {
            let events = self.events
            task = Task { for await event in shown { events.withLock { $0.append(event) } } }
        }

        var committedMoves: Int {
            events.withLock { $0.filter { if case .committed = $0 { true } else { false } }.count }
        }

        /// Waits up to 10 s for `condition` on what was shown.
        func waitFor(_ condition: @escaping ([MatchEvent]) -> Bool) async -> Bool {
            let limit = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < limit {
                if events.withLock({ condition($0) }) { return true }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return false
        }
    }

    /// A sync that waits until the test lets it go, for the journal of one store only.
    final class HeldSync: Sendable {
        let begun = Atomic<Int>(0)
        private let gate = DispatchSemaphore(value: 0)

        init(directory: String) {
            JournalFile.beforeSync.withLock { hook in
                hook = { [self] path in
                    guard path.hasPrefix(directory + "/") else { return }
                    begun.add(1, ordering: .sequentiallyConsistent)
                    gate.wait()
                }
            }
        }

        func release() { gate.signal() }
        func remove() { JournalFile.beforeSync.withLock { $0 = nil } }
    }

    @Test("a move is shown only once its save's sync has returned, and the turn after it follows it")
    func aMoveIsShownOnlyOnceSaved() async throws {
        let store = MatchStore(directory: temporaryDirectory())
        let state = MatchFixtures.newMatch(seed: 37)
        let ana = LocalParticipant(playerID: state.seats[0].playerID)
        let ben = LocalParticipant(playerID: state.seats[1].playerID)
        let controller = MatchController(state: state, participants: [ana, ben])
        let recorder = MatchRecorder(store: store, record: StoredMatch(state: state, role: .host, localSeat: 0, lastActivity: 0))
        let showing = MatchEventFeed()
        let recording = await recorder.follow(controller, showing: showing)
        let screen = Screen(showing.stream)
        let held = HeldSync(directory: store.directory)
        defer { held.remove() }

        try await controller.start()
        // The first save writes the match file whole (no journal sync): the start is shown once it is on disk.
        #expect(await screen.waitFor { $0.contains { if case .started = $0 { true } else { false } } })
        #expect(try store.list().matches.count == 1, "the start was shown before the match was on disk")

        // Ana's move is committed at once (no one to confirm it); its journal sync is held.
        guard case .committed = await ana.play(Move(3)) else { Issue.record("the move was refused"); return }
        let syncing = ContinuousClock.now + .seconds(10)
        while held.begun.load(ordering: .sequentiallyConsistent) < 1, ContinuousClock.now < syncing {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(held.begun.load(ordering: .sequentiallyConsistent) == 1, "the move's save never began")
        try await Task.sleep(for: .milliseconds(300))
        #expect(screen.committedMoves == 0, "the move was shown while its save was still syncing")
        #expect(!screen.events.withLock { $0.contains { if case .turnBegan(1, _) = $0 { true } else { false } } },
                "Ben's turn was shown before the move that gave it to him was saved")

        held.release()
        #expect(await screen.waitFor { events in
            guard let move = events.firstIndex(where: { if case .committed = $0 { true } else { false } }),
                  let turn = events.firstIndex(where: { if case .turnBegan(1, _) = $0 { true } else { false } }) else { return false }
            return move < turn
        }, "the saved move, then Ben's turn, were not shown in that order")

        // The end too: shown once saved, and the screen's stream ends after it.
        held.remove()
        _ = await ben.quit()
        #expect(await screen.waitFor { $0.contains { if case .ended = $0 { true } else { false } } })
        await recording.value
        await screen.task.value
        let saved = try #require(store.list().matches.first)
        #expect(saved.phase == .ended, "the end was shown but the record says \(saved.phase)")
    }

    @Test("a save that fails is said once, naming the move, and the match is still shown as it goes on")
    func aFailedSaveIsSaid() throws {
        let state = MatchFixtures.newMatch(seed: 38)
        let after = try MatchFixtures.after([3], in: state)
        var gate = ShownGate()
        let shown = gate.saved(.committed(.move(Move(3), by: 0), after), failure: "journal: No space left on device")
        #expect(shown.count == 2)
        guard case .notice(let text)? = shown.last else { Issue.record("the failure was not said: \(shown)"); return }
        #expect(text == "could not save move 1: journal: No space left on device")
        // The next failure of the same run is not said again; a success ends the run.
        let next = try MatchFixtures.after([3, 4], in: state)
        #expect(gate.saved(.committed(.move(Move(4), by: 1), next), failure: "journal: No space left on device").count == 1)
        #expect(gate.saved(.committed(.move(Move(4), by: 1), next), failure: nil).count == 1)
        let ended = gate.saved(.ended(next), failure: "disk full")
        #expect(ended.count == 2, "a failure after a success is said again")
    }
}
