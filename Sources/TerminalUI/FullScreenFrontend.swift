#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
import Games
import Match
import Synchronization

/// The full-screen terminal UI: alternate screen, raw keys, redraw on resize.
///
/// Keys: ←/→ (and ↑/↓ for tictactoe and cube4) move the cursor, digits pick
/// a column or cell (cube4: a letter a-d and a digit 1-4), Enter or Space
/// plays, `h` (`H` in reversi) shows the best move when `hints` is set,
/// `q` asks "Quit this match? (y/n)" (only `y` quits), Ctrl-C leaves
/// for now without quitting (`.interrupted`, the match stays resumable). The
/// screen keeps redrawing and `q` keeps working while another seat thinks.
///
/// The terminal is restored on every way out: the run returning, a thrown
/// error or `exit()` elsewhere (an `atexit` hook), SIGINT, SIGTERM and SIGHUP
/// (restored from the signal source before anything else). On SIGHUP or a
/// failed write (the SSH connection died) it stops drawing and returns
/// `.terminalLost` without quitting, so the match can be resumed; once the
/// match is over (the final board waiting for a key) it returns the end.
///
/// If the terminal cannot be put in raw mode, it falls back to plain mode.
public struct FullScreenFrontend: MatchFrontend {
    /// Colours and Unicode, from `DisplayOptions.detect`.
    public var options: DisplayOptions
    /// The terminal's input (keys), normally 0.
    public var inputFD: Int32
    /// The terminal's output, normally 1.
    public var outputFD: Int32
    /// Where the hint key gets the best move; nil: no hints in this match.
    public var hints: HintSource?
    /// What the `b` key does on a table's host: hand every away seat to a bot
    /// until its player is back; nil: no such key (guests, two seats).
    public var standIn: (@Sendable () -> Void)?

    /// Finds the best move for the side to move in a game; returns nil if
    /// told to stop (polled often) or if it has none. Runs off the UI's thread.
    public typealias HintSource = @Sendable (_ game: any Game, _ shouldStop: @escaping @Sendable () -> Bool) -> Move?

    /// A full-screen frontend on the terminal at `input`/`output`.
    public init(options: DisplayOptions, input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                hints: HintSource? = nil) {
        self.options = options
        self.inputFD = input
        self.outputFD = output
        self.hints = hints
    }

    /// Prepares to show `events`; the terminal is set up only when the run starts.
    public func prepare(controller: MatchController, locals: [LocalParticipant], endQuestion: EndQuestion?,
                        events: MatchEventFeed) async -> PreparedMatch {
        let initial = await controller.state
        let frontend = self
        let talk = await TalkAccess.of(controller)
        return PreparedMatch {
            await frontend.run(events: events, initial: initial, locals: locals, endQuestion: endQuestion,
                               controller: controller, talkAccess: talk)
        }
    }

    private func run(events: MatchEventFeed, initial: MatchState, locals: [LocalParticipant],
                     endQuestion: EndQuestion?, controller: MatchController, talkAccess: TalkAccess) async -> FrontendExit {
        let terminal = Terminal(input: inputFD, output: outputFD)
        do {
            try terminal.enterFullScreen()
        } catch {
            var plain = options
            plain.colorDepth = .none
            plain.attributes = false
            return await LineSession.run(format: .text(plain, interactive: true), events: events, initial: initial,
                                         locals: locals, inputFD: inputFD, outputFD: outputFD, handlesSignals: true,
                                         controller: controller)
        }
        let hub = EventHub()
        // Registered first: whatever else happens, a signal restores the terminal.
        let signals = SignalWatcher(signals: SignalWatcher.terminating) { number in
            terminal.restore()
            hub.send(.signal(number))
        }
        let resizes = SignalWatcher(signals: [SIGWINCH]) { _ in hub.send(.resize) }
        let seats = LocalSeats(state: initial, locals: locals)
        var model = FullScreenModel(state: initial, localSeats: seats.seats, options: options, endQuestion: endQuestion,
                                    hintsAllowed: hints != nil, talkAvailable: talkAccess.available, standInAllowed: standIn != nil,
                                    talkWithoutSeat: talkAccess.withoutSeat)
        let talk = TalkSender(controller: controller)
        endQuestion?.onChange { hub.send(.endQuestionChanged) }
        // Bumped on every match event and on the way out: a hint search for an older position stops.
        let position = PositionCounter()
        let writer = ScreenWriter(terminal: terminal, options: options) { hub.send(.input(.lost)) }
        // The window title says when it is our turn; the one before is put back on the way out.
        var title = WindowTitle(unicode: options.unicode)
        writer.send(TurnNotices.pushTitle)
        hub.forward(events)
        let ticker = hub.ticking(every: .seconds(1))
        let reader = InputReader(fd: inputFD, mode: .keys) { hub.send(.input($0)) }
        reader.start()
        var interrupted: Int32?
        defer {
            talk.stop()
            endQuestion?.onChange(nil)
            position.advance()
            reader.stop()
            ticker.cancel()
            resizes.cancel()
            signals.cancel()
            terminal.restore()
            hub.finish()
        }

        let options = self.options
        var steadyWidth = 0
        func draw(_ view: ScreenView) {
            var view = view
            view.now = wallClockMilliseconds()
            steadyWidth = max(steadyWidth, Renderer.boardWidth(for: view, options: options))
            view.steadyWidth = steadyWidth
            let size = terminal.size() ?? .standard
            writer.show(Renderer.screen(for: view, options: options, size: size), size: size)
        }
        draw(model.view)

        func finish(_ exit: FrontendExit, terminalGone: Bool = false) async -> FrontendExit {
            // More hang-ups may follow the first; none may kill parlor while it saves the match.
            if terminalGone { SignalWatcher.ignoreHangUpsFromNowOn() } else { writer.send(TurnNotices.popTitle) }
            await writer.drained()
            terminal.restore()
            if terminalGone { return exit }
            if let interrupted { return .interrupted(signal: interrupted, exit.state) }
            switch exit {
            case .left(let state) where model.talkWithoutSeat:  // a spectator says what it left
                _ = writeAll(fd: outputFD, Array((MatchText.stoppedWatching(state) + "\n").utf8))
                return exit
            case .left, .interrupted, .inputEnded, .terminalLost: return exit
            case .ended, .failed: break
            }
            // Leave the result on the normal screen, where it stays after parlor ends.
            let ascii = DisplayOptions(colorDepth: .none, attributes: false, unicode: options.unicode)
            var failure: MatchFailure?
            if case .failed(let reason, _) = exit { failure = reason }
            // Broken at spaces to the window's width, not mid-word by the terminal.
            let columns = (terminal.size() ?? .standard).columns - 1
            let text = MatchText.endingLines(exit.state, failure: failure, localSeats: model.localSeats, options: ascii)
                .flatMap { StyledLine($0).wrapped(to: columns, indent: "").map(\.text) }
                .map { $0 + "\n" }.joined()
            _ = writeAll(fd: outputFD, Array(text.utf8))
            return exit
        }

        for await event in hub.stream {
            var actions: [ScreenAction] = []
            switch event {
            case .match(let matchEvent):
                position.advance()
                if let bytes = title.update(after: matchEvent, localSeats: model.localSeats) { writer.send(bytes) }
                actions = model.handle(matchEvent)
            case .matchStreamEnded: actions = model.matchStreamEnded()
            case .input(.key(let key)): actions = model.handle(key)
            case .input(.lost), .input(.endOfInput), .input(.line):
                return await finish(model.exitWhenTheTerminalIsLost, terminalGone: true)
            case .signal(let number):
                if number == SIGHUP { return await finish(model.exitWhenTheTerminalIsLost, terminalGone: true) }
                // SIGINT and SIGTERM never quit a seat: this side leaves for now.
                interrupted = number
                return await finish(.interrupted(signal: number, model.state))
            case .resize:
                writer.invalidate()
                actions = [.redraw]
            case .tick:
                // A turn clock or an away seat's grace counts down on screen.
                if (model.state.deadline > 0 || !model.view.awaySeats.isEmpty) && !model.view.isOver { actions = [.redraw] }
            case .submitted(let result, let quitting):
                actions = model.submitted(result, quitting: quitting)
            case .endQuestionChanged:
                actions = model.endQuestionChanged()
            case .hint(let move, let sequence):
                actions = model.hinted(move, sequence: sequence)
            }
            for action in actions {
                switch action {
                case .redraw:
                    draw(model.view)
                case .bell:
                    writer.ring()
                case .standInForAwaySeats:
                    standIn?()
                case .play(let move, let seat):
                    if let participant = seats.participants[seat] { hub.submit(participant, move: move) }
                case .quit(let seat):
                    if let participant = seats.participants[seat] { hub.submit(participant, move: nil) }
                case .say(let text, let seat):
                    talk.send(text, seat: seat)
                case .finish(let exit):
                    return await finish(exit)
                case .findHint(let game, let sequence):
                    guard let hints else { break }
                    let asked = position.value
                    // Off the cooperative pool, like a bot's search: it may take most of a second.
                    DispatchQueue.global(qos: .userInitiated).async {
                        let move = hints(game) { position.value != asked }
                        hub.send(.hint(move, sequence: sequence))
                    }
                }
            }
        }
        return await finish(.ended(model.state))
    }
}

/// Counts the positions a full screen has shown, for stopping stale hint searches.
private final class PositionCounter: Sendable {
    private let counter = Atomic<UInt64>(0)
    var value: UInt64 { counter.load(ordering: .relaxed) }
    func advance() { counter.add(1, ordering: .relaxed) }
}
