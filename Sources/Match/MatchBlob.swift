import Games

/// Why bytes could not be read as a match blob. Every case is a clean error;
/// no input makes the decoder trap.
public enum MatchBlobError: Error, Hashable, Sendable {
    /// Larger than `MatchBlob.maximumSize`; refused before parsing.
    case tooLarge(Int)
    /// Does not start with the blob's magic bytes: not a parlor match.
    case notAMatch
    /// Written by a newer parlor whose format this one cannot read.
    case newerFormat(UInt16)
    /// A format version that never existed.
    case unknownFormat(UInt16)
    /// The bytes end before the blob does.
    case truncated(offset: Int)
    /// Bytes left over after the blob.
    case trailingBytes(Int)
    /// A field holds a value outside its range; the text names the field.
    case invalidField(String)
    /// The game id is not one this parlor knows.
    case unknownGame(String)
    /// The game is known but its rules version differs from this parlor's.
    case rulesVersionMismatch(game: String, theirs: Int, ours: Int)
    /// Replaying the moves broke the rules at the given move index.
    case illegalHistory(moveIndex: Int)
    /// Outcomes or statuses are not what the rules imply.
    case outcomesDisagree
    /// The stored state hash does not match the content.
    case hashMismatch(stored: UInt64, computed: UInt64)
}

extension MatchBlobError: CustomStringConvertible {
    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .tooLarge(let size): "the match data is \(size) bytes, over the \(MatchBlob.maximumSize)-byte limit"
        case .notAMatch: "the data is not a parlor match"
        case .newerFormat(let version): "the match was made by a newer parlor (format \(version)); update parlor to open it"
        case .unknownFormat(let version): "the match data has an unknown format version \(version)"
        case .truncated(let offset): "the match data is cut short (ends at byte \(offset))"
        case .trailingBytes(let count): "the match data has \(count) unexpected bytes at the end"
        case .invalidField(let field): "the match data has an invalid \(field)"
        case .unknownGame(let id): "the match is of a game this parlor does not know ('\(id)')"
        case .rulesVersionMismatch(let game, let theirs, let ours):
            "the match uses \(game) rules version \(theirs), this parlor has version \(ours)"
        case .illegalHistory(let index): "the match history is illegal at move \(index + 1)"
        case .outcomesDisagree: "the match's outcomes do not follow from its moves"
        case .hashMismatch: "the match data is corrupted (state hash mismatch)"
        }
    }
}

/// The versioned match data: what peers exchange on every turn and what is
/// stored on disk. Layout in docs/PROTOCOL.md, "The match blob".
///
/// All integers big-endian; all indices 0-based.
public enum MatchBlob {
    /// The blob's first four bytes, "PMB\0".
    public static let magic: [UInt8] = [0x50, 0x4D, 0x42, 0x00]
    /// The newest format this parlor reads and writes. Format 1 is written for
    /// two-seat matches (byte for byte what release 1 wrote); format 2, which
    /// adds when each seat left, for three seats or more; format 3, format 2
    /// with the match's seed, for a game that uses randomness, at any number
    /// of seats (only such games: every other game's bytes are as before);
    /// format 4, for a match where some move came with a message
    /// (`TurnMessage`): format 2's seats, the seed when the game has one, and
    /// a table of messages after the moves. Only such matches: a match without
    /// messages keeps the format it had. Format 5, for a game whose moves are
    /// bytes (`Game.moveByteLimit`), always: format 4 with each move's bytes
    /// after a u16 length, and a message table that may be empty.
    public static let currentFormat: UInt16 = 5
    /// The first format that carries turn messages: a peer must read it
    /// before it is sent one (docs/PROTOCOL.md section 13, protocol 4).
    public static let messagesFormat: UInt16 = 4
    /// The format a state is written in: each state has exactly one.
    static func format(of state: MatchState) -> UInt16 {
        if type(of: state.game).moveByteLimit != nil { return byteMovesFormat }
        return state.hasMessages ? messagesFormat : state.seed != nil ? 3 : state.seats.count == 2 ? 1 : 2
    }
    /// The format of every match of a game whose moves are bytes.
    public static let byteMovesFormat: UInt16 = 5
    /// Format 2's "left after" value for a seat that has not left.
    static let stillPlaying: UInt16 = 0xFFFF
    /// The largest blob accepted or produced (GameKit's limit).
    public static let maximumSize = 256 * 1024
    /// Most seats a match may have.
    public static let seatLimit = 2...8
    /// Most moves a blob may hold (far above any catalog game's 64).
    public static let maximumMoves = 4096
    /// Longest game id.
    public static let maximumGameIDBytes = 32

    /// Encodes a state. Deterministic: equal states give equal bytes.
    ///
    /// Worked out once per state and kept with it (copies share it), so the
    /// pushes, saves and CONFIRMs of one committed state encode it once.
    public static func encode(_ state: MatchState) -> [UInt8] {
        encoded(state).blob
    }

    /// FNV-1a 64 over the encoding with the deadline field set to 0 and no hash.
    public static func stateHash(of state: MatchState) -> UInt64 {
        encoded(state).hash
    }

    private static func encoded(_ state: MatchState) -> EncodingCache.Encoded {
        guard let cache = state.encoding else { return encodeAfresh(state) }
        return cache.value { encodeAfresh(state) }
    }

    private static func encodeAfresh(_ state: MatchState) -> EncodingCache.Encoded {
        MatchWork.note(state.matchID, \.encodes)
        var (writer, deadlineOffset) = body(of: state, deadline: state.deadline)
        let hash = hashIgnoringDeadline(writer.bytes[...], deadlineAt: deadlineOffset)
        writer.write(hash)
        return EncodingCache.Encoded(blob: writer.bytes, hash: hash, deadlineOffset: deadlineOffset)
    }

    /// The state hash of a blob `body` (everything before the hash) whose
    /// deadline field starts at `deadlineStart`: FNV-1a 64 with the deadline read as zeros.
    private static func hashIgnoringDeadline(_ body: ArraySlice<UInt8>, deadlineAt deadlineStart: Int) -> UInt64 {
        let deadlineEnd = deadlineStart + 8
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for index in body.indices {
            let byte = index >= deadlineStart && index < deadlineEnd ? 0 : body[index]
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Everything before the hash, and where the deadline field starts.
    private static func body(of state: MatchState, deadline: Int64) -> (ByteWriter, deadlineOffset: Int) {
        var writer = ByteWriter(capacity: 96 + state.moves.count * 3)
        let format = format(of: state)
        writer.write(bytes: magic)
        writer.write(format)
        writer.write(bytes: state.matchID.bytes)
        writer.writeShortString(state.gameID)
        writer.write(UInt16(clamping: state.rulesVersion))
        if format >= messagesFormat { writer.write(UInt8(state.seed == nil ? 0 : 1)) }  // format 4: whether a seed follows
        if let seed = state.seed { writer.write(seed) }  // formats 3 and 4
        writer.write(UInt8(clamping: state.seats.count))
        for (index, seat) in state.seats.enumerated() {
            writer.write(bytes: seat.playerID.bytes)
            writer.writeShortString(seat.name)
            writer.write(seat.status.rawValue)
            writer.write(seat.outcome.rawValue)
            if format >= 2 { writer.write(state.leftAfter[index].map { UInt16(clamping: $0) } ?? stillPlaying) }
        }
        writer.write(state.sequence)
        writer.write(state.turnTimeout)
        let deadlineOffset = writer.bytes.count
        writer.write(deadline)
        writer.write(UInt16(clamping: state.moves.count))
        for played in state.moves {
            writer.write(UInt8(clamping: played.seat))
            // Never clamped: every move of a state came through `MatchState.applying`,
            // which refuses one its game cannot carry, or from a blob that carried it.
            precondition(type(of: state.game).canCarry(played.move), "\(played.move) does not fit the match blob; MatchState.applying refuses it")
            if format == byteMovesFormat, let bytes = played.move.bytes {
                writer.write(UInt16(bytes.count))
                writer.write(bytes: bytes)
            } else {
                writer.write(UInt16(played.move.rawValue))
            }
        }
        if format >= messagesFormat {
            // The message table: which moves came with one, in move order.
            let messages = state.moves.enumerated().compactMap { index, played in played.message.map { (index, $0) } }
            writer.write(UInt16(clamping: messages.count))
            for (index, message) in messages {
                writer.write(UInt16(clamping: index))
                writer.writeShortString(message.text)  // at most TurnMessage.maximumBytes: fits a u8 count
            }
        }
        return (writer, deadlineOffset)
    }

    /// Decodes and fully validates untrusted bytes.
    ///
    /// Checks, in order: size, magic, format version (newer versions get
    /// `.newerFormat`; older ones, once they exist, are migrated here), every
    /// field's range, the game and rules version, that replaying the moves by
    /// the rules is legal, that outcomes follow from the rules, and the hash.
    public static func decode(_ bytes: [UInt8]) throws(MatchBlobError) -> MatchState {
        guard bytes.count <= maximumSize else { throw .tooLarge(bytes.count) }
        var reader = ByteReader(bytes)
        do {
            guard try reader.readBytes(4) == magic else { throw MatchBlobError.notAMatch }
            let format = try reader.readUInt16()
            switch format {
            case 1, 2, 3, 4, 5: break
            case 0: throw MatchBlobError.unknownFormat(format)
            default: throw MatchBlobError.newerFormat(format)
            }
            return try decodeBody(&reader, format: format)
        } catch let error as MatchBlobError {
            throw error
        } catch let error as ByteReader.Truncated {
            throw .truncated(offset: error.offset)
        } catch {
            throw .invalidField("content")
        }
    }

    /// A blob's fields, each checked on its own (not yet against the rules).
    private struct Fields {
        var format: UInt16
        var matchID: MatchID
        var gameID: String
        var type: any Game.Type
        var seed: UInt64?
        var seats: [Seat]
        var leftAfter: [Int?]
        var sequence: UInt32
        var turnTimeout: UInt32
        var deadline: Int64
        var moves: [PlayedMove]
        var storedHash: UInt64
        /// Where the deadline field starts in the blob.
        var deadlineOffset: Int
    }

    /// Formats 1 to 5: the same fields, format 2 with each seat's "left after",
    /// format 3 as format 2 with the match's seed after the rules version,
    /// format 4 as format 2 with a seed when a byte says so, and the moves'
    /// messages after the moves, format 5 as format 4 with each move's length
    /// before its bytes.
    private static func readFields(_ reader: inout ByteReader, format: UInt16) throws -> Fields {
        guard let matchID = MatchID(bytes: try reader.readBytes(16)) else { throw MatchBlobError.invalidField("match id") }
        let gameBytes = try reader.readShortBytes()
        guard (1...maximumGameIDBytes).contains(gameBytes.count),
              gameBytes.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d || $0 == 0x5f }),
              let gameID = String(validating: gameBytes, as: UTF8.self) else {
            throw MatchBlobError.invalidField("game id")
        }
        let rulesVersion = Int(try reader.readUInt16())
        let seed: UInt64?
        switch format {
        case 3: seed = try reader.readUInt64()
        case messagesFormat...:
            switch try reader.readUInt8() {
            case 0: seed = nil
            case 1: seed = try reader.readUInt64()
            default: throw MatchBlobError.invalidField("seed flag")
            }
        default: seed = nil
        }
        let seatCount = Int(try reader.readUInt8())
        guard seatLimit.contains(seatCount) else { throw MatchBlobError.invalidField("seat count") }
        // Each state has one encoding: two seats without a seed are always format 1.
        guard format != 2 || seatCount > 2 else { throw MatchBlobError.invalidField("format for two seats") }
        var seats: [Seat] = []
        var leftAfter: [Int?] = []
        for _ in 0..<seatCount {
            guard let player = PlayerID(bytes: try reader.readBytes(16)) else { throw MatchBlobError.invalidField("player id") }
            let nameBytes = try reader.readShortBytes()
            guard let name = String(validating: nameBytes, as: UTF8.self), Seat.isValidName(name) else {
                throw MatchBlobError.invalidField("player name")
            }
            guard let status = SeatStatus(rawValue: try reader.readUInt8()) else { throw MatchBlobError.invalidField("seat status") }
            guard let outcome = Outcome(rawValue: try reader.readUInt8()) else { throw MatchBlobError.invalidField("seat outcome") }
            seats.append(Seat(playerID: player, name: name, status: status, outcome: outcome))
            if format >= 2 {
                let left = try reader.readUInt16()
                leftAfter.append(left == stillPlaying ? nil : Int(left))
            }
        }
        guard Set(seats.map(\.playerID)).count == seats.count else { throw MatchBlobError.invalidField("player ids (duplicated)") }
        let sequence = try reader.readUInt32()
        let turnTimeout = try reader.readUInt32()
        guard turnTimeout <= 7 * 24 * 3600 else { throw MatchBlobError.invalidField("turn timeout") }
        let deadlineOffset = reader.offset
        let deadline = try reader.readInt64()
        guard deadline >= 0 else { throw MatchBlobError.invalidField("deadline") }
        let moveCount = Int(try reader.readUInt16())
        guard moveCount <= maximumMoves else { throw MatchBlobError.invalidField("move count") }
        guard reader.remaining >= moveCount * 3 + 8 else { throw MatchBlobError.truncated(offset: reader.bytes.count) }
        var moves: [PlayedMove] = []
        moves.reserveCapacity(moveCount)
        for _ in 0..<moveCount {
            let seat = Int(try reader.readUInt8())
            if format == byteMovesFormat {
                let length = Int(try reader.readUInt16())
                guard length <= Move.maximumByteLimit else { throw MatchBlobError.invalidField("move \(moves.count + 1)'s length") }
                moves.append(PlayedMove(seat: seat, move: Move(bytes: try reader.readBytes(length))))
            } else {
                moves.append(PlayedMove(seat: seat, move: Move(Int(try reader.readUInt16()))))
            }
        }
        if format >= messagesFormat { try readMessages(&reader, into: &moves, mayBeEmpty: format == byteMovesFormat) }
        let storedHash = try reader.readUInt64()
        guard reader.remaining == 0 else { throw MatchBlobError.trailingBytes(reader.remaining) }

        guard let type = GameCatalog.game(id: gameID) else { throw MatchBlobError.unknownGame(gameID) }
        guard type.rulesVersion == rulesVersion else {
            throw MatchBlobError.rulesVersionMismatch(game: gameID, theirs: rulesVersion, ours: type.rulesVersion)
        }
        guard type.seatCounts.contains(seatCount) else { throw MatchBlobError.invalidField("seat count for \(gameID)") }
        // A game of byte moves is always format 5, and no other game is.
        guard (type.moveByteLimit != nil) == (format == byteMovesFormat) else {
            throw MatchBlobError.invalidField(format == byteMovesFormat ? "format for \(gameID), whose moves are numbers" : "format for \(gameID), whose moves are bytes")
        }
        if let index = moves.firstIndex(where: { !type.canCarry($0.move) }) {
            throw MatchBlobError.invalidField("move \(index + 1), longer than \(gameID) allows")
        }
        // A game with chance always carries its seed, and no other game does.
        guard type.usesRandomness == (seed != nil) else {
            throw MatchBlobError.invalidField(type.usesRandomness ? "format for \(gameID), which needs a seed" : "seed for \(gameID), which uses none")
        }
        let departed = seats.map { $0.outcome == .quit || $0.outcome == .timeExpired }
        if format == 1 {
            // Release 1's two-seat matches end at their one departure.
            leftAfter = departed.map { $0 ? moves.count : nil }
        }
        guard zip(leftAfter, departed).allSatisfy({ ($0 != nil) == $1 && ($0 ?? 0) <= moves.count }) else {
            throw MatchBlobError.invalidField("seat left after")
        }
        return Fields(format: format, matchID: matchID, gameID: gameID, type: type, seed: seed, seats: seats, leftAfter: leftAfter,
                      sequence: sequence, turnTimeout: turnTimeout, deadline: deadline, moves: moves, storedHash: storedHash,
                      deadlineOffset: deadlineOffset)
    }

    /// Format 4's and 5's message table: a u16 count (at least one in format
    /// 4: a match without messages is never format 4; any in format 5), then for each message its move's index
    /// (u16, each greater than the last, below the move count) and its text
    /// (u8-string, by `TurnMessage`'s rules). A message that breaks a rule is
    /// an invalid field, never cut or cleaned.
    private static func readMessages(_ reader: inout ByteReader, into moves: inout [PlayedMove], mayBeEmpty: Bool) throws {
        let count = Int(try reader.readUInt16())
        guard count >= (mayBeEmpty ? 0 : 1), count <= moves.count else {
            throw MatchBlobError.invalidField("message count")
        }
        var previous = -1
        for _ in 0..<count {
            let index = Int(try reader.readUInt16())
            guard index > previous, index < moves.count else { throw MatchBlobError.invalidField("message's move index") }
            guard let message = TurnMessage(bytes: try reader.readShortBytes()) else {
                throw MatchBlobError.invalidField("message with move \(index + 1)")
            }
            moves[index].message = message
            previous = index
        }
    }

    private static func decodeBody(_ reader: inout ByteReader, format: UInt16) throws -> MatchState {
        let fields = try readFields(&reader, format: format)
        let (matchID, type, seats, leftAfter, moves) = (fields.matchID, fields.type, fields.seats, fields.leftAfter, fields.moves)
        let (sequence, turnTimeout, deadline, storedHash) = (fields.sequence, fields.turnTimeout, fields.deadline, fields.storedHash)
        let seatCount = seats.count
        MatchWork.note(matchID, \.decodes)
        MatchWork.note(matchID, \.applies, moves.count)

        // Replay the history with each departure where it happened: the game
        // skips a seat that left while two or more played on.
        let departures = leftAfter.enumerated().compactMap { seat, after in after.map { (seat: seat, after: $0) } }
            .sorted { ($0.after, $0.seat) < ($1.after, $1.seat) }
        var game = type.start(seats: seatCount, seed: fields.seed ?? 0)
        var playing = seatCount
        var nextDeparture = departures.startIndex
        func leave(before moveIndex: Int) {
            while nextDeparture < departures.endIndex, departures[nextDeparture].after == moveIndex {
                playing -= 1
                if playing >= 2 { game.seatLeft(departures[nextDeparture].seat) }
                nextDeparture += 1
            }
        }
        for (index, played) in moves.enumerated() {
            leave(before: index)
            guard playing >= 2, game.activeSeat == played.seat else { throw MatchBlobError.illegalHistory(moveIndex: index) }
            do { try game.apply(played.move) } catch { throw MatchBlobError.illegalHistory(moveIndex: index) }
        }
        leave(before: moves.count)
        var state = MatchState(matchID: matchID, game: game, seed: fields.seed, seats: seats, moves: moves, sequence: sequence,
                               turnTimeout: turnTimeout, deadline: deadline, leftAfter: leftAfter)
        // Departures happen only while the match goes on, so at most one seat of
        // a two-seat match can have left, and nothing can follow the end.
        guard Int(sequence) == moves.count + state.departureCount else { throw MatchBlobError.invalidField("sequence") }
        guard state.expectedSeats() == seats else { throw MatchBlobError.outcomesDisagree }
        if state.departureCount > 0 && seats.count == 2 && game.isOver { throw MatchBlobError.outcomesDisagree }
        // In its own format the blob is the state's encoding (each state has
        // one), so it is hashed as it came and kept as the state's encoding.
        let canonical = format == self.format(of: state)
        let computed = canonical ? hashIgnoringDeadline(reader.bytes.dropLast(8), deadlineAt: fields.deadlineOffset) : stateHash(of: state)
        guard computed == storedHash else { throw MatchBlobError.hashMismatch(stored: storedHash, computed: computed) }
        if canonical {
            state.encoding = EncodingCache(EncodingCache.Encoded(blob: reader.bytes, hash: computed, deadlineOffset: fields.deadlineOffset))
        }
        return state
    }

    /// Reads `bytes` as the state one change after `base`, judging only that
    /// change by the rules instead of replaying the whole history; nil when the
    /// bytes are anything else, or anything is wrong with them (a full
    /// `decode` and `base.change(to:)` then say what, exactly as before).
    ///
    /// Accepting here implies that `decode` and `change(to:)` accept: the
    /// fields are read with the same checks, the history extends `base`'s
    /// (a valid state) by the one change the rules allow, with the outcomes
    /// they imply, and the hash covers exactly the state returned.
    static func successor(of base: MatchState, decoding bytes: [UInt8]) -> MatchSuccessor? {
        guard bytes.count <= maximumSize else { return nil }
        var reader = ByteReader(bytes)
        guard let magicBytes = try? reader.readBytes(4), magicBytes == magic,
              let format = try? reader.readUInt16(), format == self.format(of: base) || format == messagesFormat,
              let fields = try? readFields(&reader, format: format),
              fields.gameID == base.gameID, fields.type.rulesVersion == base.rulesVersion,
              fields.sequence == base.sequence &+ 1 else { return nil }
        MatchWork.note(base.matchID, \.decodes)
        // The received fields with our position: `judge` compares everything but the game, and makes the game.
        let received = MatchState(matchID: fields.matchID, game: base.game, seed: fields.seed, seats: fields.seats, moves: fields.moves,
                                  sequence: fields.sequence, turnTimeout: fields.turnTimeout, deadline: fields.deadline,
                                  leftAfter: fields.leftAfter)
        guard let (change, expected) = try? base.judge(received) else { return nil }
        // Each state has one encoding: the format must be the one the state after the change is written in.
        guard format == self.format(of: expected) else { return nil }
        let hash = hashIgnoringDeadline(bytes.dropLast(8), deadlineAt: fields.deadlineOffset)
        guard hash == fields.storedHash else { return nil }
        var state = expected
        state.deadline = fields.deadline
        state.encoding = EncodingCache(EncodingCache.Encoded(blob: bytes, hash: hash, deadlineOffset: fields.deadlineOffset))
        return MatchSuccessor(change: change, state: state, baseSequence: base.sequence, baseHash: base.stateHash)
    }
}

extension MatchState {
    /// Reads a blob from a peer as the state one change after this one,
    /// judging that change once; nil when it is not a valid such state (then
    /// `MatchBlob.decode` and `change(to:)` tell why). See `MatchBlob.successor(of:decoding:)`.
    public func successor(decoding blob: [UInt8]) -> MatchSuccessor? {
        MatchBlob.successor(of: self, decoding: blob)
    }
}
