// What a parlor host says about its game in its TXT record, and whether
// this parlor can join it. Discovery does not know the game catalog: the
// caller passes the protocol version it speaks and which games it knows.

/// The DNS-SD service type parlor advertises and browses.
public let parlorServiceType = "_parlor._tcp"

/// Why a TXT record does not describe a parlor game this code can read.
public enum ParlorTXTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A required key is absent.
    case missingKey(String)
    /// A key's value is not what the format allows.
    case invalidValue(key: String, value: String)

    /// The text a person reads.
    public var description: String {
        switch self {
        case .missingKey(let key):
            return "its TXT record has no '\(key)'"
        case .invalidValue(let key, let value):
            return "its TXT record has an invalid '\(key)' (\(value.debugDescription))"
        }
    }
}

/// The facts a parlor host publishes in its TXT record.
///
/// Keys: `pv` protocol version, `game` game id, `rv` rules version, `seats`
/// "taken/total", `state` open|playing, `match` match id, `code` 0|1
/// (passcode needed), `app` app version, `host` the host player's name,
/// `hints` 1 when the host allows the hint key (absent or any other value:
/// no hints; readers from before hints ignore the key), `watch` "watching/allowed"
/// spectators (absent: a host from before spectators; "0/0": none welcome) and
/// `wcode` 1 when spectators need a passcode (docs/PROTOCOL.md, section 17).
public struct ParlorServiceInfo: Sendable, Hashable {
    /// Whether the match still waits for players.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Seats are free; joining is possible.
        case open
        /// The match has started.
        case playing
    }

    /// The wire protocol version the host speaks.
    public var protocolVersion: Int
    /// The game's id in the catalog (e.g. "connect4").
    public var gameID: String
    /// The version of that game's rules.
    public var rulesVersion: Int
    /// Seats already taken, host included.
    public var seatsTaken: Int
    /// Seats in the match.
    public var seatsTotal: Int
    /// Open or playing.
    public var state: State
    /// The match's id, so a re-advertised match is recognisable.
    public var matchID: String
    /// Whether joining needs a passcode.
    public var needsPasscode: Bool
    /// The host's parlor version, for display.
    public var appVersion: String
    /// The host player's name, for display.
    public var hostPlayerName: String
    /// Whether the host allows the hint key on both sides (`parlor host --hints`).
    public var hintsAllowed = false
    /// A host of many tables (`parlor host --tables N`): how many are in play
    /// of how many, TXT `tables=K/N`; nil for a host of one match.
    public var tables: (inPlay: Int, limit: Int)? {
        get { tablesInPlay.map { ($0, tablesLimit) } }
        set {
            tablesInPlay = newValue?.inPlay
            tablesLimit = newValue?.limit ?? 0
        }
    }
    private var tablesInPlay: Int?
    private var tablesLimit = 0
    /// Spectators watching now and allowed at once; nil when the record says
    /// nothing of spectators (a host from before them, or a value this parlor cannot read).
    public var spectators: (watching: Int, allowed: Int)? {
        get { spectatorCounts.map { ($0.watching, $0.allowed) } }
        set { spectatorCounts = newValue.map { SpectatorCounts(watching: $0.watching, allowed: $0.allowed) } }
    }
    /// Whether spectators must prove a passcode (`--watch-code`, or `--code` alone).
    public var watchNeedsPasscode = false
    /// The first two groups of the host player's key fingerprint (TXT `key`,
    /// e.g. "RDRHLUG-V6WCKWX", protocol 3), so lists can mark a player already
    /// known; never a trust decision (the handshake proves the whole key).
    /// nil when absent or not of that form.
    public var hostKey: String?
    private var spectatorCounts: SpectatorCounts?

    private struct SpectatorCounts: Sendable, Hashable {
        var watching: Int
        var allowed: Int
    }

    /// Whether one more spectator may watch, as the record says.
    public var welcomesSpectators: Bool { spectators.map { $0.allowed > 0 && $0.watching < $0.allowed } ?? false }

    /// Longest host player name put in the record, in UTF-8 bytes; longer names are cut.
    public static let maximumHostNameBytes = 63

    /// Creates the record's facts.
    public init(
        protocolVersion: Int, gameID: String, rulesVersion: Int, seatsTaken: Int, seatsTotal: Int,
        state: State, matchID: String, needsPasscode: Bool, appVersion: String, hostPlayerName: String
    ) {
        self.protocolVersion = protocolVersion
        self.gameID = gameID
        self.rulesVersion = rulesVersion
        self.seatsTaken = seatsTaken
        self.seatsTotal = seatsTotal
        self.state = state
        self.matchID = matchID
        self.needsPasscode = needsPasscode
        self.appVersion = appVersion
        self.hostPlayerName = hostPlayerName
    }

    /// Reads the facts from a TXT record a peer published; throws what is missing or invalid.
    public init(txt: TXTRecord) throws(ParlorTXTError) {
        protocolVersion = try Self.integer("pv", in: txt)
        gameID = try Self.text("game", in: txt)
        guard !gameID.isEmpty else { throw .invalidValue(key: "game", value: gameID) }
        rulesVersion = try Self.integer("rv", in: txt)
        let seats = try Self.text("seats", in: txt)
        let parts = seats.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let taken = Self.count(parts[0]), let total = Self.count(parts[1]),
            taken <= total
        else { throw .invalidValue(key: "seats", value: seats) }
        seatsTaken = taken
        seatsTotal = total
        let stateText = try Self.text("state", in: txt)
        guard let state = State(rawValue: stateText) else {
            throw .invalidValue(key: "state", value: stateText)
        }
        self.state = state
        matchID = try Self.text("match", in: txt)
        let code = try Self.text("code", in: txt)
        switch code {
        case "0": needsPasscode = false
        case "1": needsPasscode = true
        default: throw .invalidValue(key: "code", value: code)
        }
        appVersion = (try? Self.text("app", in: txt)) ?? ""
        hostPlayerName = (try? Self.text("host", in: txt)) ?? ""
        // Anything but "1" (a later version's value too) means no hints: the safe side.
        hintsAllowed = txt["hints"] == "1"
        // A value this parlor cannot read is left out: the service is still a plain host.
        if let text = txt["tables"] {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 2, let inPlay = Self.count(parts[0]), let limit = Self.count(parts[1]), inPlay <= limit, limit > 0 {
                tables = (inPlay, limit)
            }
        }
        // Spectators are an addition: a record without them, or with a value this
        // parlor cannot read, is still a game (just not one it offers to watch).
        if let watch = txt["watch"] {
            let counts = watch.split(separator: "/", omittingEmptySubsequences: false)
            if counts.count == 2, let watching = Self.count(counts[0]), let allowed = Self.count(counts[1]) {
                spectators = (watching, allowed)
            }
        }
        watchNeedsPasscode = txt["wcode"] == "1"
        if let key = txt["key"], Self.isShortFingerprint(key) { hostKey = key }

    }

    /// The TXT record to advertise; the host player's name is cut to `maximumHostNameBytes`.
    public func txtRecord() throws(TXTRecordError) -> TXTRecord {
        var txt = TXTRecord()
        try txt.set("pv", to: String(protocolVersion))
        try txt.set("game", to: gameID)
        try txt.set("rv", to: String(rulesVersion))
        try txt.set("seats", to: "\(seatsTaken)/\(seatsTotal)")
        try txt.set("state", to: state.rawValue)
        try txt.set("match", to: matchID)
        try txt.set("code", to: needsPasscode ? "1" : "0")
        try txt.set("app", to: appVersion)
        try txt.set("host", to: Self.prefix(of: hostPlayerName, maximumBytes: Self.maximumHostNameBytes))
        if hintsAllowed { try txt.set("hints", to: "1") }
        if let tables { try txt.set("tables", to: "\(tables.inPlay)/\(tables.limit)") }
        if let spectators { try txt.set("watch", to: "\(spectators.watching)/\(spectators.allowed)") }
        if watchNeedsPasscode { try txt.set("wcode", to: "1") }
        if let hostKey { try txt.set("key", to: hostKey) }
        return txt
    }

    /// Seven base32 symbols, a dash, seven more: a short fingerprint as `parlor id` prints its start.
    static func isShortFingerprint(_ text: String) -> Bool {
        let symbols = Array(text.utf8)
        guard symbols.count == 15, symbols[7] == UInt8(ascii: "-") else { return false }
        return symbols.enumerated().allSatisfy { index, byte in
            index == 7 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "2")...UInt8(ascii: "7")).contains(byte)
        }
    }

    /// Reads a peer's record and decides whether this parlor can join it.
    ///
    /// - Parameters:
    ///   - supportedProtocolVersion: the newest wire protocol version this
    ///     parlor speaks; it speaks every older one down to 1 as well. A host
    ///     advertises `pv=2` only for a table of three or more seats, which a
    ///     protocol-1 parlor (it reads any `pv` but 1 as another version) lists
    ///     as not joinable instead of trying it.
    ///   - isKnownGame: whether this parlor has the game id at that rules version.
    public static func assess(
        _ txt: TXTRecord, supportedProtocolVersion: Int,
        isKnownGame: (_ gameID: String, _ rulesVersion: Int) -> Bool
    ) -> ParlorServiceAssessment {
        // The protocol version decides how to read everything else, so a
        // host speaking another version is reported as such even when the
        // rest of its record makes no sense to us.
        if let advertised = txt["pv"], !(Int(advertised).map { (1...max(1, supportedProtocolVersion)).contains($0) } ?? false) {
            return ParlorServiceAssessment(
                info: nil,
                reason: .protocolVersion(advertised: advertised, supported: supportedProtocolVersion))
        }
        let info: ParlorServiceInfo
        do {
            info = try ParlorServiceInfo(txt: txt)
        } catch {
            return ParlorServiceAssessment(info: nil, reason: .unreadableRecord(error))
        }
        if !isKnownGame(info.gameID, info.rulesVersion) {
            return ParlorServiceAssessment(
                info: info, reason: .unknownGame(id: info.gameID, rulesVersion: info.rulesVersion))
        }
        if info.state == .playing {
            return ParlorServiceAssessment(info: info, reason: .alreadyPlaying)
        }
        if info.seatsTaken >= info.seatsTotal {
            return ParlorServiceAssessment(
                info: info, reason: .full(taken: info.seatsTaken, total: info.seatsTotal))
        }
        return ParlorServiceAssessment(info: info, reason: nil)
    }

    /// Whether this parlor can watch a service (`parlor watch`): as `assess`,
    /// except that a match already playing or full is fine to watch, and a
    /// host that takes no spectators (or no more) is not.
    public static func assessForWatching(_ assessment: ParlorServiceAssessment) -> ParlorServiceAssessment {
        switch assessment.reason {
        case nil, .alreadyPlaying?, .full?:
            guard let info = assessment.info else { return assessment }
            guard let spectators = info.spectators, spectators.allowed > 0 else {
                return ParlorServiceAssessment(info: info, reason: .noSpectators)
            }
            guard spectators.watching < spectators.allowed else {
                return ParlorServiceAssessment(info: info, reason: .spectatorsFull(watching: spectators.watching))
            }
            return ParlorServiceAssessment(info: info, reason: nil)
        default:
            return assessment
        }
    }

    /// `assess` for callers that know game ids but not rules versions.
    public static func assess(
        _ txt: TXTRecord, supportedProtocolVersion: Int, knownGameIDs: Set<String>
    ) -> ParlorServiceAssessment {
        assess(txt, supportedProtocolVersion: supportedProtocolVersion) { id, _ in
            knownGameIDs.contains(id)
        }
    }

    private static func text(_ key: String, in txt: TXTRecord) throws(ParlorTXTError) -> String {
        guard let raw = txt.value(forKey: key) else { throw .missingKey(key) }
        guard let bytes = raw, let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidValue(key: key, value: raw.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
        return text
    }

    private static func integer(_ key: String, in txt: TXTRecord) throws(ParlorTXTError) -> Int {
        let value = try text(key, in: txt)
        guard let number = count(Substring(value)) else { throw .invalidValue(key: key, value: value) }
        return number
    }

    /// A small non-negative decimal; rejects signs, spaces and absurd sizes.
    private static func count(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        return Int(text)
    }

    /// The longest prefix of `text` that fits `maximumBytes` of UTF-8 without splitting a character.
    static func prefix(of text: String, maximumBytes: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= maximumBytes else { break }
            result.append(character)
            used += size
        }
        return result
    }
}

/// Whether a parlor service can be joined, with its facts when they could be read.
public struct ParlorServiceAssessment: Sendable, Hashable {
    /// The facts; `nil` when the record is unreadable or from another protocol version.
    public let info: ParlorServiceInfo?
    /// Why it cannot be joined; `nil` when it can.
    public let reason: UnjoinableReason?
    /// True when `reason` is nil.
    public var isJoinable: Bool { reason == nil }
}

/// Why this parlor cannot join a service it found.
public enum UnjoinableReason: Sendable, Hashable, CustomStringConvertible {
    /// The host speaks another wire protocol version.
    case protocolVersion(advertised: String, supported: Int)
    /// The TXT record is not a parlor record this code can read.
    case unreadableRecord(ParlorTXTError)
    /// This parlor does not have that game (or that rules version).
    case unknownGame(id: String, rulesVersion: Int)
    /// The match has already started.
    case alreadyPlaying
    /// Every seat is taken.
    case full(taken: Int, total: Int)
    /// To watch: the host takes no spectators (or says nothing of them).
    case noSpectators
    /// To watch: as many spectators watch as the host allows.
    case spectatorsFull(watching: Int)

    /// The text a person reads next to the listing.
    public var description: String {
        switch self {
        case .protocolVersion(let advertised, let supported):
            // Say which side to update: a person can act on that.
            let advice: String
            if let number = Int(advertised), number > supported {
                advice = "update this parlor to join it"
            } else if let number = Int(advertised), number < supported {
                advice = "the host needs a newer parlor"
            } else {
                advice = "the host is not a parlor this one can talk to"
            }
            return "speaks protocol version \(advertised); this parlor speaks \(supported) (\(advice))"
        case .unreadableRecord(let error):
            return "not a game this parlor can read: \(error)"
        case .unknownGame(let id, let rulesVersion):
            return "unknown game '\(id)' (rules version \(rulesVersion)); this parlor does not have it"
        case .alreadyPlaying:
            return "already playing"
        case .full(let taken, let total):
            return "full (\(taken)/\(total) seats)"
        case .noSpectators:
            return "takes no spectators"
        case .spectatorsFull(let watching):
            return "\(watching) watching, as many as the host allows"
        }
    }
}
