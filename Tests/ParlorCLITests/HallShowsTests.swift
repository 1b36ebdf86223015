import Foundation
import Games
import Match
import Synchronization
import Testing
import TerminalUI
@testable import ParlorCLI

/// The hall's one showing of every table's saved events (`HallShows`), fed
/// from several threads at once as the hall's sixteen writers feed it.
@Suite("A hall's tables shown together")
struct HallShowsTests {
    /// A connect4 match of Ada and Bo, and its changes, Ada winning in column 0 (seven moves).
    static func match() throws -> (start: MatchState, changes: [(MatchChange, MatchState)]) {
        let start = MatchState(matchID: .random(), game: Connect4(),
                               seats: [Seat(playerID: .random(), name: "Ada"), Seat(playerID: .random(), name: "Bo")],
                               turnTimeout: 0, now: 1_700_000_000_000)
        var state = start
        var changes: [(MatchChange, MatchState)] = []
        for (index, column) in [0, 1, 0, 1, 0, 1, 0].enumerated() {
            let change = MatchChange.move(Move(column), by: index % 2)
            state = try state.applying(change, now: 1_700_000_000_000 + Int64(index))
            changes.append((change, state))
        }
        return (start, changes)
    }

    @Test("every table's end line is said once, after its moves, and ended() is true only once it was said")
    func endsShown() async throws {
        let said = Mutex<[String]>([])
        let board = HallBoard(limit: 8)
        let shows = HallShows(board: board, announcer: Announcer(json: false) { line in said.withLock { $0.append(line) } })
        let tables = try (1...8).map { _ in try Self.match() }
        let feeds = tables.map { _ in MatchEventFeed() }
        let keys = tables.indices.map { index in
            shows.follow(feeds[index], HallShows.Table(number: index + 1, id: tables[index].start.matchID, tag: [], hostSeat: 0,
                                                       initial: tables[index].start))
        }
        // Each table's writer on a thread of its own, all at once.
        DispatchQueue.concurrentPerform(iterations: tables.count) { index in
            for (change, state) in tables[index].changes { feeds[index].yield(.committed(change, state)) }
            feeds[index].yield(.ended(tables[index].changes.last!.1))
            feeds[index].finish()
        }
        for key in keys { #expect(await shows.ended(key)) }
        let lines = said.withLock { $0 }
        for number in 1...tables.count {
            let ends = lines.filter { $0.hasPrefix("Table \(number): ") }
            #expect(ends.count == 1, "table \(number): \(ends)")
            #expect(ends.first?.contains("7 moves") == true, "table \(number): \(ends)")
        }
        await shows.finish()
    }

    @Test("a table no longer followed (the hall stops) ends at once, not ended, and its later end is not said")
    func stoppedTable() async throws {
        let said = Mutex<[String]>([])
        let shows = HallShows(board: HallBoard(limit: 2), announcer: Announcer(json: false) { line in said.withLock { $0.append(line) } })
        let match = try Self.match()
        let feed = MatchEventFeed()
        let key = shows.follow(feed, HallShows.Table(number: 1, id: match.start.matchID, tag: [], hostSeat: 0, initial: match.start))
        shows.stopFollowing(key)
        #expect(await shows.ended(key) == false)
        feed.yield(.ended(match.changes.last!.1))
        feed.finish()
        await shows.finish()
        // Gathered at most `gathering`: by then anything queued would have been said.
        try await Task.sleep(for: HallShows.gathering * 3)
        #expect(said.withLock { $0 }.isEmpty)
    }
}
