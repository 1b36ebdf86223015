import Match

/// Opens a new byte stream to the host, within `timeout`; the TCP shell
/// passes a closure that dials the stored address. Thrown errors are
/// classified by `ReconnectPolicy.verdict(for:)`.
public typealias Dialer = @Sendable (_ timeout: Duration) async throws -> any ByteStream

/// What to do after one failed attempt to get back to the host.
public enum ReconnectVerdict: Hashable, Sendable {
    /// A transient failure (refused, reset, timed out, unreachable, busy): try again after the backoff.
    case retry
    /// A fatal failure (the host refused the seat, or is not a parlor host): stop; the text says why.
    case stop(String)
}

/// How a guest gets back to its host after the connection dropped, and how
/// `parlor resume` reaches a host that may still be starting: exponential
/// backoff within the grace period, with a cap on attempts.
public struct ReconnectPolicy: Hashable, Sendable {
    /// The wait after the first failed attempt. Default 250 ms.
    public var firstDelay: Duration
    /// The longest wait between attempts. Default 8 s.
    public var maximumDelay: Duration
    /// Attempts after which the guest gives up even if grace is left. Default 60.
    public var maximumAttempts: Int
    /// Time allowed for one connect. Default 5 s.
    public var connectTimeout: Duration

    /// A policy; see each field for its default.
    public init(firstDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(8),
                maximumAttempts: Int = 60, connectTimeout: Duration = .seconds(5)) {
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
        self.connectTimeout = connectTimeout
    }

    /// The wait after failed attempt number `attempt` (1-based): doubling from
    /// `firstDelay`, never more than `maximumDelay`.
    public func delay(afterAttempt attempt: Int) -> Duration {
        Duration.doubling(firstDelay, times: attempt - 1, upTo: maximumDelay)
    }

    /// Sorts a failure into transient (retry) or fatal (stop).
    ///
    /// Transient: every connect failure (refused, timed out, unreachable,
    /// reset), a name that does not resolve (yet), a handshake that timed out
    /// or was cut, and REJECT busy or handshakeTimeout. Fatal: any other
    /// REJECT (badSeatToken, matchNotFound, …), a peer that is not a parlor
    /// host or breaks the protocol, and an unusable WELCOME. A refusal for the
    /// game, rules, protocol version or match says that another parlor answers
    /// there, not this match's host, and the text says so.
    public static func verdict(for error: any Error) -> ReconnectVerdict {
        if let join = error as? JoinError {
            switch join {
            case .rejected(let reason, let sentence):
                if reason == .busy || reason == .handshakeTimeout { return .retry }
                if notThisMatchsHost.contains(reason) {
                    // A HELLO that asks for a match never offers a game to choose: whoever refuses it
                    // for its game, rules or match is some other parlor that took the address.
                    return .stop("the parlor answering there is not this match's host (it refused: \(sentence))")
                }
                return .stop("the host refused: \(sentence)")
            case .timedOut, .connectionClosed, .hostRefused:
                // A host refused for its key may be an impostor that goes away before the grace is spent.
                return .retry
            case .notAParlorHost, .protocolError, .badWelcome, .passcodeNeeded, .passcodeUnavailable:
                return .stop(join.description)
            }
        }
        if error is NetError || error is CancellationError { return .retry }
        return .retry
    }

    /// Refusals of a HELLO that names a match which say the peer hosts something else: another
    /// parlor answers on the address (a new match, another game, another version), not this match's host.
    static let notThisMatchsHost: Set<ReasonCode> = [.versionUnsupported, .gameUnknown, .rulesVersionMismatch, .matchNotFound]
}

/// Why getting back to the host failed for good.
public enum RejoinFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host answered with something that forbids trying again.
    case refused(String)
    /// The grace period (or the attempt cap) ran out; the last error says what happened.
    case gaveUp(attempts: Int, last: String)

    /// Why, as the end of a sentence a person reads: "gave up after 4 attempts (last: …)".
    public var description: String {
        switch self {
        case .refused(let why): why
        case .gaveUp(let attempts, let last): "gave up after \(attempts) attempt\(attempts == 1 ? "" : "s") (last: \(last))"
        }
    }
}

/// A handshake that got through: the connection (its handler already
/// swapped by the caller's `onWelcome`), the WELCOME and its match.
struct Rejoined: Sendable {
    let connection: WireConnection
    let welcome: Welcome
    let match: MatchState
}

/// The retry loop shared by a live reconnect and `parlor resume` on the guest.
enum Rejoin {
    /// Dials and shakes hands until a WELCOME arrives, a fatal error, the
    /// deadline or the attempt cap. `onWelcome` runs inside the connection's
    /// handler when WELCOME arrives and must swap the handler (nothing after
    /// WELCOME may be lost); `onFailure` hears every failed attempt.
    static func run(dial: Dialer, hello: Hello, policy: ReconnectPolicy, handshakeTimeout: Duration,
                    until deadline: ContinuousClock.Instant, clock: @escaping @Sendable () -> Int64,
                    onWelcome: @escaping @Sendable (WireConnection, Welcome, MatchState) -> Void,
                    onFailure: @Sendable (_ attempt: Int, _ error: any Error, _ left: Duration) async -> Void = { _, _, _ in })
        async -> Result<Rejoined, RejoinFailure> {
        var attempt = 0
        var last = "no attempt was made"
        while true {
            let left = deadline - .now
            guard left > .zero, attempt < policy.maximumAttempts else {
                return .failure(.gaveUp(attempts: attempt, last: last))
            }
            attempt += 1
            do {
                let stream = try await dial(min(policy.connectTimeout, left))
                let connection = WireConnection(stream: stream)
                var options = GuestOptions(handshakeTimeout: min(handshakeTimeout, max(deadline - .now, .milliseconds(500))))
                options.clock = clock
                let result = await JoinAttempt(hello: hello, connection: connection, options: options) { connection, welcome, match, _ in
                    onWelcome(connection, welcome, match)
                    return Rejoined(connection: connection, welcome: welcome, match: match)
                }.run()
                return .success(try result.get())
            } catch {
                last = "\(error)"
                if case .stop(let why) = ReconnectPolicy.verdict(for: error) { return .failure(.refused(why)) }
                await onFailure(attempt, error, deadline - .now)
            }
            let wait = min(policy.delay(afterAttempt: attempt), deadline - .now)
            await LoopAlarm.sleep(for: wait)
            if Task.isCancelled { return .failure(.gaveUp(attempts: attempt, last: "cancelled")) }
        }
    }
}

/// The other side of a LAN session, as the command line sees it when this
/// process goes away without quitting (SIGHUP, the terminal lost).
public protocol SessionLink: Sendable {
    /// Tells the peer with GOODBYE(leaving) that this side leaves for now
    /// and may resume, then closes. Returns once the GOODBYE had a moment to
    /// leave: true when every peer was told, false when one could not be (its link was down).
    @discardableResult
    func leaveForNow(_ sentence: String) async -> Bool
}

extension RemoteGuest: SessionLink {}
extension RemoteHost: SessionLink {}

/// Every guest link of a table, for leaving it for now: each guest is told
/// GOODBYE(leaving) at once, as the one guest of a two-seat match is, and
/// this returns when every GOODBYE had its moment to leave.
public struct TableLink: SessionLink {
    /// The links told; a table's `HostedMatch.guests`.
    public var guests: [RemoteGuest]

    /// The links of `guests`: a table's `HostedMatch.guests`.
    public init(guests: [RemoteGuest]) {
        self.guests = guests
    }

    /// Tells every guest GOODBYE(leaving) with `sentence` at once, and returns when
    /// each GOODBYE had its moment to leave. Each guest's seat is kept for its
    /// grace period. True when every guest was told.
    @discardableResult
    public func leaveForNow(_ sentence: String) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            for guest in guests { group.addTask { await guest.leaveForNow(sentence) } }
            return await group.reduce(true) { $0 && $1 }
        }
    }
}

extension Duration {
    /// `first` doubled `times` times, never more than `cap`: the backoff of
    /// reconnecting guests and of refusals of wrong passcodes.
    static func doubling(_ first: Duration, times: Int, upTo cap: Duration) -> Duration {
        var delay = first
        var step = 0
        while (step < times), (delay > .zero), (delay < cap) {
            delay = delay * 2
            step += 1
        }
        return min(delay, cap)
    }
}
