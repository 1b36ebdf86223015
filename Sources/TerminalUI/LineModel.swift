import Games
import Match

/// What the line frontends (plain text and JSON) do next.
enum LineAction: Sendable {
    /// Write this text; `newline` false for an interactive prompt that waits on the same line.
    case output(String, newline: Bool)
    /// Play `move` for `seat`, with the message typed after it (`4 Your move, Ana`).
    case play(Move, seat: SeatIndex, message: TurnMessage?)
    case quit(seat: SeatIndex)
    /// Say `text` to the table as `seat`'s player (a `/say ` line).
    case say(String, seat: SeatIndex)
    case finish(FrontendExit)
}

/// The state machine behind plain and JSON mode; pure, tested by feeding it events.
///
/// Input lines are queued and each is used when a local seat is to move, so
/// a whole game can be piped in ahead of time. A `/quit` line quits at once,
/// in turn or out of turn; `q` or `quit` alone only says how (a quit is never
/// an accident). When input has ended and a local seat must move with nothing
/// left to read, this side leaves for now (`.inputEnded`): nothing is quit.
struct LineModel {
    enum Format: Sendable {
        /// Human-readable text; `interactive` keeps the prompt on the line being typed.
        case text(DisplayOptions, interactive: Bool)
        case json
    }

    let format: Format
    private(set) var state: MatchState
    let localSeats: Set<SeatIndex>
    private var queue: [String] = []
    private var inputEnded = false
    private var submitting = false
    private var leaving = false
    /// `/quit` lines read while another local seat's quit was on its way (hot seat):
    /// each quits the next local seat once the one before has gone.
    private var pendingQuits = 0
    private var over = false
    private var lastInput = ""
    /// A move of ours the controller committed before its events reached us:
    /// until the model's state is at this sequence, a turn event it still has
    /// to see is stale, and nothing is played or left on it.
    private var committedAhead: UInt32?
    /// The sequence number of the turn we last prompted for, so a prompt is shown once per turn.
    private var promptedSequence: UInt32?
    /// The turn the last `turn` event announced. The controller begins a turn
    /// again after a rollback and again after adopting the host's same state;
    /// a script answers every `turn` event, and since typed lines are queued,
    /// a second answer would be played at its next turn. So a turn is
    /// announced once, and once more only after its move was rolled back.
    private var announcedTurn: (seat: SeatIndex, sequence: UInt32)?
    /// Whether the `started` event was seen. Input lines can arrive before it
    /// (a piped script is read at once); nothing is printed or played until the
    /// header is out, so the header always comes first.
    private var started = false
    /// The sequence number of the board last printed, so each position is printed once.
    private var boardSequence: UInt32?

    /// A spectator's lines: `/say` talks with no seat of its own (the host names the sender).
    var talkWithoutSeat = false

    /// Every seat played from here, a bot's (`--bot`) too: a `/quit` or `/say`
    /// line means the same whether the person or a bot plays the seat.
    let voicedSeats: Set<SeatIndex>

    init(format: Format, state: MatchState, localSeats: Set<SeatIndex>, voicedSeats: Set<SeatIndex>? = nil) {
        self.format = format
        self.state = state
        self.localSeats = localSeats
        self.voicedSeats = voicedSeats ?? localSeats
    }

    private var options: DisplayOptions {
        if case .text(let options, _) = format { return options }
        return .plainASCII
    }

    private var isJSON: Bool { if case .json = format { return true } else { return false } }

    private func say(_ text: String) -> [LineAction] { isJSON ? [] : [.output(text, newline: true)] }
    private func json(_ value: JSONValue) -> [LineAction] { isJSON ? [.output(value.encoded, newline: true)] : [] }

    private mutating func board() -> [LineAction] {
        guard !isJSON else { return [] }
        boardSequence = state.sequence
        return BoardRenderer.lines(for: state, cursor: nil, options: options).map { .output($0.text, newline: true) }
    }

    /// The local seat to move now, if any.
    private var activeLocalSeat: SeatIndex? {
        guard let seat = state.activeSeat, localSeats.contains(seat) else { return nil }
        return seat
    }

    // MARK: events

    mutating func handle(_ event: MatchEvent) -> [LineAction] {
        switch event {
        case .started(let new):
            state = new
            started = true
            if isJSON { return json(JSONEvents.started(new, localSeats: localSeats)) + pump() }
            let players = new.seats.indices.map { MatchText.label(new, seat: $0, options: options) }.joined(separator: " vs ")
            return say("\(new.game.gameDisplayName): \(players)") + board() + pump()
        case .turnBegan(let seat, let new):
            state = new
            var actions: [LineAction] = []
            if announcedTurn?.seat != seat || announcedTurn?.sequence != new.sequence {
                announcedTurn = (seat, new.sequence)
                actions += json(JSONEvents.turn(seat: seat, new))
            }
            if localSeats.contains(seat) {
                actions += pump()
            } else if !isJSON {
                actions += say("\(MatchText.name(new, seat: seat)) is thinking\(MatchText.ellipsis(options))")
            }
            return actions
        case .awaitingConfirmation:
            return []
        case .committed(let change, let new):
            state = new
            var actions = json(JSONEvents.committed(change, new))
            if !isJSON {
                switch change {
                case .move(let move, let seat, let message):
                    actions += say(MatchText.moveLine(new, move: PlayedMove(seat: seat, move: move, message: message), options: options))
                    if localSeats.isEmpty && !new.isEnded { actions += board() }
                case .quit(let seat): actions += say("\(MatchText.label(new, seat: seat, options: options)) quit.")
                case .timeExpired(let seat):
                    actions += say("\(MatchText.label(new, seat: seat, options: options)) ran out of time.")
                }
            }
            return actions
        case .rolledBack(let change, let reason, let new):
            state = new
            // The undone move needs a new answer: ask for this turn again, once.
            announcedTurn = nil
            promptedSequence = nil
            boardSequence = nil
            return json(JSONEvents.rolledBack(change, reason: reason, new))
                + say("\(MatchText.name(new, seat: change.seat))'s move was undone: \(reason.description).")
        case .adopted(let new):
            state = new
            return json(JSONEvents.adopted(new)) + say("Took the host's state of the match (move \(new.moves.count)).")
        case .notice(let text):
            return json(JSONEvents.notice(text)) + say("Note: \(sanitized(text))")
        case .presence(let seat, let away, let graceLeft):
            guard MatchText.showsPresence(state) else { return [] }
            return json(JSONEvents.presence(state, seat: seat, away: away, graceLeft: graceLeft))
                + say(MatchText.presenceLine(state, seat: seat, away: away, graceLeft: graceLeft))
        case .talk(let line):
            return json(JSONEvents.talk(line)) + say(TalkLines.plainLine(line))
        case .talkRefused(let refusal):
            return json(JSONEvents.talkRefused(refusal)) + say(TalkLines.refusedLine(refusal))
        case .standIn(let seat, let bot):
            // The notice says it in words; JSON gets the seat's state.
            return json(JSONEvents.standIn(state, seat: seat, bot: bot))
        case .ended(let new):
            state = new
            over = true
            if isJSON { return json(JSONEvents.end(new)) + [.finish(.ended(new))] }
            return board() + say(MatchText.resultLine(new, options: options))
                + say(MatchText.winnerLine(new, options: options)) + [.finish(.ended(new))]
        case .failed(let failure, let new):
            state = new
            over = true
            if isJSON { return json(JSONEvents.error(failure, new, spectator: localSeats.isEmpty)) + [.finish(.failed(failure, new))] }
            return MatchText.endingLines(new, failure: failure, localSeats: localSeats, options: options).flatMap(say)
                + [.finish(.failed(failure, new))]
        }
    }

    /// The controller's stream ended without an end event (it should not): stop with what we have.
    mutating func matchStreamEnded() -> [LineAction] {
        guard !over else { return [] }
        over = true
        return [.finish(.ended(state))]
    }

    // MARK: input

    mutating func handle(line raw: String) -> [LineAction] {
        guard !over else { return [] }
        // `/say …` is said at once, in turn or not (the raw line: the host judges what it holds).
        if let text = TalkLines.said(in: raw.trimmingCharacters()) { return sayNow(text, raw: raw) }
        let line = raw.trimmingCharacters()
        let word = line.lowercased()
        if word == Self.quitLine {
            if leaving || !started || committedAhead != nil { pendingQuits += 1; return [] }
            return quitNow()
        }
        if ["q", "quit"].contains(word) {
            // Watching bots: nothing to lose, q leaves. A seat of ours: say how to quit, never quit by accident.
            if voicedSeats.isEmpty { return quitNow() }
            let why = "type \(Self.quitLine) to quit this match (it counts as a loss); "
                + "Ctrl-C or the end of input leaves it for now, to resume later"
            return json(JSONEvents.rejected(input: line, seat: activeLocalSeat, reason: why))
                + say("To quit, \(why).") + (activeLocalSeat.map(prompt) ?? [])
        }
        // Watching: no line is a move here; say what works instead of keeping it for a turn that never comes.
        if talkWithoutSeat {
            return line.isEmpty ? [] : say("You are watching: nothing typed here moves (\(TalkLines.sayPrefix)TEXT talks, q leaves).")
        }
        // Answered at once when nothing typed before it waits; otherwise in its turn, after those lines.
        if isHelp(line), started, queue.isEmpty {
            return helpLines() + (activeLocalSeat.map(prompt) ?? [])
        }
        queue.append(line)
        return pump()
    }

    mutating func handleEndOfInput() -> [LineAction] {
        guard !over else { return [] }
        inputEnded = true
        return pump()
    }

    /// A `/say ` line: sent as the first local seat's (the one to move at a hot seat).
    private func sayNow(_ text: String, raw: String) -> [LineAction] {
        guard let seat = activeLocalSeat ?? voicedSeats.sorted().first ?? (talkWithoutSeat ? 0 : nil) else {
            return json(JSONEvents.rejected(input: raw, seat: nil, reason: "no seat here to talk from"))
                + say("There is no seat here to talk from.")
        }
        guard !text.isEmpty else {
            return json(JSONEvents.rejected(input: raw, seat: seat, reason: "nothing to say"))
                + say("Type \(TalkLines.sayPrefix)and a line to say it to the table.")
        }
        return [.say(text, seat: seat)]
    }

    /// The line that quits a local seat in plain and JSON mode.
    static let quitLine = "/quit"

    /// Lines that ask what can be typed (unless the game reads one as a move).
    static let helpLines: Set<String> = ["/help", "help", "?"]

    /// Whether `line` asks for help: one of `helpLines` the game does not read as a move.
    private func isHelp(_ line: String) -> Bool {
        Self.helpLines.contains(line.lowercased()) && state.game.move(fromNotation: line) == nil
    }

    /// The answer to `/help`: lines in plain mode, one notice in JSON mode.
    private func helpLines() -> [LineAction] {
        let help = Self.help(state)
        return json(JSONEvents.notice(help.joined(separator: "\n"))) + help.flatMap(say)
    }

    /// What a player can type in plain and JSON mode, for `/help`.
    static func help(_ state: MatchState) -> [String] {
        [
            "Lines you can type:",
            "  a move: \(MatchText.moveHelp(state))",
            "  a move, a space and a message: the message goes with the move (at most \(TurnMessage.maximumBytes) bytes; "
                + "not at a LAN table of three or more)",
            "  \(TalkLines.sayPrefix)TEXT: says TEXT to the table (a LAN match with table talk)",
            "  \(quitLine): quits this match (it counts as a loss)",
            "  Ctrl-C, or the end of input: leaves the match for now; 'parlor resume' continues it",
        ]
    }

    /// A local seat quits: the one to move, else the first still playing.
    private mutating func quitNow() -> [LineAction] {
        guard !leaving else { return [] }
        let seat = activeLocalSeat ?? voicedSeats.sorted().first { state.seats[$0].status == .playing }
        guard let seat else {
            guard voicedSeats.isEmpty else { return [] }
            return (talkWithoutSeat ? say(MatchText.stoppedWatching(state)) : []) + [.finish(.left(state))]
        }
        leaving = true
        return [.quit(seat: seat)]
    }

    mutating func submitted(_ result: SubmitResult, quitting: Bool) -> [LineAction] {
        if quitting {
            // A refused quit (e.g. while a move awaits confirmation) is tried again
            // at the next turn event, never in a tight loop.
            leaving = false
            if case .rejected(let rejection) = result, !over {
                // Kept, not spent: at a hot seat a spent retry was a later seat's
                // /quit, and that seat then left for now at the end of input.
                pendingQuits += 1
                return json(JSONEvents.rejected(input: "quit", seat: activeLocalSeat, reason: rejection.description))
                    + say("Could not quit yet: \(rejection.description).")
            }
            if case .committed(let committed) = result, !over {
                // The result can overtake the quit's own events, as a move's
                // can: until they arrive, the end of input must not leave the
                // seat for now in the state before the quit (found by CI: a
                // piped `/quit` then end of input was reported left, not quit).
                guard state.sequence >= committed.sequence else {
                    committedAhead = committed.sequence
                    return []
                }
                // At a table the match goes on: when the turn event came before this
                // result, the next local seat's turn was not pumped yet (found by a
                // piped hot-seat table that stopped after the first player left).
                return pump()
            }
            return []
        }
        submitting = false
        switch result {
        case .committed(let committed):
            // The result travels on the submitting task and can overtake the
            // controller's events. Until the model has seen this commit its
            // state is the one before our move, and a queued line would be
            // played there; the turn event that follows the commit pumps instead.
            guard state.sequence >= committed.sequence else {
                committedAhead = committed.sequence
                return []
            }
            return pump()
        case .rejected(.awaitingConfirmation), .rejected(.rule(.notYourTurn)):
            // Refused only because our view of the match was behind the
            // controller's: the line was never played, so it waits for the
            // next turn event instead of being lost (found by CI: a piped game
            // lost its last move and quit).
            if !lastInput.isEmpty { queue.insert(lastInput, at: 0) }
            lastInput = ""
            return []
        case .rejected(let rejection):
            let text = "Refused: \(rejection.description)."
            return json(JSONEvents.rejected(input: lastInput, seat: activeLocalSeat, reason: rejection.description))
                + say(text) + pump()
        case .rolledBack:
            return pump()  // the rolledBack event already said why
        }
    }

    /// Shows the board and the prompt once per turn, then uses queued lines
    /// while a local seat is to move; a wrong line gets a message and the prompt again.
    private mutating func pump() -> [LineAction] {
        // A turn event older than our committed move (found by CI: a piped hot
        // seat played its last line, then left on the turn before it, losing the end).
        if let ahead = committedAhead {
            guard state.sequence >= ahead else { return [] }
            committedAhead = nil
        }
        if started, pendingQuits > 0, !submitting, !leaving, !over {
            pendingQuits -= 1
            return quitNow()
        }
        guard started, let seat = activeLocalSeat, !submitting, !leaving, !over else { return [] }
        var actions: [LineAction] = []
        if promptedSequence != state.sequence {
            promptedSequence = state.sequence
            if boardSequence != state.sequence { actions += board() }
            actions += prompt(seat)
        }
        while !queue.isEmpty {
            let line = queue.removeFirst()
            guard !line.isEmpty else { continue }
            if isHelp(line) {
                actions += helpLines() + prompt(seat)
                continue
            }
            guard let (move, text) = Self.moveAndMessage(line, in: state.game) else {
                actions += json(JSONEvents.rejected(input: line, seat: seat, reason: "not a move"))
                actions += say("'\(sanitized(line))' is not a move here: type \(MatchText.moveHelp(state)), or \(Self.quitLine) to quit (/help lists every line).")
                actions += prompt(seat)
                continue
            }
            guard state.game.isLegal(move) else {
                let why = Self.illegalReason(state.game, move)
                actions += json(JSONEvents.rejected(input: line, seat: seat, reason: why))
                actions += say("\(why) Try another move.") + prompt(seat)
                continue
            }
            var message: TurnMessage?
            do throws(TurnMessageError) { message = try text.map { text throws(TurnMessageError) in try TurnMessage(text) } } catch {
                // Refused whole, never cut: nothing is played, the player types it again.
                actions += json(JSONEvents.rejected(input: line, seat: seat, reason: error.description))
                actions += say("Refused: \(error.description); nothing was played.") + prompt(seat)
                continue
            }
            submitting = true
            lastInput = line
            return actions + [.play(move, seat: seat, message: message)]
        }
        if inputEnded {
            // Leaving for now, never a quit: the match is saved and can be resumed.
            over = true
            return actions + say("End of input: \(MatchText.name(state, seat: seat)) leaves the match for now.")
                + [.finish(.inputEnded(state))]
        }
        return actions
    }

    /// `Your move (a column, 1-7): ` (text mode only); on the same line as the answer when interactive.
    private func prompt(_ seat: SeatIndex) -> [LineAction] {
        guard case .text(_, let interactive) = format else { return [] }
        let who = localSeats.count > 1 ? "\(MatchText.label(state, seat: seat, options: options)), your move" : "Your move"
        return [.output("\(who) (\(MatchText.moveHelp(state))): ", newline: !interactive)]
    }

    /// A typed line as a move and the message after it: the whole line when it
    /// is a move, else the longest start of it, up to a space, that is one,
    /// with the rest (trimmed) as the message (`4 Your move, Ana`, Nim's `1 2 gg`).
    static func moveAndMessage(_ line: String, in game: any Game) -> (Move, message: String?)? {
        if let move = game.move(fromNotation: line) { return (move, nil) }
        for space in line.indices.reversed() where line[space] == " " {
            let head = String(line[..<space]).trimmingCharacters()
            guard !head.isEmpty, let move = game.move(fromNotation: head) else { continue }
            return (move, String(line[line.index(after: space)...]).trimmingCharacters())
        }
        return nil
    }

    /// Why a parsed move cannot be played, in the game's words.
    static func illegalReason(_ game: any Game, _ move: Move) -> String {
        let name = game.notation(for: move)
        switch game {
        case is Connect4: return "Column \(name) is full."
        case is TicTacToe: return "Cell \(name) is taken."
        case is Cube4: return "Peg \(name) is full."
        case is Reversi: return "\(name) turns over no disc."
        case is DotsAndBoxes: return "The line \(name) is already drawn."
        case is ChineseCheckers: return "\(name) is not a step or a chain of jumps for one of your pegs."
        default: return "\(name) cannot be played now."
        }
    }
}

extension String {
    /// Without leading and trailing spaces, tabs, carriage returns and newlines.
    func trimmingCharacters() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
