/// Why a peer was refused, a turn rejected, or a session ended: the u16
/// reason code of REJECT, TURN_REJECTED and GOODBYE (docs/PROTOCOL.md,
/// "Reason codes").
///
/// A struct rather than an enum so that a code from a newer parlor still
/// decodes; such a code has no `name` and is shown by number with the
/// sentence that came with it.
public struct ReasonCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number on the wire.
    public var rawValue: UInt16
    /// The code with this number, known or not.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    // MARK: Handshake (REJECT), 100-199

    /// None of the guest's protocol versions is spoken by the host.
    public static let versionUnsupported = ReasonCode(rawValue: 100)
    /// The host does not host this game (or does not know it).
    public static let gameUnknown = ReasonCode(rawValue: 101)
    /// Same game, different rules version: the two parlors would disagree.
    public static let rulesVersionMismatch = ReasonCode(rawValue: 102)
    /// Every seat of the match is taken.
    public static let matchFull = ReasonCode(rawValue: 103)
    /// The guest asked to resume a match this host does not have.
    public static let matchNotFound = ReasonCode(rawValue: 104)
    /// The seat token does not belong to the seat being resumed.
    public static let badSeatToken = ReasonCode(rawValue: 105)
    /// The host requires a passcode and the guest sent no proof.
    public static let passcodeRequired = ReasonCode(rawValue: 106)
    /// The passcode proof is wrong.
    public static let passcodeWrong = ReasonCode(rawValue: 107)
    /// The player name is empty, too long or contains control characters.
    public static let nameInvalid = ReasonCode(rawValue: 108)
    /// Too many connections are in their handshake; try again later.
    public static let busy = ReasonCode(rawValue: 109)
    /// The HELLO did not arrive within the handshake timeout.
    public static let handshakeTimeout = ReasonCode(rawValue: 110)
    /// A malformed frame or message, or a message out of place.
    public static let protocolError = ReasonCode(rawValue: 111)
    /// The guest uses the host's own player id (both processes share one
    /// installation); the guest must use another id.
    public static let playerIDInUse = ReasonCode(rawValue: 112)
    /// Resuming a match is not supported by this host (protocol version 1).
    public static let resumeUnsupported = ReasonCode(rawValue: 113)
    /// This host takes no spectators (`--spectators 0`), or not this one (section 17).
    public static let spectatorsNotWelcome = ReasonCode(rawValue: 114)
    /// As many spectators watch as the host allows (`--spectators N`).
    public static let spectatorsFull = ReasonCode(rawValue: 115)
    /// The host knows the guest's name with another key (protocol 3, known players): refused, both fingerprints named.
    public static let playerKeyRefused = ReasonCode(rawValue: 116)

    // MARK: Turns (TURN_REJECTED), 200-299

    /// The sequence number is neither the next one nor a committed one.
    public static let outOfSequence = ReasonCode(rawValue: 200)
    /// The exact state was already committed under that sequence number.
    public static let replayed = ReasonCode(rawValue: 201)
    /// It is not the sender's turn in the host's state.
    public static let notYourTurn = ReasonCode(rawValue: 202)
    /// The change is for a seat that is not the sender's.
    public static let notYourSeat = ReasonCode(rawValue: 203)
    /// The new move breaks the rules.
    public static let illegalMove = ReasonCode(rawValue: 204)
    /// The blob does not decode (truncated, bad field, unknown format).
    public static let badBlob = ReasonCode(rawValue: 205)
    /// The blob belongs to another match.
    public static let otherMatch = ReasonCode(rawValue: 206)
    /// The blob is of another game or rules version.
    public static let otherGame = ReasonCode(rawValue: 207)
    /// The blob changes moves that were already committed.
    public static let historyRewritten = ReasonCode(rawValue: 208)
    /// The blob's state hash does not match its content.
    public static let hashMismatch = ReasonCode(rawValue: 209)
    /// The outcomes in the blob are not what the rules say.
    public static let outcomesDisagree = ReasonCode(rawValue: 210)
    /// The match has ended; no more changes.
    public static let matchOver = ReasonCode(rawValue: 211)
    /// The blob differs from the committed state by more or less than one change,
    /// or changes the seats or settings.
    public static let notOneChange = ReasonCode(rawValue: 212)
    /// A spectator sent a TURN, QUIT or STATE: spectators cannot change the match.
    public static let spectatorCannotMove = ReasonCode(rawValue: 213)

    // MARK: Session end (GOODBYE), 300-399

    /// The match is over; the GOODBYE carries the final state.
    public static let goodbyeMatchOver = ReasonCode(rawValue: 300)
    /// The sender leaves but may come back to resume (issue 5).
    public static let goodbyeLeaving = ReasonCode(rawValue: 301)
    /// The sender found the two copies of the match disagree; the match is interrupted on both sides and goes on from the host's state.
    public static let goodbyeDesync = ReasonCode(rawValue: 302)
    /// The sender received something it cannot parse or that breaks the protocol.
    public static let goodbyeProtocolError = ReasonCode(rawValue: 303)
    /// The sender stopped hearing from the peer (no heartbeat within the timeout).
    public static let goodbyeSilence = ReasonCode(rawValue: 304)
    /// The host could not save a committed state: it pauses the match until it can (nothing unsaved is revealed).
    public static let goodbyeCannotSave = ReasonCode(rawValue: 305)
    /// Host to a spectator: it fell too far behind reading (its outbound queue passed the limit) and is dropped.
    public static let goodbyeTooSlow = ReasonCode(rawValue: 306)

    // TALK refused (docs/PROTOCOL.md section 18): the line was not relayed; nothing else changes.
    /// The host turned table talk off (`parlor host --no-talk`), or a guest's parlor at the match has no talk.
    public static let talkOff = ReasonCode(rawValue: 400)
    /// The sender's link said more lines than the rate limit lets through.
    public static let talkTooFast = ReasonCode(rawValue: 401)
    /// The line has more than 200 Unicode scalar values.
    public static let talkTooLong = ReasonCode(rawValue: 402)
    /// The line holds a control character (an escape code, a newline, …).
    public static let talkControlCharacter = ReasonCode(rawValue: 403)
    /// The line is empty, or spaces only.
    public static let talkEmpty = ReasonCode(rawValue: 404)
    /// The line's bytes are not UTF-8.
    public static let talkNotUTF8 = ReasonCode(rawValue: 405)
    /// A spectator spoke before the match began: talk is relayed in the match's order, so it opens with the match.
    public static let talkNotYet = ReasonCode(rawValue: 406)

    /// Every code this version defines, in numeric order.
    public static let known: [ReasonCode] = [
        .versionUnsupported, .gameUnknown, .rulesVersionMismatch, .matchFull, .matchNotFound, .badSeatToken,
        .passcodeRequired, .passcodeWrong, .nameInvalid, .busy, .handshakeTimeout, .protocolError,
        .playerIDInUse, .resumeUnsupported, .spectatorsNotWelcome, .spectatorsFull, .playerKeyRefused,
        .outOfSequence, .replayed, .notYourTurn, .notYourSeat, .illegalMove, .badBlob, .otherMatch, .otherGame,
        .historyRewritten, .hashMismatch, .outcomesDisagree, .matchOver, .notOneChange, .spectatorCannotMove,
        .goodbyeMatchOver, .goodbyeLeaving, .goodbyeDesync, .goodbyeProtocolError, .goodbyeSilence, .goodbyeCannotSave, .goodbyeTooSlow,
        .talkOff, .talkTooFast, .talkTooLong, .talkControlCharacter, .talkEmpty, .talkNotUTF8, .talkNotYet,
    ]

    /// The camel-case name used in docs/PROTOCOL.md and JSON, nil for a code from a newer parlor.
    public var name: String? {
        switch rawValue {
        case 100: "versionUnsupported"
        case 101: "gameUnknown"
        case 102: "rulesVersionMismatch"
        case 103: "matchFull"
        case 104: "matchNotFound"
        case 105: "badSeatToken"
        case 106: "passcodeRequired"
        case 107: "passcodeWrong"
        case 108: "nameInvalid"
        case 109: "busy"
        case 110: "handshakeTimeout"
        case 111: "protocolError"
        case 112: "playerIDInUse"
        case 113: "resumeUnsupported"
        case 114: "spectatorsNotWelcome"
        case 115: "spectatorsFull"
        case 116: "playerKeyRefused"
        case 200: "outOfSequence"
        case 201: "replayed"
        case 202: "notYourTurn"
        case 203: "notYourSeat"
        case 204: "illegalMove"
        case 205: "badBlob"
        case 206: "otherMatch"
        case 207: "otherGame"
        case 208: "historyRewritten"
        case 209: "hashMismatch"
        case 210: "outcomesDisagree"
        case 211: "matchOver"
        case 212: "notOneChange"
        case 213: "spectatorCannotMove"
        case 300: "matchOver"
        case 301: "leaving"
        case 302: "desync"
        case 303: "protocolError"
        case 304: "silence"
        case 305: "cannotSave"
        case 306: "tooSlow"
        case 400: "talkOff"
        case 401: "talkTooFast"
        case 402: "talkTooLong"
        case 403: "talkControlCharacter"
        case 404: "talkEmpty"
        case 405: "talkNotUTF8"
        case 406: "talkNotYet"
        default: nil
        }
    }

    /// The name, or "reason N" for a code this version does not know.
    public var description: String { name ?? "reason \(rawValue)" }

    /// A received sentence as shown to the player: with a code this version
    /// does not know, the number comes first ("reason 399: …"), as for REJECT.
    public func shown(with sentence: String) -> String {
        if sentence.isEmpty { return description }
        return name == nil ? "\(description): \(sentence)" : sentence
    }
}
