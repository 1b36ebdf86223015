import Games
import Match

/// Settings the host decides for the whole session and sends in WELCOME.
public struct SessionSettings: Hashable, Sendable {
    /// Seconds a seat has for its turn; 0 means no limit (the host enforces it).
    public var turnTimeoutSeconds: UInt32
    /// How often each side sends HEARTBEAT.
    public var heartbeatIntervalMilliseconds: UInt32
    /// Silence after which a side counts its peer as disconnected.
    public var heartbeatTimeoutMilliseconds: UInt32
    /// How long the guest waits for CONFIRM before rolling back and resyncing.
    public var confirmationTimeoutMilliseconds: UInt32

    /// Settings with every value given explicitly.
    public init(turnTimeoutSeconds: UInt32, heartbeatIntervalMilliseconds: UInt32,
                heartbeatTimeoutMilliseconds: UInt32, confirmationTimeoutMilliseconds: UInt32) {
        self.turnTimeoutSeconds = turnTimeoutSeconds
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.heartbeatTimeoutMilliseconds = heartbeatTimeoutMilliseconds
        self.confirmationTimeoutMilliseconds = confirmationTimeoutMilliseconds
    }

    /// Allowed heartbeat intervals, ms; a WELCOME outside these ranges is a protocol error.
    public static let heartbeatIntervalRange: ClosedRange<UInt32> = 10...60_000
    /// Allowed heartbeat timeouts, ms (and greater than the interval).
    public static let heartbeatTimeoutRange: ClosedRange<UInt32> = 20...600_000
    /// Allowed confirmation timeouts, ms.
    public static let confirmationTimeoutRange: ClosedRange<UInt32> = 10...600_000
    /// Longest turn timeout, seconds (a week, as in the match blob).
    public static let maximumTurnTimeout: UInt32 = 7 * 24 * 3600
}

/// The guest's opening message: who it is and what it wants to play.
public struct Hello: Hashable, Sendable {
    /// Protocol versions the guest speaks, 1 to 16 entries, none 0.
    public var protocolVersions: [UInt8]
    /// The guest's parlor version, 1-32 printable ASCII bytes (for logs and "please update" hints).
    public var appVersion: String
    /// The guest's stable player id.
    public var playerID: PlayerID
    /// The name shown to the host, 1-64 UTF-8 bytes without control characters.
    public var playerName: String
    /// The games the guest can play, with its rules version of each: one
    /// entry when the player named a game, the whole catalog for
    /// `parlor join HOST:PORT`. 1 to 32 entries: only the first 32 are sent,
    /// so a process with more registered games joins with
    /// `GameVersion.catalog(first:)`, the game being joined first.
    public var games: [GameVersion]
    /// The match to resume, nil for a new match (sent as 16 zero bytes).
    public var matchID: MatchID?
    /// The seat token from an earlier WELCOME of that match, nil if none (16 zero bytes).
    public var seatToken: SeatToken?
    /// Proof of the passcode (issue 7); empty when the guest has none. At most 64 bytes.
    public var passcodeProof: [UInt8]
    /// True when this came as WATCH (type 17): a spectator asks to watch and
    /// takes no seat (docs/PROTOCOL.md, section 17). Not a byte of HELLO.
    public var watching = false

    /// A HELLO; `protocolVersions` defaults to every version this parlor
    /// speaks and `games` to every game it knows.
    public init(protocolVersions: [UInt8] = FrameFormat.supportedVersions, appVersion: String, playerID: PlayerID,
                playerName: String, games: [GameVersion] = GameVersion.catalog, matchID: MatchID? = nil,
                seatToken: SeatToken? = nil, passcodeProof: [UInt8] = []) {
        self.protocolVersions = protocolVersions
        self.appVersion = appVersion
        self.playerID = playerID
        self.playerName = playerName
        self.games = games
        self.matchID = matchID
        self.seatToken = seatToken
        self.passcodeProof = passcodeProof
    }
}

/// A game id with a rules version, as HELLO lists them.
public struct GameVersion: Hashable, Sendable {
    /// The game id, e.g. `connect4`: 1-32 bytes of a-z, 0-9, '-' and '_'.
    public var id: String
    /// The rules version of that game.
    public var rulesVersion: UInt16

    /// A game id and rules version.
    public init(id: String, rulesVersion: UInt16) {
        self.id = id
        self.rulesVersion = rulesVersion
    }

    /// This parlor's version of the game `id`, nil if it does not know it.
    public static func local(_ id: String) -> GameVersion? {
        GameCatalog.game(id: id).map { GameVersion(id: $0.id, rulesVersion: UInt16(clamping: $0.rulesVersion)) }
    }

    /// Every game this parlor knows.
    public static var catalog: [GameVersion] {
        GameCatalog.all.map { GameVersion(id: $0.id, rulesVersion: UInt16(clamping: $0.rulesVersion)) }
    }

    /// Every game this parlor knows, `gameID` first: the games of a HELLO
    /// that joins a match of `gameID` (found by name, so its game is known).
    ///
    /// A HELLO carries at most `MessageLimits.maximumGames`, and a process
    /// with more registered sends the first ones only; with the game being
    /// joined first, it is always among them.
    public static func catalog(first gameID: String) -> [GameVersion] {
        listing(catalog, first: gameID)
    }

    /// `games` with the entry for `gameID` moved to the front; unchanged when it has none.
    static func listing(_ games: [GameVersion], first gameID: String) -> [GameVersion] {
        guard let index = games.firstIndex(where: { $0.id == gameID }) else { return games }
        var listed = games
        listed.insert(listed.remove(at: index), at: 0)
        return listed
    }
}

/// A secret the host gives a guest for its seat; proves the seat on resume (issue 5).
public typealias SeatToken = Identifier128

/// The host's admission: the guest's seat and the match as it stands.
public struct Welcome: Hashable, Sendable {
    /// The protocol version both sides use from now on.
    public var protocolVersion: UInt8
    /// The guest's seat in the match blob, 0-based.
    public var seat: SeatIndex
    /// The guest's secret for this seat.
    public var seatToken: SeatToken
    /// Timeouts for the session.
    public var settings: SessionSettings
    /// The host's parlor version.
    public var hostAppVersion: String
    /// The current match blob (docs/PROTOCOL.md, "The match blob").
    public var matchBlob: [UInt8]

    /// A WELCOME with every field given.
    public init(protocolVersion: UInt8, seat: SeatIndex, seatToken: SeatToken, settings: SessionSettings,
                hostAppVersion: String, matchBlob: [UInt8]) {
        self.protocolVersion = protocolVersion
        self.seat = seat
        self.seatToken = seatToken
        self.settings = settings
        self.hostAppVersion = hostAppVersion
        self.matchBlob = matchBlob
    }
}

/// Who sits where at a table that is filling (protocol 2, TABLE): sent by the
/// host to every seated guest of a table of three or more seats on every
/// seating change, the last time just before WELCOME.
public struct TableSeating: Hashable, Sendable {
    /// Who holds a seat.
    public enum Kind: UInt8, Hashable, Sendable {
        /// Nobody yet: a guest may take it.
        case free = 0
        /// The host's own player.
        case host = 1
        /// A guest who joined.
        case guest = 2
        /// One of the host's bots.
        case bot = 3
    }

    /// One seat of the table.
    public struct Place: Hashable, Sendable {
        /// Who holds it.
        public var kind: Kind
        /// The player's name; empty for a free seat.
        public var name: String

        /// A seat; `name` is empty exactly when `kind` is `.free`.
        public init(kind: Kind, name: String) {
            self.kind = kind
            self.name = name
        }
    }

    /// The seat this guest holds, 0-based; `noSeat` in the TABLE a spectator gets.
    public var yourSeat: SeatIndex
    /// "Your seat" of a spectator's TABLE (FF, docs/PROTOCOL.md section 17): it holds none.
    public static let noSeat: SeatIndex = 0xFF
    /// How often the two sides send HEARTBEAT while the table fills.
    public var heartbeatIntervalMilliseconds: UInt32
    /// Silence after which either side gives the other up while the table fills.
    public var heartbeatTimeoutMilliseconds: UInt32
    /// Every seat, in seat order (2 to 8).
    public var seats: [Place]

    /// A seating; see the fields.
    public init(yourSeat: SeatIndex, heartbeatIntervalMilliseconds: UInt32, heartbeatTimeoutMilliseconds: UInt32, seats: [Place]) {
        self.yourSeat = yourSeat
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.heartbeatTimeoutMilliseconds = heartbeatTimeoutMilliseconds
        self.seats = seats
    }

    /// Seats taken (host, guests and bots).
    public var taken: Int { seats.filter { $0.kind != .free }.count }

    /// The host's seat, if the seating names one.
    public var hostSeat: SeatIndex? { seats.firstIndex { $0.kind == .host } }

    /// "2 of 4 seated: Ana (host), Bo (you), Easy bot (bot), free".
    public var summary: String {
        let names = seats.enumerated().map { index, place -> String in
            switch place.kind {
            case .free: "free"
            case .host: "\(place.name) (host)"
            case .bot: "\(place.name) (bot)"
            case .guest: index == yourSeat ? "\(place.name) (you)" : place.name
            }
        }
        return "\(taken) of \(seats.count) seated: " + names.joined(separator: ", ")
    }
}

/// Whether a seat's player is connected, as a table's host tells every other
/// guest (protocol 2, SEAT): a guest whose link dropped keeps its seat for the
/// grace period and is "away" until it comes back with its seat token.
public struct SeatPresence: Hashable, Sendable {
    /// The seat whose player went away or came back, 0-based.
    public var seat: SeatIndex
    /// True while the seat's player is away.
    public var away: Bool
    /// While away: how long the host keeps the seat before the player counts
    /// as gone, in milliseconds (0 when back, and while a bot stands in).
    public var graceLeftMilliseconds: UInt32
    /// Away, and one of the host's bots plays the seat until its player is back
    /// (`--away-bot`, the host's `b`; presence 2 on the wire).
    public var botStandsIn: Bool

    /// A presence; `graceLeftMilliseconds` is 0 unless `away` without a bot standing in.
    public init(seat: SeatIndex, away: Bool, graceLeftMilliseconds: UInt32, botStandsIn: Bool = false) {
        self.seat = seat
        self.away = away || botStandsIn
        self.botStandsIn = botStandsIn
        self.graceLeftMilliseconds = away && !botStandsIn ? graceLeftMilliseconds : 0
    }

    /// The SEAT a table's other links get for a controller event (a seat away or
    /// back, a bot standing in); nil for any other event and at two seats, whose
    /// wire has no SEAT. Guests' links and the spectators' gallery both ask here.
    static func told(by event: MatchEvent, in state: MatchState) -> SeatPresence? {
        guard state.seats.count > 2 else { return nil }
        switch event {
        case .presence(let seat, let away, let graceLeft):
            return SeatPresence(seat: seat, away: away, graceLeftMilliseconds: graceLeft.wireMilliseconds)
        case .standIn(let seat, let bot?):
            // The player's return is the "back" presence that follows.
            return SeatPresence(seat: seat, away: true, graceLeftMilliseconds: 0, botStandsIn: !bot.isEmpty)
        default:
            return nil
        }
    }
}

/// The host's admission of a spectator (WATCHING, type 18, protocol 2): its
/// timers and the match as it stands (empty before the match has begun).
public struct SpectatorWelcome: Hashable, Sendable {
    /// The protocol version both sides use from now on (2).
    public var protocolVersion: UInt8
    /// How often both sides send HEARTBEAT.
    public var heartbeatIntervalMilliseconds: UInt32
    /// Silence after which either side gives the other up.
    public var heartbeatTimeoutMilliseconds: UInt32
    /// The host's parlor version.
    public var hostAppVersion: String
    /// Spectators watching now, this one included (1 to 65 535).
    public var watching: UInt16
    /// The committed match blob, or empty when no match has begun yet (a
    /// STATE with the first blob follows when it does).
    public var matchBlob: [UInt8]

    /// A WATCHING with every field given.
    public init(protocolVersion: UInt8, heartbeatIntervalMilliseconds: UInt32, heartbeatTimeoutMilliseconds: UInt32,
                hostAppVersion: String, watching: UInt16, matchBlob: [UInt8]) {
        self.protocolVersion = protocolVersion
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.heartbeatTimeoutMilliseconds = heartbeatTimeoutMilliseconds
        self.hostAppVersion = hostAppVersion
        self.watching = watching
        self.matchBlob = matchBlob
    }
}

/// What a REMATCH message says, after a match has ended.
public enum RematchWord: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Let's play again with seats swapped.
    case offer = 1
    /// Yes to the other side's offer.
    case accept = 2
    /// No to the other side's offer.
    case decline = 3

    /// The word, lower case, for logs: "offer", "accept", "decline".
    public var description: String {
        switch self {
        case .offer: "offer"
        case .accept: "accept"
        case .decline: "decline"
        }
    }
}

/// Every message of protocol version 1 (docs/PROTOCOL.md, "Messages").
///
/// Match blobs travel as raw bytes here; the session decodes them with
/// `MatchBlob.decode` where it can turn each failure into a reason code.
public enum Message: Hashable, Sendable {
    /// Guest → host, first message.
    case hello(Hello)
    /// Host → guest: admitted.
    case welcome(Welcome)
    /// Host → guest: refused; both sides close.
    case reject(ReasonCode, sentence: String)
    /// A whole-state change by a move (or the host's time expiry): guest
    /// proposes, host pushes what it committed.
    case turn(sequence: UInt32, blob: [UInt8])
    /// Host → guest: the turn `sequence` is committed; the host's hash and deadline.
    case confirm(sequence: UInt32, stateHash: UInt64, deadline: Int64)
    /// Host → guest: the turn or quit `sequence` was refused; nothing changed.
    case turnRejected(sequence: UInt32, reason: ReasonCode, sentence: String)
    /// Guest → host: send your committed state; `knownSequence` is the guest's.
    case stateRequest(knownSequence: UInt32)
    /// Host → guest: the committed state.
    case state(blob: [UInt8])
    /// A whole-state change by which a seat quits; either direction, like TURN.
    case quit(sequence: UInt32, blob: [UInt8])
    /// Either direction, every heartbeat interval; the sender's wall clock in ms.
    case heartbeat(senderTime: UInt64)
    /// Either direction, last message: why the sender is leaving, and for
    /// `goodbyeMatchOver` the final state (otherwise an empty blob).
    case goodbye(ReasonCode, sentence: String, finalBlob: [UInt8])
    /// Both ways, only after the match ended: a rematch offer or the answer to one.
    case rematch(RematchWord)
    /// Host → guest, only in the handshake: this host needs a passcode; answer
    /// with a HELLO whose proof is bound to this challenge.
    case challenge(PasscodeChallenge)
    /// Protocol 2, host → guest, between HELLO and WELCOME: the table as it fills.
    case table(TableSeating)
    /// Protocol 2, host → guest, during a table's match: another seat is away or back.
    case seat(SeatPresence)
    /// Protocol 2, during a match: table talk (a line said, relayed or refused; section 18).
    case talk(TalkMessage)
    /// Protocol 2, spectator → host, first message: HELLO's layout, asking to watch (section 17).
    case watch(Hello)
    /// Protocol 2, host → spectator: admitted to watch.
    case watching(SpectatorWelcome)

    /// The frame type that carries this message.
    public var type: MessageType {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .reject: .reject
        case .turn: .turn
        case .confirm: .confirm
        case .turnRejected: .turnRejected
        case .stateRequest: .stateRequest
        case .state: .state
        case .quit: .quit
        case .heartbeat: .heartbeat
        case .goodbye: .goodbye
        case .rematch: .rematch
        case .challenge: .challenge
        case .table: .table
        case .seat: .seat
        case .talk: .talk
        case .watch: .watch
        case .watching: .watching
        }
    }
}

/// Why a frame's payload is not a valid message of its type.
public enum MessageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The payload ends before the message does.
    case truncated(MessageType, offset: Int)
    /// Bytes left over after the message.
    case trailingBytes(MessageType, count: Int)
    /// A field is out of range or malformed; names the field.
    case invalidField(MessageType, field: String)

    /// The error as a sentence: "WELCOME message cut short at byte 40".
    public var description: String {
        switch self {
        case .truncated(let type, let offset): "\(type) message cut short at byte \(offset)"
        case .trailingBytes(let type, let count): "\(type) message has \(count) unexpected trailing bytes"
        case .invalidField(let type, let field): "\(type) message has an invalid \(field)"
        }
    }
}

/// Limits of the message fields (docs/PROTOCOL.md).
public enum MessageLimits {
    /// Most protocol versions a HELLO may list.
    public static let maximumVersions = 16
    /// App version strings: 1-32 printable ASCII bytes.
    public static let appVersionBytes = 1...32
    /// Most games a HELLO may list.
    public static let maximumGames = 32
    /// Game ids: 1-32 bytes of a-z, 0-9, '-' and '_'.
    public static let gameIDBytes = 1...MatchBlob.maximumGameIDBytes
    /// Longest passcode proof.
    public static let maximumProofBytes = 64
    /// Longest human sentence in REJECT, TURN_REJECTED and GOODBYE.
    public static let maximumSentenceBytes = 512
    /// Largest blob in any message.
    public static let maximumBlobBytes = MatchBlob.maximumSize
}

extension Message {
    /// The frame for this message.
    public var frame: Frame { Frame(type: type, payload: payload) }

    /// The frame's bytes, ready for the wire.
    public var encoded: [UInt8] { FrameFormat.encode(frame) }

    /// The payload bytes (layouts in docs/PROTOCOL.md).
    ///
    /// Strings longer than their limit are cut at a character boundary so an
    /// encoded message always decodes; callers validate names beforehand.
    public var payload: [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .hello(let hello), .watch(let hello):
            let versions = Array(hello.protocolVersions.prefix(MessageLimits.maximumVersions))
            writer.write(UInt8(versions.count))
            writer.write(bytes: versions)
            writer.writeString8(hello.appVersion, limit: MessageLimits.appVersionBytes.upperBound)
            writer.write(bytes: hello.playerID.bytes)
            writer.writeString8(hello.playerName, limit: 255)
            let games = Array(hello.games.prefix(MessageLimits.maximumGames))
            writer.write(UInt8(games.count))
            for game in games {
                writer.writeString8(game.id, limit: MessageLimits.gameIDBytes.upperBound)
                writer.write(game.rulesVersion)
            }
            writer.write(bytes: hello.matchID?.bytes ?? Array(repeating: 0, count: 16))
            writer.write(bytes: hello.seatToken?.bytes ?? Array(repeating: 0, count: 16))
            let proof = Array(hello.passcodeProof.prefix(MessageLimits.maximumProofBytes))
            writer.write(UInt8(proof.count))
            writer.write(bytes: proof)
        case .welcome(let welcome):
            writer.write(welcome.protocolVersion)
            writer.write(UInt8(clamping: welcome.seat))
            writer.write(bytes: welcome.seatToken.bytes)
            writer.write(welcome.settings.turnTimeoutSeconds)
            writer.write(welcome.settings.heartbeatIntervalMilliseconds)
            writer.write(welcome.settings.heartbeatTimeoutMilliseconds)
            writer.write(welcome.settings.confirmationTimeoutMilliseconds)
            writer.writeString8(welcome.hostAppVersion, limit: MessageLimits.appVersionBytes.upperBound)
            writer.writeLongBytes(welcome.matchBlob)
        case .reject(let reason, let sentence):
            writer.write(reason.rawValue)
            writer.writeString16(sentence)
        case .turn(let sequence, let blob), .quit(let sequence, let blob):
            writer.write(sequence)
            writer.writeLongBytes(blob)
        case .confirm(let sequence, let hash, let deadline):
            writer.write(sequence)
            writer.write(hash)
            writer.write(deadline)
        case .turnRejected(let sequence, let reason, let sentence):
            writer.write(sequence)
            writer.write(reason.rawValue)
            writer.writeString16(sentence)
        case .stateRequest(let known):
            writer.write(known)
        case .state(let blob):
            writer.writeLongBytes(blob)
        case .heartbeat(let time):
            writer.write(time)
        case .goodbye(let reason, let sentence, let blob):
            writer.write(reason.rawValue)
            writer.writeString16(sentence)
            writer.writeLongBytes(blob)
        case .rematch(let word):
            writer.write(word.rawValue)
        case .challenge(let challenge):
            writer.write(challenge.method)
            writer.write(bytes: challenge.matchID.bytes)
            writer.write(bytes: Array(challenge.hostNonce.prefix(PasscodeKey.nonceLength)))
            writer.write(bytes: [UInt8](repeating: 0, count: max(0, PasscodeKey.nonceLength - challenge.hostNonce.count)))
        case .table(let table):
            writer.write(UInt8(clamping: table.yourSeat))
            writer.write(table.heartbeatIntervalMilliseconds)
            writer.write(table.heartbeatTimeoutMilliseconds)
            let seats = Array(table.seats.prefix(MatchBlob.seatLimit.upperBound))
            writer.write(UInt8(seats.count))
            for seat in seats {
                writer.write(seat.kind.rawValue)
                writer.writeString8(seat.kind == .free ? "" : seat.name, limit: Seat.maximumNameBytes)
            }
        case .seat(let presence):
            writer.write(UInt8(clamping: presence.seat))
            writer.write(presence.botStandsIn ? UInt8(2) : presence.away ? UInt8(1) : 0)
            writer.write(presence.away && !presence.botStandsIn ? presence.graceLeftMilliseconds : 0)
        case .talk(let talk):
            talk.write(into: &writer)
        case .watching(let welcome):
            writer.write(welcome.protocolVersion)
            writer.write(welcome.heartbeatIntervalMilliseconds)
            writer.write(welcome.heartbeatTimeoutMilliseconds)
            writer.writeString8(welcome.hostAppVersion, limit: MessageLimits.appVersionBytes.upperBound)
            writer.write(welcome.watching)
            writer.writeLongBytes(welcome.matchBlob)
        }
        return writer.bytes
    }

    /// Decodes and validates a frame's payload. Never traps on any input.
    public static func decode(_ frame: Frame) throws(MessageError) -> Message {
        var reader = MessageReader(type: frame.type, bytes: frame.payload)
        let message = try reader.readMessage()
        guard reader.remaining == 0 else { throw .trailingBytes(frame.type, count: reader.remaining) }
        return message
    }
}

/// Reads one message's fields, turning every problem into a `MessageError`.
private struct MessageReader {
    let type: MessageType
    var reader: ByteReader

    init(type: MessageType, bytes: [UInt8]) {
        self.type = type
        self.reader = ByteReader(bytes)
    }

    var remaining: Int { reader.remaining }

    private func invalid(_ field: String) -> MessageError { .invalidField(type, field: field) }

    mutating func u8() throws(MessageError) -> UInt8 {
        do { return try reader.readUInt8() } catch { throw .truncated(type, offset: error.offset) }
    }
    mutating func u16() throws(MessageError) -> UInt16 {
        do { return try reader.readUInt16() } catch { throw .truncated(type, offset: error.offset) }
    }
    mutating func u32() throws(MessageError) -> UInt32 {
        do { return try reader.readUInt32() } catch { throw .truncated(type, offset: error.offset) }
    }
    mutating func u64() throws(MessageError) -> UInt64 {
        do { return try reader.readUInt64() } catch { throw .truncated(type, offset: error.offset) }
    }
    mutating func bytes(_ count: Int) throws(MessageError) -> [UInt8] {
        do { return try reader.readBytes(count) } catch { throw .truncated(type, offset: error.offset) }
    }
    mutating func identifier(_ field: String, zeroMeansNone: Bool) throws(MessageError) -> Identifier128? {
        let raw = try bytes(16)
        if zeroMeansNone && raw.allSatisfy({ $0 == 0 }) { return nil }
        guard let id = Identifier128(bytes: raw) else { throw invalid(field) }
        return id
    }
    /// A u8-length UTF-8 string of at most `limit` bytes without control characters.
    mutating func string8(_ field: String, limit: Int) throws(MessageError) -> String {
        let count = Int(try u8())
        guard count <= limit else { throw invalid(field) }
        return try text(try bytes(count), field)
    }
    /// A u8-length UTF-8 string checked for encoding only: the player name,
    /// whose rules (`Seat.isValidName`) the host applies so that it can
    /// answer REJECT nameInvalid rather than a protocol error.
    mutating func utf8String8(_ field: String) throws(MessageError) -> String {
        let raw = try bytes(Int(try u8()))
        guard let string = String(validating: raw, as: UTF8.self) else { throw invalid(field) }
        return string
    }
    /// A u16-length UTF-8 sentence of at most `MessageLimits.maximumSentenceBytes`.
    mutating func sentence() throws(MessageError) -> String {
        let count = Int(try u16())
        guard count <= MessageLimits.maximumSentenceBytes else { throw invalid("sentence") }
        return try text(try bytes(count), "sentence")
    }
    /// Peer text ends up on a terminal, so control characters (escape
    /// sequences included) are refused rather than displayed.
    private func text(_ raw: [UInt8], _ field: String) throws(MessageError) -> String {
        guard let string = String(validating: raw, as: UTF8.self),
              !string.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid(field)
        }
        return string
    }
    /// A u32-length match blob, its length refused over the blob limit before reading.
    mutating func blob(allowEmpty: Bool = false) throws(MessageError) -> [UInt8] {
        let count = Int(try u32())
        guard count <= MessageLimits.maximumBlobBytes else { throw invalid("blob length") }
        guard allowEmpty || count > 0 else { throw invalid("blob length") }
        return try bytes(count)
    }

    mutating func readMessage() throws(MessageError) -> Message {
        switch type {
        case .hello, .watch:
            let versionCount = Int(try u8())
            guard (1...MessageLimits.maximumVersions).contains(versionCount) else { throw invalid("protocol version list") }
            let versions = try bytes(versionCount)
            guard !versions.contains(0) else { throw invalid("protocol version list") }
            let app = try string8("app version", limit: MessageLimits.appVersionBytes.upperBound)
            guard MessageLimits.appVersionBytes.contains(app.utf8.count), app.utf8.allSatisfy({ (0x20...0x7e).contains($0) }) else {
                throw invalid("app version")
            }
            guard let player = try identifier("player id", zeroMeansNone: true) else { throw invalid("player id") }
            let name = try utf8String8("player name")
            let gameCount = Int(try u8())
            guard (1...MessageLimits.maximumGames).contains(gameCount) else { throw invalid("game list") }
            var games: [GameVersion] = []
            for _ in 0..<gameCount {
                let game = try string8("game id", limit: MessageLimits.gameIDBytes.upperBound)
                guard MessageLimits.gameIDBytes.contains(game.utf8.count),
                      game.utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d || $0 == 0x5f }) else {
                    throw invalid("game id")
                }
                games.append(GameVersion(id: game, rulesVersion: try u16()))
            }
            guard Set(games.map(\.id)).count == games.count else { throw invalid("game list") }
            let match = try identifier("match id", zeroMeansNone: true)
            let token = try identifier("seat token", zeroMeansNone: true)
            let proofCount = Int(try u8())
            guard proofCount <= MessageLimits.maximumProofBytes else { throw invalid("passcode proof") }
            let proof = try bytes(proofCount)
            var hello = Hello(protocolVersions: versions, appVersion: app, playerID: player, playerName: name,
                              games: games, matchID: match, seatToken: token, passcodeProof: proof)
            guard type == .watch else { return .hello(hello) }
            // A spectator takes no seat: it names no match to take back and holds no token.
            guard match == nil else { throw invalid("match id") }
            guard token == nil else { throw invalid("seat token") }
            hello.watching = true
            return .watch(hello)
        case .welcome:
            let version = try u8()
            guard version != 0 else { throw invalid("protocol version") }
            let seat = Int(try u8())
            guard seat < MatchBlob.seatLimit.upperBound else { throw invalid("seat") }
            guard let token = try identifier("seat token", zeroMeansNone: true) else { throw invalid("seat token") }
            let turnTimeout = try u32()
            guard turnTimeout <= SessionSettings.maximumTurnTimeout else { throw invalid("turn timeout") }
            let interval = try u32()
            guard SessionSettings.heartbeatIntervalRange.contains(interval) else { throw invalid("heartbeat interval") }
            let silence = try u32()
            guard SessionSettings.heartbeatTimeoutRange.contains(silence), silence > interval else { throw invalid("heartbeat timeout") }
            let confirmation = try u32()
            guard SessionSettings.confirmationTimeoutRange.contains(confirmation) else { throw invalid("confirmation timeout") }
            let app = try string8("app version", limit: MessageLimits.appVersionBytes.upperBound)
            guard MessageLimits.appVersionBytes.contains(app.utf8.count), app.utf8.allSatisfy({ (0x20...0x7e).contains($0) }) else {
                throw invalid("app version")
            }
            let blob = try blob()
            return .welcome(Welcome(protocolVersion: version, seat: seat, seatToken: token,
                                    settings: SessionSettings(turnTimeoutSeconds: turnTimeout, heartbeatIntervalMilliseconds: interval,
                                                              heartbeatTimeoutMilliseconds: silence,
                                                              confirmationTimeoutMilliseconds: confirmation),
                                    hostAppVersion: app, matchBlob: blob))
        case .reject:
            let reason = ReasonCode(rawValue: try u16())
            return .reject(reason, sentence: try sentence())
        case .turn:
            let sequence = try u32()
            guard sequence > 0 else { throw invalid("sequence") }
            return .turn(sequence: sequence, blob: try blob())
        case .quit:
            let sequence = try u32()
            guard sequence > 0 else { throw invalid("sequence") }
            return .quit(sequence: sequence, blob: try blob())
        case .confirm:
            let sequence = try u32()
            guard sequence > 0 else { throw invalid("sequence") }
            let hash = try u64()
            let deadline = Int64(bitPattern: try u64())
            guard deadline >= 0 else { throw invalid("deadline") }
            return .confirm(sequence: sequence, stateHash: hash, deadline: deadline)
        case .turnRejected:
            let sequence = try u32()
            let reason = ReasonCode(rawValue: try u16())
            return .turnRejected(sequence: sequence, reason: reason, sentence: try sentence())
        case .stateRequest:
            return .stateRequest(knownSequence: try u32())
        case .state:
            return .state(blob: try blob())
        case .heartbeat:
            return .heartbeat(senderTime: try u64())
        case .goodbye:
            let reason = ReasonCode(rawValue: try u16())
            let text = try sentence()
            return .goodbye(reason, sentence: text, finalBlob: try blob(allowEmpty: true))
        case .rematch:
            guard let word = RematchWord(rawValue: try u8()) else { throw invalid("rematch word") }
            return .rematch(word)
        case .challenge:
            guard try u8() == PasscodeKey.method else { throw invalid("passcode method") }
            guard let match = try identifier("match id", zeroMeansNone: true) else { throw invalid("match id") }
            return .challenge(PasscodeChallenge(matchID: match, hostNonce: try bytes(PasscodeKey.nonceLength)))
        case .table:
            let yours = Int(try u8())
            let interval = try u32()
            guard SessionSettings.heartbeatIntervalRange.contains(interval) else { throw invalid("heartbeat interval") }
            let silence = try u32()
            guard SessionSettings.heartbeatTimeoutRange.contains(silence), silence > interval else { throw invalid("heartbeat timeout") }
            let count = Int(try u8())
            guard MatchBlob.seatLimit.contains(count) else { throw invalid("seat count") }
            var seats: [TableSeating.Place] = []
            for _ in 0..<count {
                guard let kind = TableSeating.Kind(rawValue: try u8()) else { throw invalid("seat kind") }
                let name = try utf8String8("seat name")
                if kind == .free {
                    guard name.isEmpty else { throw invalid("seat name") }
                } else {
                    guard Seat.isValidName(name) else { throw invalid("seat name") }
                }
                seats.append(TableSeating.Place(kind: kind, name: name))
            }
            guard yours == TableSeating.noSeat || (yours < count && seats[yours].kind == .guest) else { throw invalid("your seat") }
            guard seats.filter({ $0.kind == .host }).count == 1 else { throw invalid("host seat") }
            return .table(TableSeating(yourSeat: yours, heartbeatIntervalMilliseconds: interval,
                                       heartbeatTimeoutMilliseconds: silence, seats: seats))
        case .seat:
            let seat = Int(try u8())
            guard seat < MatchBlob.seatLimit.upperBound else { throw invalid("seat") }
            let presence = try u8()
            guard presence <= 2 else { throw invalid("presence") }
            let left = try u32()
            guard presence == 1 || left == 0 else { throw invalid("grace left") }
            return .seat(SeatPresence(seat: seat, away: presence != 0, graceLeftMilliseconds: left, botStandsIn: presence == 2))
        case .talk:
            return .talk(try TalkMessage.decode(try bytes(remaining)))
        case .watching:
            let version = try u8()
            guard version != 0 else { throw invalid("protocol version") }
            let interval = try u32()
            guard SessionSettings.heartbeatIntervalRange.contains(interval) else { throw invalid("heartbeat interval") }
            let silence = try u32()
            guard SessionSettings.heartbeatTimeoutRange.contains(silence), silence > interval else { throw invalid("heartbeat timeout") }
            let app = try string8("app version", limit: MessageLimits.appVersionBytes.upperBound)
            guard MessageLimits.appVersionBytes.contains(app.utf8.count), app.utf8.allSatisfy({ (0x20...0x7e).contains($0) }) else {
                throw invalid("app version")
            }
            let watching = try u16()
            guard watching > 0 else { throw invalid("spectators watching") }
            return .watching(SpectatorWelcome(protocolVersion: version, heartbeatIntervalMilliseconds: interval,
                                              heartbeatTimeoutMilliseconds: silence, hostAppVersion: app, watching: watching,
                                              matchBlob: try blob(allowEmpty: true)))
        }
    }
}

extension ByteWriter {
    /// Writes a u8 length and at most `limit` bytes of UTF-8, cut at a character boundary.
    mutating func writeString8(_ text: String, limit: Int) {
        let utf8 = Self.prefix(of: text, bytes: min(limit, 255))
        write(UInt8(utf8.count))
        write(bytes: utf8)
    }

    /// Writes a u16 length and at most `MessageLimits.maximumSentenceBytes` of UTF-8.
    mutating func writeString16(_ text: String) {
        let utf8 = Self.prefix(of: text, bytes: MessageLimits.maximumSentenceBytes)
        write(UInt16(utf8.count))
        write(bytes: utf8)
    }

    /// The longest prefix of `text` whose UTF-8 fits in `bytes`, never splitting a character.
    static func prefix(of text: String, bytes limit: Int) -> [UInt8] {
        var result: [UInt8] = []
        for character in text {
            let next = Array(String(character).utf8)
            guard result.count + next.count <= limit else { break }
            result.append(contentsOf: next)
        }
        return result
    }
}
