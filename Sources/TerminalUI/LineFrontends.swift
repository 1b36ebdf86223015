#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Games
import Match

/// Plain mode: the board as text lines, a prompt, one move per line on stdin.
/// For pipes, `TERM=dumb`, screen readers and `--plain`. Never writes an escape code.
///
/// A wrong move gets a message and the prompt again; a `/quit` line quits (in
/// turn or out of turn; `q` alone only says how); Ctrl-C, SIGTERM and end of
/// input (when a local seat must move and nothing is left to read) leave for
/// now without quitting, so the match can be resumed. The result is printed as
/// `Result: Ana (X) won, Bot (O) lost.` followed by `Ana (X) wins.` or `It's a draw.`
public struct PlainFrontend: MatchFrontend {
    /// Unicode pieces if allowed; colour and attributes are never used here.
    public var options: DisplayOptions
    /// Where move lines are read, normally 0.
    public var inputFD: Int32
    /// Where text is written, normally 1.
    public var outputFD: Int32
    /// Whether SIGINT/SIGTERM/SIGHUP are caught and turned into a `FrontendExit`.
    public var handlesSignals: Bool

    /// A plain frontend reading `input` and writing `output`.
    public init(options: DisplayOptions = .plainASCII, input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                handlesSignals: Bool = true) {
        self.options = options
        self.inputFD = input
        self.outputFD = output
        self.handlesSignals = handlesSignals
    }

    /// Prepares to show `events`; input is read only when the run starts.
    public func prepare(controller: MatchController, locals: [LocalParticipant], endQuestion: EndQuestion?,
                        events: MatchEventFeed) async -> PreparedMatch {
        let interactive = Terminal.isTTY(inputFD) && Terminal.isTTY(outputFD)
        var textOptions = options
        textOptions.colorDepth = .none
        textOptions.attributes = false
        return await LineSession.prepare(format: .text(textOptions, interactive: interactive), controller: controller,
                                         locals: locals, events: events, inputFD: inputFD, outputFD: outputFD,
                                         handlesSignals: handlesSignals)
    }
}

/// `--json`: one JSON object per line on stdout and nothing else; local moves
/// are read from stdin one per line, as in plain mode. Seats are 0-based.
/// Events: started, turn, move, quit, timeExpired, rollback, adopted, notice,
/// rejected (a local input line that was not playable), end, error.
public struct JSONFrontend: MatchFrontend {
    /// Where move lines are read, normally 0.
    public var inputFD: Int32
    /// Where text is written, normally 1.
    public var outputFD: Int32
    /// Whether SIGINT/SIGTERM/SIGHUP are caught and turned into a `FrontendExit`.
    public var handlesSignals: Bool

    /// A JSON frontend reading `input` and writing `output`.
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, handlesSignals: Bool = true) {
        self.inputFD = input
        self.outputFD = output
        self.handlesSignals = handlesSignals
    }

    /// Prepares to show `events`; input is read only when the run starts.
    public func prepare(controller: MatchController, locals: [LocalParticipant], endQuestion: EndQuestion?,
                        events: MatchEventFeed) async -> PreparedMatch {
        await LineSession.prepare(format: .json, controller: controller, locals: locals, events: events,
                                  inputFD: inputFD, outputFD: outputFD, handlesSignals: handlesSignals)
    }
}

/// The shell around `LineModel`: reads lines on a thread, writes in order, performs the model's actions.
enum LineSession {
    static func prepare(format: LineModel.Format, controller: MatchController, locals: [LocalParticipant],
                        events: MatchEventFeed, inputFD: Int32, outputFD: Int32, handlesSignals: Bool) async -> PreparedMatch {
        let initial = await controller.state
        return PreparedMatch {
            await run(format: format, events: events, initial: initial, locals: locals,
                      inputFD: inputFD, outputFD: outputFD, handlesSignals: handlesSignals, controller: controller)
        }
    }

    static func run(format: LineModel.Format, events: MatchEventFeed, initial: MatchState,
                    locals: [LocalParticipant], inputFD: Int32, outputFD: Int32, handlesSignals: Bool,
                    controller: MatchController? = nil) async -> FrontendExit {
        let hub = EventHub()
        let talk = controller.map { TalkSender(controller: $0) }
        let seats = LocalSeats(state: initial, locals: locals)
        var model = LineModel(format: format, state: initial, localSeats: seats.seats, voicedSeats: seats.voicedSeats)
        if let controller { model.talkWithoutSeat = await TalkAccess.of(controller).withoutSeat }
        let writer = LineWriter(fd: outputFD) { hub.send(.input(.lost)) }
        hub.forward(events)
        let reader = InputReader(fd: inputFD, mode: .lines) { hub.send(.input($0)) }
        reader.start()
        let watcher = handlesSignals ? SignalWatcher(signals: SignalWatcher.terminating) { hub.send(.signal($0)) } : nil
        defer {
            talk?.stop()
            reader.stop()
            watcher?.cancel()
            hub.finish()
        }

        for await event in hub.stream {
            var actions: [LineAction] = []
            switch event {
            case .match(let matchEvent): actions = model.handle(matchEvent)
            case .matchStreamEnded: actions = model.matchStreamEnded()
            case .input(.line(let line)): actions = model.handle(line: line)
            case .input(.endOfInput): actions = model.handleEndOfInput()
            case .input(.lost):
                SignalWatcher.ignoreHangUpsFromNowOn()
                return .terminalLost(model.state)
            case .input(.key), .tick, .resize, .endQuestionChanged, .hint:
                break
            case .signal(let number):
                if number == SIGHUP {
                    SignalWatcher.ignoreHangUpsFromNowOn()
                    return .terminalLost(model.state)
                }
                // Ctrl-C and SIGTERM never quit a seat: this side leaves for now.
                await writer.drained(timeout: .milliseconds(200))
                return .interrupted(signal: number, model.state)
            case .submitted(let result, let quitting):
                actions = model.submitted(result, quitting: quitting)
            }
            for action in actions {
                switch action {
                case .output(let text, let newline):
                    writer.write(newline ? text + "\n" : text)
                case .play(let move, let seat, let message):
                    if let participant = seats.participants[seat] { hub.submit(participant, move: move, message: message) }
                case .quit(let seat):
                    if let participant = seats.voices[seat] { hub.submit(participant, move: nil) }
                case .say(let text, let seat):
                    talk?.send(text, seat: seat)
                case .finish(let exit):
                    await writer.drained()
                    return exit
                }
            }
        }
        return .ended(model.state)
    }
}
