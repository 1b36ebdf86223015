import Foundation
import Games
import Match
import Testing
@testable import TerminalUI

/// Issue 13 item 4: table talk on the full screen (the `t` key, the one-line
/// input, the last lines under the board at 80x24), and `/say ` with its
/// lines and events in plain and JSON mode.
@Suite("Table talk on the full screen, in plain and in JSON mode")
struct TalkLinesTests {
    static func state(_ game: any Game, names: [String]) -> MatchState {
        let seats = names.indices.map { Seat(playerID: PlayerID(hex: String(repeating: "0", count: 31) + String($0 + 1))!, name: names[$0]) }
        return MatchState(matchID: Fixtures.matchID, game: game, seats: seats)
    }

    static let pair = state(Connect4(), names: ["Ana", "Bo"])
    static let table = state(DotsAndBoxes(seats: 4), names: ["Ana", "Bo", "Cy", "Di"])
    static let size = TerminalSize(columns: 80, rows: 24)

    static func line(_ seat: Int, _ name: String, _ text: String, after: UInt32 = 0) -> MatchEvent {
        .talk(TalkLine(role: .player, seat: seat, name: name, text: text, afterSequence: after))
    }

    static func texts(_ actions: [LineAction]) -> [String] {
        actions.compactMap { if case .output(let text, _) = $0 { return text } else { return nil } }
    }

    @Test("at 80x24 the last three lines show under the board, the whole board still there, for two seats and a table of four",
          arguments: [pair, table])
    func lastLinesUnderTheBoard(_ state: MatchState) {
        var model = FullScreenModel(state: state, localSeats: [0], options: .plainASCII, talkAvailable: true)
        let quiet = Renderer.screen(for: model.view, options: .plainASCII, size: Self.size).textLines
        for (index, text) in ["first", "second", "third", "fourth"].enumerated() {
            _ = model.handle(Self.line(index % 2, index % 2 == 0 ? "Ana" : "Bo", text))
        }
        let lines = Renderer.screen(for: model.view, options: .plainASCII, size: Self.size).textLines
        let shown = lines.joined(separator: "\n")
        #expect(lines.count <= 24)
        #expect(lines.allSatisfy { $0.count < 80 })
        #expect(!shown.contains("first"), "only the last three lines show:\n\(shown)")
        let talkRows = ["Bo: second", "Ana: third", "Bo: fourth"].map { text in lines.firstIndex { $0.contains(text) } }
        #expect(talkRows.allSatisfy { $0 != nil }, "\(shown)")
        // Every board line of the quiet screen is still on screen, above the talk.
        let board = BoardRenderer.lines(for: state, cursor: model.view.showsCursor ? model.view.cursor : nil, options: .plainASCII).map(\.text)
        let lastBoardRow = board.compactMap { row in lines.lastIndex { $0.contains(row) } }.max() ?? Int.max
        #expect(board.allSatisfy { row in lines.contains { $0.contains(row) } }, "\(shown)")
        #expect(talkRows.compactMap { $0 }.allSatisfy { $0 > lastBoardRow }, "talk is under the board:\n\(shown)")
        #expect(quiet.count <= lines.count)
    }

    @Test("t opens the input, typing shows it, Enter sends it as the local seat's line, Esc drops it")
    func typingALine() {
        var model = FullScreenModel(state: Self.pair, localSeats: [1], options: .plainASCII, talkAvailable: true)
        #expect(model.handle(.character("t")).count == 1)
        for character in "gg, well played" { _ = model.handle(.character(character)) }
        _ = model.handle(.backspace)
        let lines = Renderer.screen(for: model.view, options: .plainASCII, size: Self.size).textLines
        #expect(lines.contains { $0.contains("Say: gg, well playe_") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("Enter: send to the table   Esc: cancel") })
        // While typing, q, digits and Enter belong to the line, not the board.
        _ = model.handle(.character("q"))
        #expect(!model.view.confirmingQuit)
        let actions = model.handle(.enter)
        #expect(actions.contains { if case .say("gg, well playeq", seat: 1) = $0 { true } else { false } })
        #expect(model.view.talkDraft == nil)
        _ = model.handle(.character("t"))
        _ = model.handle(.character("x"))
        let cancelled = model.handle(.escape)
        #expect(!cancelled.contains { if case .say = $0 { true } else { false } })
        #expect(model.view.talkDraft == nil)
        #expect(!Renderer.screen(for: model.view, options: .plainASCII, size: Self.size).textLines.contains { $0.contains("Say:") })
    }

    @Test("the keys line and the ? overlay name t only where there is talk; offline, t says there is none")
    func keysNameTalk() {
        var model = FullScreenModel(state: Self.pair, localSeats: [0], options: .plainASCII, talkAvailable: true)
        #expect(Renderer.helpText(model.view, options: .plainASCII).contains("t: talk"))
        #expect(Renderer.keyList(model.view, options: .plainASCII).contains { $0.0 == "t" })
        var offline = FullScreenModel(state: Self.pair, localSeats: [0], options: .plainASCII)
        #expect(!Renderer.helpText(offline.view, options: .plainASCII).contains("t: talk"))
        #expect(!Renderer.keyList(offline.view, options: .plainASCII).contains { $0.0 == "t" })
        _ = offline.handle(.character("t"))
        #expect(offline.view.talkDraft == nil)
        #expect(offline.view.message == "No table talk here: it is for LAN matches.")
        _ = model.handle(.talkRefused(TalkRefusal(code: 402, name: "talkTooLong", sentence: "The line is too long.")))
        #expect(model.view.message == "Not sent: The line is too long.")
    }

    @Test("with three lines said and the input open, every game at its largest table still fits 80x24")
    func everyGameFits() {
        for game in GameCatalog.builtIn {
            let seats = game.seatCounts.max() ?? 2
            let state = Self.state(game.init(seats: seats), names: (0..<seats).map { "Player \($0 + 1)" })
            var model = FullScreenModel(state: state, localSeats: [0], options: .plainASCII, talkAvailable: true)
            for index in 0..<3 { _ = model.handle(Self.line(index % seats, "Player \(index % seats + 1)", "line \(index)")) }
            _ = model.handle(.character("t"))
            for character in "typing" { _ = model.handle(.character(character)) }
            let lines = Renderer.screen(for: model.view, options: .plainASCII, size: Self.size).textLines
            let shown = lines.joined(separator: "\n")
            #expect(!shown.contains("Window too small"), "\(game.id) with \(seats) seats:\n\(shown)")
            #expect(lines.contains { $0.contains("Say: typing_") }, "\(game.id) with \(seats) seats:\n\(shown)")
            #expect(lines.count <= 24 && lines.allSatisfy { $0.count < 80 }, "\(game.id)")
        }
    }

    @Test("t is no move key in any game: it never moves the cursor")
    func tIsFree() {
        for game in GameCatalog.builtIn {
            let state = Self.state(game.init(seats: game.seatCounts.first ?? 2), names: (0..<(game.seatCounts.first ?? 2)).map { "P\($0)" })
            var model = FullScreenModel(state: state, localSeats: [0], options: .plainASCII, talkAvailable: true)
            let before = model.view.cursor
            _ = model.handle(.character("t"))
            #expect(model.view.talkDraft == "", "\(game.id)")
            #expect(model.view.cursor == before, "\(game.id)")
        }
    }

    @Test("plain: /say sends the rest at once, even out of turn; lines said and refusals are printed")
    func plain() {
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: Self.pair, localSeats: [1])
        _ = model.handle(.started(Self.pair))
        let actions = model.handle(line: "/say  hello there ")
        #expect(actions.count == 1)
        #expect(actions.contains { if case .say("hello there", seat: 1) = $0 { true } else { false } })
        #expect(Self.texts(model.handle(line: "/say")) == ["Type /say and a line to say it to the table."])
        #expect(Self.texts(model.handle(Self.line(0, "Ana", "hi \u{1B}[2J", after: 3))) == ["Ana says: hi ?[2J"])
        #expect(Self.texts(model.handle(.talkRefused(TalkRefusal(code: 401, name: "talkTooFast", sentence: "Wait a moment.")))) ==
                ["Not sent: Wait a moment."])
        // A line that only starts like it is a move line, not talk.
        #expect(!model.handle(line: "/sayonara").contains { if case .say = $0 { true } else { false } })
    }

    @Test("JSON: a talk event per line said and a talk-refused event; a script sends with /say on stdin")
    func json() throws {
        var model = LineModel(format: .json, state: Self.table, localSeats: [2])
        _ = model.handle(.started(Self.table))
        #expect(model.handle(line: "/say ready").contains { if case .say("ready", seat: 2) = $0 { true } else { false } })
        let said = try #require(Self.texts(model.handle(Self.line(1, "Bo", "nice box!", after: 5))).first)
        #expect(said == #"{"event":"talk","role":"player","seat":1,"name":"Bo","text":"nice box!","after":5}"#)
        let watcher = try #require(Self.texts(model.handle(.talk(TalkLine(role: .spectator, seat: nil, name: "Eve", text: "hi")))).first)
        #expect(watcher == #"{"event":"talk","role":"spectator","seat":null,"name":"Eve","text":"hi","after":0}"#)
        let refused = try #require(Self.texts(model.handle(.talkRefused(
            TalkRefusal(code: 403, name: "talkControlCharacter", sentence: "The line holds a control character.")))).first)
        #expect(refused == #"{"event":"talk-refused","reason":"talkControlCharacter","code":403,"message":"The line holds a control character."}"#)
    }
}
