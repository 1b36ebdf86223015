@preconcurrency import Glibc
import Foundation
import Match
import Synchronization

/// The host's full-screen view of its tables (`parlor host --tables N` on a
/// terminal): one line per table with its players, moves, whose turn or the
/// result, redrawn as they change.
///
/// Keys on the list: ↑/↓ (or k/j) choose a table, Enter opens it: its board
/// and seat list, live, as a spectator sees them (the table's own match
/// controller is followed in this process; nothing goes over the network),
/// until Esc or q goes back to the list. On the list q or Esc asks before
/// stopping the host (y stops, any other key goes on); Ctrl-C, the end of
/// input or a lost terminal stop it at once. Thread-safe: one lock holds the
/// state, drawing goes through one `ScreenWriter`.
public final class HallScreen: Sendable {
    /// One table's line.
    public struct Row: Hashable, Sendable {
        /// The table's number, as the host numbers its tables (1 and up).
        public var table: Int
        /// The seated players' names, joined with " vs ".
        public var players: String
        /// How many moves the match has had.
        public var moves: Int
        /// "Bo to move", "Bo won", "draw", "away", …
        public var status: String
        /// The match's id in hex; the list shows its first 8 digits.
        public var matchID: String

        /// A row from its words; `HallBoard.rows()` makes them from the tables' states.
        public init(table: Int, players: String, moves: Int, status: String, matchID: String) {
            self.table = table
            self.players = players
            self.moves = moves
            self.status = status
            self.matchID = matchID
        }
    }

    /// Where an opened table's match is followed: the controller playing at
    /// table `table` now, nil when nobody sits there.
    public typealias TableSource = @Sendable (_ table: Int) async -> MatchController?

    private struct State {
        var model = HallModel()
        /// The task following the opened table's controller.
        var following: Task<Void, Never>?
        var closed = false
    }

    private let terminal: Terminal
    private let options: DisplayOptions
    private let writer: ScreenWriter
    private let reader: InputReader
    private let resizes: SignalWatcher
    private let state = Mutex(State())
    private let tables: TableSource
    private let onQuit: @Sendable () -> Void

    /// Takes over the terminal (raw keys, alternate screen); `tables` gives the
    /// match of a table the person opens; `onQuit` is called (from the key
    /// reader's thread) when they stop the host. Throws when stdin or stdout is not a terminal.
    public init(options: DisplayOptions, tables: @escaping TableSource, onQuit: @escaping @Sendable () -> Void) throws(TerminalError) {
        let terminal = Terminal()
        try terminal.enterFullScreen()
        self.terminal = terminal
        var quiet = options
        quiet.bell = false  // nobody's turn at the host's screen
        self.options = quiet
        self.tables = tables
        self.onQuit = onQuit
        let box = WeakScreen()
        writer = ScreenWriter(terminal: terminal, options: quiet) { box.screen?.quit() }
        reader = InputReader(fd: terminal.inputFD, mode: .keys) { event in box.screen?.receive(event) }
        resizes = SignalWatcher(signals: [SIGWINCH]) { _ in box.screen?.resized() }
        box.screen = self
        reader.start()
    }

    /// Redraws with `rows` as the tables now: the list, or the opened table (its countdown too).
    /// `header` goes above the tables (the join lines, the LAN listing); `finished`
    /// and `talk` (the last results and the last lines said at any table) below them.
    public func show(title: String, rows: [Row], header: [String] = [], finished: [String] = [], talk: [String] = []) {
        state.withLock { state in
            state.model.title = title
            state.model.rows = rows
            state.model.header = header
            state.model.finished = finished
            state.model.talk = talk
            draw(state)
        }
    }

    /// Gives the terminal back.
    public func close() {
        let following = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            defer { state.following = nil }
            return state.following
        }
        following?.cancel()
        reader.stop()
        resizes.cancel()
        terminal.restore()
    }

    // MARK: keys and events

    private func receive(_ event: InputEvent) {
        switch event {
        case .key(let key): handle(key)
        case .lost, .endOfInput: quit()
        case .line: break
        }
    }

    private func handle(_ key: Key) {
        let action = state.withLock { state -> HallModel.Action in
            let action = state.model.handle(key)
            switch action {
            case .open(let table):
                state.following?.cancel()
                state.following = follow(table, token: state.model.watching?.token ?? 0)
                writer.invalidate()
            case .back:
                state.following?.cancel()
                state.following = nil
                writer.invalidate()
            case .redraw, .stop, .none:
                break
            }
            if action != .none, action != .stop { draw(state) }
            return action
        }
        if action == .stop { quit() }
    }

    private func quit() {
        guard state.withLock({ state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }) else { return }
        onQuit()
    }

    private func resized() {
        writer.invalidate()
        state.withLock { draw($0) }
    }

    /// Follows table `table`'s controller into the model while `token` is the one opened.
    private func follow(_ table: Int, token: Int) -> Task<Void, Never> {
        let tables = self.tables
        let options = self.options
        return Task { [weak self] in
            guard let controller = await tables(table) else {
                self?.update(token) { $0.tableFreed() }
                return
            }
            // Subscribed before the state is read: nothing that happens between the two is missed.
            let events = await controller.events()
            let current = await controller.state
            self?.update(token) { $0.opened(current, options: options) }
            for await event in events {
                guard !Task.isCancelled else { return }
                self?.update(token) { $0.handle(event) }
            }
            self?.update(token) { $0.tableFreed() }
        }
    }

    private func update(_ token: Int, _ change: (inout HallModel.Watching) -> Void) {
        state.withLock { state in
            guard !state.closed, var watching = state.model.watching, watching.token == token else { return }
            change(&watching)
            state.model.watching = watching
            draw(state)
        }
    }

    // MARK: drawing

    private func draw(_ state: State) {
        guard !state.closed else { return }
        let size = terminal.size() ?? .standard
        writer.show(state.model.frame(options: options, size: size, now: wallClockMilliseconds()), size: size)
    }

    /// The list's lines, each cut to `columns`, at most `height`, `selected` marked with `>`. Pure, for tests.
    /// `header` lines go between the title and the tables; `finished` and `talk` under them;
    /// `keys` last, wrapped at spaces rather than cut.
    public static func lines(title: String, rows: [Row], selected: Int? = nil, columns: Int, height: Int,
                             keys: String = "", header: [String] = [], finished: [String] = [], talk: [String] = []) -> [String] {
        let width = max(1, columns)
        var lines = [title] + header.flatMap { ScreenText.wrap($0, to: width) }
        lines += ["", "  " + pad("Table", 6) + pad("Match", 10) + pad("Players", 34) + pad("Moves", 7) + "State"]
        var below: [String] = []
        if !finished.isEmpty { below += ["", "Finished:"] + finished.map { "  " + $0 } }
        if !talk.isEmpty { below += ["", "Talk:"] + talk.map { "  " + $0 } }
        let keyLines = keys.isEmpty ? [] : [""] + ScreenText.wrap(keys, to: width)
        let room = max(0, height - lines.count - below.count - keyLines.count - 1)
        let index = rows.firstIndex { $0.table == selected }
        // The chosen table stays in sight when there are more tables than lines.
        let first = min(max(0, (index ?? 0) - room + 1), max(0, rows.count - room))
        for row in rows.dropFirst(first).prefix(room) {
            lines.append((row.table == selected ? "> " : "  ") + pad(String(row.table), 6) + pad(String(row.matchID.prefix(8)), 10)
                         + pad(row.players, 34) + pad(String(row.moves), 7) + row.status)
        }
        if rows.isEmpty { lines.append("  No table is in play yet: each guest who joins gets one.") }
        if rows.count > room {
            lines.append("  (tables \(first + 1)-\(min(rows.count, first + room)) of \(rows.count) shown)")
        }
        lines += below + keyLines
        return lines.map { String($0.prefix(width)) }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let cut = String(text.prefix(width - 1))
        return cut + String(repeating: " ", count: max(1, width - cut.count))
    }
}

/// The reader's and the signal's way back to the screen before `init` ends.
private final class WeakScreen: @unchecked Sendable {
    // Set once in HallScreen.init, before the reader starts; read only afterwards.
    weak var screen: HallScreen?
}

/// What the host's hall screen shows and what its keys do; pure, for tests.
struct HallModel {
    /// What a key did.
    enum Action: Equatable {
        /// Something changed on screen.
        case redraw
        /// Table `table` was opened: follow its match.
        case open(Int)
        /// Back to the list from a table.
        case back
        /// Stop the host.
        case stop
        /// Nothing.
        case none
    }

    /// An opened table.
    struct Watching {
        let table: Int
        /// Which opening this is (a table opened again follows its new match).
        let token: Int
        /// Its match, once its controller was reached.
        var model: FullScreenModel?
        /// Nobody plays there any more (its match ended and the table was freed, or it was never taken).
        var freed = false

        mutating func opened(_ state: MatchState, options: DisplayOptions) {
            model = FullScreenModel(state: state, localSeats: [], options: options)
        }

        mutating func handle(_ event: MatchEvent) { _ = model?.handle(event) }

        mutating func tableFreed() { freed = true }
    }

    var title = ""
    var rows: [HallScreen.Row] = []
    /// Above the tables: how to join, the LAN listing's state.
    var header: [String] = []
    /// Under the tables: the last results, the last talk.
    var finished: [String] = []
    var talk: [String] = []
    /// The chosen table's number (kept when tables come and go).
    var selected: Int?
    /// "Stop hosting?" is asked.
    var confirmingStop = false
    var watching: Watching?
    private var openings = 0

    /// The chosen row's index, the first when the chosen table is gone.
    private var selectedIndex: Int? {
        guard !rows.isEmpty else { return nil }
        return rows.firstIndex { $0.table == selected } ?? 0
    }

    mutating func handle(_ key: Key) -> Action {
        if key == .interrupt || key == .endOfTransmission { return .stop }
        if watching != nil {
            switch key {
            case .escape, .character("q"), .character("Q"):
                watching = nil
                return .back
            default: return .none
            }
        }
        if confirmingStop {
            confirmingStop = false
            return key == .character("y") || key == .character("Y") ? .stop : .redraw
        }
        switch key {
        case .up, .character("k"), .down, .character("j"):
            guard let index = selectedIndex else { return .none }
            let step = key == .up || key == .character("k") ? -1 : 1
            selected = rows[min(max(0, index + step), rows.count - 1)].table
            return .redraw
        case .home:
            selected = rows.first?.table
            return .redraw
        case .end:
            selected = rows.last?.table
            return .redraw
        case .enter, .character(" "):
            guard let index = selectedIndex else { return .none }
            let table = rows[index].table
            selected = table
            openings += 1
            watching = Watching(table: table, token: openings)
            return .open(table)
        case .escape, .character("q"), .character("Q"):
            confirmingStop = true
            return .redraw
        default:
            return .none
        }
    }

    /// The keys line of the list.
    static func listKeys(unicode: Bool) -> String {
        "\(unicode ? "↑/↓" : "up/down") choose · Enter: watch the table · q: stop hosting"
    }

    /// What is on screen: the list, or the opened table's board with a line naming it.
    func frame(options: DisplayOptions, size: TerminalSize, now: Int64) -> Frame {
        guard let watching else {
            let keys = confirmingStop
                ? "Stop hosting? Matches in play are left for now ('parlor resume' brings them back). y: stop   n: go on"
                : Self.listKeys(unicode: options.unicode)
            let shownSelection = selectedIndex.map { rows[$0].table }
            return Frame(lines: HallScreen.lines(title: title, rows: rows, selected: shownSelection, columns: size.columns - 1,
                                                 height: size.rows, keys: keys, header: header, finished: finished,
                                                 talk: talk).map { StyledLine($0) })
        }
        guard let model = watching.model else {
            let text = watching.freed ? "Table \(watching.table) is free: nobody plays there now." : "Opening table \(watching.table)\u{2026}"
            return Frame(lines: [StyledLine(title), StyledLine(), StyledLine(text), StyledLine(), StyledLine("Esc or q: back to the tables")])
        }
        var view = model.view
        view.now = now
        let id = String(view.state.matchID.hex.prefix(8))
        view.keys = watching.freed
            ? "Table \(watching.table) (match \(id)) is over and free again   Esc or q: back to the tables"
            : "Watching table \(watching.table) (match \(id))   Esc or q: back to the tables"
        return Renderer.screen(for: view, options: options, size: size)
    }
}
