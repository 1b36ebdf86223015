import Games
import Match
import Testing
@testable import TerminalUI

/// `/help` in plain and JSON mode: a player who does not know what to type
/// asks, and reads every kind of line that works here, then the prompt again;
/// nothing is played and nothing is queued as a move.
@Suite("/help in plain and JSON mode")
struct HelpLineTests {
    static func model(_ format: LineModel.Format) -> LineModel {
        let start = Fixtures.state(Connect4())
        var model = LineModel(format: format, state: start, localSeats: [0])
        _ = model.handle(.started(start))
        _ = model.handle(.turnBegan(seat: 0, start))
        return model
    }

    @Test("/help, help and ? list the move, a message with it, /say, /quit and leaving for now, and prompt again; nothing is played",
          arguments: ["/help", "help", "?", " /HELP "])
    func plainHelp(line: String) {
        var model = Self.model(.text(.plainASCII, interactive: false))
        let actions = model.handle(line: line)
        let texts = TurnMessageLineTests.texts(actions)
        #expect(TurnMessageLineTests.played(actions) == nil)
        #expect(texts.first == "Lines you can type:", "\(texts)")
        #expect(texts.contains("  a move: a column, 1-7"), "\(texts)")
        #expect(texts.contains { $0.contains("/say TEXT") } && texts.contains { $0.contains("/quit: quits this match") }, "\(texts)")
        #expect(texts.contains { $0.contains("leaves the match for now") }, "\(texts)")
        #expect(texts.last?.hasPrefix("Your move") == true, "\(texts)")
        #expect(!texts.contains { $0.contains("is not a move here") }, "\(texts)")
        // The next line is still a move.
        #expect(TurnMessageLineTests.played(model.handle(line: "4")) != nil)
    }

    @Test("piped before the match starts, /help is answered in its place among the lines typed, not before them")
    func answeredInOrder() {
        let start = Fixtures.state(Connect4())
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: start, localSeats: [0])
        var texts = TurnMessageLineTests.texts(model.handle(line: "x"))
        texts += TurnMessageLineTests.texts(model.handle(line: "/help"))
        #expect(texts.isEmpty, "nothing answered before the start: \(texts)")
        texts += TurnMessageLineTests.texts(model.handle(.started(start)))
        texts += TurnMessageLineTests.texts(model.handle(.turnBegan(seat: 0, start)))
        let refused = texts.firstIndex { $0.hasPrefix("'x' is not a move here") }
        let help = texts.firstIndex { $0 == "Lines you can type:" }
        #expect(refused != nil && help != nil && refused! < help!, "\(texts)")
    }

    @Test("in JSON mode /help is one notice event holding the same lines")
    func jsonHelp() throws {
        var model = Self.model(.json)
        let texts = TurnMessageLineTests.texts(model.handle(line: "/help"))
        #expect(texts.count == 1, "\(texts)")
        let event = try #require(texts.first)
        #expect(event.contains("\"event\":\"notice\"") && event.contains("Lines you can type:"), "\(event)")
    }
}
