import Games
import Match
import Synchronization

/// What a TALK message (type 16, protocol 2) carries (docs/PROTOCOL.md section 18).
///
/// One type for the three steps of a line: a guest says it, the host relays
/// it to every link at the table (the sender's too), or the host refuses it
/// and tells only the sender why.
public enum TalkMessage: Hashable, Sendable {
    /// Guest → host, kind 1: a line to say, as raw bytes. The host judges them
    /// (`TalkCheck`), so a bad line gets a refusal with its reason, not a
    /// closed connection.
    case say([UInt8])
    /// Host → guest, kind 2: a line said at the table, with who said it and
    /// after which committed change.
    case relayed(TalkLine)
    /// Host → guest, kind 3: the sender's last line was not relayed.
    case refused(ReasonCode, sentence: String)

    /// The kind byte that starts the payload.
    enum Kind: UInt8 {
        case say = 1
        case relayed = 2
        case refused = 3
    }

    /// The seat byte of a spectator's relayed line: it holds no seat.
    static let noSeat: UInt8 = 0xFF

    /// Writes the payload (layout in docs/PROTOCOL.md section 18).
    func write(into writer: inout ByteWriter) {
        switch self {
        case .say(let bytes):
            writer.write(Kind.say.rawValue)
            let text = Array(bytes.prefix(Int(UInt16.max)))
            writer.write(UInt16(text.count))
            writer.write(bytes: text)
        case .relayed(let line):
            writer.write(Kind.relayed.rawValue)
            writer.write(line.afterSequence)
            writer.write(line.role.rawValue)
            writer.write(line.seat.map { UInt8(clamping: $0) } ?? Self.noSeat)
            writer.writeString8(line.name, limit: Seat.maximumNameBytes)
            let text = ByteWriter.prefix(of: line.text, bytes: TalkCheck.maximumBytes)
            writer.write(UInt16(text.count))
            writer.write(bytes: text)
        case .refused(let reason, let sentence):
            writer.write(Kind.refused.rawValue)
            writer.write(reason.rawValue)
            writer.writeString16(sentence)
        }
    }

    /// Decodes a TALK payload; every rule of section 18 is checked here
    /// except a said line's content, which the host judges. Never traps.
    static func decode(_ payload: [UInt8]) throws(MessageError) -> TalkMessage {
        var reader = ByteReader(payload)
        func invalid(_ field: String) -> MessageError { .invalidField(.talk, field: field) }
        func u8() throws(MessageError) -> UInt8 {
            do { return try reader.readUInt8() } catch { throw .truncated(.talk, offset: error.offset) }
        }
        func u16() throws(MessageError) -> UInt16 {
            do { return try reader.readUInt16() } catch { throw .truncated(.talk, offset: error.offset) }
        }
        func u32() throws(MessageError) -> UInt32 {
            do { return try reader.readUInt32() } catch { throw .truncated(.talk, offset: error.offset) }
        }
        func bytes(_ count: Int) throws(MessageError) -> [UInt8] {
            do { return try reader.readBytes(count) } catch { throw .truncated(.talk, offset: error.offset) }
        }
        func text16(_ field: String, limit: Int) throws(MessageError) -> [UInt8] {
            let count = Int(try u16())
            guard count <= limit else { throw invalid(field) }
            return try bytes(count)
        }
        guard let kind = Kind(rawValue: try u8()) else { throw invalid("talk kind") }
        let message: TalkMessage
        switch kind {
        case .say:
            message = .say(try text16("line", limit: Int(UInt16.max)))
        case .relayed:
            let after = try u32()
            guard let role = TalkLine.Role(rawValue: try u8()) else { throw invalid("role") }
            let seat = try u8()
            switch role {
            case .player: guard Int(seat) < MatchBlob.seatLimit.upperBound else { throw invalid("seat") }
            case .spectator: guard seat == noSeat else { throw invalid("seat") }
            }
            let nameBytes = try bytes(Int(try u8()))
            guard let name = String(validating: nameBytes, as: UTF8.self), Seat.isValidName(name) else { throw invalid("name") }
            guard case .success(let text) = TalkCheck.check(try text16("text", limit: TalkCheck.maximumBytes)) else {
                throw invalid("text")
            }
            message = .relayed(TalkLine(role: role, seat: role == .player ? Int(seat) : nil, name: name, text: text,
                                        afterSequence: after))
        case .refused:
            let reason = ReasonCode(rawValue: try u16())
            let raw = try text16("sentence", limit: MessageLimits.maximumSentenceBytes)
            guard let sentence = String(validating: raw, as: UTF8.self), !TalkCheck.hasControlCharacter(sentence) else {
                throw invalid("sentence")
            }
            message = .refused(reason, sentence: sentence)
        }
        guard reader.remaining == 0 else { throw .trailingBytes(.talk, count: reader.remaining) }
        return message
    }
}

/// The rules a line of table talk must follow: the one place that judges one
/// (docs/PROTOCOL.md section 18, "What the host checks").
public enum TalkCheck {
    /// Most Unicode scalar values (code points) in a line.
    public static let maximumScalars = 200
    /// Most bytes of a line's UTF-8: 200 scalars of at most 4 bytes.
    public static let maximumBytes = 800

    /// Why a line is refused: a reason code and the sentence the sender is shown.
    public struct Refusal: Hashable, Sendable, Error {
        /// The reason code sent with the refusal (e.g. `talkTooLong`).
        public var reason: ReasonCode
        /// What the sender is shown: "There is nothing to say: the line is empty."
        public var sentence: String

        /// The refusal as the Match module's frontends show it.
        public var talkRefusal: TalkRefusal {
            TalkRefusal(code: reason.rawValue, name: reason.description, sentence: sentence)
        }
    }

    /// The line's text, or why it is refused: not UTF-8, empty (or spaces
    /// only), longer than 200 scalars, or holding a control character
    /// (Unicode category Cc: ESC and every escape code, tab, newline, DEL).
    public static func check(_ bytes: [UInt8]) -> Result<String, Refusal> {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(Refusal(reason: .talkNotUTF8, sentence: "The line is not UTF-8 text; it was not sent."))
        }
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            return .failure(Refusal(reason: .talkEmpty, sentence: "There is nothing to say: the line is empty."))
        }
        let count = text.unicodeScalars.count
        guard count <= maximumScalars else {
            return .failure(Refusal(reason: .talkTooLong,
                                    sentence: "The line is too long (\(count) characters; at most \(maximumScalars)); it was not sent."))
        }
        guard !hasControlCharacter(text) else {
            return .failure(Refusal(reason: .talkControlCharacter,
                                    sentence: "The line holds a control character (an escape code, a tab or a newline); it was not sent."))
        }
        return .success(text)
    }

    /// Whether `text` holds a control character (Unicode category Cc).
    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

/// The rate limit of one link's talk: a token bucket. A link may say
/// `burst` lines at once, and then one line per `interval` (5 lines, then one
/// every 2 s: 30 a minute). Every line the host hears takes a token, refused
/// or not, so refusals cannot be had faster than lines.
public struct TalkBucket: Sendable {
    /// Lines a quiet link may say at once.
    public static let burst = 5
    /// The time that earns one more line.
    public static let interval: Duration = .seconds(2)

    /// Time saved up, at most `burst * interval`; a line costs `interval`.
    private var credit: Duration
    private var last: ContinuousClock.Instant

    /// A full bucket at `now`.
    public init(now: ContinuousClock.Instant) {
        credit = Self.interval * Self.burst
        last = now
    }

    /// Takes a token for a line heard at `now`; false when there is none.
    public mutating func take(now: ContinuousClock.Instant) -> Bool {
        if now > last {
            credit = min(Self.interval * Self.burst, credit + (now - last))
            last = now
        }
        guard credit >= Self.interval else { return false }
        credit -= Self.interval
        return true
    }
}

/// The host's table talk: checks every line (its own player's and every
/// link's) and relays the accepted ones through the match controller, whose
/// one fan-out reaches every link at the table in the match's total order:
/// every guest link (`RemoteGuest` sends TALK from `stateChanged`), and any
/// other link that follows the controller's events (a spectator's link joins
/// that same list: it sends TALK kind 2 for every `.talk` event it follows, and
/// hands its own lines to `hear` with `role` `.spectator`, `seat` nil and its
/// own `link` key, so it has a bucket of its own). Nothing of it is saved.
public final class TableTalk: TalkOutlet {
    /// Whether talk is on, and if not, the sentence a sender is shown.
    public enum Availability: Hashable, Sendable {
        /// Talk is on: lines are judged and relayed.
        case on
        /// Talk is off; every line is refused with this sentence.
        case off(String)
    }

    private struct State {
        var availability: Availability
        var buckets: [ObjectIdentifier: TalkBucket] = [:]
    }

    private let state: Mutex<State>
    private let now: @Sendable () -> ContinuousClock.Instant

    /// Talk that is `availability`; `now` is injected by tests of the rate limit.
    public init(_ availability: Availability,
                now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        state = Mutex(State(availability: availability))
        self.now = now
    }

    /// Turns talk off (a protocol-1 guest at the match cannot hear it); kept off if it already was.
    public func turnOff(because why: String) {
        state.withLock { state in
            if state.availability == .on { state.availability = .off(why) }
        }
    }

    /// Whether talk is on now, and if not, why.
    public var availability: Availability { state.withLock { $0.availability } }

    /// The sentence of `parlor host --no-talk`.
    public static let turnedOff = "The host has turned table talk off."

    /// Judges one line from the link `link`: nil when it passed (it is then
    /// relayed by `controller`), else the refusal for the sender only.
    /// Checked in this order: talk is on, the link's rate, the line (`TalkCheck`).
    public func hear(_ bytes: [UInt8], from speaker: TalkLine, link: ObjectIdentifier,
                     in controller: MatchController) async -> TalkCheck.Refusal? {
        let verdict = state.withLock { state -> Result<String, TalkCheck.Refusal> in
            if case .off(let why) = state.availability { return .failure(TalkCheck.Refusal(reason: .talkOff, sentence: why)) }
            let at = now()
            var bucket = state.buckets[link] ?? TalkBucket(now: at)
            let allowed = bucket.take(now: at)
            state.buckets[link] = bucket
            guard allowed else {
                return .failure(TalkCheck.Refusal(
                    reason: .talkTooFast,
                    sentence: "Too many lines at once (\(TalkBucket.burst), then one every \(TalkBucket.interval.roundedUpSeconds) s); wait a moment."))
            }
            return TalkCheck.check(bytes)
        }
        switch verdict {
        case .failure(let refusal):
            return refusal
        case .success(let text):
            var line = speaker
            line.text = text
            await controller.relayTalk(line)
            return nil
        }
    }

    /// The host's own player says `text`: judged like any link's line; a
    /// refusal is shown on the host's own screen only.
    public func say(_ text: String, seat: SeatIndex, in controller: MatchController) async {
        let name = await controller.state.seats[seat].name
        let speaker = TalkLine(role: .player, seat: seat, name: name, text: "")
        if let refusal = await hear(Array(text.utf8), from: speaker, link: ObjectIdentifier(self), in: controller) {
            await controller.reportTalkRefused(refusal.talkRefusal)
        }
    }
}

/// The guest's table talk: its player's lines go to the host as TALK (kind
/// 1); the host's answer comes back as a relayed line or a refusal.
struct HostTalkOutlet: TalkOutlet {
    weak var remote: RemoteHost?

    func say(_ text: String, seat: SeatIndex, in controller: MatchController) async {
        guard let remote else { return }
        if let refusal = remote.say(text) { await controller.reportTalkRefused(refusal.talkRefusal) }
    }
}

extension MatchController.Configuration {
    /// This configuration with its talk outlet set.
    func talking(through outlet: any TalkOutlet) -> Self {
        var configuration = self
        configuration.talk = outlet
        return configuration
    }
}
