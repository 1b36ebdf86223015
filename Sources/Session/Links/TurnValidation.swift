import Games
import Match

/// Which whole-state message carried a proposed change.
public enum ChangeMessageKind: Hashable, Sendable {
    /// TURN: a move (or, from the host, a time expiry).
    case turn
    /// QUIT: a seat leaves.
    case quit

    /// The message kind that carries `change`.
    public init(_ change: MatchChange) {
        if case .quit = change { self = .quit } else { self = .turn }
    }

    /// The message carrying `blob` as change number `sequence`.
    public func message(sequence: UInt32, blob: [UInt8]) -> Message {
        switch self {
        case .turn: .turn(sequence: sequence, blob: blob)
        case .quit: .quit(sequence: sequence, blob: blob)
        }
    }
}

/// A refused turn: the TURN_REJECTED reason and sentence.
public struct TurnRejection: Error, Hashable, Sendable {
    /// The reason code sent in TURN_REJECTED.
    public var reason: ReasonCode
    /// The sentence sent with it.
    public var sentence: String
    /// A rejection; `sentence` is shown to the guest's player.
    public init(_ reason: ReasonCode, _ sentence: String) {
        self.reason = reason
        self.sentence = sentence
    }
}

/// The host's check of a TURN or QUIT from its guest. Pure.
///
/// The order is part of the protocol (docs/PROTOCOL.md, "The host's
/// validation order") so that a given bad input always gets the same reason.
/// Nothing here changes the match; the host submits only what passes.
public enum HostTurnValidator {
    /// Validates change number `sequence` carried by a `kind` message against
    /// the host's committed state. On success returns the single change and,
    /// read against `committed` (the usual case), the state after it as the
    /// rules made it: the controller commits that without judging it again.
    ///
    /// - Parameter committedHashes: state hash of every committed sequence,
    ///   used to tell a replay (an exact earlier state) from a stale turn.
    public static func validate(_ kind: ChangeMessageKind, sequence: UInt32, blob: [UInt8], committed: MatchState,
                                guestSeat: SeatIndex, committedHashes: [UInt32: UInt64])
        -> Result<(change: MatchChange, judged: MatchSuccessor?), TurnRejection> {
        // 1. Nothing changes after the end.
        guard !committed.isEnded else { return .failure(TurnRejection(.matchOver, "The match is over.")) }
        // 2. The sequence number: exactly the next one.
        let expected = committed.sequence &+ 1
        if sequence <= committed.sequence {
            if blob.count >= 8, let known = committedHashes[sequence], trailingHash(of: blob) == known {
                return .failure(TurnRejection(.replayed, "Change \(sequence) was already committed."))
            }
            return .failure(TurnRejection(.outOfSequence, "Change \(sequence) is stale; the match is at change \(committed.sequence)."))
        }
        guard sequence == expected else {
            return .failure(TurnRejection(.outOfSequence, "Expected change \(expected), got \(sequence)."))
        }
        // 3. Only the active seat may move.
        if kind == .turn, committed.activeSeat != guestSeat {
            return .failure(TurnRejection(.notYourTurn, "It is not your turn."))
        }
        // 4-6 at once when the blob is one valid change after ours: only that
        // change is judged (`MatchState.successor(decoding:)`). Anything else
        // goes through the full checks below, which say what is wrong.
        if let judged = committed.successor(decoding: blob) {
            return ownChange(kind, judged.change, guestSeat: guestSeat).map { ($0, judged) }
        }
        // 4. The blob decodes, with its hash and a legal history.
        let received: MatchState
        do {
            received = try MatchBlob.decode(blob)
        } catch {
            return .failure(rejection(for: error, blob: blob, committed: committed, guestSeat: guestSeat))
        }
        // 5. This match, this game.
        guard received.matchID == committed.matchID else {
            return .failure(TurnRejection(.otherMatch, "That state belongs to match \(received.matchID.short), not \(committed.matchID.short)."))
        }
        guard received.gameID == committed.gameID, received.rulesVersion == committed.rulesVersion else {
            return .failure(TurnRejection(.otherGame, "That state is a game of \(received.gameID), not \(committed.gameID)."))
        }
        guard received.sequence == sequence else {
            return .failure(TurnRejection(.outOfSequence, "The state inside is change \(received.sequence), the message says \(sequence)."))
        }
        // 6. Exactly one legal change with the outcomes the rules imply.
        let change: MatchChange
        do {
            change = try committed.change(to: received)
        } catch {
            return .failure(rejection(for: error, guestSeat: guestSeat))
        }
        // 7. The guest's own seat, and the change the message kind says.
        return ownChange(kind, change, guestSeat: guestSeat).map { ($0, nil) }
    }

    /// Step 7: the guest's own seat, and the change the message kind says.
    private static func ownChange(_ kind: ChangeMessageKind, _ change: MatchChange, guestSeat: SeatIndex)
        -> Result<MatchChange, TurnRejection> {
        guard change.seat == guestSeat else {
            return .failure(TurnRejection(.notYourSeat, "That change is for seat \(change.seat + 1); yours is seat \(guestSeat + 1)."))
        }
        switch (kind, change) {
        case (.turn, .move), (.quit, .quit):
            return .success(change)
        case (_, .timeExpired):
            return .failure(TurnRejection(.notYourSeat, "Only the host decides when a turn's time runs out."))
        default:
            return .failure(TurnRejection(.notOneChange, "A \(kind == .turn ? "TURN" : "QUIT") must carry a \(kind == .turn ? "move" : "quit")."))
        }
    }

    /// The stored state hash: the blob's last eight bytes.
    static func trailingHash(of blob: [UInt8]) -> UInt64 {
        blob.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func rejection(for error: MatchBlobError, blob: [UInt8], committed: MatchState, guestSeat: SeatIndex) -> TurnRejection {
        switch error {
        case .unknownGame(let game):
            return TurnRejection(.otherGame, "That state is a game of '\(game)', not \(committed.gameID).")
        case .rulesVersionMismatch(let game, let theirs, _):
            return TurnRejection(.otherGame, "That state uses \(game) rules version \(theirs).")
        case .hashMismatch:
            return TurnRejection(.hashMismatch, "The state hash does not match the state.")
        case .outcomesDisagree:
            return TurnRejection(.outcomesDisagree, "The outcomes in that state do not follow from the rules.")
        case .illegalHistory(let index) where index < committed.moves.count:
            return TurnRejection(.historyRewritten, "That state changes move \(index + 1), which was already played.")
        case .illegalHistory(let index):
            if let seat = BlobPeek.seatOfMove(index, in: blob), seat != guestSeat {
                return TurnRejection(.notYourSeat, "That move is for seat \(seat + 1); yours is seat \(guestSeat + 1).")
            }
            return TurnRejection(.illegalMove, "That move is not allowed by the rules.")
        default:
            return TurnRejection(.badBlob, "The match state is unreadable: \(error).")
        }
    }

    private static func rejection(for error: SuccessorError, guestSeat: SeatIndex) -> TurnRejection {
        switch error {
        case .otherMatch: TurnRejection(.otherMatch, "That state belongs to another match.")
        case .otherGame: TurnRejection(.otherGame, "That state is of another game.")
        case .wrongSequence(let expected, let got): TurnRejection(.outOfSequence, "Expected change \(expected), got \(got).")
        case .seatsChanged: TurnRejection(.notOneChange, "That state changes the players.")
        case .settingsChanged: TurnRejection(.notOneChange, "That state changes the match settings.")
        case .historyRewritten: TurnRejection(.historyRewritten, "That state changes moves that were already played.")
        case .seedChanged: TurnRejection(.historyRewritten, "That state changes the seed the match began with.")
        case .notOneChange: TurnRejection(.notOneChange, "That state is not exactly one change after the current one.")
        case .ruleViolation(.illegalMove), .ruleViolation(.moveNotEncodable): TurnRejection(.illegalMove, "That move is not allowed by the rules.")
        case .ruleViolation(.notYourTurn(_, let attempted)) where attempted != guestSeat:
            TurnRejection(.notYourSeat, "That change is for seat \(attempted + 1); yours is seat \(guestSeat + 1).")
        case .ruleViolation(.notYourTurn): TurnRejection(.notYourTurn, "It is not your turn.")
        case .ruleViolation(.matchEnded): TurnRejection(.matchOver, "The match is over.")
        case .ruleViolation(.seatHasLeft), .ruleViolation(.noSuchSeat), .ruleViolation(.deadlineNotReached):
            TurnRejection(.notYourSeat, "That change is not yours to make.")
        case .outcomesDisagree: TurnRejection(.outcomesDisagree, "The outcomes in that state do not follow from the rules.")
        }
    }
}

/// The guest's check of a change the host pushed. Pure.
///
/// The host is authoritative, but not trusted blindly: a push that is not
/// exactly one legal change after what the guest knows the host committed
/// means the two copies have diverged (a desync), which ends the match.
public enum GuestPushValidator {
    /// Validates change number `sequence` from the host; failure is the desync's description.
    ///
    /// On success returns the change and the host's state; read against
    /// `known` (the usual case), only the change was judged, and `judged`
    /// lets the controller commit it without judging it again.
    public static func validate(_ kind: ChangeMessageKind, sequence: UInt32, blob: [UInt8], known: MatchState,
                                guestSeat: SeatIndex)
        -> Result<(change: MatchChange, received: MatchState, judged: MatchSuccessor?), PushDesync> {
        guard sequence == known.sequence &+ 1 else {
            return .failure(PushDesync("the host sent change \(sequence) after change \(known.sequence)"))
        }
        if let judged = known.successor(decoding: blob) {
            return hostMay(kind, judged.change, sequence: sequence, known: known, guestSeat: guestSeat)
                .map { ($0, judged.state, judged) }
        }
        let received: MatchState
        do { received = try MatchBlob.decode(blob) } catch {
            return .failure(PushDesync("the host's change \(sequence) is invalid: \(error)"))
        }
        guard received.sequence == sequence else {
            return .failure(PushDesync("the host's change \(sequence) holds state \(received.sequence)"))
        }
        let change: MatchChange
        do { change = try known.change(to: received) } catch {
            return .failure(PushDesync("the host's change \(sequence) does not follow from our state (\(error))"))
        }
        return hostMay(kind, change, sequence: sequence, known: known, guestSeat: guestSeat).map { ($0, received, nil) }
    }

    /// Whether the host may make `change` with a `kind` message.
    private static func hostMay(_ kind: ChangeMessageKind, _ change: MatchChange, sequence: UInt32, known: MatchState,
                                guestSeat: SeatIndex) -> Result<MatchChange, PushDesync> {
        switch (kind, change) {
        case (.turn, .move(_, let seat, _)) where seat != guestSeat:
            return .success(change)
        case (.quit, .quit(let seat)) where seat != guestSeat:
            // Only the guest quits its own seat; a host that says it did puts words in its mouth.
            return .success(change)
        case (.turn, .timeExpired) where known.turnTimeout > 0:
            // `change(to:)` has checked that the seat was the one to move, with a deadline.
            return .success(change)
        default:
            return .failure(PushDesync("the host's change \(sequence) (\(change)) is not one the host may make"))
        }
    }
}

/// Why a host's push could not be accepted: the copies have diverged.
public struct PushDesync: Error, Hashable, Sendable, CustomStringConvertible {
    /// What diverged, as the end of a sentence: "the host's change 7 (…) is not one the host may make".
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Reads single fields of a blob without validating it, to explain a refusal.
enum BlobPeek {
    /// The seat byte of move `index`, or nil if the blob is not laid out well enough to find it.
    static func seatOfMove(_ index: Int, in blob: [UInt8]) -> SeatIndex? {
        var reader = ByteReader(blob)
        do {
            _ = try reader.readBytes(4)                           // magic
            let format = try reader.readUInt16()
            _ = try reader.readBytes(16)                          // match id
            _ = try reader.readShortBytes()                       // game id
            _ = try reader.readUInt16()                           // rules version
            let seedFlag = format >= 4 ? try reader.readUInt8() : 0  // format 4: whether a seed follows
            if format == 3 || seedFlag == 1 { _ = try reader.readUInt64() }  // seed (section 5, formats 3 and 4)
            let seats = Int(try reader.readUInt8())
            for _ in 0..<seats {
                _ = try reader.readBytes(16)
                _ = try reader.readShortBytes()
                _ = try reader.readBytes(2)                       // status, outcome
                if format >= 2 { _ = try reader.readBytes(2) }    // left after (section 5, format 2)
            }
            _ = try reader.readBytes(4 + 4 + 8)                   // sequence, turn timeout, deadline
            let moves = Int(try reader.readUInt16())
            guard index < moves else { return nil }
            guard format == MatchBlob.byteMovesFormat else {
                _ = try reader.readBytes(index * 3)
                return Int(try reader.readUInt8())
            }
            // Format 5: each move is its seat, a u16 length and that many bytes.
            for _ in 0..<index {
                _ = try reader.readUInt8()
                _ = try reader.readBytes(Int(try reader.readUInt16()))
            }
            return Int(try reader.readUInt8())
        } catch {
            return nil
        }
    }
}
