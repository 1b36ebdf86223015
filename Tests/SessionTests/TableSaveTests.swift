import Games
import Match
import Synchronization
import Testing
@testable import Session

/// Every guest link of a table waits for one write-ahead save per state.
@Suite struct TableSaveTests {
    final class Disk: Sendable {
        let writes = Mutex<[UInt32]>([])
        let failNext = Mutex(false)
        let pending = Mutex<[@Sendable ((any Error)?) -> Void]>([])

        struct Full: Error {}

        /// A save that finishes only when `finish()` is called, as the store's writer does later.
        var save: RemoteGuest.Persist {
            { [self] state, then in
                writes.withLock { $0.append(state.sequence) }
                let fail = failNext.withLock { value in defer { value = false }; return value }
                pending.withLock { $0.append({ _ in then(fail ? Full() : nil) }) }
            }
        }

        func finish() {
            for done in pending.withLock({ list in defer { list = [] }; return list }) { done(nil) }
        }
    }

    static var state: MatchState {
        MatchState(matchID: .random(), game: DotsAndBoxes(seats: 3),
                   seats: ["A", "B", "C"].map { Seat(playerID: .random(), name: $0) }, turnTimeout: 0, now: 0)
    }

    @Test func threeLinksAskOnceEachAndTheStateIsWrittenOnceThenEveryLinkHearsInOrder() {
        let disk = Disk()
        let table = TableSave(links: 3, save: disk.save)
        let heard = Mutex<[Int]>([])
        let state = Self.state
        for link in 0..<3 { table.persist(state) { error in if error == nil { heard.withLock { $0.append(link) } } } }
        #expect(disk.writes.withLock { $0 } == [0], "one write for three links")
        #expect(heard.withLock { $0 }.isEmpty, "nothing is revealed before the write is done")
        disk.finish()
        #expect(heard.withLock { $0 } == [0, 1, 2])
    }

    @Test func aFailedSaveIsTriedAgainWhenALinkAsksAgain() {
        let disk = Disk()
        disk.failNext.withLock { $0 = true }
        let table = TableSave(links: 2, save: disk.save)
        let failures = Mutex(0)
        let state = Self.state
        for _ in 0..<2 { table.persist(state) { error in if error != nil { failures.withLock { $0 += 1 } } } }
        disk.finish()
        #expect(failures.withLock { $0 } == 2, "both links are told the save failed")
        let saved = Mutex(false)
        table.persist(state) { error in saved.withLock { $0 = error == nil } }
        disk.finish()
        #expect(disk.writes.withLock { $0 } == [0, 0], "the retry writes again")
        #expect(saved.withLock { $0 })
    }
}
