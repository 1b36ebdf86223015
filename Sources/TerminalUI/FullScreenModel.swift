#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Games
import Match

/// What the full-screen frontend does next.
enum ScreenAction: Sendable {
    case redraw
    case play(Move, seat: SeatIndex)
    case quit(seat: SeatIndex)
    case finish(FrontendExit)
    /// Look for the best move for the seat to move in `game` (the hint key);
    /// the answer comes back through `hinted(_:sequence:)`.
    case findHint(any Game, sequence: UInt32)
    /// Ring the terminal bell: it is a local seat's turn after someone else moved.
    case bell
    /// Say `text` to the table as `seat`'s player (table talk).
    case say(String, seat: SeatIndex)
    /// A table's host hands every away seat to a bot until its player is back (the `b` key).
    case standInForAwaySeats
}

/// The state machine behind the full screen; pure, tested by feeding it keys and events.
///
/// Keys: arrows move the cursor (up/down for tictactoe and cube4 rows);
/// digits pick a column or cell, cube4 takes a letter then a digit; Enter or
/// Space plays (the `?` overlay and the man page say so; reversi, dots and boxes and Chinese checkers: see
/// `BoardGamesCursor`); `h` (`H` in reversi, where `h` is a column) shows
/// the best move when hints are allowed; `?` shows every key until any key
/// closes it; `q` asks "Quit this match? (y/n)"
/// and only `y` quits; Ctrl-C leaves for now without quitting (the match
/// stays resumable). After the end, any key leaves; with an end question
/// ("Rematch with seats swapped?", "Play again?") y answers yes and n, q or
/// Esc no, without Enter, unless this side quit (it is never asked) or the
/// other side settled it.
struct FullScreenModel {
    private(set) var view: ScreenView
    let localSeats: Set<SeatIndex>
    /// Decides between `…` and `...` in messages.
    let options: DisplayOptions
    private var submitting = false
    /// The player asked to quit (q then y); finish when the match ends.
    private(set) var leaving = false
    /// The sequence a hint is being looked for at (one at a time).
    private var hintPending: UInt32?
    /// The sequence the bell last rang at (a turn begun again rings once).
    private var rungFor: UInt32?

    /// Asked on the final board, if any.
    let endQuestion: EndQuestion?
    /// A spectator's screen: `t` talks with no seat of its own (the host names the sender).
    let talkWithoutSeat: Bool

    /// `hintsAllowed`: the hint key works (offline games, and LAN games whose host allows hints).
    init(state: MatchState, localSeats: Set<SeatIndex>, options: DisplayOptions, endQuestion: EndQuestion? = nil,
         hintsAllowed: Bool = false, talkAvailable: Bool = false, standInAllowed: Bool = false, talkWithoutSeat: Bool = false) {
        self.localSeats = localSeats
        self.talkWithoutSeat = talkWithoutSeat
        self.options = options
        self.endQuestion = endQuestion
        let start: BoardCursor
        switch state.game {
        case is Connect4: start = BoardCursor(column: 3)
        case is TicTacToe, is Cube4: start = BoardCursor(column: 1, row: 1)
        default: start = BoardGamesCursor.start(for: state.game) ?? BoardCursor(column: 0)
        }
        view = ScreenView(state: state, cursor: start, localSeats: localSeats)
        view.hintsAllowed = hintsAllowed
        view.talkAvailable = talkAvailable && (!localSeats.isEmpty || talkWithoutSeat)
        view.standInAllowed = standInAllowed && state.seats.count > 2
        view.watching = localSeats.isEmpty
        refreshCursorVisibility()
    }

    var state: MatchState { view.state }

    private var exit: FrontendExit {
        if let failure = view.failure { return .failed(failure, view.state) }
        return .ended(view.state)
    }

    /// How the run ends when the terminal goes away (SIGHUP, EIO): `.terminalLost`
    /// while the match goes on, so it is saved for `resume`; once it is over,
    /// the end itself, as if the player had pressed the key the final board asks for.
    var exitWhenTheTerminalIsLost: FrontendExit { view.isOver ? exit : .terminalLost(view.state) }

    private var activeLocalSeat: SeatIndex? {
        guard let seat = view.state.activeSeat, localSeats.contains(seat) else { return nil }
        return seat
    }

    private mutating func refreshCursorVisibility() {
        view.showsCursor = activeLocalSeat != nil && !view.awaitingConfirmation && !view.isOver
    }

    // MARK: match events

    mutating func handle(_ event: MatchEvent) -> [ScreenAction] {
        switch event {
        case .started(let state), .adopted(let state):
            view.state = state
        case .turnBegan(let seat, let state):
            view.state = state
            view.awaitingConfirmation = false
            if options.bell, localSeats.contains(seat), let last = state.moves.last, !localSeats.contains(last.seat),
               rungFor != state.sequence {
                rungFor = state.sequence
                refreshCursorVisibility()
                return [.redraw, .bell]
            }
        case .awaitingConfirmation(_, let tentative):
            view.state = tentative
            view.awaitingConfirmation = true
        case .committed(let change, let state):
            view.state = state
            view.awaitingConfirmation = false
            view.message = nil
            // Another seat's message is shown with its move until the next change.
            if case .move(let move, let seat, let message?) = change, !localSeats.contains(seat) {
                view.message = MatchText.moveLine(state, move: PlayedMove(seat: seat, move: move, message: message), options: options)
            }
        case .rolledBack(let change, let reason, let state):
            view.state = state
            view.awaitingConfirmation = false
            view.message = "\(MatchText.name(state, seat: change.seat))'s move was undone: \(reason.description)."
        case .notice(let text):
            view.notice = text
        case .presence(let seat, let away, let graceLeft):
            guard MatchText.showsPresence(view.state) else { break }
            if away { view.awaySeats.insert(seat) } else { view.awaySeats.remove(seat) }
            view.awayUntil[seat] = away ? wallClockMilliseconds() + graceLeft.components.seconds * 1000
                + graceLeft.components.attoseconds / 1_000_000_000_000_000 : nil
            if !away { view.standIns[seat] = nil }
            view.notice = MatchText.presenceLine(view.state, seat: seat, away: away, graceLeft: graceLeft)
        case .talk(let line):
            view.talk = Array((view.talk + [line]).suffix(TalkLines.kept))
        case .talkRefused(let refusal):
            view.message = TalkLines.refusedLine(refusal)
        case .standIn(let seat, let bot):
            view.standIns[seat] = bot
        case .ended(let state):
            view.state = state
            view.confirmingQuit = false
            view.awaitingConfirmation = false
            view.message = nil
            view.notice = nil  // "waiting for Bo (8 s left)" is stale once it is over
            refreshCursorVisibility()
            refreshEndQuestion()
            return leaving ? [.finish(exit)] : [.redraw]
        case .failed(let failure, let state):
            view.state = state
            view.failure = failure
            view.confirmingQuit = false
            view.awaitingConfirmation = false
            // The stale "waiting for …" notice gives way to what happens next.
            view.notice = nil
            view.message = state.isEnded ? nil : MatchText.whatNext(state, failure: failure, localSeats: localSeats)
            refreshCursorVisibility()
            return leaving ? [.finish(exit)] : [.redraw]
        }
        refreshCursorVisibility()
        return [.redraw]
    }

    /// The end question is asked once the match is over, unless a seat of
    /// ours quit (nobody is asked after quitting) or it was withdrawn; the
    /// other side's latest word is shown as the message.
    private mutating func refreshEndQuestion() {
        guard let endQuestion, view.state.isEnded, view.failure == nil else { view.endQuestion = nil; return }
        let current = endQuestion.current
        let weQuit = localSeats.contains { view.state.seats[$0].outcome == .quit }
        view.endQuestion = current.open && !weQuit ? endQuestion.question : nil
        if let note = current.note, !weQuit { view.message = note }
    }

    /// The other side said something about the end question.
    mutating func endQuestionChanged() -> [ScreenAction] {
        if view.isOver, endQuestion?.movedOn == true { return [.finish(exit)] }
        refreshEndQuestion()
        return [.redraw]
    }

    /// The controller's stream ended. It always does right after the end
    /// event: the final board then stays, saying "Press any key to leave", so
    /// the player sees how it ended (a key, a lost terminal or a signal leaves).
    /// A stream that ends before the match is over leaves at once.
    mutating func matchStreamEnded() -> [ScreenAction] {
        // A spectator's next match may have begun already: the board gives way to it.
        view.isOver && endQuestion?.movedOn != true ? [] : [.finish(exit)]
    }

    // MARK: keys

    mutating func handle(_ key: Key) -> [ScreenAction] {
        if view.isOver {
            guard view.endQuestion != nil, let endQuestion else {
                self.endQuestion?.leftTheBoard()
                return [.finish(exit)]
            }
            switch key {
            case .character("y"), .character("Y"): endQuestion.answered(true)
            case .character("n"), .character("N"), .character("q"), .character("Q"), .escape, .interrupt: endQuestion.answered(false)
            default: return []
            }
            return [.finish(exit)]
        }
        // Ctrl-C never quits: this side leaves for now, the match stays resumable.
        if key == .interrupt { return [.finish(.interrupted(signal: SIGINT, view.state))] }
        if view.talkDraft != nil { return typeTalk(key) }
        // The keys overlay (?) is closed by any key, which does nothing else.
        if view.showingKeys {
            view.showingKeys = false
            return [.redraw]
        }
        if view.confirmingQuit {
            switch key {
            case .character("y"), .character("Y"):
                view.confirmingQuit = false
                return quitNow() + [.redraw]
            case .character("n"), .character("N"), .escape:
                view.confirmingQuit = false
                return [.redraw]
            default:
                return []
            }
        }
        switch key {
        case .character("?"):
            view.showingKeys = true
            return [.redraw]
        case _ where view.watching && key != .character(TalkLines.key) && key != .character("q") && key != .character("Q"):
            return []  // nothing typed here moves: no cursor, no hint, no "not your turn"
        case .character(TalkLines.key):
            guard view.talkAvailable else {
                view.message = "No table talk here: it is for LAN matches."
                return [.redraw]
            }
            view.talkDraft = ""
            return [.redraw]
        case .character("q"), .character("Q"):
            if localSeats.isEmpty { return [.finish(.left(view.state))] }
            view.confirmingQuit = true
            return [.redraw]
        case .enter, .character(" "):
            return playAtCursor()
        case .character("b") where view.standInAllowed:
            view.message = view.awaySeats.isEmpty ? "From now on a bot plays the seat of any player who is away, until they are back."
                : "A bot plays the away seats until their players are back."
            return [.standInForAwaySeats, .redraw]
        case .character("H"):
            return askForHint()
        case .character("h") where !(view.state.game is Reversi):  // h is a column in reversi
            return askForHint()
        default:
            if moveCursor(key) {
                view.message = nil
                return [.redraw]
            }
            return []
        }
    }

    /// A key while the talk input is open: it edits the draft; Enter sends, Esc closes it.
    private mutating func typeTalk(_ key: Key) -> [ScreenAction] {
        var draft = view.talkDraft ?? ""
        let outcome = TalkDraft.edit(&draft, with: key)
        view.talkDraft = draft
        switch outcome {
        case .editing(let changed):
            return changed ? [.redraw] : []
        case .cancel:
            view.talkDraft = nil
            return [.redraw]
        case .send(let text):
            view.talkDraft = nil
            let seat = activeLocalSeat ?? localSeats.sorted().first ?? (talkWithoutSeat ? 0 : nil)
            guard let seat, !text.isEmpty else { return [.redraw] }
            view.message = nil
            return [.say(text, seat: seat), .redraw]
        }
    }

    /// Quits the local seat to move (or the first still playing); called once `y` confirmed it.
    private mutating func quitNow() -> [ScreenAction] {
        let seat = activeLocalSeat ?? localSeats.sorted().first { view.state.seats[$0].status == .playing }
        guard let seat else { return [.finish(.left(view.state))] }
        leaving = true
        return [.quit(seat: seat)]
    }

    // MARK: hints

    /// The key that asks for a hint: `h`, or `H` in reversi (where `h` picks a column).
    static func hintKeyName(_ game: any Game) -> String { game is Reversi ? "H" : "h" }

    private mutating func askForHint() -> [ScreenAction] {
        guard view.hintsAllowed else {
            view.message = "No hints in this match (a LAN host allows them with --hints)."
            return [.redraw]
        }
        guard activeLocalSeat != nil, !view.awaitingConfirmation, !submitting else {
            if let active = view.state.activeSeat, !localSeats.contains(active) {
                view.message = "It's not your turn: \(MatchText.name(view.state, seat: active)) is thinking."
            }
            return [.redraw]
        }
        let sequence = view.state.sequence
        guard hintPending != sequence else { return [] }
        hintPending = sequence
        view.message = "Looking for the best move\(MatchText.ellipsis(options))"
        return [.findHint(view.state.game, sequence: sequence), .redraw]
    }

    /// The hint for the position at `sequence` came back: point the cursor at
    /// it and name it; a hint for a position already played past is dropped.
    mutating func hinted(_ move: Move?, sequence: UInt32) -> [ScreenAction] {
        guard hintPending == sequence else { return [] }
        hintPending = nil
        guard view.state.sequence == sequence, !view.isOver, activeLocalSeat != nil else { return [] }
        guard let move, view.state.game.isLegal(move) else {
            view.message = "No hint for this position."
            return [.redraw]
        }
        let game = view.state.game
        let cursor = BoardGamesCursor.cursor(playing: move, in: game)
        if let cursor { view.cursor = cursor }
        view.message = "Hint: \(game.notation(for: move))" + (cursor == nil ? "." : " (Enter plays it).")
        return [.redraw]
    }

    private mutating func playAtCursor() -> [ScreenAction] {
        if view.awaitingConfirmation || submitting {
            view.message = "waiting for confirmation\(MatchText.ellipsis(options))"
            return [.redraw]
        }
        guard let seat = activeLocalSeat else {
            if let active = view.state.activeSeat {
                view.message = "It's not your turn: \(MatchText.name(view.state, seat: active)) is thinking."
            }
            return [.redraw]
        }
        var move = moveAtCursor
        switch BoardGamesCursor.pick(at: view.cursor, in: view.state.game) {
        case .choose(let cursor, let message):
            view.cursor = cursor
            view.message = message
            return [.redraw]
        case .play(let picked):
            move = picked
        case nil:
            break
        }
        guard view.state.game.isLegal(move) else {
            view.message = LineModel.illegalReason(view.state.game, move)
            return [.redraw]
        }
        submitting = true
        view.message = nil
        view.cursor.selected = nil
        return [.play(move, seat: seat)]
    }

    mutating func submitted(_ result: SubmitResult, quitting: Bool) -> [ScreenAction] {
        if quitting {
            if case .rejected(let rejection) = result, !view.isOver {
                leaving = false
                view.message = "Could not quit yet: \(rejection.description)."
                return [.redraw]
            }
            return []
        }
        submitting = false
        switch result {
        case .committed:
            return []
        case .rejected(.awaitingConfirmation):
            view.message = "waiting for confirmation\(MatchText.ellipsis(options))"
        case .rejected(let rejection):
            view.message = "Refused: \(rejection.description)."
        case .rolledBack:
            break  // the rolledBack event already says why
        }
        return [.redraw]
    }

    // MARK: cursor

    /// The move the cursor points at.
    var moveAtCursor: Move {
        let cursor = view.cursor
        switch view.state.game {
        case is TicTacToe: return Move(cursor.row * 3 + cursor.column)
        case is Cube4: return Move(cursor.row * 4 + cursor.column)
        default: return Move(cursor.column)
        }
    }

    /// Moves the cursor for an arrow, digit or letter; false if the key means nothing here.
    private mutating func moveCursor(_ key: Key) -> Bool {
        var cursor = view.cursor
        let game = view.state.game
        if BoardGamesCursor.handles(game) {
            guard let moved = BoardGamesCursor.moved(cursor, by: key, in: game) else { return false }
            view.cursor = moved
            return true
        }
        let columns: Int, rows: Int
        switch game {
        case is Connect4: (columns, rows) = (Connect4.columns, 1)
        case is TicTacToe: (columns, rows) = (3, 3)
        case is Cube4: (columns, rows) = (Cube4.size, Cube4.size)
        default: (columns, rows) = (max(1, game.legalMoves.count), 1)
        }
        // Rows on screen: tictactoe counts down from the top, cube4 shows row 4 at the top.
        let upIsHigherRow = game is Cube4
        switch key {
        case .left: cursor.column = max(0, cursor.column - 1)
        case .right: cursor.column = min(columns - 1, cursor.column + 1)
        case .up where rows > 1: cursor.row = upIsHigherRow ? min(rows - 1, cursor.row + 1) : max(0, cursor.row - 1)
        case .down where rows > 1: cursor.row = upIsHigherRow ? max(0, cursor.row - 1) : min(rows - 1, cursor.row + 1)
        case .home: cursor.column = 0
        case .end: cursor.column = columns - 1
        case .character(let character):
            let lower = Character(character.lowercased())
            if let digit = lower.wholeNumberValue {
                switch game {
                case is Connect4 where (1...Connect4.columns).contains(digit): cursor.column = digit - 1
                case is TicTacToe where (1...9).contains(digit):
                    cursor = BoardCursor(column: (digit - 1) % 3, row: (digit - 1) / 3)
                case is Cube4 where (1...Cube4.size).contains(digit): cursor.row = digit - 1
                default: return false
                }
            } else if game is Cube4, let ascii = lower.asciiValue, (97...100).contains(ascii) {
                cursor.column = Int(ascii) - 97
            } else {
                return false
            }
        default:
            return false
        }
        guard cursor != view.cursor else { return false }
        view.cursor = cursor
        return true
    }
}
