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
    /// The keys overlay (`?`) shows instead of the board, until any key closes it.
    public var showingKeys = false
    /// Seats whose player is away at a table (the link dropped; the seat is kept).
    public var awaySeats: Set<SeatIndex> = []
    /// When each away seat's grace runs out (wall-clock milliseconds): its seat line counts down to it.
    public var awayUntil: [SeatIndex: Int64] = [:]
    /// Table talk works in this match (a LAN match): the `t` key opens the input.
    public var talkAvailable = false
    /// The latest lines of table talk, oldest first (the last few show under the seats).
    public var talk: [TalkLine] = []
    /// The line being typed after `t`, nil while the input is closed.
    public var talkDraft: String?
    /// Seats a bot plays for their away player, with the bot's name (a table's host, `b` or `--away-bot`).
    public var standIns: [SeatIndex: String] = [:]
    /// The `b` key works: this side hosts a table and may hand away seats to a bot.
    public var standInAllowed = false
    /// Nobody plays at this screen (a spectator, or bots watched): its keys are watching keys.
    public var watching = false
    /// The widest the title and the board have been in this match, kept by
    /// the frontend: the board is placed by it, so that a caption or a note
    /// beside the board that grows moves the board at most once.
    public var steadyWidth = 0

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

    /// How much of the screen around the board is kept, from all of it to the
    /// board and the status line alone (the smallest window).
    enum Fullness: Int, CaseIterable {
        /// Title, blank lines around the board, seats, status, message, keys.
        case roomy
        /// Without the blank lines.
        case compact
        /// Without the title.
        case tight
        /// The board, the status line, a message when there is one, and the
        /// keys line only once the match is over ("Press any key to leave").
        case bare
    }

    /// The smallest window the view's screen fits in: the board, the status
    /// line and a message when there is one (connect4's 11-line board in 12 rows).
    public static func requiredSize(for view: ScreenView, options: DisplayOptions) -> TerminalSize {
        let frame = layout(view, options: options, fullness: .bare)
        let boardWidth = BoardRenderer.lines(for: view.state, cursor: nil, options: options).map(\.width).max() ?? 0
        return TerminalSize(columns: boardWidth + margin.count, rows: frame.height)
    }

    /// The screen for `view` in a window of `size`: the keys overlay, or the
    /// board and status (with a move list beside it where there is room,
    /// centred in a big window), or a "Window too small" notice when it does not fit.
    public static func screen(for view: ScreenView, options: DisplayOptions, size: TerminalSize) -> Frame {
        if view.showingKeys { return keysScreen(view, options: options, size: size) }
        let needed = requiredSize(for: view, options: options)
        guard size.columns >= needed.columns, size.rows >= needed.rows else {
            return tooSmall(needed: needed, size: size)
        }
        // A long status or message wraps short of the window's edge instead of
        // being cut; what surrounds the board gives way, step by step, to fit the rows.
        let width = size.columns - 1
        for fullness in Fullness.allCases {
            // The board's place comes from what stays put (the title, the board
            // and the room kept for the move list beside them); the lines under
            // it wrap in the room right of that place. A keys line, a status
            // or a message that changes never moves the board.
            let top = topLines(view, options: options, fullness: fullness)
            let topWidth = max(top.map(\.width).max() ?? 0, view.steadyWidth)
            var panel = fullness == .roomy ? movePanel(view, options: options, rows: top.count) : []
            let panelWidth = max(panel.map(\.width).max() ?? 0, reservedPanelWidth)
            if topWidth + panelGap + panelWidth > width { panel = [] }
            let left = max(0, (width - (panel.isEmpty ? topWidth : topWidth + panelGap + panelWidth)) / 2)
            let wrapped = layout(view, options: options, width: width - left, fullness: fullness)
            if wrapped.height <= size.rows {
                // Rows that come and go under the board (a wrapped message, talk) move it only when the window runs out of rows.
                let steady = top.count + (fullness == .bare ? 0 : seatLines(view, options: options).count) + 3
                let above = max(0, min((size.rows - steady) / 2, size.rows - wrapped.height))
                return placed(wrapped, panel: panel, panelColumn: topWidth + panelGap, left: left, top: above)
            }
        }
        // Still too tall: the message (what happens next) stays whole, the
        // status gives up its last lines ("…"; the normal screen shows it all at the end).
        let tall = layout(view, options: options, width: width, fullness: .bare)
        let statusRows = statusLine(view, options: options).wrapped(to: width, indent: wrapIndent).count
        return layout(view, options: options, width: width, fullness: .bare,
                      statusRows: max(1, statusRows - (tall.height - size.rows)))
    }

    /// The notice shown instead of a board that would not fit, in as many
    /// words as the window holds: never cut mid-word.
    public static func tooSmall(needed: TerminalSize, size: TerminalSize) -> Frame {
        let need = "\(needed.columns)x\(needed.rows)"
        let wordings = [
            "Window too small: need \(need) (now \(size.columns)x\(size.rows)). Enlarge it, or q to quit.",
            "Window too small: need \(need). Enlarge it, or q to quit.",
            "Too small: need \(need). q quits.",
            "Need \(need).",
            need,
        ]
        let width = max(1, size.columns - 1)
        for (index, text) in wordings.enumerated() {
            let lines = StyledLine(text, TextStyle(bold: true)).wrapped(to: width, indent: "")
            let fits = lines.count <= max(1, size.rows) && lines.allSatisfy { $0.width <= width }
            if fits || index == wordings.count - 1 { return Frame(lines: lines.map { $0.clipped(to: width) }) }
        }
        return Frame(lines: [])
    }

    /// Bytes one redraw writes: a full screen when `previous` is nil, else the
    /// update from `previous` to `view`. For the benchmark (issue 6 keeps the figure).
    public static func frameBytes(for view: ScreenView, previous: ScreenView? = nil,
                                  options: DisplayOptions, size: TerminalSize = .standard) -> Int {
        var encoder = FrameEncoder(options: options)
        if let previous { _ = encoder.encode(screen(for: previous, options: options, size: size), size: size) }
        return encoder.encode(screen(for: view, options: options, size: size), size: size).count
    }

    /// Columns between the board and the move list.
    static let panelGap = 4
    /// Columns kept for the move list, as wide as its widest line can be
    /// ("123. X m10-l11"), so that a longer move never moves the board.
    static let reservedPanelWidth = 16

    /// `frame` centred in the window (the keys overlay).
    static func placed(_ frame: Frame, panel: [StyledLine], size: TerminalSize) -> Frame {
        let left = max(0, (size.columns - 1 - frame.width) / 2)
        return placed(frame, panel: [], panelColumn: 0, left: left, top: max(0, (size.rows - frame.height) / 2))
    }

    /// `frame` moved `left` columns right and `top` rows down, with `panel`
    /// beside its first lines from `panelColumn` on.
    static func placed(_ frame: Frame, panel: [StyledLine], panelColumn: Int, left: Int, top: Int) -> Frame {
        let lines = frame.lines.enumerated().map { index, line in
            guard index < panel.count else { return line }
            var joined = line
            joined.append(String(repeating: " ", count: max(1, panelColumn - line.width)))
            for span in panel[index].spans { joined.append(span.text, span.style) }
            return joined
        }
        let indent = String(repeating: " ", count: left)
        let shifted = lines.map { line -> StyledLine in
            guard left > 0, line.width > 0 else { return line }
            var moved = StyledLine(indent)
            for span in line.spans { moved.append(span.text, span.style) }
            return moved
        }
        return Frame(lines: Array(repeating: StyledLine(), count: top) + shifted)
    }

    /// The move list beside the board: "Moves", then the latest moves that
    /// fit in `rows` lines, numbered, each with the piece of the seat that played it.
    static func movePanel(_ view: ScreenView, options: DisplayOptions, rows: Int) -> [StyledLine] {
        let state = view.state
        guard rows > 2 else { return [] }
        let moves = state.moves
        let shown = min(moves.count, rows - 2)
        var lines = [StyledLine("Moves", TextStyle(bold: true))]
        if moves.isEmpty { lines.append(StyledLine("none yet", TextStyle(dim: true))) }
        let digits = String(moves.count).count
        for index in (moves.count - shown)..<moves.count {
            let played = moves[index]
            var line = StyledLine(String(repeating: " ", count: digits - String(index + 1).count) + "\(index + 1). ", TextStyle(dim: true))
            line.append(Pieces.glyph(seat: played.seat, gameID: state.gameID, options: options), Pieces.style(seat: played.seat))
            line.append(" " + state.game.notation(for: played.move), TextStyle(bold: index == moves.count - 1))
            lines.append(line)
        }
        return lines
    }

    /// The keys overlay (`?`): every key of this game's full screen, closed by any key.
    static func keysScreen(_ view: ScreenView, options: DisplayOptions, size: TerminalSize) -> Frame {
        var lines = [StyledLine(margin + "Keys \(options.unicode ? "·" : "-") \(view.state.game.gameDisplayName)", TextStyle(bold: true)),
                     StyledLine()]
        for (key, what) in keyList(view, options: options) {
            var line = StyledLine(margin)
            line.append(padded(key, to: 16), TextStyle(bold: true))
            line.append(what)
            lines.append(line)
        }
        lines.append(StyledLine())
        lines.append(StyledLine(margin + "Press any key to go back to the board.", TextStyle(dim: true)))
        let width = max(1, size.columns - 1)
        let wrapped = lines.flatMap { $0.wrapped(to: width, indent: wrapIndent + String(repeating: " ", count: 16)) }
        let block = Frame(lines: Array(wrapped.prefix(max(1, size.rows))).map { $0.clipped(to: width) })
        return placed(block, panel: [], size: size)
    }

    /// Each key of the full screen and what it does, for the overlay.
    static func keyList(_ view: ScreenView, options: DisplayOptions) -> [(String, String)] {
        let arrows = options.unicode ? "← →" : "left right"
        let allArrows = options.unicode ? "← ↑ ↓ →" : "arrow keys"
        var keys: [(String, String)]
        switch view.state.gameID {
        case Connect4.id: keys = [(arrows, "choose a column"), ("1-7", "choose that column"), ("Enter, Space", "drop a piece")]
        case Cube4.id: keys = [(allArrows, "choose a peg"), ("a-d, 1-4", "choose the peg's column, then row"),
                               ("Enter, Space", "drop a bead on the peg")]
        case TicTacToe.id: keys = [(allArrows, "choose a cell"), ("1-9", "choose that cell"), ("Enter, Space", "play there")]
        case Reversi.id: keys = [(allArrows, "choose a cell"), ("a-h, 1-8", "choose the cell's column, then row"),
                                 ("Enter, Space", "play there")]
        case DotsAndBoxes.id: keys = [(allArrows, "choose a line between two dots"), ("Enter, Space", "draw it")]
        case ChineseCheckers.id: keys = [(allArrows, "choose a peg, then where to"), ("Enter, Space", "pick it up, then move it"),
                                         ("Esc", "put it back")]
        default: keys = [("Enter, Space", "play")]
        }
        if view.watching {
            keys = view.talkAvailable ? [(String(TalkLines.key), "say something to the table (Enter sends, Esc cancels)")] : []
            return keys + [("q, Ctrl-C", "stop watching (nothing typed here moves)"), ("?", "these keys")]
        }
        if view.hintsAllowed { keys.append((FullScreenModel.hintKeyName(view.state.game), "show the best move (a hint)")) }
        if view.talkAvailable { keys.append((String(TalkLines.key), "say something to the table (Enter sends, Esc cancels)")) }
        if view.standInAllowed { keys.append(("b", "a bot plays each away player's seat until they are back")) }
        keys += [("q", "quit the match (asks y/n first; it counts as a loss)"),
                 ("Ctrl-C", "leave for now: nothing is quit, 'parlor resume' continues it"),
                 ("?", "these keys")]
        return keys
    }

    /// The screen's lines; with `width`, the status, message and key lines
    /// wrap at it; `fullness` says what around the board is kept.
    static func layout(_ view: ScreenView, options: DisplayOptions, width: Int? = nil, fullness: Fullness = .roomy,
                       statusRows: Int? = nil) -> Frame {
        var lines = topLines(view, options: options, fullness: fullness)
        if fullness != .bare { lines += seatLines(view, options: options) }
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
        let message = messageLine(view)
        if fullness.rawValue < Fullness.tight.rawValue || message.width > 0 { lines += wrap(message) }
        if fullness != .bare { lines += TalkLines.rows(view, options: options).map { width.map($0.clipped) ?? $0 } }
        if let draft = view.talkDraft, !view.isOver { lines.append(TalkLines.inputRow(draft, width: width, options: options)) }
        if fullness != .bare || view.isOver {
            let asking = view.isOver && view.endQuestion != nil
            // Whole keys to a row: the gaps between them are never squeezed out.
            for row in keyRows(helpItems(view, options: options), width: width.map { $0 - margin.count }) {
                lines += wrap(StyledLine(margin + row, asking ? TextStyle(bold: true) : TextStyle(dim: true)))
            }
        }
        return Frame(lines: lines)
    }

    /// The keys, as many to a row as fit in `width` (all in one row without a width).
    static func keyRows(_ items: [String], width: Int?) -> [String] {
        var rows: [String] = []
        for item in items {
            if let last = rows.last, width.map({ displayWidth(last + keySeparator + item) <= $0 }) ?? true {
                rows[rows.count - 1] = last + keySeparator + item
            } else {
                rows.append(item)
            }
        }
        return rows
    }

    /// Between two keys of the keys line.
    static let keySeparator = "   "

    /// The columns the title and the board take in `view`; a frontend keeps
    /// the widest it has drawn as the view's `steadyWidth`.
    public static func boardWidth(for view: ScreenView, options: DisplayOptions) -> Int {
        topLines(view, options: options, fullness: .roomy).map(\.width).max() ?? 0
    }

    /// The title and the board, with the blank lines around it when there is room: what stays put on the screen.
    static func topLines(_ view: ScreenView, options: DisplayOptions, fullness: Fullness) -> [StyledLine] {
        let state = view.state
        var lines: [StyledLine] = []
        if fullness.rawValue < Fullness.tight.rawValue {
            var title = StyledLine(margin)
            title.append("parlor", TextStyle(bold: true))
            title.append(" \(options.unicode ? "·" : "-") \(state.game.gameDisplayName)  ")
            title.append("match \(state.matchID.short)", TextStyle(dim: true))
            lines.append(title)
        }
        let cursor = view.showsCursor && !view.isOver ? view.cursor : nil
        let board = BoardRenderer.lines(for: state, cursor: cursor, options: options)
        // A tall board (Chinese checkers' 17 rows and more) drops the blank
        // lines around it, so that two or three seats still fit in 80x24.
        let roomy = fullness == .roomy && board.count < tallBoard
        if roomy { lines.append(StyledLine()) }
        for boardLine in board {
            var line = StyledLine(margin)
            line.spans += boardLine.spans
            lines.append(line)
        }
        if roomy { lines.append(StyledLine()) }
        return lines
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
            // At a hot seat where every seat is "you" the marker tells nothing.
            if view.localSeats.contains(seat), view.localSeats.count < view.state.seats.count {
                line.append(" (you)", TextStyle(dim: true))
            }
            let outcome = state.seats[seat].outcome
            if outcome != .none {
                line.append(" \(dash) \(MatchText.outcomeWords(outcome))",
                            TextStyle(foreground: outcome == .won ? .green : nil, bold: outcome == .won))
            } else if let bot = view.standIns[seat] {
                line.append(" \(dash) \(active ? "thinking, " : "")\(sanitized(bot)) standing in", TextStyle(foreground: .yellow))
            } else if view.awaySeats.contains(seat) {
                let left = awaySecondsLeft(view, seat: seat).map { ", \($0) s left" } ?? ""
                line.append(" \(dash) \(active ? "to move, " : "")away\(left)", TextStyle(foreground: .yellow))
            } else if active && state.seats.count > 2 {
                // The seat to move: "to move" when it waits for a player here, "thinking" for another (a bot, a guest).
                line.append(" \(dash) \(view.localSeats.contains(seat) ? "to move" : "thinking")")
            }
            if let score = MatchText.scoreWords(state, seat: seat) { line.append(", \(score)", TextStyle(dim: true)) }
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

    /// Whole seconds left until an away seat's grace runs out, counted at `view.now`; nil when not known.
    static func awaySecondsLeft(_ view: ScreenView, seat: SeatIndex) -> Int64? {
        guard let until = view.awayUntil[seat], view.now > 0 else { return nil }
        return max(0, (until - view.now + 999) / 1000)
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
        } else if view.awaySeats.contains(active), view.standIns[active] == nil {
            // Nobody thinks at an away seat: it waits for its player.
            let left = awaySecondsLeft(view, seat: active).map { ", \($0) s left" } ?? ""
            text = "\(MatchText.name(state, seat: active)) is away\(left)."
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

    /// The keys that work now, as one line.
    static func helpText(_ view: ScreenView, options: DisplayOptions) -> String {
        helpItems(view, options: options).joined(separator: keySeparator)
    }

    /// The keys that work now, each with what it does ("Enter: drop").
    static func helpItems(_ view: ScreenView, options: DisplayOptions) -> [String] {
        if let keys = view.keys { return [keys] }
        if view.isOver, let question = view.endQuestion { return ["\(question) y: yes", "n: no"] }
        if view.isOver { return ["Press any key to leave."] }
        if view.confirmingQuit { return ["y: quit the match", "n or Esc: keep playing"] }
        if view.talkDraft != nil { return TalkLines.inputKeys.components(separatedBy: keySeparator) }
        let talk = view.talkAvailable ? ["\(TalkLines.key): talk"] : []
        if view.watching { return ["Watching"] + talk + ["q: leave", "?: keys"] }
        let arrows = options.unicode ? "←/→" : "left/right"
        let allArrows = options.unicode ? "←↑↓→" : "arrows"
        let keys: [String]
        switch view.state.gameID {
        case Connect4.id: keys = ["\(arrows) or 1-7: choose column", "Enter: drop"]
        case Cube4.id: keys = ["\(allArrows) or a-d,1-4: choose peg", "Enter: drop"]
        case TicTacToe.id: keys = ["\(allArrows) or 1-9: choose cell", "Enter: play"]
        case Reversi.id: keys = ["\(allArrows) or a-h,1-8: choose cell", "Enter: play"]
        case DotsAndBoxes.id: keys = ["\(allArrows): choose a line between two dots", "Enter: draw"]
        case ChineseCheckers.id:
            keys = view.cursor.selected == nil ? ["\(allArrows): choose a peg", "Enter: pick it up"]
                : ["\(allArrows): choose where to", "Enter: move", "Esc: put back"]
        default: keys = ["Enter: play"]
        }
        let hint = view.hintsAllowed ? ["\(FullScreenModel.hintKeyName(view.state.game)): hint"] : []
        let standIn = view.standInAllowed ? ["b: bot for away seats"] : []
        return keys + hint + talk + standIn + ["q: quit", "?: keys"]
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
