import Foundation
import Games
import Match
import Testing
@testable import TerminalUI

/// Issue 15, "endings say what happens next": the texts every frontend shows
/// when a match breaks off, and the full screen's wrapping of them.
@Suite("Endings say what happens next")
struct EndingTextTests {
    static let state = Fixtures.state(Connect4(), moves: [3, 2], names: ("Ana", "Bo"))
    static let lost = MatchFailure.connectionLost(
        "Bo did not come back within 8 s (gave up after 5 attempts (last: could not connect to 192.0.2.7 port 7477: connection refused))")

    static func texts(_ actions: [LineAction]) -> [String] {
        actions.compactMap { if case .output(let text, _) = $0 { return text } else { return nil } }
    }

    @Test("plain mode: why it stopped, that it can continue, this side's resume line and what the other side must do")
    func plain() {
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: Self.state, localSeats: [0])
        let lines = Self.texts(model.handle(.failed(Self.lost, Self.state)))
        let id = Self.state.matchID.short
        #expect(lines.first == "Match stopped: \(Self.lost.description).")
        #expect(lines.contains("The match is not over and can continue: run 'parlor resume \(id)' here, "
            + "and Bo must run 'parlor resume \(id)' on the other machine."), "\(lines)")
        #expect(!lines.joined().contains("is still playing"), "\(lines)")
    }

    @Test("a table of three: the resume line names every other player, never 'The other player'")
    func tableOfThree() throws {
        let game = try #require(GameCatalog.newGame(id: "dots-and-boxes", seats: 3))
        let state = MatchState(matchID: Fixtures.matchID, game: game, seats: [
            Seat(playerID: Fixtures.ana, name: "Ana"), Seat(playerID: Fixtures.bot, name: "Bo"), Seat(playerID: .random(), name: "Cy"),
        ])
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: state, localSeats: [0])
        let lines = Self.texts(model.handle(.failed(Self.lost, state)))
        let id = state.matchID.short
        #expect(lines.contains("The match is not over and can continue: run 'parlor resume \(id)' here, "
            + "and Bo and Cy must each run 'parlor resume \(id)' where they play."), "\(lines)")
        #expect(!lines.joined().contains("The other player"), "\(lines)")
    }

    @Test("JSON: the error event says whether the match can continue and gives the resume command")
    func json() throws {
        var model = LineModel(format: .json, state: Self.state, localSeats: [0])
        let line = try #require(Self.texts(model.handle(.failed(Self.lost, Self.state))).first)
        let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(event["event"] as? String == "error")
        #expect(event["canContinue"] as? Bool == true)
        #expect(event["resume"] as? String == "parlor resume \(Self.state.matchID.short)")
        var desynced = LineModel(format: .json, state: Self.state, localSeats: [0])
        let other = try #require(Self.texts(desynced.handle(.failed(.desync("two copies"), Self.state))).first)
        #expect(other.contains("\"canContinue\":false") && other.contains("\"resume\":null"), "\(other)")
        // A spectator has no seat to resume: the match can continue, by the players, and no command is given.
        var watching = LineModel(format: .json, state: Self.state, localSeats: [])
        let watched = try #require(Self.texts(watching.handle(.failed(Self.lost, Self.state))).first)
        #expect(watched.contains("\"canContinue\":true") && watched.contains("\"resume\":null"), "\(watched)")
    }

    @Test("full screen, 80 and 40 columns: the stale waiting line is gone, every line fits, nothing is lost", arguments: [80, 40])
    func fullScreen(columns: Int) {
        var model = FullScreenModel(state: Self.state, localSeats: [0], options: .plainASCII)
        _ = model.handle(.notice("waiting for Bo to come back (8 s left)"))
        _ = model.handle(.failed(Self.lost, Self.state))
        #expect(model.view.notice == nil)
        let frame = Renderer.screen(for: model.view, options: .plainASCII, size: TerminalSize(columns: columns, rows: 24))
        #expect(frame.lines.allSatisfy { $0.width < columns }, "\(frame.textLines.joined(separator: "\n"))")
        let words = frame.textLines.joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(!words.contains("waiting for Bo"))
        #expect(words.contains("Bo must run 'parlor resume \(Self.state.matchID.short)' on the other machine."), "\(words)")
        #expect(words.contains("Match stopped: connection lost: Bo did not come back within 8 s"), "\(words)")
        if columns == 80 { #expect(words.contains("connection refused))"), "cut at 80 columns: \(words)") }
    }

    @Test("a line wraps at spaces, keeps its leading margin and indents what follows")
    func wrapping() {
        let line = StyledLine("  one two three four five six", TextStyle(bold: true))
        let wrapped = line.wrapped(to: 12, indent: "    ")
        #expect(wrapped.map(\.text) == ["  one two", "    three", "    four", "    five six"])
        #expect(wrapped.allSatisfy { $0.spans.first?.style.bold == true })
        #expect(line.wrapped(to: 80, indent: "    ") == [line])
    }
}
