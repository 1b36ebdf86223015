import Games
import Match
import Synchronization

/// Why there is no rematch.
public enum RematchEnd: Error, Hashable, Sendable {
    /// This side said no.
    case weDeclined
    /// The other side said no.
    case peerDeclined
    /// The other side closed (GOODBYE, or the connection went away) without a rematch.
    case peerLeft
    /// This side offered and no answer came in time.
    case noAnswer
    /// The other side sent something that is not part of the conversation.
    case protocolError(String)
    /// The connection did not stay open after the match (the peer was away at the end).
    case notConnected
    /// Both wanted one, but the host could not save the new match, so it was not started (the reason).
    case cannotSave(String)
}

/// The after-match conversation as a pure state machine (docs/PROTOCOL.md,
/// "Rematch"). Each side says once whether it wants a rematch; the first
/// "yes" goes out as an offer, the second as an accept; two offers that
/// cross count as agreement. A "no" is a decline (when there was an offer
/// to answer) and then GOODBYE(matchOver).
public struct RematchNegotiation: Hashable, Sendable {
    /// Where the conversation stands.
    public enum State: Hashable, Sendable {
        /// Nobody has said anything.
        case undecided
        /// This side offered; waiting for the answer.
        case offered
        /// The other side offered; this side has not answered.
        case peerOffered
        /// Both want a rematch.
        case agreed
        /// No rematch.
        case over(RematchEnd)
    }

    /// What the shell must do.
    public enum Action: Hashable, Sendable {
        /// Send REMATCH with this word.
        case send(RematchWord)
        /// Send GOODBYE(matchOver) with the final state and close.
        case closeWithGoodbye
        /// Both want a rematch: the host sends WELCOME for the new match, the guest waits for it.
        case agreed
        /// No rematch, for this reason.
        case over(RematchEnd)
    }

    /// The current state.
    public private(set) var state: State = .undecided

    /// A conversation that has not started.
    public init() {}

    /// Whether the other side has offered and is waiting for this side's answer.
    public var peerHasOffered: Bool { state == .peerOffered }

    /// This side's decision.
    public mutating func local(wants: Bool) -> [Action] {
        switch (state, wants) {
        case (.undecided, true):
            state = .offered
            return [.send(.offer)]
        case (.peerOffered, true):
            state = .agreed
            return [.send(.accept), .agreed]
        case (.undecided, false):
            state = .over(.weDeclined)
            return [.closeWithGoodbye, .over(.weDeclined)]
        case (.peerOffered, false):
            state = .over(.weDeclined)
            return [.send(.decline), .closeWithGoodbye, .over(.weDeclined)]
        case (.offered, _), (.agreed, _), (.over, _):
            return []
        }
    }

    /// A REMATCH from the other side.
    public mutating func peer(_ word: RematchWord) -> [Action] {
        switch (state, word) {
        case (.undecided, .offer):
            state = .peerOffered
            return []
        case (.offered, .offer), (.offered, .accept):
            // Two offers crossing on the wire are an agreement.
            state = .agreed
            return [.agreed]
        case (.offered, .decline):
            state = .over(.peerDeclined)
            return [.closeWithGoodbye, .over(.peerDeclined)]
        case (.over, _):
            return []
        default:
            let why = "REMATCH \(word) does not fit here"
            state = .over(.protocolError(why))
            return [.closeWithGoodbye, .over(.protocolError(why))]
        }
    }

    /// The other side said GOODBYE or the connection closed. A
    /// GOODBYE(matchOver) (`answering`) is its "no" (docs/PROTOCOL.md,
    /// section 11), so the player reads that it does not want a rematch, and
    /// it is answered in kind: that is how a host learns that the end of the
    /// match reached this side (docs/PROTOCOL.md, "Endings"). Any other
    /// GOODBYE or a closed connection: the other side left.
    public mutating func peerLeft(answering goodbye: Bool = false) -> [Action] {
        switch state {
        case .over, .agreed:
            return []
        default:
            let end: RematchEnd = goodbye ? .peerDeclined : .peerLeft
            state = .over(end)
            return (goodbye ? [.closeWithGoodbye] : []) + [.over(end)]
        }
    }

    /// The other side sent something that has no place after the match.
    public mutating func peerBroke(_ why: String) -> [Action] {
        switch state {
        case .over, .agreed:
            return []
        default:
            state = .over(.protocolError(why))
            return [.closeWithGoodbye, .over(.protocolError(why))]
        }
    }

    /// This side offered and gave up waiting.
    public mutating func timedOut() -> [Action] {
        guard state == .offered else { return [] }
        state = .over(.noAnswer)
        return [.closeWithGoodbye, .over(.noAnswer)]
    }
}

/// The shell of one after-match conversation on a connection that stayed
/// open after a match ended normally. The participant that owned the
/// connection hands it every message; `decide` runs the conversation.
final class AfterMatch: Sendable {
    private struct State {
        var machine = RematchNegotiation()
        var waiter: CheckedContinuation<Result<Void, RematchEnd>, Never>?
        var outcome: Result<Void, RematchEnd>?
        /// Disarms the wait for the other side's answer (an alarm on the event loop).
        var timer: (@Sendable () -> Void)?
        /// Guest side: builds the new match from the host's WELCOME, inside the handler.
        var onWelcome: (@Sendable (Welcome) -> Void)?
        var welcomeSeen = false
    }

    let connection: WireConnection
    let finalState: MatchState
    private let state = Mutex(State())
    /// Where each step's news goes (the link's, so it outlives this conversation's start).
    private let news: RematchNewsFeed

    init(connection: WireConnection, finalState: MatchState, news: RematchNewsFeed) {
        self.connection = connection
        self.finalState = finalState
        self.news = news
    }

    /// Whether the other side has offered a rematch that this side has not answered.
    var peerHasOffered: Bool { state.withLock { $0.machine.peerHasOffered } }

    /// Why there can be no rematch any more (the peer left, declined, broke
    /// the protocol), or nil while one is still possible.
    var settledEnd: RematchEnd? {
        state.withLock { state in
            if case .failure(let end)? = state.outcome { end } else { nil }
        }
    }

    /// What arrived after the end, in order.
    func handle(_ inbound: Inbound) {
        switch inbound {
        case .message(.rematch(let word)):
            run { $0.machine.peer(word) }
        case .message(.welcome(let welcome)):
            let handler = state.withLock { state -> (@Sendable (Welcome) -> Void)? in
                guard state.machine.state == .agreed, !state.welcomeSeen else { return nil }
                state.welcomeSeen = true
                return state.onWelcome
            }
            handler?(welcome)
        case .message(.heartbeat):
            break
        case .message(.goodbye(.goodbyeMatchOver, _, _)):
            run { $0.machine.peerLeft(answering: true) }
        case .message(.goodbye), .closed:
            run { $0.machine.peerLeft() }
        case .message(let other):
            run { $0.machine.peerBroke("\(other.type) after the match") }
        case .frameError(let error):
            run { $0.machine.peerBroke("\(error)") }
        case .messageError(let error):
            run { $0.machine.peerBroke("\(error)") }
        }
    }

    /// Says whether this side wants a rematch and waits for the outcome:
    /// success once both agreed (the host then sends WELCOME; on the guest,
    /// `onWelcome` has been called with it by then or will be). After an
    /// offer, waits at most `answerTimeout` for the answer.
    func decide(wants: Bool, answerTimeout: Duration, onWelcome: (@Sendable (Welcome) -> Void)? = nil) async -> Result<Void, RematchEnd> {
        state.withLock { $0.onWelcome = onWelcome }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Void, RematchEnd>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            run { $0.machine.local(wants: wants) }
            let timer = LoopAlarm.after(answerTimeout) { [weak self] in
                self?.run { $0.machine.timedOut() }
            }
            state.withLock { $0.timer = timer }
        }
    }

    /// Applies the machine's actions under the lock, then resumes the waiter outside it.
    private func run(_ step: (inout State) -> [RematchNegotiation.Action]) {
        let (finished, waiter, timer, offered) = state.withLock { state -> (Result<Void, RematchEnd>?, CheckedContinuation<Result<Void, RematchEnd>, Never>?, (@Sendable () -> Void)?, Bool) in
            var finished: Result<Void, RematchEnd>?
            for action in step(&state) {
                switch action {
                case .send(let word):
                    connection.send(.rematch(word))
                case .closeWithGoodbye:
                    connection.send(.goodbye(.goodbyeMatchOver, sentence: "No rematch.", finalBlob: MatchBlob.encode(finalState)))
                    connection.close()
                case .agreed:
                    finished = .success(())
                case .over(let end):
                    finished = .failure(end)
                }
            }
            let offered = state.machine.peerHasOffered
            guard let finished, state.outcome == nil else { return (nil, nil, nil, offered) }
            state.outcome = finished
            defer { state.waiter = nil; state.timer = nil }
            return (finished, state.waiter, state.timer, offered)
        }
        let ruledOut: RematchEnd? = if case .failure(let end)? = finished { end } else { nil }
        news.report(offered: offered, ruledOut: ruledOut)
        timer?()
        if let finished, let waiter { waiter.resume(returning: finished) }
        if case .failure? = finished { connection.close() }
    }
}

extension Optional where Wrapped == AfterMatch {
    /// Whether the other side has offered a rematch that this side has not
    /// answered yet (false without a conversation). Both links (`RemoteHost`,
    /// `RemoteGuest`) answer with this.
    var peerOfferedRematch: Bool { self?.peerHasOffered ?? false }

    /// After the end: why a rematch is already impossible (the peer left,
    /// declined, or the connection was not kept: no conversation), so nobody
    /// is asked in vain; nil while one can still be agreed.
    var rematchRuledOut: RematchEnd? {
        guard let talk = self else { return .notConnected }
        return talk.settledEnd
    }
}

/// A rematch's outcome: the new match, or why there is none.
public enum RematchOutcome<NewMatch: Sendable>: Sendable {
    /// Both agreed: the new match over the same connection, seats swapped.
    case newMatch(NewMatch)
    /// No rematch.
    case over(RematchEnd)
}

extension MatchHost {
    /// After `hosted` ended normally: says whether the host wants a rematch
    /// and, if the guest wants one too, starts it over the same connection
    /// as a new match (a new id and seat token, seats swapped) and sends
    /// WELCOME once the new match is saved (`HostConfiguration.saveBeforeWelcome`;
    /// a failed save ends the series with GOODBYE cannotSave). The guest's `RemoteGuest` must have kept its connection
    /// (`keepConnectionForRematch()` before the end).
    public func rematch(after hosted: HostedMatch, wants: Bool, answerTimeout: Duration = .seconds(120)) async
        -> RematchOutcome<HostedMatch> {
        guard let talk = hosted.remote.afterMatch else {
            return .over(.notConnected)
        }
        switch await talk.decide(wants: wants, answerTimeout: answerTimeout) {
        case .failure(let end):
            return .over(end)
        case .success:
            return await startRematch(after: hosted, on: talk.connection)
        }
    }
}

extension Guest {
    /// After `joined` ended normally: says whether this side wants a rematch
    /// and, when both do, waits for the host's WELCOME of the new match over
    /// the same connection. `joined.remote` must have kept its connection
    /// (`keepConnectionForRematch()` before the end).
    public static func rematch(after joined: JoinedMatch, wants: Bool, answerTimeout: Duration = .seconds(120)) async
        -> RematchOutcome<JoinedMatch> {
        guard let talk = joined.remote.afterMatch else { return .over(.notConnected) }
        // The answer acknowledges the end: it leaves once the end is on disk here.
        await joined.remote.waitForTheEndToBeSaved()
        let box = ResultBox<Result<JoinedMatch, JoinError>>()
        let arrived = Gate()
        var hello = joined.hello
        hello.matchID = nil
        hello.seatToken = nil
        let options = joined.options
        let connection = talk.connection
        let frozenHello = hello
        let finalState = talk.finalState
        let decided = await talk.decide(wants: wants, answerTimeout: answerTimeout) { welcome in
            var machine = GuestHandshake(hello: frozenHello)
            _ = machine.start()
            switch machine.event(.message(.welcome(welcome))) {
            case .joined(let accepted, let match):
                if case .failure(let why) = GuestRecordCheck.rematch(match, guestSeat: accepted.seat, after: finalState,
                                                                    previousSeat: joined.seat) {
                    box.set(.failure(.badWelcome(why.description)))
                    break
                }
                box.set(.success(joinedMatch(connection: connection, welcome: accepted, match: match, hello: frozenHello,
                                             options: options)))
            case .fail(let error):
                box.set(.failure(error))
            default:
                box.set(.failure(.protocolError("unexpected WELCOME")))
            }
            arrived.open()
        }
        switch decided {
        case .failure(let end):
            return .over(end)
        case .success:
            let disarm = LoopAlarm.after(options.handshakeTimeout) { arrived.open() }
            await arrived.wait()
            disarm()
            switch box.take() {
            case .success(let match)?:
                return .newMatch(match)
            case .failure(let error)?:
                connection.close()
                return .over(.protocolError("\(error)"))
            case nil:
                connection.close()
                return .over(.noAnswer)
            }
        }
    }
}
