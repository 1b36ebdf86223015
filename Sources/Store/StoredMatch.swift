import Match

/// One match as this side keeps it on disk.
public struct StoredMatch: Sendable {
    /// This side's part in the match.
    public enum Role: UInt8, Sendable, CustomStringConvertible {
        /// `parlor play`: every seat on this machine.
        case offline = 0
        /// `parlor host`: the authoritative copy.
        case host = 1
        /// `parlor join`: the guest's copy.
        case guest = 2
        /// "offline", "host" or "guest".
        public var description: String {
            switch self { case .offline: "offline"; case .host: "host"; case .guest: "guest" }
        }
    }

    /// Where the match stands for this side. Two functions decide it, both
    /// here in the Store and nowhere else: `Phase.toSave(_:after:lastSaved:)`
    /// what a side writes, and `MatchStore.phase(of:)` where a file stands
    /// now (what `MatchStore.list` and `load` return).
    public enum Phase: UInt8, Sendable, CustomStringConvertible {
        /// Being played now: a process holds the match's lock (saved so, and the process died: interrupted).
        case playing = 0
        /// The side left for now, the connection was lost and the grace period passed, or a process died; `parlor resume` continues it.
        case interrupted = 1
        /// Every seat has its outcome.
        case ended = 2
        /// "playing", "interrupted" or "ended".
        public var description: String {
            switch self { case .playing: "playing"; case .interrupted: "interrupted"; case .ended: "ended" }
        }

        /// What just happened to a match that a side saves.
        public enum Cause: Sendable, Hashable {
            /// It started, a change was committed or rolled back, the host's state was adopted, or it ended.
            case changed
            /// It stopped on a failure; `resumable` when `parlor resume` can continue it (`MatchFailure.isResumable`).
            case stopped(resumable: Bool)
            /// This side went away without quitting (Ctrl-C, SIGTERM, SIGHUP, a lost terminal, end of input).
            case leftForNow
        }

        /// The phase a side saves for `state` after `cause`: ended when every
        /// seat has its outcome; interrupted when the side left for now or the
        /// match stopped on a failure it can be resumed from, and while the
        /// phase saved last (`lastSaved`) is interrupted and `state` is no newer
        /// (only the match going on makes it playing again); else playing.
        public static func toSave(_ state: MatchState, after cause: Cause = .changed,
                                  lastSaved: (phase: Phase, sequence: UInt32)? = nil) -> Phase {
            if state.isEnded { return .ended }
            switch cause {
            case .leftForNow, .stopped(resumable: true):
                return .interrupted
            case .changed, .stopped(resumable: false):
                if let lastSaved, lastSaved.phase == .interrupted, state.sequence <= lastSaved.sequence { return .interrupted }
                return .playing
            }
        }
    }

    /// The match as this side last committed it.
    public var state: MatchState
    /// Offline, host or guest.
    public var role: Role
    /// The seat played from this side.
    public var localSeat: Int
    /// Playing, interrupted or ended: as this side last saved it, or as it
    /// stands now in a record from `MatchStore.list` or `load`.
    public var phase: Phase
    /// Milliseconds since 1970 UTC of the last committed change or phase change.
    public var lastActivity: Int64
    /// How this side reached the host (`HOST:PORT`), for a guest; empty otherwise.
    public var peerAddress: String
    /// The secret that lets this side take its seat again on resume (all zero if none).
    public var seatToken: [UInt8]
    /// Whether a seat token was saved (older parlors saved none: all zero); without one the match cannot be resumed.
    public var hasSeatToken: Bool { seatToken.contains { $0 != 0 } }
    /// The process that wrote the record last (for diagnostics only: whether a match is in play is told by its lock).
    public var writerPID: Int32
    /// For a host: the TCP port it listened on, tried first by `parlor resume`; 0 if unknown.
    public var listenPort: UInt16
    /// For the host of a table (three or more seats): every seat, in seat
    /// order, with what the host needs to bring it back (each guest's seat
    /// token, each bot's level). Empty in every other record, and in a
    /// table host's record written before format 3 (which cannot be resumed).
    public var tableSeats: [TableSeat]
    /// For a host: what it was started with, so `parlor resume` hosts the
    /// match the same way (format 4); nil in every other record and in a
    /// host's record of an older format (resume then takes the defaults).
    public var hostSettings: HostSettings?
    /// The other side's player key as its encrypted channel proved it (format 5,
    /// protocol 3): for a guest, the host's; for the host of a two-seat match,
    /// the guest's. Resuming connects only to (a guest) or takes back the seat
    /// only for (a host) that key. 32 zero bytes when none is known (a record of
    /// an older format, a match in clear, or a table's host).
    public var peerKey: [UInt8]
    /// Whether a peer key was saved.
    public var hasPeerKey: Bool { peerKey.contains { $0 != 0 } }

    /// What a host chose on its command line that the match keeps when it is
    /// resumed: table talk, hints, spectators and the code they prove, how long
    /// an away seat waits for a bot, and the connection's timeouts.
    public struct HostSettings: Sendable, Hashable {
        /// Table talk on (`--no-talk` turns it off).
        public var talk: Bool
        /// The hint key allowed to everyone (`--hints`).
        public var hints: Bool
        /// Spectators allowed at once (`--spectators`); 0 forbids watching.
        public var spectators: Int
        /// The code a spectator proves (the watch code, or the players' code when
        /// no watch code was given); nil when anyone may watch. Kept in the
        /// user-only match file, as the seat tokens are.
        public var spectatorCode: String?
        /// Seconds before an away seat is handed to a bot (`--away-bot`); nil: never by itself.
        public var awayBotSeconds: UInt32?
        /// `--grace` in seconds as given; nil: the default.
        public var graceSeconds: UInt32?
        /// `--heartbeat-timeout` in seconds as given; nil: the default.
        public var heartbeatTimeoutSeconds: UInt32?

        /// Settings; see the fields.
        public init(talk: Bool = true, hints: Bool = false, spectators: Int = 16, spectatorCode: String? = nil,
                    awayBotSeconds: UInt32? = nil, graceSeconds: UInt32? = nil, heartbeatTimeoutSeconds: UInt32? = nil) {
            self.talk = talk
            self.hints = hints
            self.spectators = max(0, min(spectators, Int(UInt16.max)))
            self.spectatorCode = spectatorCode.map { String($0.utf8.prefix(200)) ?? "" }
            self.awayBotSeconds = awayBotSeconds
            self.graceSeconds = graceSeconds
            self.heartbeatTimeoutSeconds = heartbeatTimeoutSeconds
        }

        /// No value written for an optional number.
        static let none = UInt32.max

        func encoded() -> [UInt8] {
            var writer = ByteWriter(capacity: 32)
            writer.write(UInt8((talk ? 1 : 0) | (hints ? 2 : 0) | (spectatorCode != nil ? 4 : 0)))
            writer.write(UInt16(clamping: spectators))
            for value in [awayBotSeconds, graceSeconds, heartbeatTimeoutSeconds] { writer.write(value ?? Self.none) }
            if let spectatorCode { writer.writeShortString(spectatorCode) }
            return writer.bytes
        }

        init(decoding bytes: [UInt8]) throws(StoredMatchError) {
            var reader = ByteReader(bytes, offset: 0)
            do {
                let flags = try reader.readUInt8()
                guard flags & ~7 == 0 else { throw StoredMatchError.invalidField("host settings") }
                let spectators = Int(try reader.readUInt16())
                let numbers = try (0..<3).map { _ in try reader.readUInt32() }.map { $0 == Self.none ? nil : $0 }
                var code: String?
                if flags & 4 != 0 {
                    guard let text = String(validating: try reader.readShortBytes(), as: UTF8.self) else {
                        throw StoredMatchError.invalidField("host settings")
                    }
                    code = text
                }
                guard reader.offset == bytes.count else { throw StoredMatchError.invalidField("host settings") }
                self.init(talk: flags & 1 != 0, hints: flags & 2 != 0, spectators: spectators, spectatorCode: code,
                          awayBotSeconds: numbers[0], graceSeconds: numbers[1], heartbeatTimeoutSeconds: numbers[2])
            } catch let error as StoredMatchError {
                throw error
            } catch {
                throw .invalidField("host settings")
            }
        }
    }

    /// One seat of a table as its host keeps it (format 3).
    public struct TableSeat: Sendable, Hashable {
        /// Who plays the seat from the host's side.
        public enum Kind: UInt8, Sendable, Hashable {
            /// The host's own seat (`localSeat`).
            case own = 0
            /// A guest on its own link, which comes back with `seatToken`.
            case guest = 1
            /// One of the host's bots (`--bots`, `--fill-with-bots`).
            case bot = 2
        }
        /// Own, guest or bot.
        public var kind: Kind
        /// A guest's secret for its seat (16 bytes); all zero for the others.
        public var seatToken: [UInt8]
        /// A bot's level as the command line names it ("easy"); empty for the others.
        public var botLevel: String
        /// A guest's player key as its encrypted channel proved it (format 6): only that key takes
        /// the seat back. 32 zero bytes when none is known (an older record, a guest in clear, the others).
        public var playerKey: [UInt8]
        /// Whether a player key was saved.
        public var hasPlayerKey: Bool { playerKey.contains { $0 != 0 } }

        /// A seat; a token that is not 16 bytes, or a key that is not 32, is kept as all zero.
        public init(kind: Kind, seatToken: [UInt8] = Array(repeating: 0, count: 16), botLevel: String = "", playerKey: [UInt8]? = nil) {
            self.kind = kind
            self.seatToken = seatToken.count == 16 ? seatToken : Array(repeating: 0, count: 16)
            self.botLevel = String(botLevel.utf8.prefix(255)) ?? ""
            self.playerKey = playerKey?.count == 32 ? playerKey! : Array(repeating: 0, count: 32)
        }
    }

    /// A record; see the fields.
    public init(state: MatchState, role: Role, localSeat: Int, phase: Phase? = nil, lastActivity: Int64,
                peerAddress: String = "", seatToken: [UInt8] = Array(repeating: 0, count: 16), writerPID: Int32 = 0,
                listenPort: UInt16 = 0, tableSeats: [TableSeat] = [], hostSettings: HostSettings? = nil,
                peerKey: [UInt8]? = nil) {
        self.state = state
        self.role = role
        self.localSeat = localSeat
        self.phase = phase ?? .toSave(state)
        self.lastActivity = lastActivity
        self.peerAddress = peerAddress
        self.seatToken = seatToken.count == 16 ? seatToken : Array(repeating: 0, count: 16)
        self.writerPID = writerPID
        self.listenPort = listenPort
        self.tableSeats = tableSeats
        self.hostSettings = hostSettings
        self.peerKey = peerKey?.count == 32 ? peerKey! : Array(repeating: 0, count: 32)
    }

    /// The opponents' names, as shown in `parlor matches`.
    public var opponentNames: [String] {
        state.seats.indices.filter { $0 != localSeat }.map { state.seats[$0].name }
    }
}

/// Why a stored match could not be read.
public enum StoredMatchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file does not start as a parlor match file does.
    case notAStoredMatch
    /// The path is a FIFO, a device or a directory, not a regular file.
    case notARegularFile
    /// Written by a newer parlor, in this format version.
    case newerFormat(UInt16)
    /// The file ends before its record does.
    case truncated
    /// The file's checksum does not match its bytes.
    case checksumMismatch
    /// A field holds a value outside its range; the text names the field.
    case invalidField(String)
    /// The match blob inside is damaged (or of a game this process has not registered).
    case damagedMatch(MatchBlobError)

    /// A sentence for `parlor matches` and `parlor resume`.
    public var description: String {
        switch self {
        case .notAStoredMatch: "not a parlor match file"
        case .notARegularFile: "not a parlor match file (not a regular file: a FIFO, device or directory)"
        case .newerFormat(let v): "written by a newer parlor (format \(v))"
        case .truncated: "the file is cut short"
        case .checksumMismatch: "the file is damaged (checksum mismatch)"
        case .invalidField(let field): "the file has an invalid \(field)"
        case .damagedMatch(let error): "the match inside is damaged: \(error)"
        }
    }
}

extension StoredMatch {
    static let magic: [UInt8] = [0x50, 0x4D, 0x53, 0x00]  // "PMS\0"
    /// Format 2 added the host's listen port, format 3 a table host's seats
    /// (`tableSeats`), format 4 a host's settings (`hostSettings`), format 5
    /// the peer's key (`peerKey`), format 6 each table guest's key (`TableSeat.playerKey`);
    /// files of formats 1 to 5 are still read.
    static let currentFormat: UInt16 = 6
    /// Blob limit plus room for the record's own fields.
    public static let maximumFileSize = MatchBlob.maximumSize + 4096

    /// The file's bytes: header, the match blob, and an FNV-1a 64 checksum of all before it.
    public func encoded() -> [UInt8] { encoded(format: Self.currentFormat) }

    /// The bytes as `format` (5 or later) wrote them: tests make older files with it.
    func encoded(format: UInt16) -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        writer.write(bytes: Self.magic)
        writer.write(format)
        writer.write(role.rawValue)
        writer.write(UInt8(clamping: localSeat))
        writer.write(phase.rawValue)
        writer.write(lastActivity)
        writer.writeShortString(String(peerAddress.utf8.prefix(255)) ?? "")
        writer.write(bytes: seatToken)
        writer.write(UInt32(bitPattern: writerPID))
        writer.write(listenPort)
        writer.write(UInt8(clamping: tableSeats.count))
        for seat in tableSeats {
            writer.write(seat.kind.rawValue)
            writer.write(bytes: seat.seatToken)
            writer.writeShortString(seat.botLevel)
            if format >= 6 { writer.write(bytes: seat.playerKey) }
        }
        // The settings block has a one-byte length: its fields take 15 bytes and the code at most 201.
        let settings = hostSettings?.encoded() ?? []
        writer.write(UInt8(settings.count))
        writer.write(bytes: settings)
        writer.write(bytes: peerKey)
        writer.writeLongBytes(MatchBlob.encode(state))
        writer.write(fnv1a64(writer.bytes))
        return writer.bytes
    }

    /// Reads untrusted file bytes; never traps.
    public init(decoding bytes: [UInt8]) throws(StoredMatchError) {
        guard bytes.count <= Self.maximumFileSize else { throw .invalidField("size") }
        guard bytes.count >= 4, Array(bytes.prefix(4)) == Self.magic else { throw .notAStoredMatch }
        guard bytes.count >= 8 + 6 else { throw .truncated }
        var reader = ByteReader(bytes, offset: 4)
        do {
            let format = try reader.readUInt16()
            guard format <= Self.currentFormat else { throw StoredMatchError.newerFormat(format) }
            guard format >= 1 else { throw StoredMatchError.invalidField("format") }
            let checksumOffset = bytes.count - 8
            guard checksumOffset > reader.offset else { throw StoredMatchError.truncated }
            var tail = ByteReader(bytes, offset: checksumOffset)
            guard try tail.readUInt64() == fnv1a64(bytes[0..<checksumOffset]) else {
                throw StoredMatchError.checksumMismatch
            }
            guard let role = Role(rawValue: try reader.readUInt8()) else { throw StoredMatchError.invalidField("role") }
            let seat = Int(try reader.readUInt8())
            guard let phase = Phase(rawValue: try reader.readUInt8()) else { throw StoredMatchError.invalidField("phase") }
            let activity = try reader.readInt64()
            guard let address = String(validating: try reader.readShortBytes(), as: UTF8.self) else {
                throw StoredMatchError.invalidField("peer address")
            }
            let token = try reader.readBytes(16)
            let pid = Int32(bitPattern: try reader.readUInt32())
            let port = format >= 2 ? try reader.readUInt16() : 0
            var tableSeats: [TableSeat] = []
            if format >= 3 {
                for _ in 0..<Int(try reader.readUInt8()) {
                    guard let kind = TableSeat.Kind(rawValue: try reader.readUInt8()) else {
                        throw StoredMatchError.invalidField("table seat")
                    }
                    let seatToken = try reader.readBytes(16)
                    guard let level = String(validating: try reader.readShortBytes(), as: UTF8.self) else {
                        throw StoredMatchError.invalidField("bot level")
                    }
                    let key = format >= 6 ? try reader.readBytes(32) : nil
                    tableSeats.append(TableSeat(kind: kind, seatToken: seatToken, botLevel: level, playerKey: key))
                }
            }
            var settings: HostSettings?
            if format >= 4 {
                let block = try reader.readShortBytes()
                if !block.isEmpty {
                    guard role == .host else { throw StoredMatchError.invalidField("host settings") }
                    settings = try HostSettings(decoding: block)
                }
            }
            let peerKey = format >= 5 ? try reader.readBytes(32) : nil
            guard let blob = try reader.readLongBytes(limit: MatchBlob.maximumSize) else {
                throw StoredMatchError.invalidField("match size")
            }
            guard reader.offset == checksumOffset else { throw StoredMatchError.invalidField("length") }
            let state: MatchState
            do { state = try MatchBlob.decode(blob) } catch { throw StoredMatchError.damagedMatch(error) }
            guard state.seats.indices.contains(seat) else { throw StoredMatchError.invalidField("local seat") }
            guard tableSeats.isEmpty || (tableSeats.count == state.seats.count && tableSeats[seat].kind == .own) else {
                throw StoredMatchError.invalidField("table seats")
            }
            self.init(state: state, role: role, localSeat: seat, phase: phase, lastActivity: activity,
                      peerAddress: address, seatToken: token, writerPID: pid, listenPort: port, tableSeats: tableSeats,
                      hostSettings: settings, peerKey: peerKey)
        } catch let error as StoredMatchError {
            throw error
        } catch {
            throw .truncated
        }
    }
}
