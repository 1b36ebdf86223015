import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import TerminalUI

/// The host of many tables: the table list it shows, the count it advertises,
/// and each table's `--json` lines.
@Suite struct HallBoardTests {
    static func controller(_ state: MatchState) -> MatchController {
        MatchController(state: state, participants: [])
    }

    @Test func theListShowsEachTablesPlayersMovesAndWhoseMoveOrTheResult() throws {
        let board = HallBoard(limit: 4)
        let first = MatchFixtures.newMatch(seed: 1)
        let second = MatchFixtures.newMatch(seed: 2)
        board.seat(3, state: second, hostSeat: 0, controller: Self.controller(second))
        board.seat(1, state: first, hostSeat: 0, controller: Self.controller(first))
        board.update(1, state: try MatchFixtures.after([3], in: first))
        board.update(3, state: try MatchFixtures.after([0, 1, 0, 1, 0, 1, 0], in: second))

        let rows = board.rows()
        #expect(rows.map(\.table) == [1, 3])
        #expect(rows[0].players == "Ana vs Ben")
        #expect(rows[0].moves == 1)
        #expect(rows[0].status == "Ben to move")
        #expect(rows[1].moves == 7)
        #expect(rows[1].status.contains("Ana"))
        #expect(!rows[1].status.contains("to move"))
        #expect(board.inPlayCount == 1)

        board.free(1)
        #expect(board.rows().map(\.table) == [3])
        #expect(board.controller(1) == nil)
        #expect(board.controller(3) != nil)
        #expect(board.inPlayCount == 0)
        board.update(1, state: first)  // a free table stays free
        #expect(board.rows().map(\.table) == [3])
        #expect(board.inPlayCount == 0)
        board.seat(3, state: first, hostSeat: 0, controller: Self.controller(first))  // the ended table's next match
        #expect(board.inPlayCount == 1)
    }

    @Test func aFinishedTableSaysWhoWonAgainstWhomInHowManyMoves() throws {
        var state = Fixtures.state(Connect4(), moves: [3, 2, 3], names: ("Ana", "Hard bot"))
        state = try state.applying(.quit(1), now: 1)
        #expect(HallBoard.result(table: 3, state: state) == "table 3: Ana won against Hard bot, 3 moves")
        let board = HallBoard(limit: 4)
        for table in 1...5 { board.finished(table, state: state) }
        #expect(board.notes().finished.map { $0.prefix(8) } == ["table 3:", "table 4:", "table 5:"], "the last three stay")
    }

    @Test func theListPutsTheHeaderOnTopAndWrapsTheKeysRatherThanCuttingThem() {
        let keys = "Stop hosting? Matches in play are left for now ('parlor resume' brings them back). y: stop   n: go on"
        let lines = HallScreen.lines(title: "parlor: Connect Four on port 7477, 0 of 3 tables in play", rows: [], columns: 99, height: 30,
                                     keys: keys, header: ["Students join with:", "  parlor join 192.0.2.7:7477"],
                                     finished: ["table 1: Ana won against Hard bot, 21 moves"], talk: ["table 2 · Bo: hi"])
        #expect(lines[1] == "Students join with:" && lines[2] == "  parlor join 192.0.2.7:7477", "\(lines)")
        #expect(lines.contains("  table 1: Ana won against Hard bot, 21 moves") && lines.contains("  table 2 · Bo: hi"), "\(lines)")
        #expect(lines.allSatisfy { $0.count <= 99 })
        #expect(lines.suffix(2).joined(separator: " ") == keys, "\(lines)")
    }

    @Test func theRefreshReportsEachChangeInTablesInPlay() async throws {
        let board = HallBoard(limit: 2)
        let counts = Mutex<[Int]>([])
        let running = HallScreenRefresh.start(board: board, game: "Connect Four", port: 7477, fullScreen: nil,
                                              onQuit: {}, inPlayChanged: { count in counts.withLock { $0.append(count) } })
        defer { running.stop() }
        let state = MatchFixtures.newMatch()
        board.seat(0, state: state, hostSeat: 0, controller: Self.controller(state))
        board.seat(1, state: state, hostSeat: 0, controller: Self.controller(state))
        try await Self.waitFor { counts.withLock { $0.last == 2 } }
        board.free(0)
        board.free(1)
        try await Self.waitFor { counts.withLock { $0.last == 0 } }
        // The board went 1, 2, 1, 0; the refresh may look between any two of those changes
        // or miss some, but it reports each count it sees once, in order, and saw 2 and 0.
        let reported = counts.withLock { $0 }
        var rest = [1, 2, 1, 0][...]
        for count in reported {
            guard let at = rest.firstIndex(of: count) else { Issue.record("out of order or repeated: \(reported)"); break }
            rest = rest[(at + 1)...]
        }
        #expect(reported.contains(2) && reported.last == 0, "\(reported)")
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0 != $1 }, "\(reported)")
    }

    @Test func aTablesJSONLinesAreTheLineFrontendsTaggedWithMatchAndTable() throws {
        let state = MatchFixtures.newMatch()
        let tag: [(String, JSONValue)] = [("match", JSONValue(state.matchID.hex)), ("table", .int(2))]
        let away = try #require(JSONEvents.logged(.presence(seat: 1, away: true, graceLeft: .milliseconds(29_400)),
                                                  in: state, localSeats: [0]))
        #expect(away.encoded == JSONEvents.presence(state, seat: 1, away: true, graceLeft: .milliseconds(29_400)).encoded)
        #expect(JSONEvents.tagged(away, with: tag).encoded
                == #"{"event":"away","match":"\#(state.matchID.hex)","table":2,"seat":1,"name":"Ben","graceLeft":30}"#)
        let back = try #require(JSONEvents.logged(.presence(seat: 1, away: false, graceLeft: .zero), in: state, localSeats: [0]))
        #expect(back.encoded == #"{"event":"back","seat":1,"name":"Ben"}"#)
        // A started event already names its match: the tag's value replaces it, once.
        let started = try #require(JSONEvents.logged(.started(state), in: state, localSeats: [0]))
        #expect(JSONEvents.tagged(started, with: tag).encoded.components(separatedBy: "\"match\"").count == 2)
        #expect(JSONEvents.logged(.turnBegan(seat: 0, state), in: state, localSeats: [0]) == nil)
        #expect(JSONEvents.logged(.adopted(state), in: state, localSeats: [0]) == nil)
    }

    static func waitFor(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("timed out"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
