import Games
import Match
import Testing
@testable import TerminalUI

/// Issue 39, "a message with a turn", in plain and JSON mode: a move typed
/// with words after it sends them with the move; the other side reads
/// "Ana (X) played 4 — 'Your move'", and JSON's move event has "message".
@Suite("A message with a turn in plain and JSON mode")
struct TurnMessageLineTests {
    static func texts(_ actions: [LineAction]) -> [String] {
        actions.compactMap { if case .output(let text, _) = $0 { return text } else { return nil } }
    }

    static func played(_ actions: [LineAction]) -> (Move, TurnMessage?)? {
        for case .play(let move, _, let message) in actions { return (move, message) }
        return nil
    }

    /// A model of Ana (seat 0) at the start of a Connect Four match, her turn begun.
    static func ana(_ format: LineModel.Format = .text(.plainASCII, interactive: false)) -> LineModel {
        let start = Fixtures.state(Connect4())
        var model = LineModel(format: format, state: start, localSeats: [0])
        _ = model.handle(.started(start))
        _ = model.handle(.turnBegan(seat: 0, start))
        return model
    }

    @Test("'4 Your move, Bo' plays column 4 with the message; '4' alone plays it without one")
    func aMoveAndItsMessage() throws {
        var model = Self.ana()
        let (move, message) = try #require(Self.played(model.handle(line: "4 Your move, Bo")))
        #expect(move == Move(3) && message?.text == "Your move, Bo")
        var silent = Self.ana()
        let plain = try #require(Self.played(silent.handle(line: "4")))
        #expect(plain.0 == Move(3) && plain.1 == nil)
        // Nim-style notations with a space keep working: the longest start that is a move wins.
        #expect(LineModel.moveAndMessage("4   gg  ", in: Connect4())?.message == "gg")
        #expect(LineModel.moveAndMessage("Your move 4", in: Connect4()) == nil)
    }

    @Test("a message over 140 bytes is refused with the rule and nothing is played; the prompt comes again")
    func tooLongIsRefusedNotCut() {
        var model = Self.ana()
        let actions = model.handle(line: "4 " + String(repeating: "a", count: 141))
        #expect(Self.played(actions) == nil)
        let texts = Self.texts(actions)
        #expect(texts.contains("Refused: a message with a move holds at most 140 bytes of UTF-8; this one has 141: shorten it; nothing was played."),
                "\(texts)")
        #expect(texts.last?.hasPrefix("Your move") == true)
    }

    @Test("the other side's move with a message is shown with it; the JSON move event carries it")
    func theOtherSideReadsIt() throws {
        let start = Fixtures.state(Connect4(), names: ("Ana", "Bo"))
        let change = MatchChange.move(Move(3), by: 0, message: try TurnMessage("Your move, Bo"))
        let after = try start.applying(change, now: 1)
        var bo = LineModel(format: .text(.plainASCII, interactive: false), state: start, localSeats: [1])
        _ = bo.handle(.started(start))
        #expect(Self.texts(bo.handle(.committed(change, after))).contains("Ana (X) played 4 -- 'Your move, Bo'"))
        var unicode = LineModel(format: .text(DisplayOptions(colorDepth: .none, attributes: false, unicode: true, prefersPlainMode: true), interactive: false), state: start, localSeats: [1])
        _ = unicode.handle(.started(start))
        #expect(Self.texts(unicode.handle(.committed(change, after))).contains { $0.hasSuffix("played 4 — 'Your move, Bo'") })
        var script = LineModel(format: .json, state: start, localSeats: [1])
        _ = script.handle(.started(start))
        let json = Self.texts(script.handle(.committed(change, after)))
        #expect(json.contains { $0.contains("\"event\":\"move\"") && $0.contains("\"message\":\"Your move, Bo\"") }, "\(json)")
        // A move without one has no "message" key, as before.
        let silent = try start.applying(.move(Move(3), by: 0), now: 1)
        #expect(!Self.texts(script.handle(.committed(.move(Move(3), by: 0), silent))).contains { $0.contains("message") })
    }
}
