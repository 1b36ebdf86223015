import Bots
import Games
import Match
import Synchronization

/// Builders of match states for tests.
public enum MatchFixtures {
    /// A fresh two-seat match of `gameID` between "Ana" (seat 0) and "Ben" (seat 1).
    public static func newMatch(_ gameID: String = "connect4", turnTimeout: UInt32 = 0, now: Int64 = 0,
                                seed: UInt64 = 1) -> MatchState {
        var generator = SplitMix64(seed: seed)
        let game = GameCatalog.newGame(id: gameID)!
        let seats = [Seat(playerID: .random(using: &generator), name: "Ana"),
                     Seat(playerID: .random(using: &generator), name: "Ben")]
        return MatchState(matchID: .random(using: &generator), game: game, seats: seats,
                          turnTimeout: turnTimeout, now: now)
    }

    /// `state` after the given raw moves, each by the seat whose turn it is.
    public static func after(_ moves: [Int], in state: MatchState, now: Int64 = 1) throws -> MatchState {
        var state = state
        for raw in moves {
            guard let seat = state.activeSeat else { break }
            state = try state.applying(.move(Move(raw), by: seat), now: now)
        }
        return state
    }
}

/// How a `ScriptedParticipant` answers a delivery.
public enum DeliveryScript: Sendable {
    case accept
    case reject(String)
    case failTransport(String)
    /// Accepts after a delay (a late confirmation when longer than the timeout).
    case acceptAfter(Duration)
    /// Never answers until cancelled.
    case hang
}

/// A participant that records what the controller tells it and answers deliveries from a script.
public final class ScriptedParticipant: Participant {
    public struct Record: Sendable {
        public var turnsBegun = 0
        public var delivered: [MatchChange] = []
        public var deliveriesCompleted = 0
        public var ended: MatchState?
        public var failure: MatchFailure?
        public var events: [String] = []
    }

    public let playerID: PlayerID
    public let isAuthority: Bool
    private let script: Mutex<[DeliveryScript]>
    private let record = Mutex(Record())
    private let controllerBox = Mutex<MatchController?>(nil)

    /// `script` is consumed one entry per delivery; when empty, deliveries are accepted.
    public init(playerID: PlayerID, isAuthority: Bool = false, script: [DeliveryScript] = []) {
        self.playerID = playerID
        self.isAuthority = isAuthority
        self.script = Mutex(script)
    }

    public var snapshot: Record { record.withLock { $0 } }
    public var controller: MatchController? { controllerBox.withLock { $0 } }

    public func attach(to controller: MatchController) { controllerBox.withLock { $0 = controller } }
    public func turnBegan(_ state: MatchState) { record.withLock { $0.turnsBegun += 1 } }

    public func deliver(_ change: MatchChange, resulting state: MatchState) async throws {
        record.withLock { $0.delivered.append(change) }
        let next = script.withLock { $0.isEmpty ? DeliveryScript.accept : $0.removeFirst() }
        switch next {
        case .accept: break
        case .reject(let why): throw DeliveryError.rejected(why)
        case .failTransport(let why): throw DeliveryError.transportFailed(why)
        case .acceptAfter(let delay):
            // Deliberately ignores cancellation: a late answer must still arrive.
            let clock = ContinuousClock()
            let end = clock.now + delay
            while clock.now < end { try? await Task.sleep(for: .milliseconds(5)) }
        case .hang:
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        }
        record.withLock { $0.deliveriesCompleted += 1 }
    }

    public func stateChanged(_ state: MatchState, event: MatchEvent) {
        record.withLock { $0.events.append("\(event)".prefix(while: { $0 != "(" }).description) }
    }

    public func matchEnded(_ state: MatchState, failure: MatchFailure?) {
        record.withLock { $0.ended = state; $0.failure = failure }
    }

    /// Plays `move` for this participant's seat.
    public func play(_ move: Int) async -> SubmitResult {
        guard let controller else { return .rejected(.matchOver) }
        guard let seat = await controller.state.seat(of: playerID) else { return .rejected(.notAParticipant) }
        return await controller.submit(.move(Move(move), by: seat), from: self)
    }

    /// Submits any change as this participant.
    public func submit(_ change: MatchChange, authoritative: MatchState? = nil) async -> SubmitResult {
        guard let controller else { return .rejected(.matchOver) }
        return await controller.submit(change, from: self, authoritative: authoritative)
    }
}

/// A bot strategy for tests: the first legal move, or a seeded random one.
public func firstLegalMove(_ game: any Game, _ shouldStop: @Sendable () -> Bool) -> Move? { game.legalMoves.first }

/// A seeded random strategy for tests.
public func randomStrategy(seed: UInt64) -> BotParticipant.Strategy {
    let generator = Mutex(SplitMix64(seed: seed))
    return { game, _ in generator.withLock { game.legalMoves.randomElement(using: &$0) } }
}
