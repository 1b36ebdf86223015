// What the host of many tables shows (`parlor host --tables N`): the rows of
// its table list, kept as every table's events come, and the task that
// redraws them on the full screen and reports how many tables are in play.

import Games
import Match
import Synchronization

/// The host's table list: one line per seated table, kept as every table's
/// events come. Thread-safe: one lock holds the lines; every table's task
/// updates its own line.
public final class HallBoard: Sendable {
    private struct Line {
        var state: MatchState
        var hostSeat: SeatIndex
        /// The table's match, for the screen that opens the table.
        let controller: MatchController
    }

    /// How many tables the host serves at most.
    public let limit: Int
    private struct Lines {
        var byTable: [Int: Line] = [:]
        /// Lines whose match is not over, kept as they change: the refresh asks twice a second, and
        /// copying a thousand lines' states to count them was a tenth of an idle host's work.
        var inPlay = 0

        /// Lines about the host itself, shown above the tables: how to join, whether it is on the LAN's lists.
        var header: [String] = []
        /// The last results of tables that ended, newest last.
        var finished: [String] = []
        /// The last lines of talk at any table, newest last.
        var talk: [String] = []

        mutating func set(_ table: Int, _ line: Line?) {
            if let old = byTable[table], !old.state.isEnded { inPlay -= 1 }
            if let line, !line.state.isEnded { inPlay += 1 }
            byTable[table] = line
        }
    }

    private let lines = Mutex(Lines())

    /// An empty list for a host of at most `limit` tables.
    public init(limit: Int) { self.limit = limit }

    /// Table `table` is played now: `state` as it started, `controller` the match to open.
    public func seat(_ table: Int, state: MatchState, hostSeat: SeatIndex, controller: MatchController) {
        lines.withLock { $0.set(table, Line(state: state, hostSeat: hostSeat, controller: controller)) }
    }

    /// The match played at `table` now, nil when the table is free.
    public func controller(_ table: Int) -> MatchController? {
        lines.withLock { $0.byTable[table]?.controller }
    }

    /// Table `table`'s match stands at `state` now; nothing for a free table.
    public func update(_ table: Int, state: MatchState) {
        lines.withLock { lines in
            guard var line = lines.byTable[table] else { return }
            line.state = state
            lines.set(table, line)
        }
    }

    /// Table `table` is free again: its line goes.
    public func free(_ table: Int) {
        lines.withLock { $0.set(table, nil) }
    }

    /// Tables whose match is not over.
    public var inPlayCount: Int { lines.withLock { $0.inPlay } }

    /// How many finished results and talk lines the list keeps.
    public static let keptLines = 3

    /// Says `header` above the tables from now on (the join lines, the LAN listing's state).
    public func setHeader(_ header: [String]) {
        lines.withLock { $0.header = header }
    }

    /// Table `table`'s match ended at `state`: its result stays on the list after the table is freed.
    public func finished(_ table: Int, state: MatchState) {
        lines.withLock { lines in
            lines.finished = Array((lines.finished + [Self.result(table: table, state: state)]).suffix(Self.keptLines))
        }
    }

    /// Someone said `line` at table `table`: the list shows the last few lines of every table.
    public func heard(_ table: Int, _ line: TalkLine) {
        lines.withLock { lines in
            let said = "table \(table) · \(sanitized(line.name)): \(sanitized(line.text))"
            lines.talk = Array((lines.talk + [said]).suffix(Self.keptLines))
        }
    }

    /// What the list shows besides the tables: the header, the last results, the last talk.
    public func notes() -> (header: [String], finished: [String], talk: [String]) {
        lines.withLock { ($0.header, $0.finished, $0.talk) }
    }

    /// "table 3: Ana won against Hard bot, 21 moves": a finished table's line
    /// ("Bo and Cy won against Ana" where a game's own outcomes make two winners).
    public static func result(table: Int, state: MatchState) -> String {
        let names = state.seats.map { sanitized($0.name) }
        let winners = state.seats.indices.filter { state.seats[$0].outcome == .won }
        let summary: String
        // Several winners when a game ends with outcomes of its own (misère Nim at three: two won).
        if !winners.isEmpty, winners.count < state.seats.count {
            let others = state.seats.indices.filter { !winners.contains($0) }.map { names[$0] }
            summary = "\(MatchText.listed(winners.map { names[$0] })) won against \(others.joined(separator: " and "))"
        } else if state.seats.allSatisfy({ $0.outcome == .tied }) {
            summary = names.joined(separator: " and ") + " tied"
        } else {
            let words = MatchText.resultLine(state, options: .plainText(unicode: false))
            summary = String(words.dropFirst("Result: ".count).dropLast())
        }
        return "table \(table): \(summary), \(state.moves.count) moves"
    }

    /// Every table's line, by number: its players, moves, and whose move or the result.
    public func rows() -> [HallScreen.Row] {
        lines.withLock { lines in
            lines.byTable.keys.sorted().compactMap { number in
                guard let line = lines.byTable[number] else { return nil }
                let state = line.state
                let players = state.seats.map(\.name).joined(separator: " vs ")
                let status: String
                if state.isEnded {
                    status = MatchText.resultLine(state, options: .plainText(unicode: false))
                } else if let seat = state.game.activeSeat {
                    status = "\(state.seats[seat].name) to move"
                } else {
                    status = "playing"
                }
                return HallScreen.Row(table: number, players: players, moves: state.moves.count, status: status,
                                      matchID: state.matchID.hex)
            }
        }
    }
}

/// Redraws the host's table list on the full screen twice a second, and
/// tells the caller each time the number of tables in play changes (the
/// advertisement's TXT `tables`).
public enum HallScreenRefresh {
    /// The refresh running; `stop()` ends it.
    public struct Running: Sendable {
        let task: Task<Void, Never>
        let screen: HallScreen?

        /// Stops redrawing and gives the terminal back.
        public func stop() {
            task.cancel()
            screen?.close()
        }
    }

    /// Starts the refresh. With `fullScreen` options the table list takes the
    /// terminal (titled with `game` and `port`; `onQuit` when the person stops
    /// the host there); with nil, or when the terminal cannot be taken, only
    /// `inPlayChanged` runs, from a task of its own, with the new count.
    public static func start(board: HallBoard, game: String, port: UInt16, fullScreen options: DisplayOptions?,
                             onQuit: @escaping @Sendable () -> Void,
                             inPlayChanged: @escaping @Sendable (Int) async -> Void) -> Running {
        let screen = options.flatMap { try? HallScreen(options: $0, tables: { board.controller($0) }, onQuit: onQuit) }
        let task = Task {
            var reported = 0
            while !Task.isCancelled {
                let inPlay = board.inPlayCount
                if let screen {
                    let notes = board.notes()
                    screen.show(title: "parlor: \(game) on port \(port), \(inPlay) of \(board.limit) tables in play",
                                rows: board.rows(), header: notes.header, finished: notes.finished, talk: notes.talk)
                }
                if inPlay != reported {
                    reported = inPlay
                    await inPlayChanged(inPlay)
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        return Running(task: task, screen: screen)
    }
}
