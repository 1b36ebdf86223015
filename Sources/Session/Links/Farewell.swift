import Match

/// The last words of an in-match link, the same from both sides
/// (`GuestLink`, `RemoteGuest`): which GOODBYE says what (docs/PROTOCOL.md, section 6).
enum Farewell {
    /// GOODBYE(protocolError): the peer broke the protocol; `why` is cut to 200 characters.
    static func protocolViolation(_ why: String) -> Message {
        .goodbye(.goodbyeProtocolError, sentence: String(why.prefix(200)), finalBlob: [])
    }

    /// The GOODBYE that tells the peer why the match stopped here: the copies
    /// disagree (desync), or this side stopped waiting (silence: interrupted, not over).
    static func stopped(_ failure: MatchFailure) -> Message {
        switch failure {
        case .desync(let why): .goodbye(.goodbyeDesync, sentence: String(why.prefix(200)), finalBlob: [])
        case .connectionLost(let why): .goodbye(.goodbyeSilence, sentence: String(why.prefix(200)), finalBlob: [])
        }
    }

    /// GOODBYE(matchOver) with the final state.
    static func matchOver(_ final: MatchState) -> Message {
        .goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: MatchBlob.encode(final))
    }

    /// GOODBYE(leaving): this side goes away for now and may resume.
    static func leaving(_ sentence: String) -> Message {
        .goodbye(.goodbyeLeaving, sentence: sentence, finalBlob: [])
    }

    /// At most how long `leaveForNow` waits, after its GOODBYE(leaving), for the
    /// close to finish (the GOODBYE read and the peer's end seen) before it returns.
    static let linger: Duration = .milliseconds(150)
}

/// What a player reads about the other side's link, the same on both sides.
enum LinkNotice {
    /// The peer went quiet: the grace period (`left`) started.
    static func notResponding(_ name: String, left: Duration) -> String {
        "\(name) is not responding — " + waiting(for: name, left: left)
    }

    /// The peer is away; `left` of the grace period remains.
    static func waiting(for name: String, left: Duration) -> String {
        "waiting for \(name) to come back (\(left.roundedUpSeconds) s left)"
    }

    /// The peer is heard again.
    static func back(_ name: String) -> String { "\(name) is back" }
}
