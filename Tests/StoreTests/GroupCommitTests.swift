import Dispatch
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Store

/// Issue 11 item 4: with one writer shared by several matches (a host of many
/// tables), the turns committed at once are made durable by one sync, and each
/// match is called back, in the order asked, only after it.
struct GroupCommitTests {
    /// `count` matches of one store, each saved once (its match file and a fresh journal) through `writer`.
    func recorders(_ count: Int, in store: MatchStore, writer: DurableWriter) throws -> [(MatchRecorder, MatchState)] {
        try (0..<count).map { index in
            let first = MatchFixtures.newMatch(seed: UInt64(100 + index))
            let recorder = MatchRecorder(store: store, record: StoredMatch(state: first, role: .host, localSeat: 0, lastActivity: 0),
                                         writer: writer)
            #expect(recorder.saveNow(first))
            return (recorder, try MatchFixtures.after([3], in: first))
        }
    }

    /// Keeps `writer` busy until the returned gate is signalled; returns once every
    /// earlier round (the recorders' first saves) is done, so figures read now are the next round's.
    static func hold(_ writer: DurableWriter) -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        writer.submit {
            holding.signal()
            gate.wait()
        }
        holding.wait()
        return gate
    }

    /// Every match's next turn asked for while the writer is busy, so all land in one round;
    /// returns the order the callbacks came in and the writer's figures for that round.
    func oneRound(_ matches: [(MatchRecorder, MatchState)], writer: DurableWriter) -> (order: [Int], syncs: Int, frames: Int) {
        let gate = Self.hold(writer)
        let before = writer.syncFigures
        let order = Self.saveBeforeRevealing(matches, opening: gate)
        let after = writer.syncFigures
        return (order, after.syncs - before.syncs, after.frames - before.frames)
    }

    /// Asks each recorder to save its state before revealing it, opens `gate`, and returns the order of the callbacks.
    static func saveBeforeRevealing(_ saves: [(MatchRecorder, MatchState)], opening gate: DispatchSemaphore) -> [Int] {
        let order = Mutex<[Int]>([])
        let done = DispatchGroup()
        for (index, (recorder, next)) in saves.enumerated() {
            done.enter()
            recorder.saveBeforeRevealing(next) { failure in
                #expect(failure == nil)
                order.withLock { $0.append(index) }
                done.leave()
            }
        }
        gate.signal()
        done.wait()
        return order.withLock { $0 }
    }

    @Test("six matches on one group-commit writer: one sync covers the six turns, each is called back after it, in order, and each is on disk")
    func oneSyncForARound() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let writer = DurableWriter(groupCommit: true)
        defer { writer.finish() }
        let matches = try recorders(6, in: store, writer: writer)
        let round = oneRound(matches, writer: writer)
        #expect(round.order == Array(0..<6))
        #expect(round.syncs == 1 && round.frames == 6, "\(round)")
        let listed = MatchStore(directory: store.directory).list()
        #expect(listed.problems.isEmpty)
        #expect(listed.matches.count == 6 && listed.matches.allSatisfy { $0.state.moves.count == 1 })
    }

    @Test("the same six on a shared writer without group commit sync once each")
    func oneSyncEachWithout() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let writer = DurableWriter()
        defer { writer.finish() }
        let round = oneRound(try recorders(6, in: store, writer: writer), writer: writer)
        #expect(round.order == Array(0..<6))
        #expect(round.syncs == 6 && round.frames == 6, "\(round)")
    }

    @Test("two turns of one match in one round: one sync, the later state is what loads, and the end still folds into the match file")
    func oneMatchTwiceAndItsEnd() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let writer = DurableWriter(groupCommit: true)
        defer { writer.finish() }
        let (recorder, next) = try #require(try recorders(1, in: store, writer: writer).first)
        let later = try MatchFixtures.after([3, 4], in: MatchFixtures.newMatch(seed: 100))
        let ended = try later.applying(.quit(0), now: 5)
        let gate = Self.hold(writer)
        let before = writer.syncFigures
        recorder.saveSoon(next)
        recorder.saveSoon(later)
        gate.signal()
        #expect(recorder.saveNow(later))
        #expect(writer.syncFigures.syncs - before.syncs == 1)
        #expect(try store.load(path: store.path(for: recorder.current)).state.moves.count == 2)
        #expect(recorder.saveNow(ended))
        let path = store.path(for: recorder.current)
        let reloaded = try MatchStore(directory: store.directory).load(path: path)
        #expect(reloaded.phase == .ended && reloaded.state.stateHash == ended.stateHash)
        #expect(recorder.problems.isEmpty)
    }
}

/// Issue 14 item 4: the host's bot answering at once — its reply asked to be
/// saved while the guest's move still waits for the writer — is covered by the
/// same append and sync as the move, and both are called back after it, in order.
struct CoalescedSaveTests {
    @Test("a later state asked for before the earlier one's write: one sync covers both, both called back in order, the later one loads")
    func laterStateJoinsTheEarlierWrite() throws {
        let store = MatchStore(directory: temporaryDirectory())
        for writer in [DurableWriter(), DurableWriter(groupCommit: true)] {
            defer { writer.finish() }
            let first = MatchFixtures.newMatch(seed: 7)
            let recorder = MatchRecorder(store: store, record: StoredMatch(state: first, role: .host, localSeat: 0, lastActivity: 0),
                                         writer: writer)
            #expect(recorder.saveNow(first))
            let move = try MatchFixtures.after([3], in: first)
            let reply = try MatchFixtures.after([3, 4], in: first)
            let gate = GroupCommitTests.hold(writer)
            let before = writer.syncFigures
            let order = GroupCommitTests.saveBeforeRevealing([(recorder, move), (recorder, reply)], opening: gate)
            #expect(order == [0, 1])
            #expect(writer.syncFigures.syncs - before.syncs == 1, "\(writer.syncFigures) after \(before)")
            #expect(try store.load(path: store.path(for: recorder.current)).state.moves.count == 2)
            #expect(recorder.problems.isEmpty)
        }
    }

    @Test("an end asked for while a turn waits: one sync, and the end is still folded into the match file")
    func endJoinsTheTurnsWrite() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let writer = DurableWriter()
        defer { writer.finish() }
        let first = MatchFixtures.newMatch(seed: 8)
        let recorder = MatchRecorder(store: store, record: StoredMatch(state: first, role: .host, localSeat: 0, lastActivity: 0),
                                     writer: writer)
        #expect(recorder.saveNow(first))
        let move = try MatchFixtures.after([3], in: first)
        let ended = try move.applying(.quit(1), now: 5)
        let gate = GroupCommitTests.hold(writer)
        recorder.saveSoon(move)
        recorder.saveSoon(ended)
        gate.signal()
        #expect(recorder.saveNow(ended))
        let reloaded = try MatchStore(directory: store.directory).load(path: store.path(for: recorder.current))
        #expect(reloaded.phase == .ended && reloaded.state.stateHash == ended.stateHash)
        #expect(recorder.problems.isEmpty)
    }
}
