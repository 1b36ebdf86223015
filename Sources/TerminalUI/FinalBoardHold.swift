#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Games
import Match
import Synchronization

/// The final board kept on the full screen after the match's frontend
/// returned, with a line under it, while the caller waits for something
/// the board does not answer: a rematch offered here, waiting for the other
/// side's answer. The player stays on the board instead of dropping to a
/// plain line; `close()` gives the terminal back (the rematch starts, or
/// the other side said no).
///
/// Nothing typed answers anything here; Ctrl-C (and SIGINT, SIGTERM,
/// SIGHUP) restores the terminal and ends parlor (status 128 + the
/// signal), as it did on the plain line. A resize redraws. Thread-safe; `close()` may be
/// called from any thread and returns once the terminal is back.
public final class FinalBoardHold: Sendable {
    private struct State: Sendable {
        var encoder: FrameEncoder
        var closed = false
        var reader: InputReader?
        var signals: SignalWatcher?
        var resizes: SignalWatcher?
    }

    private let terminal: Terminal
    private let view: ScreenView
    private let options: DisplayOptions
    private let state: Mutex<State>

    /// Shows `board` (a final state) with `line` under it; nil when the
    /// terminal cannot be put in full-screen mode (the caller says `line` plainly then).
    public init?(_ board: MatchState, localSeats: Set<SeatIndex>, line: String, options: DisplayOptions,
                 input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        let terminal = Terminal(input: input, output: output)
        do { try terminal.enterFullScreen() } catch { return nil }
        self.terminal = terminal
        var view = ScreenView(state: board, localSeats: localSeats)
        view.message = line
        view.keys = "Ctrl-C: stop waiting and leave"
        self.view = view
        self.options = options
        state = Mutex(State(encoder: FrameEncoder(options: options)))
        // A signal restores the terminal, then ends parlor as it would have
        // without this screen (the match is over and saved; nothing is owed):
        // with the shell's status for that signal (130 for Ctrl-C). Not by
        // raising it again: parlor's threads block signals, so it would wait forever.
        let leave: @Sendable (Int32) -> Void = { number in
            terminal.restore()
            exit(128 + number)
        }
        let signals = SignalWatcher(signals: SignalWatcher.terminating, handler: leave)
        let resizes = SignalWatcher(signals: [SIGWINCH]) { [weak self] _ in self?.draw(whole: true) }
        // Raw mode reads Ctrl-C as a key: it leaves as the signal would.
        let reader = InputReader(fd: input, mode: .keys) { event in
            switch event {
            case .key(.interrupt): leave(SIGINT)
            case .lost: leave(SIGHUP)
            default: break
            }
        }
        state.withLock { $0.reader = reader; $0.signals = signals; $0.resizes = resizes }
        _ = reader.start()
        draw(whole: false)
    }

    /// Draws the board; a whole redraw after a resize. Under the lock, so that it never writes after `close()`.
    private func draw(whole: Bool) {
        state.withLock { state in
            guard !state.closed else { return }
            if whole { state.encoder.invalidate() }
            let size = terminal.size() ?? .standard
            _ = terminal.write(state.encoder.encode(Renderer.screen(for: view, options: options, size: size), size: size))
        }
    }

    /// Gives the terminal back: the normal screen, as it was before the board.
    public func close() {
        let (reader, signals, resizes) = state.withLock { state -> (InputReader?, SignalWatcher?, SignalWatcher?) in
            defer { state.closed = true; state.reader = nil; state.signals = nil; state.resizes = nil }
            return (state.reader, state.signals, state.resizes)
        }
        reader?.stopAndWait()
        resizes?.cancel()
        terminal.restore()
        signals?.cancel()
    }
}
