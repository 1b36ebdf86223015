import Games
import Match

/// A JSON value with keys kept in the order written, so event lines read predictably.
///
/// parlor's one JSON writer: the match events, and every `--json` listing
/// (games, matches, replay, browse, doctor) are built from it.
public indirect enum JSONValue: Hashable, Sendable {
    /// A string, written with JSON's escapes.
    case string(String)
    /// A whole number, written in decimal.
    case int(Int64)
    /// `true` or `false`.
    case bool(Bool)
    /// JSON's `null`: a fact that does not apply, or is not known.
    case null
    /// A list, written in its order.
    case array([JSONValue])
    /// An object; its keys are written in this order (a key given twice is written twice).
    case object([(String, JSONValue)])

    /// The value as compact JSON text on one line.
    public var encoded: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .string(let text): out += JSONValue.quoted(text)
        case .int(let number): out += String(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                out += JSONValue.quoted(key)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// `text` as a JSON string literal: quotes, backslashes and control
    /// characters escaped; U+2028/U+2029 escaped too so the line is also valid JavaScript.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Equal when the encoded text is equal.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.encoded == rhs.encoded }
    /// Hashes the encoded text.
    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }
}

extension JSONValue {
    /// A string value.
    public init(_ text: String) { self = .string(text) }
    /// An integer value.
    public init(_ number: Int) { self = .int(Int64(number)) }
    /// An integer value.
    public init(_ number: Int64) { self = .int(number) }
    /// An array of strings.
    public init(_ texts: [String]) { self = .array(texts.map { .string($0) }) }
}

/// The `--json` event lines, one object each; seats are 0-based. Pure, no I/O.
///
/// Every event carries `"event"` first. The set of events and fields is
/// documented in the man page; scripts rely on it, so add fields, never rename.
public enum JSONEvents {
    /// A 64-bit state hash as 16 lowercase hex digits.
    public static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The line of `event` in a log of a match that no frontend shows (a
    /// hall's table, `parlor host --tables N --json`), nil for events such a
    /// log leaves out (turns, tentative changes, adoptions, stand-ins, refused
    /// talk). `state` is the match as it stands (for a seat's name), and
    /// `localSeats` the seats this process plays. The same objects a line
    /// frontend's `--json` prints for the same events.
    public static func logged(_ event: MatchEvent, in state: MatchState, localSeats: Set<SeatIndex>) -> JSONValue? {
        switch event {
        case .started(let state): started(state, localSeats: localSeats)
        case .committed(let change, let state): committed(change, state)
        case .rolledBack(let change, let reason, let state): rolledBack(change, reason: reason, state)
        case .presence(let seat, let away, let graceLeft): presence(state, seat: seat, away: away, graceLeft: graceLeft)
        case .ended(let state): end(state)
        case .failed(let failure, let state): error(failure, state)
        case .notice(let text): notice(text)
        case .talk(let line): talk(line)
        case .turnBegan, .awaitingConfirmation, .adopted, .talkRefused, .standIn: nil
        }
    }

    /// `value` with the fields of `tag` (a hall's `match` and `table`) right after its `"event"`,
    /// replacing fields of the same names.
    public static func tagged(_ value: JSONValue, with tag: [(String, JSONValue)]) -> JSONValue {
        guard case .object(var fields) = value else { return value }
        fields.removeAll { field in tag.contains { $0.0 == field.0 } }
        fields.insert(contentsOf: tag, at: min(1, fields.count))
        return .object(fields)
    }

    /// `{"event":"started","match":…,"game":…,"rulesVersion":…,"seats":[…],"turnTimeout":…,"sequence":…}`
    public static func started(_ state: MatchState, localSeats: Set<SeatIndex>) -> JSONValue {
        .object([
            ("event", "started"), ("match", JSONValue(state.matchID.hex)), ("game", JSONValue(state.gameID)),
            ("rulesVersion", JSONValue(state.rulesVersion)),
            ("seats", .array(state.seats.indices.map { seat in
                .object([
                    ("seat", JSONValue(seat)), ("name", JSONValue(state.seats[seat].name)),
                    ("player", JSONValue(state.seats[seat].playerID.hex)), ("local", .bool(localSeats.contains(seat))),
                ])
            })),
            ("turnTimeout", JSONValue(Int(state.turnTimeout))), ("sequence", JSONValue(Int(state.sequence))),
            ("moves", JSONValue(state.moves.count)), ("hash", JSONValue(hex16(state.stateHash))),
        ])
    }

    /// `{"event":"turn","seat":N,"sequence":S}` plus `"deadline"` (ms since 1970) when the turn has one,
    /// then `"match"`: which match, for a player (or script) in several.
    public static func turn(seat: SeatIndex, _ state: MatchState) -> JSONValue {
        var fields: [(String, JSONValue)] = [("event", "turn"), ("seat", JSONValue(seat)), ("sequence", JSONValue(Int(state.sequence)))]
        if state.deadline > 0 { fields.append(("deadline", .int(state.deadline))) }
        fields.append(("match", JSONValue(state.matchID.hex)))
        return .object(fields)
    }

    /// A move as JSON: its raw value (a number), or for a game of byte moves
    /// its bytes in lower-case hexadecimal (a string).
    public static func moveValue(_ move: Move) -> JSONValue {
        move.bytes.map { JSONValue(Move.hex($0)) } ?? JSONValue(move.rawValue)
    }

    /// The committed change: `move` (with `"message"` when the mover sent
    /// one), `quit` or `timeExpired`, with the new sequence and state hash.
    public static func committed(_ change: MatchChange, _ state: MatchState) -> JSONValue {
        var fields: [(String, JSONValue)]
        switch change {
        case .move(let move, let seat, let message):
            fields = [("event", "move"), ("seat", JSONValue(seat)), ("move", moveValue(move)),
                      ("notation", JSONValue(state.game.notation(for: move)))]
            if let message { fields.append(("message", JSONValue(message.text))) }
        case .quit(let seat):
            fields = [("event", "quit"), ("seat", JSONValue(seat))]
        case .timeExpired(let seat):
            fields = [("event", "timeExpired"), ("seat", JSONValue(seat))]
        }
        fields += [("sequence", JSONValue(Int(state.sequence))), ("hash", JSONValue(hex16(state.stateHash)))]
        return .object(fields)
    }

    /// `{"event":"rollback","seat":N,"change":"move","reason":"…","sequence":S}`
    public static func rolledBack(_ change: MatchChange, reason: RollbackReason, _ state: MatchState) -> JSONValue {
        let kind: String
        switch change {
        case .move: kind = "move"
        case .quit: kind = "quit"
        case .timeExpired: kind = "timeExpired"
        }
        return .object([("event", "rollback"), ("seat", JSONValue(change.seat)), ("change", JSONValue(kind)),
                        ("reason", JSONValue(reason.description)), ("sequence", JSONValue(Int(state.sequence)))])
    }

    /// `{"event":"adopted","sequence":S,"moves":N,"hash":…}`: the authoritative state replaced ours.
    public static func adopted(_ state: MatchState) -> JSONValue {
        .object([("event", "adopted"), ("sequence", JSONValue(Int(state.sequence))),
                 ("moves", JSONValue(state.moves.count)), ("hash", JSONValue(hex16(state.stateHash)))])
    }

    /// `{"event":"joined","match":…,"name":…,"seat":N}` on the host's side:
    /// a guest sat down, or (`"resumed":true`) came back; at a hall's table
    /// `"table":N` follows the match, as in every table's events.
    public static func guestJoined(name: String, seat: Int, match: String, resumed: Bool = false, table: Int? = nil,
                                   key: String? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("event", "joined"), ("match", JSONValue(match))]
        if let table { fields.append(("table", JSONValue(table))) }
        fields += [("name", JSONValue(name)), ("seat", JSONValue(seat))]
        if let key { fields.append(("key", JSONValue(key))) }
        if resumed || table != nil { fields.append(("resumed", .bool(resumed))) }
        return .object(fields)
    }

    /// `{"event":"joined","host":…,"seat":N,"match":…,"address":…,"key":…}` on the
    /// guest's side: this side sat at the host's match, or (`"resumed":true`) got back to it.
    /// `key` is the host's proved fingerprint (absent in clear).
    public static func joinedHost(_ host: String, seat: Int, match: String, address: String, resumed: Bool = false,
                                  key: String? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("event", "joined"), ("host", JSONValue(host)), ("seat", JSONValue(seat)),
                                             ("match", JSONValue(match)), ("address", JSONValue(address))]
        if let key { fields.append(("key", JSONValue(key))) }
        if resumed { fields.append(("resumed", .bool(true))) }
        return .object(fields)
    }

    /// What a listening host offers, for its `listening` event.
    public enum ListeningOffer: Sendable {
        /// One match (`parlor host`): the `join` commands, the passcode, the `ssh -L` line.
        case match(join: [String], passcode: String?, ssh: String)
        /// A host of tables (`--tables N`): how many, the `join` commands, the passcode, the saved matches coming back.
        case tables(Int, join: [String], passcode: String?, resuming: [String])
        /// A saved match served again (`parlor resume`): its id and the `resume` commands.
        case resume(match: String, commands: [String])
    }

    /// `{"event":"listening","port":N,"game":…,…,"service":…,"discovery":…}`,
    /// the first line of a host: where it listens, what it offers, the
    /// DNS-SD name it is listed as (null: not listed) and why not.
    public static func listening(port: UInt16, game: String, offer: ListeningOffer, service: String?,
                                 discovery: String?) -> JSONValue {
        func optional(_ text: String?) -> JSONValue { text.map { JSONValue($0) } ?? .null }
        var fields: [(String, JSONValue)] = [("event", "listening"), ("port", JSONValue(Int(port))), ("game", JSONValue(game))]
        var trailing: [(String, JSONValue)] = []
        switch offer {
        case .match(let join, let passcode, let ssh):
            fields += [("join", JSONValue(join)), ("passcode", optional(passcode)), ("ssh", JSONValue(ssh))]
        case .tables(let limit, let join, let passcode, let resuming):
            fields += [("tables", JSONValue(limit)), ("join", JSONValue(join)), ("passcode", optional(passcode))]
            trailing = [("resuming", JSONValue(resuming))]
        case .resume(let match, let commands):
            fields += [("match", JSONValue(match)), ("resume", JSONValue(commands))]
        }
        return .object(fields + [("service", optional(service)), ("discovery", optional(discovery))] + trailing)
    }

    /// `{"event":"listed","service":…}`: a game that was not on the LAN's
    /// lists when its `listening` event was written (its `discovery` said why)
    /// is listed now, under this name.
    public static func listed(service: String) -> JSONValue {
        .object([("event", "listed"), ("service", JSONValue(service))])
    }

    /// `{"event":"resumed","match":…,"moves":N}`: an offline match continued from disk.
    public static func resumed(_ state: MatchState) -> JSONValue {
        .object([("event", "resumed"), ("match", JSONValue(state.matchID.hex)), ("moves", JSONValue(state.moves.count))])
    }

    /// `{"event":"rematch","match":…,"seat":N}`: a rematch began and this side
    /// plays seat N; a spectator's has no seat.
    public static func rematch(match: String, seat: SeatIndex? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("event", "rematch"), ("match", JSONValue(match))]
        if let seat { fields.append(("seat", JSONValue(seat))) }
        return .object(fields)
    }

    /// `{"event":"leftForNow","match":…,"reason":…,"resume":…}`: this side
    /// went away without quitting; `resume` is the command that continues.
    /// When its last save failed there is no `resume`, and `unsaved` says why.
    public static func leftForNow(_ state: MatchState, reason: String, unsaved: String? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("event", "leftForNow"), ("match", JSONValue(state.matchID.hex)), ("reason", JSONValue(reason))]
        if let unsaved {
            fields.append(("unsaved", JSONValue(unsaved)))
        } else {
            fields.append(("resume", JSONValue(MatchText.resumeCommand(state))))
        }
        return .object(fields)
    }

    /// `{"event":"watching","address":…,"watching":N}`: a spectator was let in; N watch now.
    public static func watching(address: String, count: Int, key: String? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("event", "watching"), ("address", JSONValue(address)), ("watching", JSONValue(count))]
        if let key { fields.append(("key", JSONValue(key))) }
        return .object(fields)
    }

    /// `{"event":"wrongPasscode","from":…}`: the host checked a passcode proof and found it wrong.
    public static func wrongPasscode(from address: String) -> JSONValue {
        .object([("event", "wrongPasscode"), ("from", JSONValue(address))])
    }

    /// `{"event":"notice","text":…}`
    public static func notice(_ text: String) -> JSONValue {
        .object([("event", "notice"), ("text", JSONValue(text))])
    }

    /// `{"event":"away","seat":N,"name":…,"graceLeft":SECONDS}` when a seat's
    /// player at a table went away (the seat is kept that long), and
    /// `{"event":"back","seat":N,"name":…}` when it came back.
    public static func presence(_ state: MatchState, seat: SeatIndex, away: Bool, graceLeft: Duration) -> JSONValue {
        var fields: [(String, JSONValue)] = [("event", JSONValue(away ? "away" : "back")), ("seat", JSONValue(seat)),
                                             ("name", JSONValue(state.seats[seat].name))]
        if away { fields.append(("graceLeft", JSONValue(MatchText.wholeSecondsUp(graceLeft)))) }
        return .object(fields)
    }

    /// `{"event":"standIn","seat":N,"name":…,"bot":"Medium bot"}` when a bot
    /// plays an away player's seat at a table, and `"bot":null` when the player has it back.
    public static func standIn(_ state: MatchState, seat: SeatIndex, bot: String?) -> JSONValue {
        .object([("event", "standIn"), ("seat", JSONValue(seat)), ("name", JSONValue(MatchText.name(state, seat: seat))),
                 ("bot", bot.map { JSONValue($0) } ?? .null)])
    }

    /// `{"event":"rejected","seat":N,"input":…,"reason":…}`: a local line that was not a playable move.
    public static func rejected(input: String, seat: SeatIndex?, reason: String) -> JSONValue {
        .object([("event", "rejected"), ("seat", seat.map { JSONValue($0) } ?? .null),
                 ("input", JSONValue(input)), ("reason", JSONValue(reason))])
    }

    /// `{"event":"end","outcomes":[…],"winner":SEAT|null,"hash":…,"moves":N,"sequence":S}`; in a game
    /// that keeps score (reversi, dots and boxes, Chinese checkers) each outcome also has `"score"`,
    /// and where the game ranks players `"place"` (1 is first, ties share; `MatchState.placements`).
    /// `winner` is null unless exactly one seat won (a game's own outcomes may make several winners, or none).
    public static func end(_ state: MatchState) -> JSONValue {
        let winners = state.seats.indices.filter { state.seats[$0].outcome == .won }
        let scores = state.game.scores
        let places = state.placements
        return .object([
            ("event", "end"),
            ("outcomes", .array(state.seats.indices.map { seat in
                var fields: [(String, JSONValue)] = [
                    ("seat", JSONValue(seat)), ("name", JSONValue(state.seats[seat].name)),
                    ("outcome", JSONValue(state.seats[seat].outcome.description)),
                ]
                if let scores, scores.indices.contains(seat) { fields.append(("score", JSONValue(scores[seat]))) }
                if let places, places.indices.contains(seat) { fields.append(("place", JSONValue(places[seat]))) }
                return .object(fields)
            })),
            ("winner", winners.count == 1 ? JSONValue(winners[0]) : .null),
            ("hash", JSONValue(hex16(state.stateHash))), ("moves", JSONValue(state.moves.count)),
            ("sequence", JSONValue(Int(state.sequence))),
        ])
    }

    /// `{"event":"error","kind":…,"reason":…,"sequence":S,"hash":…}`: the match stopped on this side.
    /// `spectator`: this side has no seat, so there is nothing it resumes (the players do).
    public static func error(_ failure: MatchFailure, _ state: MatchState, spectator: Bool = false) -> JSONValue {
        let kind: String
        switch failure {
        case .desync: kind = "desync"
        case .connectionLost: kind = "connectionLost"
        }
        // Whether and how the match continues, as the text frontends say it.
        let resumable = failure.isResumable && !state.isEnded
        return .object([("event", "error"), ("kind", JSONValue(kind)), ("reason", JSONValue(failure.description)),
                        ("sequence", JSONValue(Int(state.sequence))), ("hash", JSONValue(hex16(state.stateHash))),
                        ("canContinue", .bool(resumable)),
                        ("resume", resumable && !spectator ? JSONValue(MatchText.resumeCommand(state)) : .null)])
    }

    /// `{"event":"error","kind":"input","reason":…}` for a frontend failure that is not the match's (e.g. stdout closed).
    public static func error(kind: String, reason: String) -> JSONValue {
        .object([("event", "error"), ("kind", JSONValue(kind)), ("reason", JSONValue(reason))])
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string literal is a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
}
