#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Match

/// `parlor replay` on a terminal: the board of a saved match, one move at a time.
///
/// Keys: → (or l, Space, Enter) the next move, ← (or h, Backspace) the one
/// before, Home (or g) the start, End (or G) the end, q, Escape or Ctrl-C
/// leave. It opens on the final position. The terminal is restored on every
/// way out, SIGINT, SIGTERM and SIGHUP included, and redrawn on resize.
public enum ReplayScreen {
    /// What a key does to the step shown; pure, for tests.
    public enum Action: Equatable, Sendable {
        /// Show this step (0 is the start, the last is the saved end).
        case show(Int)
        /// Leave the replay.
        case leave
        /// Nothing to do.
        case ignore
    }

    /// The step after pressing `key` at step `current` of `count` positions.
    public static func action(for key: Key, current: Int, count: Int) -> Action {
        let last = max(count - 1, 0)
        switch key {
        case .right, .enter, .character(" "), .character("l"), .character("n"): return .show(min(current + 1, last))
        case .left, .backspace, .character("h"), .character("p"): return .show(max(current - 1, 0))
        case .home, .character("g"), .character("0"): return .show(0)
        case .end, .character("G"), .character("$"): return .show(last)
        case .character("q"), .character("Q"), .escape, .interrupt, .endOfTransmission: return .leave
        default: return .ignore
        }
    }

    /// The view of step `step` of `positions` (as `MatchState.replayPositions` makes them),
    /// `notations` being the saved match's moves as typed.
    public static func view(step: Int, of positions: [MatchState], notations: [String], options: DisplayOptions) -> ScreenView {
        let state = positions[min(max(step, 0), positions.count - 1)]
        var view = ScreenView(state: state, showsCursor: false)
        let total = notations.count
        let moves = state.moves.count
        if moves == 0 {
            view.caption = state.isEnded ? MatchText.winnerLine(state, options: options) : "Start: nobody has moved yet (\(total) moves in all)."
        } else {
            let played = state.moves[moves - 1]
            let text = moves <= notations.count ? notations[moves - 1] : "\(played.move.rawValue)"
            view.caption = "Move \(moves) of \(total): \(MatchText.name(state, seat: played.seat)) played \(text)."
            if state.isEnded { view.notice = MatchText.winnerLine(state, options: options) }
        }
        let arrows = options.unicode ? "←/→" : "left/right"
        view.keys = "\(arrows): move   Home/End: start/end   q: leave"
        return view
    }

    /// Shows the replay on the terminal at `input`/`output` until the person leaves.
    ///
    /// Returns false, having drawn nothing, when the terminal cannot be put
    /// in full-screen mode (the caller prints the move list instead).
    public static func run(positions: [MatchState], notations: [String], options: DisplayOptions,
                           input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) async -> Bool {
        guard !positions.isEmpty else { return false }
        let terminal = Terminal(input: input, output: output)
        do { try terminal.enterFullScreen() } catch { return false }
        let hub = EventHub()
        // Registered first: whatever else happens, a signal restores the terminal.
        let signals = SignalWatcher(signals: SignalWatcher.terminating) { number in
            terminal.restore()
            hub.send(.signal(number))
        }
        let resizes = SignalWatcher(signals: [SIGWINCH]) { _ in hub.send(.resize) }
        let writer = ScreenWriter(terminal: terminal, options: options) { hub.send(.input(.lost)) }
        let reader = InputReader(fd: input, mode: .keys) { hub.send(.input($0)) }
        reader.start()
        defer {
            reader.stop()
            resizes.cancel()
            signals.cancel()
            terminal.restore()
            hub.finish()
        }
        var step = positions.count - 1
        func draw() {
            let size = terminal.size() ?? .standard
            let view = view(step: step, of: positions, notations: notations, options: options)
            writer.show(Renderer.screen(for: view, options: options, size: size), size: size)
        }
        draw()
        loop: for await event in hub.stream {
            switch event {
            case .input(.key(let key)):
                switch action(for: key, current: step, count: positions.count) {
                case .show(let next) where next != step:
                    step = next
                    draw()
                case .show, .ignore: break
                case .leave: break loop
                }
            case .resize:
                writer.invalidate()
                draw()
            case .signal, .input(.lost), .input(.endOfInput), .input(.line):
                break loop
            case .match, .matchStreamEnded, .tick, .submitted, .endQuestionChanged, .hint:
                break
            }
        }
        await writer.drained()
        return true
    }
}
