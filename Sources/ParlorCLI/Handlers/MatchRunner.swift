import Bots
import Foundation
import Games
import Match
import Session
import Store
import Synchronization
import TerminalUI

/// Everything a command needs to show a match: the frontend for the flags
/// and the terminal, and how to play a controller to the end with it.
struct MatchPresentation {
    private(set) var frontend: any MatchFrontend
    /// Whether a person watches a full-screen board (bots then pause a little between moves).
    let isFullScreen: Bool
    let isJSON: Bool

    /// The frontend TerminalUI's `FrontendChoice` picks for the flags and the terminal.
    init(flags: DisplayFlags, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let output: FrontendChoice.Output = switch flags.output {
        case .automatic: .automatic
        case .plain: .plain
        case .json: .json
        }
        let choice = FrontendChoice(output: output, environment: environment, colorAllowed: flags.colorAllowed(environment: environment),
                                    ascii: flags.ascii, bell: flags.bell)
        frontend = choice.frontend
        isFullScreen = choice.isFullScreen
        isJSON = choice.isJSON
    }

    /// A match at the lobby's desk (several matches at one terminal, MatchDesk.swift).
    init(desk: MatchDesk) {
        frontend = desk.frontend()
        isFullScreen = true
        isJSON = false
    }

    /// Turns on the full screen's hint key (offline games; LAN games whose
    /// host allows hints). Plain and JSON output have no hint key.
    mutating func allowHints() {
        if var seat = frontend as? DeskFrontend {
            seat.hints = Hints.source
            frontend = seat
            return
        }
        guard var screen = frontend as? FullScreenFrontend else { return }
        screen.hints = Hints.source
        frontend = screen
    }

    /// The full screen's display options; nil for the desk and the line frontends.
    var fullScreenOptions: DisplayOptions? { (frontend as? FullScreenFrontend)?.options }

    /// An offline match: its bots answer while the person looks on, so a
    /// turn that comes back on screen rings no bell (the desk still rings
    /// for it when another match is on screen).
    mutating func ringOnlyWhenOffScreen() {
        if var seat = frontend as? DeskFrontend {
            seat.ringsOnScreen = false
            frontend = seat
            return
        }
        guard var screen = frontend as? FullScreenFrontend else { return }
        screen.options.bell = false
        frontend = screen
    }

    /// Turns on the full screen's `b` key (a table's host): `action` hands every
    /// away seat to a bot. Plain and JSON output have `--away-bot` instead.
    mutating func allowStandIn(_ action: @escaping @Sendable () -> Void) {
        guard var screen = frontend as? FullScreenFrontend else { return }
        screen.standIn = action
        frontend = screen
    }

    /// How long a bot waits before moving, so a person can follow the board.
    var botPause: Duration { isFullScreen ? .milliseconds(350) : .zero }

    /// Prepares the frontend and the recorder, starts the controller, and plays to the end.
    ///
    /// When this side goes away without the match being over (the terminal
    /// was lost, SIGHUP, SIGTERM, Ctrl-C, or the end of input), nothing is
    /// quit: the peer is told with GOODBYE(leaving) through `link`, the match
    /// is saved as interrupted, and (unless the terminal is gone) this side
    /// reads how to continue it with `parlor resume`. `endQuestion` is asked
    /// on the final board (full screen only), answered with one key.
    func play(_ controller: MatchController, locals: [LocalParticipant], recorder: MatchRecorder?,
              link: (any SessionLink)? = nil, endQuestion: EndQuestion? = nil) async throws -> FrontendExit {
        // A seat a bot plays from here is spoken for by a participant the controller does not ask for moves.
        for voice in locals where !voice.playsFromInput { voice.attach(to: controller) }
        // What is kept on disk is shown once saved: the recorder hands each event on after its save.
        let recording: Task<Void, Never>?
        let prepared: PreparedMatch
        if let recorder {
            let shown = MatchEventFeed()
            recording = await recorder.follow(controller, showing: shown)
            prepared = await frontend.prepare(controller: controller, locals: locals, endQuestion: endQuestion, events: shown)
        } else {
            recording = nil
            prepared = await frontend.prepare(controller: controller, locals: locals, endQuestion: endQuestion)
        }
        // The frontend's signal watcher stops when it returns, before the last
        // save: this one holds SIGINT/SIGTERM/SIGHUP from then until the record is
        // written, so no signal kills the process by its default action meanwhile.
        let lastSave = LastSaveGuard()
        defer { lastSave.release() }
        do { try await controller.start() } catch { throw CommandFailure("could not start the match: \(error)", exitCode: .internalError) }
        var exit = await prepared.run()
        lastSave.frontendReturned()
        var leftForNow = false
        var peersTold = false
        switch exit {
        case .terminalLost, .interrupted, .inputEnded:
            // A spectator (nothing recorded here) has no seat to leave for now, and nothing to resume.
            if recorder != nil, await !controller.isStopped {
                peersTold = await link?.leaveForNow("leaving, may resume") ?? false
                await recorder?.markInterrupted()
                leftForNow = true
            }
        case .ended, .failed, .left:
            break
        }
        // The recorder's stream ends when the controller stops: let it write the final state.
        if await controller.isStopped { await recording?.value } else { recording?.cancel() }
        let unsaved = recorder?.problems.last
        if let unsaved { Console.writeError("parlor: the match could not be saved: \(unsaved)\n") }
        // A signal after the end, while it was being saved: stop now, as asked, with the end on disk.
        if case .ended(let state) = exit, let signal = lastSave.release() { exit = .interrupted(signal: signal, state) }
        switch exit {
        case .interrupted, .inputEnded: if leftForNow {
                // Only peers the GOODBYE reached were told; one whose link was down (a host that
                // stopped, a guest away) hears nothing, and the message does not say otherwise.
                Ending.leftForNow(exit, peer: peersTold ? Ending.peers(exit.state, locals: locals) : nil,
                                  unsaved: unsaved.map { "\($0)" }, json: isJSON)
            }
        default: break  // a lost terminal shows nothing more
        }
        return exit
    }
}

extension BotLevelChoice {
    /// The Bots module's level.
    var level: BotLevel {
        switch self {
        case .easy: .easy
        case .medium: .medium
        case .hard: .hard
        }
    }

    /// "Easy bot", "Medium bot", "Hard bot".
    var playerName: String { level.playerName }
}

/// A bot participant's strategy from the Bots module, seeded for reproducibility.
func botStrategy(_ level: BotLevelChoice, seed: UInt64) -> BotParticipant.TimedStrategy {
    Bot(level: level.level, seed: seed).timedStrategy()
}

/// The hint key's answers: the `hard` bot's move (Connect Four: the exact
/// solver's), from one bot per process, so its tables are made once.
enum Hints {
    static let source: FullScreenFrontend.HintSource = {
        let bot = Mutex(Bot(level: .hard, seed: 0))
        return { game, shouldStop in bot.withLock { $0.chooseMove(in: game, shouldStop: shouldStop) } }
    }()
}

/// Where this user's parlor data lives (from the environment): the one
/// store every command uses, and the stable player id kept beside it.
enum LocalData {
    /// Says that the record of match `id`, which never started, could not be removed.
    @Sendable static func sayNotRemoved(_ id: MatchID, _ error: any Error) {
        Console.writeError("parlor: could not remove the record of match \(id.short), which never started: \(error)\n")
    }

    static var matchStore: MatchStore {
        MatchStore(directory: MatchStore.defaultDirectory(environment: ProcessInfo.processInfo.environment))
    }
    static var directory: String { MatchStore.dataDirectory(environment: ProcessInfo.processInfo.environment) }
    static var playerID: PlayerID { PlayerIdentity.load(directory: directory) }

    /// The store, once it is known that matches can be saved in it: a command
    /// that starts a match (play, host, join) refuses before the match begins,
    /// exit 74, rather than play one that `parlor resume` could never find.
    static func writableMatchStore() throws -> MatchStore {
        let store = matchStore
        do { try store.checkWritable() } catch {
            throw CommandFailure("matches cannot be saved here: \(error)", exitCode: .ioError)
        }
        return store
    }
}

extension FrontendExit {
    /// The process's exit status for how the match ended: the one place that
    /// decides it (man/parlor.1, EXIT STATUS).
    var exitCode: ExitCode {
        switch self {
        case .ended, .left: .success
        case .failed(let failure, _): failure.isResumable ? .temporaryFailure : .failure
        case .inputEnded: .temporaryFailure
        case .terminalLost: .hangUp
        case .interrupted(let signal, _): ExitCode(endedBy: signal)
        }
    }
}

/// A random seed when none was given.
func freshSeed() -> UInt64 { UInt64.random(in: 0...UInt64.max) }
