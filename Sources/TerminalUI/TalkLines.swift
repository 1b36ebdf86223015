import Games
import Match

/// Table talk on the three frontends (docs/PROTOCOL.md section 18): the
/// lines kept for the full screen, the one-line input that `t` opens, the
/// plain and JSON `/say ` line, and what each shows of a relayed or refused line.
/// The host judges every line; nothing here decides whether one may be said.
enum TalkLines {
    /// Lines of talk the full screen keeps (it shows the last `shown`).
    static let kept = 20
    /// Lines of talk shown under the board.
    static let shown = 3
    /// The key that opens the one-line input.
    static let key: Character = "t"
    /// The plain and JSON line that says the rest: `/say hello`.
    static let sayPrefix = "/say "
    /// Longest draft the input takes, in Unicode scalars: the host's limit, so
    /// nobody types a line that cannot be sent.
    static let maximumDraftScalars = 200

    /// What `/say …` says, nil if `line` is not one. `/say` alone says nothing (empty).
    static func said(in line: String) -> String? {
        if line == "/say" { return "" }
        guard line.hasPrefix(sayPrefix) else { return nil }
        return String(line.dropFirst(sayPrefix.count)).trimmingCharacters()
    }

    /// "Bo", "Cy (watching)": who said a line.
    static func speaker(_ line: TalkLine) -> String {
        line.role == .spectator ? "\(line.name) (watching)" : line.name
    }

    /// The plain-mode line: `Bo says: hello`.
    static func plainLine(_ line: TalkLine) -> String {
        "\(sanitized(speaker(line))) says: \(sanitized(line.text))"
    }

    /// The plain-mode line of a refusal.
    static func refusedLine(_ refusal: TalkRefusal) -> String {
        "Not sent: \(sanitized(refusal.sentence))"
    }

    /// The last lines of talk for the full screen, under the seats, each
    /// with the speaker's piece when the speaker holds a seat; none while
    /// nothing was said, so a quiet match looks as it always did.
    static func rows(_ view: ScreenView, options: DisplayOptions) -> [StyledLine] {
        view.talk.suffix(shown).map { line in
            var row = StyledLine(Renderer.margin)
            if let seat = line.seat, view.state.seats.indices.contains(seat) {
                row.append(Pieces.glyph(seat: seat, gameID: view.state.gameID, options: options), Pieces.style(seat: seat))
                row.append(" ")
            }
            row.append(sanitized(speaker(line)) + ":", TextStyle(bold: true))
            row.append(" " + sanitized(line.text))
            return row
        }
    }

    /// The input line while a draft is open: `Say: hello_`, its end kept in view.
    static func inputRow(_ draft: String, width: Int?, options: DisplayOptions) -> StyledLine {
        let label = Renderer.margin + "Say: "
        let caret = options.unicode ? "▏" : "_"
        var text = sanitized(draft)
        if let width {
            let room = max(1, width - displayWidth(label) - displayWidth(caret))
            while displayWidth(text) > room, !text.isEmpty { text.removeFirst() }
        }
        var row = StyledLine(label, TextStyle(bold: true))
        row.append(text + caret)
        return row
    }

    /// The keys line while the input is open.
    static let inputKeys = "Enter: send to the table   Esc: cancel"
}

/// The one-line input the `t` key opens on the full screen: typed characters,
/// Backspace, Enter sends, Esc cancels. Pure.
enum TalkDraft {
    /// What a key did to the draft.
    enum Outcome: Hashable, Sendable {
        /// Still typing (redraw when `changed`).
        case editing(changed: Bool)
        /// Enter: send this text (trimmed; the host refuses an empty one).
        case send(String)
        /// Esc: the draft is dropped.
        case cancel
    }

    /// What `key` does to the draft `text`.
    static func edit(_ text: inout String, with key: Key) -> Outcome {
        switch key {
        case .enter: return .send(text.trimmingCharacters())
        case .escape: return .cancel
        case .backspace:
            guard !text.isEmpty else { return .editing(changed: false) }
            text.removeLast()
            return .editing(changed: true)
        case .character(let character):
            guard text.unicodeScalars.count + character.unicodeScalars.count <= TalkLines.maximumDraftScalars else {
                return .editing(changed: false)
            }
            text.append(character)
            return .editing(changed: true)
        default:
            return .editing(changed: false)
        }
    }
}

/// Sends a frontend's lines of talk to the controller one after another, in
/// the order they were typed, off the frontend's loop.
/// What a match's talk outlet gives this side's screens: whether there is
/// table talk at all, and whether it speaks with no seat (a spectator).
struct TalkAccess: Sendable {
    var available: Bool
    var withoutSeat: Bool

    static func of(_ controller: MatchController) async -> TalkAccess {
        let outlet = controller.configuration.talk
        return TalkAccess(available: outlet != nil, withoutSeat: outlet?.speaksWithoutSeat ?? false)
    }
}

final class TalkSender: Sendable {
    private let lines: AsyncStream<(String, SeatIndex)>.Continuation
    private let task: Task<Void, Never>

    init(controller: MatchController) {
        let (stream, continuation) = AsyncStream<(String, SeatIndex)>.makeStream(bufferingPolicy: .unbounded)
        lines = continuation
        task = Task {
            for await (text, seat) in stream { await controller.say(text, seat: seat) }
        }
    }

    func send(_ text: String, seat: SeatIndex) { lines.yield((text, seat)) }

    func stop() {
        lines.finish()
        task.cancel()
    }
}

extension JSONEvents {
    /// `{"event":"talk","role":"player","seat":N,"name":…,"text":…,"after":S}`
    /// (a spectator's line has `"seat":null`): a line said at the table, after committed change S.
    public static func talk(_ line: TalkLine) -> JSONValue {
        .object([("event", "talk"), ("role", JSONValue(line.role.description)),
                 ("seat", line.seat.map { JSONValue($0) } ?? .null), ("name", JSONValue(line.name)),
                 ("text", JSONValue(line.text)), ("after", JSONValue(Int(line.afterSequence)))])
    }

    /// `{"event":"talk-refused","reason":…,"code":N,"message":…}`: this side's line was not relayed.
    public static func talkRefused(_ refusal: TalkRefusal) -> JSONValue {
        .object([("event", "talk-refused"), ("reason", JSONValue(refusal.name)), ("code", JSONValue(Int(refusal.code))),
                 ("message", JSONValue(refusal.sentence))])
    }
}
