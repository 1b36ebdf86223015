import Games
import Match
import Secure
import Session
import Store

/// One seat of a match as a player of the game sees it: GameKit's
/// `GKTurnBasedParticipant`.
public struct TurnBasedParticipant: Sendable, Hashable, CustomStringConvertible {
    /// The seat, 0-based, in the game's order of play.
    public let seat: SeatIndex
    /// The player's id, the same on every side for the whole match.
    public let playerID: PlayerID
    /// The player's name as it was given when the seat was taken.
    public let name: String
    /// Playing, left (quit or timed out while the others play on), or done.
    public let status: SeatStatus
    /// How the seat ended: none while it plays, then won, lost, tied, quit or timeExpired.
    public let outcome: Outcome
    /// Whether this is the seat of the player on this side of the match.
    public let isLocal: Bool
    /// The player's proved identity key (an encrypted match, protocol 3); nil
    /// for the local player, a clear match, and the seats of a table's other
    /// guests, whose keys only the host has.
    public let key: PlayerPublicKey?

    /// The name and the seat counted from 1, for a sentence: "Ana (seat 1)".
    public var description: String { "\(name) (seat \(seat + 1))" }
}

/// What happens in a match, in the order it happened: GameKit's turn-based
/// event listener (`player(_:receivedTurnEventFor:didBecomeActive:)`,
/// `player(_:matchEnded:)`, `player(_:wantsToQuitMatch:)`) as one stream.
public enum TurnBasedEvent<G: Game>: Sendable {
    /// It is `participant`'s turn; `participant.isLocal` says it is yours.
    case turnBegan(TurnBasedParticipant, G)
    /// A change was committed (saved by the host, confirmed to the side that
    /// made it): `participant` played `move`, with the `message` they sent
    /// with it (GameKit's `match.message`), or left (`move` nil: quit or timed
    /// out, `participant.outcome` says which).
    case turnEnded(by: TurnBasedParticipant, move: Move?, message: String?, G)
    /// A remote player went away (its connection broke); it may come back within `graceLeft`.
    case away(TurnBasedParticipant, graceLeft: Duration)
    /// A remote player that was away is back.
    case back(TurnBasedParticipant)
    /// A line of table talk.
    case talk(TalkLine)
    /// The match ended; every participant carries its outcome.
    case ended([TurnBasedParticipant], G)
    /// The match stopped before its end (the other side stayed away past its
    /// grace, a save failed, the sides disagreed); `reason` says why in a sentence.
    case stopped(reason: String, G)
}

/// Why `endTurn(with:)` or `quit()` did not change the match.
public enum TurnBasedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rules, the turn or the host refused the change; the match is unchanged.
    case refused(String)
    /// The match has ended or stopped.
    case matchOver

    /// The sentence to show, in lower case: "refused: it is not your turn"
    /// (the reason after "refused: "), or "the match is over".
    public var description: String {
        switch self {
        case .refused(let why): "refused: \(why)"
        case .matchOver: "the match is over"
        }
    }
}

/// A match of the game `G` on the LAN, from one player's side: GameKit's
/// `GKTurnBasedMatch` for a game that does not live in parlor.
///
/// Made by `TurnBasedLAN`: `host(...)` then `waitForMatch()` on the host,
/// `join(...)` on a guest. It has started when you get it. Follow `events`
/// (one reader), play with `endTurn(with:)` when it is your turn, `quit()`
/// at any time, and `leave()` once the match is over.
///
/// The host is the authoritative turn holder: it validates, sequences and
/// saves every change, and its state wins. A change you make is committed
/// once the host has it (`endTurn` returns then); its `turnEnded` event
/// comes in the same order on both sides.
public final class TurnBasedMatch<G: Game>: Sendable {
    /// The controller that runs the match on this side, for what the front door does not cover.
    public let controller: MatchController
    /// The seat of the player on this side.
    public let localSeat: SeatIndex
    /// What happens in the match, from the start, for one reader.
    public let events: AsyncStream<TurnBasedEvent<G>>

    private let local: LocalParticipant
    private let side: Side
    /// Saving this side's match, when it has a store: done once the final state is on disk.
    private let recording: Task<Void, Never>?
    /// How this side starts each match of its series (the next one: `rematch`).
    private let series: TurnBasedSeries<G>
    /// Lets the host's port go, once this side leaves.
    private var onLeave: (@Sendable () async -> Void)? { series.onLeave }

    /// The session under the match: the host's guests or the guest's host.
    enum Side: Sendable {
        case host(HostedMatch)
        case guest(JoinedMatch)
    }

    /// Subscribes to the controller's events, then starts it. With a
    /// `recorder`, every event comes after the save that makes it durable.
    init(side: Side, controller: MatchController, local: LocalParticipant, localSeat: SeatIndex,
         recorder: MatchRecorder?, series: TurnBasedSeries<G>) async throws {
        self.series = series
        self.side = side
        self.controller = controller
        self.local = local
        self.localSeat = localSeat
        let keys = Self.keys(of: side)
        let raw: AsyncStream<MatchEvent>
        if let recorder {
            let shown = MatchEventFeed()
            recording = await recorder.follow(controller, showing: shown)
            raw = shown.stream
        } else {
            recording = nil
            raw = await controller.events()
        }
        self.events = TurnBasedView<G>.events(from: raw, first: await controller.state, localSeat: localSeat, keys: keys)
        // A seat a bot or a strategy plays: its voice is not asked for moves, so the controller does not know it.
        if !local.playsFromInput { local.attach(to: controller) }
        try await controller.start()
    }

    // MARK: The match now

    /// The game as it stands: typed, no cast needed.
    public var game: G {
        get async { TurnBasedView<G>.game(of: await controller.state) }
    }

    /// The whole committed match (seats, history, turn deadline).
    public var state: MatchState {
        get async { await controller.state }
    }

    /// The match as bytes (the versioned match blob of docs/PROTOCOL.md
    /// section 5): GameKit's `matchData`, what both sides saved.
    public var matchData: [UInt8] {
        get async { MatchBlob.encode(await controller.state) }
    }

    /// Every seat, in the order of play.
    public var participants: [TurnBasedParticipant] {
        get async { TurnBasedView<G>.participants(of: await controller.state, localSeat: localSeat, keys: Self.keys(of: side)) }
    }

    /// Whose turn it is; nil once the match is over.
    public var currentParticipant: TurnBasedParticipant? {
        get async {
            let state = await controller.state
            guard let active = state.activeSeat else { return nil }
            return TurnBasedView<G>.participants(of: state, localSeat: localSeat, keys: Self.keys(of: side))[active]
        }
    }

    /// The participant on this side.
    public var localParticipant: TurnBasedParticipant {
        get async { await participants[localSeat] }
    }

    /// Whether the match has ended (every seat done).
    public var isOver: Bool {
        get async { await controller.state.isEnded }
    }

    // MARK: Playing

    /// Plays `move` for the local player and ends the turn: GameKit's
    /// `endTurn(withNextParticipants:turnTimeout:match:)`; the game's rules
    /// say who is next. Returns once the change is committed. `message`
    /// (GameKit's `match.message`: "Your move, Bo") goes with the move and is
    /// saved with it: 1 to `TurnMessage.maximumBytes` bytes of UTF-8 with no
    /// control characters, refused whole otherwise; a peer too old to read
    /// messages gets none, and the move is refused with a sentence saying so.
    /// - Throws: `TurnBasedError.refused` (not your turn, an illegal move, the
    ///   host refused it, a seat `TurnBasedPlayer.bot` or `.strategy` plays;
    ///   the match is unchanged), `.matchOver`.
    public func endTurn(with move: Move, message: String? = nil) async throws(TurnBasedError) {
        guard local.playsFromInput else { throw .refused("this seat is played by parlor (a bot or a strategy), not by endTurn") }
        var said: TurnMessage?
        if let message {
            do { said = try TurnMessage(message) } catch { throw .refused("\(error)") }
        }
        try Self.check(await local.play(move, message: said))
    }

    /// Plays `value` (a move of a game of `Codable` moves) as `endTurn(with:message:)`
    /// does; a value longer than the game's `moveByteLimit` when encoded is
    /// refused here, before anything is sent.
    /// - Throws: `TurnBasedError.refused` (the value does not fit, or
    ///   `endTurn(with:message:)`'s reasons), `.matchOver`.
    public func endTurn(with value: G.MoveValue, message: String? = nil) async throws(TurnBasedError) where G: CodableMoveGame {
        let move: Move
        do { move = try G.move(value) } catch { throw .refused(error.description) }
        try await endTurn(with: move, message: message)
    }

    /// Leaves the match for good, in turn or out of turn: GameKit's
    /// `participantQuitInTurn` and `participantQuitOutOfTurn`. In a two-seat
    /// match the other player wins; at a table the others play on.
    public func quit() async throws(TurnBasedError) {
        try Self.check(await local.quit())
    }

    /// After a normal end, agrees on another match with the other side:
    /// GameKit's `rematch`. Both sides call it (`wants: false` declines);
    /// once both want one, the new match starts over the same connection,
    /// seats swapped, saved as the first was, and is returned. nil: no
    /// rematch (declined, the other side left, or no answer within
    /// `answerTimeout`). Needs `rematches: true` when the match was made,
    /// and two seats.
    /// - Throws: `TurnBasedError.refused` when the match is not over, or was
    ///   not made for rematches.
    public func rematch(wants: Bool = true, answerTimeout: Duration = .seconds(120)) async throws -> TurnBasedMatch<G>? {
        guard series.rematches else { throw TurnBasedError.refused("this match was made without rematches: true") }
        guard await controller.state.isEnded else { throw TurnBasedError.refused("the match is not over") }
        // The end is on disk before the other side hears this side's answer.
        await recording?.value
        switch side {
        case .host(let hosted):
            guard let host = series.host,
                  case .newMatch(let next) = await host.rematch(after: hosted, wants: wants, answerTimeout: answerTimeout) else {
                await onLeave?()
                return nil
            }
            return try await series.hostMatch(next)
        case .guest(let joined):
            guard case .newMatch(let next) = await Guest.rematch(after: joined, wants: wants, answerTimeout: answerTimeout) else {
                return nil
            }
            return try await series.guestMatch(next)
        }
    }

    /// Leaves the match for now without quitting it: the other side hears
    /// that this one is away, the match stops here as interrupted (saved so,
    /// with a store), and `TurnBasedLAN.resume` takes it back up later, on
    /// either side, within the host's grace period.
    public func leaveForNow() async {
        guard await !controller.isStopped else { return }
        switch side {
        case .host(let hosted):
            for guest in hosted.guests { await guest.leaveForNow() }
        case .guest(let joined):
            await joined.remote.leaveForNow()
        }
        await controller.fail(.connectionLost("this side left for now"))
        await recording?.value
        await onLeave?()
    }

    /// Waits until the match has ended or stopped (and, with a store, its
    /// final state is on disk) and returns the final game.
    public func finished() async -> G {
        let final = await controller.finished()
        await recording?.value
        return TurnBasedView<G>.game(of: final)
    }

    /// After the end: waits (up to `limit`) until the other side has the
    /// final state, then lets the connection (and the host's port) go.
    /// Leaving at once could cost the other side its view of the last move
    /// (docs/LIBRARY.md, the participant contract's third rule).
    public func leave(within limit: Duration = .seconds(5)) async {
        // A match kept open for a rematch is answered no, so the other side need not wait for one.
        if series.rematches, await controller.state.isEnded {
            _ = try? await rematch(wants: false, answerTimeout: limit)
        }
        switch side {
        case .host(let hosted):
            for guest in hosted.guests { _ = await guest.waitForFinalDelivery(within: limit) }
        case .guest:
            break  // the guest acknowledges the end as soon as it has it
        }
        await onLeave?()
    }

    // MARK: Translation, decided here once

    private static func check(_ result: SubmitResult) throws(TurnBasedError) {
        switch result {
        case .committed: return
        case .rejected(let rejection):
            if case .matchOver = rejection { throw .matchOver }
            throw .refused("\(rejection)")
        case .rolledBack(let reason): throw .refused("\(reason)")
        }
    }

    private static func keys(of side: Side) -> [SeatIndex: PlayerPublicKey] {
        switch side {
        case .host(let hosted):
            var keys: [SeatIndex: PlayerPublicKey] = [:]
            for guest in hosted.guests { keys[guest.seat] = guest.peerKey }
            return keys
        case .guest(let joined):
            return joined.remote.peerKey.map { [joined.remote.hostSeat: $0] } ?? [:]
        }
    }
}

/// What a match looks like to the front door's types, decided once: the typed
/// game, the seats as participants, and the controller's events as turn-based events.
enum TurnBasedView<G: Game> {
    /// The game of a state of this match: a state of another game never reaches a match of `G`.
    static func game(of state: MatchState) -> G {
        guard let game = state.game(as: G.self) else {
            preconditionFailure("a match of \(G.self) holds a match of \(state.gameID)")
        }
        return game
    }

    /// Every seat of `state`; `localSeat` is this side's (nil: a spectator's view).
    static func participants(of state: MatchState, localSeat: SeatIndex?,
                             keys: [SeatIndex: PlayerPublicKey]) -> [TurnBasedParticipant] {
        state.seats.indices.map { seat in
            let seated = state.seats[seat]
            return TurnBasedParticipant(seat: seat, playerID: seated.playerID, name: seated.name, status: seated.status,
                                        outcome: seated.outcome, isLocal: seat == localSeat, key: keys[seat])
        }
    }

    /// `raw` translated, in order, for one reader; `first` is the state before its first event.
    static func events(from raw: AsyncStream<MatchEvent>, first: MatchState, localSeat: SeatIndex?,
                       keys: [SeatIndex: PlayerPublicKey]) -> AsyncStream<TurnBasedEvent<G>> {
        let (events, continuation) = AsyncStream<TurnBasedEvent<G>>.makeStream(bufferingPolicy: .unbounded)
        let translator = Task {
            // A presence event carries no state: its seat is read from the last one seen.
            var last = first
            for await event in raw {
                let before = last
                if let state = event.state { last = state }
                guard let translated = translate(event, before: before, localSeat: localSeat, keys: keys) else { continue }
                continuation.yield(translated)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in translator.cancel() }
        return events
    }

    /// One event, `before` being the state before it.
    private static func translate(_ event: MatchEvent, before: MatchState, localSeat: SeatIndex?,
                                  keys: [SeatIndex: PlayerPublicKey]) -> TurnBasedEvent<G>? {
        func seated(_ state: MatchState) -> [TurnBasedParticipant] {
            participants(of: state, localSeat: localSeat, keys: keys)
        }
        switch event {
        case .turnBegan(let seat, let state):
            return .turnBegan(seated(state)[seat], game(of: state))
        case .committed(let change, let state):
            guard case .move(let move, _, let message) = change else {
                return .turnEnded(by: seated(state)[change.seat], move: nil, message: nil, game(of: state))
            }
            return .turnEnded(by: seated(state)[change.seat], move: move, message: message?.text, game(of: state))
        case .adopted(let state):
            // A spectator's copy (and a side put right by the host) takes the host's whole state: one change on is a turn ended.
            guard state.matchID == before.matchID, state.sequence == before.sequence + 1 else { return nil }
            if state.moves.count == before.moves.count + 1, let played = state.moves.last {
                return .turnEnded(by: seated(state)[played.seat], move: played.move, message: played.message?.text, game(of: state))
            }
            guard let left = state.seats.indices.first(where: { state.seats[$0].outcome != before.seats[$0].outcome
                && [.quit, .timeExpired].contains(state.seats[$0].outcome) }) else { return nil }
            return .turnEnded(by: seated(state)[left], move: nil, message: nil, game(of: state))
        case .presence(let seat, let away, let graceLeft):
            let participant = seated(before)[seat]
            return away ? .away(participant, graceLeft: graceLeft) : .back(participant)
        case .talk(let line):
            return .talk(line)
        case .ended(let state):
            return .ended(seated(state), game(of: state))
        case .failed(let failure, let state):
            return .stopped(reason: "\(failure)", game(of: state))
        case .started, .awaitingConfirmation, .rolledBack, .notice, .talkRefused, .standIn:
            return nil
        }
    }
}
