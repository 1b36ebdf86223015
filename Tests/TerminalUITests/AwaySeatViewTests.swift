import Foundation
import Games
import Match
import Testing
@testable import TerminalUI

/// Issue 12 items 4 and 7: a seat whose player is away at a table is marked on
/// the full screen's seat list (at 80x24), and plain and JSON say the same.
@Suite("An away seat at a table: full screen, plain and JSON")
struct AwaySeatViewTests {
    static let table: MatchState = {
        let names = ["Ana", "Bo", "Cy", "Di"]
        let seats = names.indices.map { Seat(playerID: PlayerID(hex: String(repeating: "0", count: 31) + String($0 + 1))!, name: names[$0]) }
        return MatchState(matchID: Fixtures.matchID, game: DotsAndBoxes(seats: 4), seats: seats)
    }()

    static func texts(_ actions: [LineAction]) -> [String] {
        actions.compactMap { if case .output(let text, _) = $0 { return text } else { return nil } }
    }

    @Test("full screen at 80x24: Cy away is marked on its seat line and in the notice, then cleared when back")
    func fullScreen() {
        var model = FullScreenModel(state: Self.table, localSeats: [0], options: .plainASCII)
        _ = model.handle(.presence(seat: 2, away: true, graceLeft: .seconds(59.2)))
        let frame = Renderer.screen(for: model.view, options: .plainASCII, size: TerminalSize(columns: 80, rows: 24))
        let lines = frame.textLines
        #expect(lines.contains { $0.contains("Cy - away") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("Cy is away (the seat is kept 60 s).") }, "\(lines.joined(separator: "\n"))")
        #expect(!lines.contains { $0.contains("Bo - away") })
        #expect(frame.lines.allSatisfy { $0.width < 80 })
        _ = model.handle(.presence(seat: 2, away: false, graceLeft: .zero))
        let back = Renderer.screen(for: model.view, options: .plainASCII, size: TerminalSize(columns: 80, rows: 24)).textLines
        #expect(!back.contains { $0.contains("away") }, "\(back.joined(separator: "\n"))")
        #expect(back.contains { $0.contains("Cy is back.") })
    }

    @Test("the away seat to move says so: 'to move, away'")
    func awayToMove() {
        var view = ScreenView(state: Self.table, localSeats: [1])
        view.awaySeats = [0]
        let lines = Renderer.seatLines(view, options: .plainASCII).map(\.text)
        #expect(lines.contains { $0.contains("> ") && $0.contains("Ana - to move, away") }, "\(lines)")
    }

    @Test("an away seat counts its grace down on its seat line, and the away seat to move is away, not thinking")
    func awayCountsDown() {
        var model = FullScreenModel(state: Self.table, localSeats: [1], options: .plainASCII)
        _ = model.handle(.presence(seat: 0, away: true, graceLeft: .seconds(120)))
        var view = model.view
        let until = try? #require(view.awayUntil[0])
        view.now = (until ?? 0) - 97_000
        let lines = Renderer.screen(for: view, options: .plainASCII, size: TerminalSize(columns: 80, rows: 24)).textLines
        #expect(lines.contains { $0.contains("Ana - to move, away, 97 s left") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("Ana is away, 97 s left.") }, "\(lines.joined(separator: "\n"))")
        #expect(!lines.contains { $0.contains("thinking") }, "\(lines.joined(separator: "\n"))")
        view.now += 3_000
        let later = Renderer.screen(for: view, options: .plainASCII, size: TerminalSize(columns: 80, rows: 24)).textLines
        #expect(later.contains { $0.contains("away, 94 s left") }, "\(later.joined(separator: "\n"))")
    }

    @Test("plain says who is away and back; JSON has an away and a back event with the seat, name and grace left")
    func plainAndJSON() throws {
        var plain = LineModel(format: .text(.plainASCII, interactive: false), state: Self.table, localSeats: [0])
        #expect(Self.texts(plain.handle(.presence(seat: 2, away: true, graceLeft: .seconds(60)))) == ["Cy is away (the seat is kept 60 s)."])
        #expect(Self.texts(plain.handle(.presence(seat: 2, away: false, graceLeft: .zero))) == ["Cy is back."])
        var json = LineModel(format: .json, state: Self.table, localSeats: [0])
        let away = try #require(Self.texts(json.handle(.presence(seat: 2, away: true, graceLeft: .seconds(60)))).first)
        let event = try #require(try JSONSerialization.jsonObject(with: Data(away.utf8)) as? [String: Any])
        #expect(event["event"] as? String == "away")
        #expect(event["seat"] as? Int == 2)
        #expect(event["name"] as? String == "Cy")
        #expect(event["graceLeft"] as? Int == 60)
        let back = try #require(Self.texts(json.handle(.presence(seat: 2, away: false, graceLeft: .zero))).first)
        #expect(back == #"{"event":"back","seat":2,"name":"Cy"}"#)
    }

    /// A match of two seats: the link's notice ("Bo is not responding — …")
    /// is what the player reads; the controller's presence (the library's
    /// `away`/`back`) adds no second line, in plain, JSON or on the full screen.
    @Test("at two seats presence adds nothing to plain, JSON or the full screen: the notice says it")
    func twoSeatsHaveTheNoticeOnly() {
        let two = MatchState(matchID: Fixtures.matchID, game: Connect4(seats: 2),
                             seats: [Seat(playerID: .random(), name: "Ana"), Seat(playerID: .random(), name: "Bo")])
        var plain = LineModel(format: .text(.plainASCII, interactive: false), state: two, localSeats: [0])
        var json = LineModel(format: .json, state: two, localSeats: [0])
        #expect(Self.texts(plain.handle(.presence(seat: 1, away: true, graceLeft: .seconds(60)))).isEmpty)
        #expect(Self.texts(json.handle(.presence(seat: 1, away: true, graceLeft: .seconds(60)))).isEmpty)
        var screen = FullScreenModel(state: two, localSeats: [0], options: .plainASCII)
        _ = screen.handle(.presence(seat: 1, away: true, graceLeft: .seconds(60)))
        #expect(screen.view.awaySeats.isEmpty && screen.view.notice == nil)
        #expect(Self.texts(plain.handle(.notice("Bo is not responding — waiting for Bo to come back (60 s left)")))
                == ["Note: Bo is not responding — waiting for Bo to come back (60 s left)"])
    }
}
