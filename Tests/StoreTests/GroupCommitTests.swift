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
        let order = Mutex<[Int]>([])
        let done = DispatchGroup()
        for (index, (recorder, next)) in matches.enumerated() {
            done.enter()
            recorder.saveBeforeRevealing(next) { failure in
                #expect(failure == nil)
                order.withLock { $0.append(index) }
                done.leave()
            }
        }
        gate.signal()
        done.wait()
        let after = writer.syncFigures
        return (order.withLock { $0 }, after.syncs - before.syncs, after.frames - before.frames)
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
