#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
import Games
import Match
import Synchronization

/// Several matches at one terminal: the lobby's desk.
///
/// Each match the player sits at (joined or offline) runs its own controller
/// and participants, so its turn timeouts and heartbeats go on whether it is
/// on screen or not; its frontend is a `DeskFrontend`, which hands the
/// match's events to the desk and returns when the player leaves that match.
/// One match is on screen at a time (or the lobby, or the list of matches);
/// every turn event goes through `TurnRouting` (the four cases): on screen it
/// is drawn, for another match whose turn became ours a notice takes the
/// bottom line (the board is not touched), the bell rings, the title says so,
/// and every turn is one JSON line in the events file.
///
/// Keys on a match screen: Esc lists the matches, Tab switches to the match
/// that waits for you, Ctrl-C leaves every match for now; the rest are the
/// full screen's. In the list: ↑/↓ and Enter or 1-9 show a match, l the
/// lobby, Esc back. A question (`askSecret`, a host's passcode) takes the
/// screen over whatever is on it until Enter or Esc; the matches go on
/// meanwhile. The lobby's own loop owns the key reader and gives the
/// desk the keys while `hasScreen` is true. Thread-safe: one lock holds the
/// state, drawing goes through one `ScreenWriter`.
public final class MatchDesk: Sendable {
    /// What a key did, for the lobby's loop.
    public enum KeyOutcome: Sendable, Hashable {
        /// The desk drew what changed.
        case handled
        /// The lobby is on screen again: draw it.
        case showLobby
        /// Ctrl-C: every match was left for now.
        case leftAll
    }

    private struct Entry {
        let id: MatchID
        var model: FullScreenModel
        let seats: LocalSeats
        let hints: FullScreenFrontend.HintSource?
        /// Whether its turns ring the bell while it is on screen (not offline: its bots answer at once).
        let ringsOnScreen: Bool
        /// Where this match's table talk goes; nil when the match has none.
        let talk: TalkSender?
        let exit: AsyncStream<FrontendExit>.Continuation
        /// When its turn last became ours (for Tab: the one waiting longest goes first); nil when not our turn.
        var waitingSince: UInt64?
        /// The widest its board has been drawn (`ScreenView.steadyWidth`).
        var steadyWidth = 0
        var label: String { TurnNotices.label(model.state, localSeats: seats.seats) }
        var waitsForUs: Bool {
            guard let active = model.state.activeSeat, !model.view.isOver else { return false }
            return seats.seats.contains(active)
        }
    }

    /// A line the desk asks for over whatever is on screen (a host's passcode), typed without echo.
    private struct Question {
        let prompt: String
        /// Said above the prompt ("That passcode is wrong (1 of 3 tries).").
        let note: String?
        var typed: [Character] = []
        let answer: CheckedContinuation<String?, Never>
    }

    /// A line about a match other than the one on screen: what happened
    /// there, or (no text) that it is our turn there, worded when drawn so
    /// that it counts the other matches that wait.
    private struct Notice {
        let match: MatchID
        var text: String?
    }

    private struct State {
        var entries: [Entry] = []
        /// Questions waiting for a line, the first on screen.
        var questions: [Question] = []
        var onScreen: MatchID?
        var listOpen = false
        var listSelection = 0
        /// The notice for another match, and which match it is about.
        var notice: Notice?
        /// A sentence for the lobby (a join that failed, a match that ended).
        var message: String?
        var title: String?
        var counter: UInt64 = 0
        var closed = false
        /// A match was left while the lobby is (now) on screen: it must draw its lines again.
        var homeDirty = false
    }

    private let terminal: Terminal
    private let options: DisplayOptions
    private let bell: Bool
    private let writer: ScreenWriter
    private let events: LineWriter?
    private let state = Mutex(State())
    private let onHomeChanged: @Sendable () -> Void
    private let ticker = Mutex<Task<Void, Never>?>(nil)
    /// Games hosted from the lobby that wait for a player: what the lobby says, and how to stop the wait.
    private let waits = Mutex<(next: Int, waiting: [(token: Int, text: String, stop: @Sendable () async -> Void)])>((0, []))

    /// A desk drawing on `terminal` (already in full-screen mode, owned by the lobby).
    /// `bell`: ring when a turn becomes ours; `eventsFD`: where the JSON turn lines go (nil: nowhere);
    /// `onHomeChanged` is called (from any thread) when the lobby's lines from `homeLines` changed.
    public init(terminal: Terminal, options: DisplayOptions, bell: Bool, eventsFD: Int32? = nil,
                onHomeChanged: @escaping @Sendable () -> Void) {
        self.terminal = terminal
        var quiet = options
        quiet.bell = false  // the desk rings, by the router's rule, for every match
        self.options = quiet
        self.bell = bell
        self.onHomeChanged = onHomeChanged
        writer = ScreenWriter(terminal: terminal, options: quiet) {}
        events = eventsFD.map { LineWriter(fd: $0) {} }
        _ = terminal.write(TurnNotices.pushTitle)
        ticker.withLock { $0 = Task { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
                self?.tick()
            }
        } }
    }

    deinit { ticker.withLock { $0?.cancel() } }

    /// A frontend for one more match at this desk; the match goes on screen when it starts.
    public func frontend(hints: FullScreenFrontend.HintSource? = nil) -> DeskFrontend {
        DeskFrontend(desk: self, hints: hints)
    }

    /// Whether a match or the list is on screen (the desk takes the keys), rather than the lobby.
    public var hasScreen: Bool { state.withLock { $0.listOpen || $0.onScreen != nil || !$0.questions.isEmpty } }

    /// Asks for a secret line (a host's passcode) over whatever is on screen,
    /// nothing typed shown; `note` is said above it. Returns the line, or nil
    /// when the person pressed Esc or left every match. The other matches go on meanwhile.
    public func askSecret(_ prompt: String, note: String? = nil) async -> String? {
        await withCheckedContinuation { continuation in
            let asked = state.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.questions.append(Question(prompt: prompt, note: note, answer: continuation))
                writer.invalidate()
                draw(&state)
                return true
            }
            if !asked { continuation.resume(returning: nil) }
        }
    }

    /// The match on screen (nil while the lobby or the list is shown).
    public var matchOnScreen: MatchID? { state.withLock { $0.listOpen ? nil : $0.onScreen } }

    /// How many matches the player sits at.
    public var matchCount: Int { state.withLock { $0.entries.count } }

    /// A game hosted from the lobby waits for a player: `text` is shown in the lobby
    /// until `doneWaiting`, and `stop` ends the wait when the lobby is left. Returns the token.
    public func whileWaiting(_ text: String, stop: @escaping @Sendable () async -> Void) -> Int {
        let token = waits.withLock { waits -> Int in
            waits.next += 1
            waits.waiting.append((waits.next, text, stop))
            return waits.next
        }
        onHomeChanged()
        return token
    }

    /// The wait `token` is over (a player joined, or it was stopped).
    public func doneWaiting(_ token: Int) {
        waits.withLock { $0.waiting.removeAll { $0.token == token } }
        onHomeChanged()
    }

    /// How many hosted games wait for a player.
    public var waitingCount: Int { waits.withLock { $0.waiting.count } }

    /// Stops every hosted game's wait for a player.
    private func stopWaiting() {
        let stops = waits.withLock { waits -> [@Sendable () async -> Void] in
            defer { waits.waiting = [] }
            return waits.waiting.map(\.stop)
        }
        for stop in stops { Task { await stop() } }
    }

    /// Shows a sentence in the lobby (why a join failed).
    public func say(_ text: String) {
        state.withLock { $0.message = text }
        onHomeChanged()
    }

    /// Shows `text` (printed lines) in the lobby unless the desk has given the
    /// terminal back; false then, and the caller prints it itself.
    public func sayWhileOpen(_ text: String) -> Bool {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        let open = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            if !line.isEmpty { state.message = line }
            return true
        }
        if open, !line.isEmpty { onHomeChanged() }
        return open
    }

    /// The desk's lines under the lobby: a sentence, the notice, and the matches.
    public func homeLines() -> [String] {
        let hosting = waits.withLock { $0.waiting.map(\.text) }
        return state.withLock { state in
            var lines: [String] = hosting
            if let message = state.message { lines.append(message) }
            if let notice = Self.noticeText(state) { lines.append(notice) }
            if !state.entries.isEmpty {
                let waiting = state.entries.filter(\.waitsForUs).count
                lines.append("You sit at \(state.entries.count) match\(state.entries.count == 1 ? "" : "es")"
                             + (waiting > 0 ? " (\(waiting) wait\(waiting == 1 ? "s" : "") for you)" : "")
                             + ": Tab lists them; they go on while you are here.")
            }
            return lines
        }
    }

    /// Draws the lobby's page (only while the lobby is on screen).
    public func showLobby(_ lines: [String], highlighted: Int? = nil) {
        state.withLock { state in
            guard state.onScreen == nil, !state.listOpen, state.questions.isEmpty, !state.closed else { return }
            let size = terminal.size() ?? .standard
            var shown = lines
            if shown.count > size.rows { shown = Array(shown.prefix(size.rows)) }
            // The chosen row in reverse video (dropped where the terminal takes no attributes).
            writer.show(Frame(lines: shown.enumerated().map { StyledLine($1, $0 == highlighted ? TextStyle(reverse: true) : .plain) }),
                        size: size)
        }
    }

    /// Opens the list of matches (Tab in the lobby).
    public func openList() {
        state.withLock { state in
            guard !state.entries.isEmpty else { return }
            state.listOpen = true
            state.listSelection = Self.tabTarget(state) ?? 0
            draw(&state)
        }
    }

    /// The window changed size: the next frame is drawn whole.
    public func resized() {
        writer.invalidate()
        state.withLock { draw(&$0) }
    }

    /// Leaves every match (Ctrl-C, a signal, the lobby's q twice, a lost
    /// terminal): nothing is quit, each match's frontend returns
    /// `.interrupted(signal:)` (or `.terminalLost`, or its end if it is over).
    /// The terminal is restored first, so what the matches print lands on the normal screen.
    public func leaveAll(signal: Int32?, terminalLost: Bool = false) {
        let (entries, questions) = state.withLock { state -> ([Entry], [Question]) in
            state.closed = true
            defer { state.entries = []; state.questions = [] }
            return (state.entries, state.questions)
        }
        for question in questions { question.answer.resume(returning: nil) }
        ticker.withLock { $0?.cancel() }
        stopWaiting()
        if !terminalLost { _ = terminal.write(TurnNotices.popTitle) }
        terminal.restore()
        for entry in entries {
            var exit = entry.model.exitWhenTheTerminalIsLost
            if case .terminalLost(let last) = exit, !terminalLost { exit = .interrupted(signal: signal ?? SIGINT, last) }
            entry.exit.yield(exit)
            entry.exit.finish()
        }
    }

    /// The lobby closes (q, or hosting takes the terminal): the window title is put back.
    /// Every match has left by then.
    public func close() {
        let (wasOpen, questions) = state.withLock { state -> (Bool, [Question]) in
            defer { state.closed = true; state.questions = [] }
            return (!state.closed, state.questions)
        }
        for question in questions { question.answer.resume(returning: nil) }
        ticker.withLock { $0?.cancel() }
        stopWaiting()
        if wasOpen { _ = terminal.write(TurnNotices.popTitle) }
    }

    /// A key while the desk has the screen.
    public func handle(_ key: Key) -> KeyOutcome {
        if key == .interrupt {
            leaveAll(signal: SIGINT)
            return .leftAll
        }
        var work: [Work] = []
        var answered: (CheckedContinuation<String?, Never>, String?)?
        let outcome = state.withLock { state -> KeyOutcome in
            if !state.questions.isEmpty {
                let (outcome, answer) = handleInQuestion(key, &state)
                answered = answer
                return outcome
            }
            if state.listOpen { return handleInList(key, &state) }
            guard let index = state.entries.firstIndex(where: { $0.id == state.onScreen }) else {
                state.onScreen = nil
                return .showLobby
            }
            let view = state.entries[index].model.view
            // While a talk line is being typed, Esc cancels it and Tab is part of it: the model has every key.
            let overlay = view.confirmingQuit || view.showingKeys || view.isOver || view.talkDraft != nil
            switch key {
            case .escape where !overlay:
                state.listOpen = true
                state.listSelection = index
                draw(&state)
                return .handled
            case .tab where !overlay:
                if let waiting = Self.tabTarget(state) {
                    show(state.entries[waiting].id, &state)
                } else {
                    state.listOpen = true
                    state.listSelection = index
                    draw(&state)
                }
                return .handled
            default:
                let actions = state.entries[index].model.handle(key)
                work = perform(actions, at: index, &state)
                return state.onScreen == nil && !state.listOpen ? .showLobby : .handled
            }
        }
        if let (continuation, line) = answered { continuation.resume(returning: line) }
        run(work)
        if outcome == .showLobby { onHomeChanged() }
        return outcome
    }

    /// A key while a question is asked: Enter answers, Esc cancels, Backspace and Ctrl-U edit.
    private func handleInQuestion(_ key: Key, _ state: inout State) -> (KeyOutcome, (CheckedContinuation<String?, Never>, String?)?) {
        var answer: String??
        switch key {
        case .enter: answer = .some(String(state.questions[0].typed))
        case .escape: answer = .some(nil)
        case .backspace: if !state.questions[0].typed.isEmpty { state.questions[0].typed.removeLast() }
        case .control(0x15): state.questions[0].typed.removeAll()
        case .character(let character) where state.questions[0].typed.count < 256: state.questions[0].typed.append(character)
        default: break
        }
        guard let answer else { return (.handled, nil) }
        let question = state.questions.removeFirst()
        writer.invalidate()
        guard state.questions.isEmpty, state.onScreen == nil, !state.listOpen else {
            draw(&state)
            return (.handled, (question.answer, answer))
        }
        return (.showLobby, (question.answer, answer))
    }

    private func handleInList(_ key: Key, _ state: inout State) -> KeyOutcome {
        let count = state.entries.count
        switch key {
        case .up, .character("k"): state.listSelection = max(0, state.listSelection - 1)
        case .down, .character("j"): state.listSelection = min(max(0, count - 1), state.listSelection + 1)
        case .enter where count > 0:
            show(state.entries[min(state.listSelection, count - 1)].id, &state)
            return .handled
        case .character(let character) where character.isNumber:
            guard let number = character.wholeNumberValue, number >= 1, number <= count else { return .handled }
            show(state.entries[number - 1].id, &state)
            return .handled
        case .character("l"), .character("L"), .character("q"), .character("Q"):
            state.listOpen = false
            state.onScreen = nil
            return .showLobby
        case .escape, .tab:
            state.listOpen = false
            if !state.entries.contains(where: { $0.id == state.onScreen }) {
                state.onScreen = nil
                return .showLobby
            }
        default: return .handled
        }
        draw(&state)
        return .handled
    }

    // MARK: matches

    /// Adds a match (from `DeskFrontend`): it goes on screen at once from the
    /// lobby; a match that starts while another is shown (a player joined a
    /// game hosted from the lobby) gets a notice instead, and the board stays.
    fileprivate func add(_ id: MatchID, model: FullScreenModel, seats: LocalSeats, hints: FullScreenFrontend.HintSource?,
                         ringsOnScreen: Bool, talk: TalkSender?, exit: AsyncStream<FrontendExit>.Continuation) {
        let added = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            let entry = Entry(id: id, model: model, seats: seats, hints: hints, ringsOnScreen: ringsOnScreen, talk: talk, exit: exit)
            state.entries.append(entry)
            state.message = nil
            if state.onScreen == nil && !state.listOpen {
                show(id, &state)
            } else {
                state.notice = Notice(match: id, text: "\(entry.label) has started. Press Esc for your matches.")
                draw(&state)
            }
            return true
        }
        if !added {
            exit.yield(.interrupted(signal: SIGINT, model.state))
            exit.finish()
        }
    }

    /// What happened in a match, as its frontend forwards it.
    fileprivate enum Input: Sendable {
        case match(MatchEvent)
        case streamEnded
        case submitted(SubmitResult, quitting: Bool)
        case hint(Move?, sequence: UInt32)
        /// The other side said something about the end question (a rematch offer).
        case endQuestionChanged
    }

    /// Work done outside the lock: submissions and hint searches.
    private enum Work {
        case submit(MatchID, LocalParticipant, Move?)
        case hint(MatchID, FullScreenFrontend.HintSource, any Game, sequence: UInt32)
    }

    fileprivate func receive(_ input: Input, for id: MatchID) {
        var work: [Work] = []
        var homeChanged = false
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return }
            let actions: [ScreenAction]
            switch input {
            case .match(let event):
                // The model first: a notice drawn by the routing words the match as it is now.
                actions = state.entries[index].model.handle(event)
                if case .turnBegan(let seat, let turnState) = event {
                    homeChanged = route(TurnEvent(seat: seat, state: turnState, localSeats: state.entries[index].seats.seats),
                                        state: turnState, at: index, &state)
                } else if case .ended(let ended) = event, id != state.onScreen || state.listOpen {
                    let text = "\(state.entries[index].label) is over. \(MatchText.resultLine(ended, options: options)) Esc or Tab in the lobby lists it."
                    state.notice = Notice(match: id, text: text)
                    homeChanged = true
                }
            case .streamEnded: actions = state.entries[index].model.matchStreamEnded()
            case .submitted(let result, let quitting): actions = state.entries[index].model.submitted(result, quitting: quitting)
            case .hint(let move, let sequence): actions = state.entries[index].model.hinted(move, sequence: sequence)
            case .endQuestionChanged: actions = state.entries[index].model.endQuestionChanged()
            }
            work = perform(actions, at: index, &state)
            refreshTitle(&state)
            if state.homeDirty { homeChanged = true }
            state.homeDirty = false
        }
        run(work)
        if homeChanged { onHomeChanged() }
    }

    /// The four cases; true when the lobby's lines changed.
    private func route(_ event: TurnEvent, state turnState: MatchState, at index: Int, _ state: inout State) -> Bool {
        let shown = state.listOpen ? nil : state.onScreen
        let routing = TurnRouting.route(event, onScreen: shown, bell: bell, ringsOnScreen: state.entries[index].ringsOnScreen)
        events?.write(TurnNotices.json(event, routing: routing, state: turnState).encoded + "\n")
        state.counter += 1
        if event.isOurs {
            if state.entries[index].waitingSince == nil { state.entries[index].waitingSince = state.counter }
        } else {
            state.entries[index].waitingSince = nil
        }
        if routing.ringsBell { writer.ring() }
        switch routing.turnCase {
        case .takeTurn, .redraw:
            return false  // the model's redraw draws it
        case .notice:
            state.notice = Notice(match: event.match, text: nil)
        case .quietUpdate:
            // A notice about this match is stale once the turn moved on.
            if state.notice?.match == event.match { state.notice = nil } else { return false }
        }
        draw(&state)
        return state.onScreen == nil && !state.listOpen
    }

    private func perform(_ actions: [ScreenAction], at index: Int, _ state: inout State) -> [Work] {
        var work: [Work] = []
        let entry = state.entries[index]
        for action in actions {
            switch action {
            case .redraw:
                if entry.id == state.onScreen && !state.listOpen { draw(&state) }
                if state.listOpen { draw(&state) }
            case .bell:
                writer.ring()
            case .play(let move, let seat):
                if let participant = entry.seats.participants[seat] { work.append(.submit(entry.id, participant, move)) }
            case .quit(let seat):
                if let participant = entry.seats.participants[seat] { work.append(.submit(entry.id, participant, nil)) }
            case .findHint(let game, let sequence):
                if let hints = entry.hints { work.append(.hint(entry.id, hints, game, sequence: sequence)) }
            case .say(let text, let seat):
                entry.talk?.send(text, seat: seat)
            case .standInForAwaySeats:
                break  // the lobby hosts two-seat games only: its models never offer `b`
            case .finish(let exit):
                finish(entry.id, exit, &state)
                return work
            }
        }
        return work
    }

    /// The player left `id` (the final board's key, or a quit): its frontend returns `exit`.
    private func finish(_ id: MatchID, _ exit: FrontendExit, _ state: inout State) {
        guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return }
        let entry = state.entries.remove(at: index)
        if state.notice?.match == id { state.notice = nil }
        if case .left(let left) = exit, entry.model.talkWithoutSeat {
            state.message = "Back in the lobby. \(MatchText.stoppedWatching(left))"
        } else {
            state.message = "Back in the lobby after the match. \(entry.label): \(MatchText.resultLine(exit.state, options: options))"
        }
        if state.onScreen == id {
            state.onScreen = nil
            if let waiting = Self.tabTarget(state) { show(state.entries[waiting].id, &state) }
        }
        if state.entries.isEmpty { state.listOpen = false }
        if state.onScreen == nil && !state.listOpen { state.homeDirty = true }
        state.listSelection = min(state.listSelection, max(0, state.entries.count - 1))
        if state.listOpen { draw(&state) }
        entry.exit.yield(exit)
        entry.exit.finish()
    }

    private func run(_ work: [Work]) {
        for item in work {
            switch item {
            case .submit(let id, let participant, let move):
                Task { [weak self] in
                    let result = if let move { await participant.play(move) } else { await participant.quit() }
                    self?.receive(.submitted(result, quitting: move == nil), for: id)
                }
            case .hint(let id, let hints, let game, let sequence):
                // Off the cooperative pool, like a bot's search; stops when the position moves on.
                DispatchQueue.global(qos: .userInitiated).async { [self] in
                    let move = hints(game) { self.sequence(of: id) != sequence }
                    self.receive(.hint(move, sequence: sequence), for: id)
                }
            }
        }
    }

    private func sequence(of id: MatchID) -> UInt32? {
        state.withLock { $0.entries.first { $0.id == id }?.model.state.sequence }
    }

    private func tick() {
        state.withLock { state in
            guard let entry = state.entries.first(where: { $0.id == state.onScreen }), !state.listOpen,
                  entry.model.state.deadline > 0 || !entry.model.view.awaySeats.isEmpty, !entry.model.view.isOver else { return }
            draw(&state)
        }
    }

    // MARK: drawing

    private func show(_ id: MatchID, _ state: inout State) {
        state.onScreen = id
        state.listOpen = false
        if state.notice?.match == id { state.notice = nil }
        writer.invalidate()
        draw(&state)
    }

    /// Where Tab goes: the match the notice names while it waits for us,
    /// else the next match waiting for us after the one on screen, in the
    /// order their turns came (so that Tab visits every one in turn).
    private static func tabTarget(_ state: State) -> Int? {
        if let named = state.notice.flatMap({ notice in notice.text == nil ? notice.match : nil }),
           let index = state.entries.firstIndex(where: { $0.id == named && $0.waitsForUs }), named != state.onScreen || state.listOpen {
            return index
        }
        let waiting = state.entries.indices.filter { state.entries[$0].waitsForUs && state.entries[$0].id != state.onScreen }
            .sorted { (state.entries[$0].waitingSince ?? 0, $0) < (state.entries[$1].waitingSince ?? 0, $1) }
        guard let shown = state.entries.first(where: { $0.id == state.onScreen && $0.waitsForUs }),
              let since = shown.waitingSince else { return waiting.first }
        return waiting.first { (state.entries[$0].waitingSince ?? 0) > since } ?? waiting.first
    }

    /// The notice's words: a turn notice counts the other matches that wait for us.
    private static func noticeText(_ state: State) -> String? {
        guard let notice = state.notice else { return nil }
        if let text = notice.text { return text }
        guard let entry = state.entries.first(where: { $0.id == notice.match }) else { return nil }
        let more = state.entries.filter { $0.waitsForUs && $0.id != notice.match && $0.id != state.onScreen }.count
        return TurnNotices.yourTurnElsewhere(entry.model.state, localSeats: entry.seats.seats, moreWaiting: more)
    }

    /// Draws what is on screen: the list, or a match with the desk's line at the bottom.
    private func draw(_ state: inout State) {
        guard !state.closed else { return }
        let size = terminal.size() ?? .standard
        if let question = state.questions.first {
            var lines = ["parlor: a passcode", ""]
            if let note = question.note { lines += [note, ""] }
            lines += [question.prompt, "", "Nothing you type is shown. Enter sends it · Esc cancels (your other matches go on)."]
            var frame = Frame(lines: lines.map { StyledLine(Self.clip($0, size.columns - 1)) })
            if let notice = Self.noticeText(state) {
                frame.lines += [StyledLine(), StyledLine(Self.clip(notice, size.columns - 1), TextStyle(foreground: .yellow, bold: true))]
            }
            writer.show(frame, size: size)
            return
        }
        if state.listOpen {
            writer.show(Frame(lines: Self.listLines(state, width: size.columns - 1).prefix(size.rows).map { StyledLine($0) }), size: size)
            return
        }
        guard let index = state.entries.firstIndex(where: { $0.id == state.onScreen }) else { return }
        var view = state.entries[index].model.view
        view.now = wallClockMilliseconds()
        state.entries[index].steadyWidth = max(state.entries[index].steadyWidth, Renderer.boardWidth(for: view, options: options))
        view.steadyWidth = state.entries[index].steadyWidth
        let boardSize = TerminalSize(columns: size.columns, rows: max(1, size.rows - 1))
        var frame = Renderer.screen(for: view, options: options, size: boardSize)
        while frame.lines.count < boardSize.rows { frame.lines.append(StyledLine()) }
        frame.lines = Array(frame.lines.prefix(boardSize.rows))
        frame.lines.append(Self.bottomLine(state, width: size.columns - 1))
        writer.show(frame, size: size)
    }

    /// The notice for another match, or how to reach the other matches and the lobby.
    private static func bottomLine(_ state: State, width: Int) -> StyledLine {
        if let notice = noticeText(state) {
            return StyledLine(clip(notice, width), TextStyle(foreground: .yellow, bold: true))
        }
        let others = state.entries.count - 1
        let waiting = state.entries.filter { $0.waitsForUs && $0.id != state.onScreen }.count
        var text = "Esc: your matches and the lobby"
        if others > 0 { text += " (\(others) other\(others == 1 ? "" : "s")\(waiting > 0 ? ", \(waiting) waiting for you" : ""))" }
        // Named, so that Tab goes where the line points.
        if let next = tabTarget(state) { text += " · Tab: \(state.entries[next].label)" }
        return StyledLine(clip(text, width), TextStyle(dim: true))
    }

    /// The list of matches: game and opponents, whose turn, state; "*" marks those waiting for you.
    private static func listLines(_ state: State, width: Int) -> [String] {
        var lines = ["parlor: your matches (* waits for you)", ""]
        let rows = state.entries.map { entry -> (String, String, String) in
            let current = entry.model.state
            let turn: String
            if entry.model.view.isOver {
                turn = "-"
            } else if let active = current.activeSeat {
                turn = entry.seats.seats.contains(active) ? "your turn" : "\(sanitized(current.seats[active].name)) to move"
            } else {
                turn = "-"
            }
            let phase = entry.model.view.failure != nil ? "stopped" : current.isEnded ? "over" : "playing, move \(current.moves.count + 1)"
            return (entry.label, turn, phase)
        }
        let first = max(5, rows.map(\.0.count).max() ?? 0)
        let second = max(4, rows.map(\.1.count).max() ?? 0)
        func pad(_ text: String, _ size: Int) -> String { text.padding(toLength: size + 2, withPad: " ", startingAt: 0) }
        lines.append("     " + pad("MATCH", first) + pad("TURN", second) + "STATE")
        for (index, row) in rows.enumerated() {
            let entry = state.entries[index]
            let marker = index == state.listSelection ? ">" : " "
            let star = entry.waitsForUs ? "*" : " "
            let shown = entry.id == state.onScreen ? "   (on screen)" : ""
            lines.append("\(marker)\(star)\(String(index + 1).padding(toLength: 3, withPad: " ", startingAt: 0))"
                         + pad(row.0, first) + pad(row.1, second) + row.2 + shown)
        }
        lines.append("")
        if let notice = noticeText(state) { lines.append(notice) }
        lines.append("↑/↓ choose · Enter or 1-9 show it · l the lobby (join or start another) · Esc back")
        return lines.map { clip($0, width) }
    }

    private static func clip(_ text: String, _ width: Int) -> String {
        guard width > 1, text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    private func refreshTitle(_ state: inout State) {
        let waiting = state.entries.filter(\.waitsForUs).min { ($0.waitingSince ?? 0) < ($1.waitingSince ?? 0) }
        // The match on screen first, when it waits for us.
        let chosen = state.entries.first { $0.id == state.onScreen && $0.waitsForUs } ?? waiting
        let title = TurnNotices.title(waiting: chosen?.model.state, localSeats: chosen?.seats.seats ?? [], unicode: options.unicode)
        guard title != state.title else { return }
        state.title = title
        writer.send(TurnNotices.titleSequence(title))
    }
}

/// The frontend of one match at a `MatchDesk`: `prepare` subscribes to the
/// controller; `run` puts the match on the desk and returns when the player
/// leaves it (the final board's key, a quit, or the desk leaving every match).
/// An end question ("Rematch with seats swapped?") is asked on its final
/// board, as the full screen asks it, while the other matches go on.
public struct DeskFrontend: MatchFrontend {
    let desk: MatchDesk
    /// Where the hint key gets the best move; nil: no hints in this match.
    public var hints: FullScreenFrontend.HintSource?
    /// Whether a turn that comes back while this match is on screen rings the
    /// bell; false for an offline match, whose bots answer while the person looks on.
    public var ringsOnScreen = true

    /// Prepares the match for the desk: the prepared match's `run()` adds it to the
    /// desk, forwards `events` to it until they end, and returns when the player
    /// leaves it. See `MatchFrontend.prepare` for what `events` must be.
    public func prepare(controller: MatchController, locals: [LocalParticipant], endQuestion: EndQuestion?,
                        events: MatchEventFeed) async -> PreparedMatch {
        let initial = await controller.state
        let desk = self.desk
        let hints = self.hints
        let ringsOnScreen = self.ringsOnScreen
        let seats = LocalSeats(state: initial, locals: locals)
        let access = await TalkAccess.of(controller)
        let talks = access.available
        let model = FullScreenModel(state: initial, localSeats: seats.seats, options: desk.modelOptions, endQuestion: endQuestion,
                                    hintsAllowed: hints != nil, talkAvailable: talks, talkWithoutSeat: access.withoutSeat)
        return PreparedMatch {
            let (exits, continuation) = AsyncStream<FrontendExit>.makeStream()
            let talk = talks ? TalkSender(controller: controller) : nil
            desk.add(initial.matchID, model: model, seats: seats, hints: hints, ringsOnScreen: ringsOnScreen, talk: talk, exit: continuation)
            let forwarding = Task {
                // The desk draws in `receive`: on this task, never on the thread that saved the event.
                for await event in events.stream { desk.receive(.match(event), for: initial.matchID) }
                desk.receive(.streamEnded, for: initial.matchID)
            }
            endQuestion?.onChange { desk.receive(.endQuestionChanged, for: initial.matchID) }
            defer {
                endQuestion?.onChange(nil)
                forwarding.cancel()
                talk?.stop()
            }
            for await exit in exits { return exit }
            return .interrupted(signal: SIGINT, initial)
        }
    }
}

extension MatchDesk {
    /// The options every match model at the desk draws with (the desk rings the bell itself).
    fileprivate var modelOptions: DisplayOptions { options }
}
