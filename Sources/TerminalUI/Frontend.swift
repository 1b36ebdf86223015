#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Games
import Match

/// How a frontend's run ended. Every case carries the last committed state so
/// the caller can print it, save it, or tell a peer.
public enum FrontendExit: Sendable {
    /// The match ended (a win, a draw, or a seat quit — including ours via `q` then `y`, or `/quit`).
    case ended(MatchState)
    /// The match stopped on this side because of a failure.
    case failed(MatchFailure, MatchState)
    /// The terminal went away (SIGHUP, EIO: an SSH disconnect). Nothing was
    /// quit; the match is still resumable. Draw nothing more.
    case terminalLost(MatchState)
    /// A signal ended the run (Ctrl-C, SIGINT, SIGTERM). Nothing was quit:
    /// this side leaves for now and the match stays resumable.
    case interrupted(signal: Int32, MatchState)
    /// Input ended (plain or JSON mode) when a local seat had to move with no
    /// line left. Nothing was quit: this side leaves for now, as with Ctrl-C.
    case inputEnded(MatchState)
    /// The player left a match that goes on without them (a spectator of a
    /// bot match pressed q); the caller decides whether to stop the controller.
    case left(MatchState)

    /// The last committed state.
    public var state: MatchState {
        switch self {
        case .ended(let state), .failed(_, let state), .terminalLost(let state),
             .interrupted(_, let state), .inputEnded(let state), .left(let state): state
        }
    }
}

/// A frontend subscribed to a controller's events, ready to run.
///
/// Obtained from `MatchFrontend.prepare`, which subscribes before the caller
/// starts the controller so that no event (not even `started`) is missed.
public struct PreparedMatch: Sendable {
    private let body: @Sendable () async -> FrontendExit

    init(_ body: @escaping @Sendable () async -> FrontendExit) { self.body = body }

    /// Runs until the match stops or the player leaves; returns how it ended.
    /// The terminal is restored before this returns, whatever happened.
    public func run() async -> FrontendExit { await body() }
}

/// A way to show a match and take the local players' input: full screen, plain text, JSON lines.
///
/// Usage, in this order:
/// ```swift
/// let prepared = await frontend.prepare(controller: controller, locals: locals)
/// try await controller.start()
/// let exit = await prepared.run()
/// ```
/// or `try await frontend.play(controller:locals:)` which does the three steps.
/// Local seats are the seats whose player id matches one of `locals`
/// (two in hot-seat play, none when bots play each other).
public protocol MatchFrontend: Sendable {
    /// Prepares to show `events`, asking `endQuestion` on the final board
    /// when this frontend can take a one-key answer there (full screen;
    /// others leave `endQuestion.answer` nil). `events` are `controller`'s,
    /// fed from before `controller.start()`: straight from the controller
    /// (`MatchEventFeed.of(_:)`), or handed on by the side's recorder once each
    /// is saved (Store's `MatchRecorder.follow(_:showing:)`, what a match that
    /// is kept on disk uses). A line or full-screen frontend takes each event
    /// into its loop on the thread that hands it on: no task between.
    func prepare(controller: MatchController, locals: [LocalParticipant], endQuestion: EndQuestion?,
                 events: MatchEventFeed) async -> PreparedMatch
}

extension MatchFrontend {
    /// Subscribes to `controller`'s events and prepares to show them as they come. Call before `controller.start()`.
    public func prepare(controller: MatchController, locals: [LocalParticipant]) async -> PreparedMatch {
        await prepare(controller: controller, locals: locals, endQuestion: nil)
    }

    /// As `prepare(controller:locals:)`, asking `endQuestion` on the final board.
    public func prepare(controller: MatchController, locals: [LocalParticipant], endQuestion: EndQuestion?) async -> PreparedMatch {
        await prepare(controller: controller, locals: locals, endQuestion: endQuestion, events: await MatchEventFeed.of(controller))
    }

    /// Prepares, starts the controller, and runs to the end.
    /// Throws only if the controller refuses to start (a seat without exactly one participant).
    public func play(controller: MatchController, locals: [LocalParticipant]) async throws(SubmitRejection) -> FrontendExit {
        let prepared = await prepare(controller: controller, locals: locals)
        try await controller.start()
        return await prepared.run()
    }
}

/// Everything a frontend's loop reacts to, merged into one stream.
enum FrontendEvent: Sendable {
    case match(MatchEvent)
    /// The controller's event stream finished.
    case matchStreamEnded
    case input(InputEvent)
    case signal(Int32)
    case resize
    case tick
    /// A local submission (`play` or `quit`) came back.
    case submitted(SubmitResult, quitting: Bool)
    /// The end question got a note from the other side.
    case endQuestionChanged
    /// The hint key's answer for the position at `sequence` (full screen only).
    case hint(Move?, sequence: UInt32)
}

/// Which participant plays which seat, from the state's player ids.
struct LocalSeats: Sendable {
    /// The seats whose moves are typed here.
    let participants: [SeatIndex: LocalParticipant]
    /// Every seat played from here, a bot's too: what `/quit` and `/say` speak for.
    let voices: [SeatIndex: LocalParticipant]

    init(state: MatchState, locals: [LocalParticipant]) {
        var map: [SeatIndex: LocalParticipant] = [:]
        for local in locals {
            if let seat = state.seat(of: local.playerID) { map[seat] = local }
        }
        voices = map
        participants = map.filter { $0.value.playsFromInput }
    }

    var seats: Set<SeatIndex> { Set(participants.keys) }
    var voicedSeats: Set<SeatIndex> { Set(voices.keys) }
}

/// The shared shell of the three frontends: one merged event stream, the
/// submissions run as tasks so the loop keeps going while a move awaits confirmation.
final class EventHub: Sendable {
    let stream: AsyncStream<FrontendEvent>
    let continuation: AsyncStream<FrontendEvent>.Continuation

    init() {
        (stream, continuation) = AsyncStream<FrontendEvent>.makeStream(bufferingPolicy: .unbounded)
    }

    func send(_ event: FrontendEvent) { continuation.yield(event) }

    /// Takes the match's events into the merged stream as they come, on the
    /// producer's thread (no task between), then `.matchStreamEnded`.
    func forward(_ events: MatchEventFeed) {
        events.connect { [continuation] event in
            continuation.yield(event.map(FrontendEvent.match) ?? .matchStreamEnded)
        }
    }

    /// Yields `.tick` every `interval` until cancelled.
    func ticking(every interval: Duration) -> Task<Void, Never> {
        Task { [continuation] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                continuation.yield(.tick)
            }
        }
    }

    /// Plays (with `message`, if any) or quits for `participant` on a task of its own; the result comes back as `.submitted`.
    func submit(_ participant: LocalParticipant, move: Move?, message: TurnMessage? = nil) {
        Task { [continuation] in
            if let move {
                continuation.yield(.submitted(await participant.play(move, message: message), quitting: false))
            } else {
                continuation.yield(.submitted(await participant.quit(), quitting: true))
            }
        }
    }

    func finish() { continuation.finish() }
}
