import Games
import Match

/// Everything the full screen shows, as plain data (the frontend's model fills it in).
public struct ScreenView: Sendable {
    /// The state to draw (the tentative one while a move awaits confirmation).
    public var state: MatchState
    /// Where the player points; drawn only when `showsCursor`.
    public var cursor: BoardCursor
    /// Seats played at this terminal (two in hot-seat play).
    public var localSeats: Set<SeatIndex>
    /// Whether a local seat is to move and may pick a move.
    public var showsCursor: Bool
    /// A move of ours waits for the other side's confirmation.
    public var awaitingConfirmation = false
    /// The "Quit this match? (y/n)" question is showing.
    public var confirmingQuit = false
    /// A one-line answer to the last key (a refused move, "not your turn").
    public var message: String?
    /// The latest notice from a participant (connection trouble).
    public var notice: String?
    /// Why the match stopped on this side, if it failed.
    public var failure: MatchFailure?
    /// Milliseconds since 1970, for the turn countdown.
    public var now: Int64 = 0
    /// A line shown instead of whose turn it is (the replay's "Move 3 of 17").
    public var caption: String?
    /// The keys line, when the screen is not a match being played (the replay's).
    public var keys: String?
    /// The one-key question on the final board ("Rematch with seats swapped?"), while it stands.
    public var endQuestion: String?
    /// The hint key works in this match (the keys line names it).
    public var hintsAllowed = false
    /// Seats whose player is away at a table (the link dropped; the seat is kept).
    public var awaySeats: Set<SeatIndex> = []

    /// A view of `state` with the cursor at `cursor`.
    public init(state: MatchState, cursor: BoardCursor = BoardCursor(column: 0), localSeats: Set<SeatIndex> = [],
                showsCursor: Bool = false) {
        self.state = state
        self.cursor = cursor
        self.localSeats = localSeats
        self.showsCursor = showsCursor
    }

    /// Whether the match is over (ended or failed) on this side.
    public var isOver: Bool { state.isEnded || failure != nil }
}

/// Builds full screens from `ScreenView`s; pure, testable without a terminal.
public enum Renderer {
    /// Left margin of every line.
    static let margin = "  "
    /// Where a wrapped status or message line goes on.
    static let wrapIndent = margin + "  "
    /// Board lines from which the screen leaves out the blank lines around the board.
    static let tallBoard = 17

    /// The smallest window the view's screen fits in.
    public static func requiredSize(for view: ScreenView, options: DisplayOptions) -> TerminalSize {
        let frame = layout(view, options: options)
        let boardWidth = BoardRenderer.lines(for: view.state, cursor: nil, options: options).map(\.width).max() ?? 0
        return TerminalSize(columns: max(boardWidth + margin.count, 40), rows: frame.height)
    }

    /// The screen for `view` in a window of `size`: the board and status, or a
    /// "Window too small" notice when it does not fit.
    public static func screen(for view: ScreenView, options: DisplayOptions, size: TerminalSize) -> Frame {
        let needed = requiredSize(for: view, options: options)
        guard size.columns >= needed.columns, size.rows >= needed.rows else {
            return tooSmall(needed: needed, size: size)
        }
        // A long status or message wraps short of the window's edge instead of
        // being cut, when the window has the rows for it (without the blank
        // lines around the board if need be).
        for compact in [false, true] {
            let wrapped = layout(view, options: options, width: size.columns - 1, compact: compact)
            if wrapped.height <= size.rows { return wrapped }
        }
        // Still too tall: the message (what happens next) stays whole, the
        // status gives up its last lines ("…"; the normal screen shows it all at the end).
        let width = size.columns - 1
        let tall = layout(view, options: options, width: width, compact: true)
        let statusRows = statusLine(view, options: options).wrapped(to: width, indent: wrapIndent).count
        return layout(view, options: options, width: width, compact: true,
                      statusRows: max(1, statusRows - (tall.height - size.rows)))
    }

    /// The notice shown instead of a board that would not fit.
    public static func tooSmall(needed: TerminalSize, size: TerminalSize) -> Frame {
        let lines = [
            StyledLine("Window too small: need \(needed.columns)x\(needed.rows)", TextStyle(bold: true)),
            StyledLine("(now \(size.columns)x\(size.rows)). Enlarge it, or q to quit."),
        ]
        return Frame(lines: lines)
    }

    /// Bytes one redraw writes: a full screen when `previous` is nil, else the
    /// update from `previous` to `view`. For the benchmark (issue 6 keeps the figure).
    public static func frameBytes(for view: ScreenView, previous: ScreenView? = nil,
                                  options: DisplayOptions, size: TerminalSize = .standard) -> Int {
        var encoder = FrameEncoder(options: options)
        if let previous { _ = encoder.encode(screen(for: previous, options: options, size: size), size: size) }
        return encoder.encode(screen(for: view, options: options, size: size), size: size).count
    }

    /// The screen's lines; with `width`, the status, message and key lines
    /// wrap at it; `compact` leaves out the blank lines around the board.
    static func layout(_ view: ScreenView, options: DisplayOptions, width: Int? = nil, compact: Bool = false,
                       statusRows: Int? = nil) -> Frame {
        let state = view.state
        var lines: [StyledLine] = []
        var title = StyledLine(margin)
        title.append("parlor", TextStyle(bold: true))
        title.append(" \(options.unicode ? "·" : "-") \(state.game.gameDisplayName)  ")
        title.append("match \(state.matchID.short)", TextStyle(dim: true))
        lines.append(title)
        let cursor = view.showsCursor && !view.isOver ? view.cursor : nil
        let board = BoardRenderer.lines(for: state, cursor: cursor, options: options)
        // A tall board (Chinese checkers' 17 rows and more) drops the blank
        // lines around it, so that two or three seats still fit in 80x24.
        let roomy = !compact && board.count < tallBoard
        if roomy { lines.append(StyledLine()) }
        for boardLine in board {
            var line = StyledLine(margin)
            line.spans += boardLine.spans
            lines.append(line)
        }
        if roomy { lines.append(StyledLine()) }
        lines += seatLines(view, options: options)
        let wrap = { (line: StyledLine) in width.map { line.wrapped(to: $0, indent: wrapIndent) } ?? [line] }
        var status = wrap(statusLine(view, options: options))
        if let statusRows, status.count > statusRows, let width {
            status = Array(status.prefix(statusRows))
            let last = status[statusRows - 1]
            let ellipsis = MatchText.ellipsis(options)
            var cut = last.clipped(to: width - displayWidth(ellipsis))
            cut.append(ellipsis, last.spans.first?.style ?? .plain)
            status[statusRows - 1] = cut
        }
        lines += status
        lines += wrap(messageLine(view))
        let asking = view.isOver && view.endQuestion != nil
        lines += wrap(StyledLine(margin + helpText(view, options: options), asking ? TextStyle(bold: true) : TextStyle(dim: true)))
        return Frame(lines: lines)
    }

    /// Every seat: piece, name, "(you)", a marker and "to move" on the seat to
    /// move, "away" while its player's link is down, its outcome once it has one (quit, ran out of time, won…) and its
    /// place at the end of a table (scores are on the board's own score lines). One
    /// line per seat; four or more seats go in two columns, so that four or six
    /// seats of Chinese checkers still fit in 80x24.
    static func seatLines(_ view: ScreenView, options: DisplayOptions) -> [StyledLine] {
        let state = view.state
        let places = MatchText.tablePlacements(state)
        let dash = options.unicode ? "—" : "-"
        let entries = state.seats.indices.map { seat in
            var line = StyledLine()
            let active = state.activeSeat == seat
            line.append(active ? (options.unicode ? "▶ " : "> ") : "  ", TextStyle(bold: true))
            line.append(Pieces.glyph(seat: seat, gameID: state.gameID, options: options), Pieces.style(seat: seat, winning: true))
            line.append(" ")
            line.append(MatchText.name(state, seat: seat), TextStyle(bold: active))
            if view.localSeats.contains(seat) { line.append(" (you)", TextStyle(dim: true)) }
            let outcome = state.seats[seat].outcome
            if outcome != .none {
                line.append(" \(dash) \(MatchText.outcomeWords(outcome))",
                            TextStyle(foreground: outcome == .won ? .green : nil, bold: outcome == .won))
            } else if view.awaySeats.contains(seat) {
                line.append(" \(dash) \(active ? "to move, " : "")away", TextStyle(foreground: .yellow))
            } else if active && state.seats.count > 2 {
                line.append(" \(dash) to move")
            }
            if let places { line.append(", \(MatchText.ordinal(places[seat]))") }
            return line
        }
        func joined(_ parts: StyledLine...) -> StyledLine {
            var line = StyledLine(margin)
            for part in parts { for span in part.spans { line.append(span.text, span.style) } }
            return line
        }
        guard entries.count > 3 else { return entries.map { joined($0) } }
        let rows = (entries.count + 1) / 2
        let column = (entries.prefix(rows).map(\.width).max() ?? 0) + 2
        return (0..<rows).map { row in
            guard row + rows < entries.count else { return joined(entries[row]) }
            return joined(entries[row], StyledLine(String(repeating: " ", count: column - entries[row].width)), entries[row + rows])
        }
    }

    /// Whose turn it is, the question being asked, or the result.
    static func statusLine(_ view: ScreenView, options: DisplayOptions) -> StyledLine {
        let state = view.state
        let dots = MatchText.ellipsis(options)
        if let caption = view.caption { return StyledLine(margin + sanitized(caption), TextStyle(bold: true)) }
        if view.confirmingQuit { return StyledLine(margin + "Quit this match? (y/n)", TextStyle(bold: true)) }
        if let failure = view.failure {
            return StyledLine(margin + "Match stopped: \(failure.description)", TextStyle(foreground: .red, bold: true))
        }
        if state.isEnded { return StyledLine(margin + MatchText.winnerLine(state, options: options), TextStyle(bold: true)) }
        if view.awaitingConfirmation { return StyledLine(margin + "waiting for confirmation\(dots)") }
        guard let active = state.activeSeat else { return StyledLine(margin) }
        var text: String
        if view.localSeats.contains(active) {
            text = view.localSeats.count > 1 ? "\(MatchText.label(state, seat: active, options: options)), your turn." : "Your turn."
        } else {
            text = "\(MatchText.name(state, seat: active)) is thinking\(dots)"
        }
        if state.deadline > 0, view.now > 0 {
            let seconds = max(0, (state.deadline - view.now + 999) / 1000)
            text += " (\(seconds) s left)"
        }
        return StyledLine(margin + text, TextStyle(bold: view.localSeats.contains(active)))
    }

    /// The last refusal or notice, if any.
    static func messageLine(_ view: ScreenView) -> StyledLine {
        if let message = view.message { return StyledLine(margin + sanitized(message), TextStyle(foreground: .yellow)) }
        if let notice = view.notice { return StyledLine(margin + sanitized(notice), TextStyle(foreground: .cyan)) }
        return StyledLine()
    }

    /// The keys that work now.
    static func helpText(_ view: ScreenView, options: DisplayOptions) -> String {
        if let keys = view.keys { return keys }
        if view.isOver, let question = view.endQuestion { return "\(question) y: yes   n: no" }
        if view.isOver { return "Press any key to leave." }
        if view.confirmingQuit { return "y: quit the match   n or Esc: keep playing" }
        let arrows = options.unicode ? "←/→" : "left/right"
        let allArrows = options.unicode ? "←↑↓→" : "arrows"
        let keys: String
        switch view.state.gameID {
        case Connect4.id: keys = "\(arrows) or 1-7: choose column   Enter: drop"
        case Cube4.id: keys = "\(allArrows) or a-d,1-4: choose peg   Enter: drop"
        case TicTacToe.id: keys = "\(allArrows) or 1-9: choose cell   Enter: play"
        case Reversi.id: keys = "\(allArrows) or a-h,1-8: choose cell   Enter: play"
        case DotsAndBoxes.id: keys = "\(allArrows): choose a line between two dots   Enter: draw"
        case ChineseCheckers.id:
            keys = view.cursor.selected == nil ? "\(allArrows): choose a peg   Enter: pick it up"
                : "\(allArrows): choose where to   Enter: move   Esc: put back"
        default: keys = "Enter: play"
        }
        guard view.hintsAllowed else { return keys + "   q: quit" }
        return keys + "   \(FullScreenModel.hintKeyName(view.state.game)): hint   q: quit"
    }
}

extension Renderer {
    /// Bytes per redraw and the time to build one, for typical screens at
    /// 80x24, for the benchmark command (issue 6 keeps the figure): a full
    /// connect4 and cube4 screen, and the update after one move.
    public static func redrawFigures(options: DisplayOptions = DisplayOptions(colorDepth: .palette256, unicode: true))
        -> [(label: String, bytes: Int, perFrame: Duration)] {
        func state(_ game: any Game, _ moves: [Int]) -> MatchState {
            var state = MatchState(matchID: MatchID(hex: String(repeating: "0", count: 32))!,  // a constant, valid by construction
                                   game: game,
                                   seats: [Seat(playerID: PlayerID(hex: String(repeating: "a", count: 32))!, name: "Ana"),
                                           Seat(playerID: PlayerID(hex: String(repeating: "b", count: 32))!, name: "Bot")])
            for raw in moves {
                guard let seat = state.activeSeat, let next = try? state.applying(.move(Move(raw), by: seat), now: 0) else { break }
                state = next
            }
            return state
        }
        // Each figure is drawn this many times, timed as a whole: one frame is too short to time alone.
        let rounds = 200
        func timed(_ draw: () -> Int) -> (Int, Duration) {
            let bytes = draw()
            let started = ContinuousClock.now
            for _ in 0..<rounds { _ = draw() }
            return (bytes, (ContinuousClock.now - started) / rounds)
        }
        var figures: [(String, Int, Duration)] = []
        for (name, game, moves) in [("connect4", Connect4() as any Game, [3, 3, 4, 2, 2]), ("cube4", Cube4(), [0, 5, 10, 15, 5])] {
            let before = ScreenView(state: state(game, moves), localSeats: [0], showsCursor: false)
            let after = ScreenView(state: state(game, moves + [1]), localSeats: [0], showsCursor: true)
            let (fullBytes, fullTime) = timed { frameBytes(for: after, options: options) }
            figures.append(("\(name) full redraw", fullBytes, fullTime))
            // The update's time includes drawing the previous screen it is compared with.
            let (moveBytes, moveTime) = timed { frameBytes(for: after, previous: before, options: options) }
            figures.append(("\(name) redraw after a move", moveBytes, moveTime))
        }
        return figures
    }
}
