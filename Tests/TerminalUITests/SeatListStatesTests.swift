import Foundation
import Games
import Match
import Testing
@testable import TerminalUI

/// Issue 12 item 7: the full screen's seat list says each seat's state (to
/// move, thinking, away, a bot standing in, quit, timed out) and its score
/// where the game keeps one, at 80x24 and larger, and again after a resize.
@Suite("The seat list's states and scores")
struct SeatListStatesTests {
    static let table = AwaySeatViewTests.table

    /// `table` after `lines` moves of the first free line each, for seats that take turns by the rules.
    static func played(_ lines: Int) throws -> MatchState {
        var state = table
        for _ in 0..<lines {
            let seat = try #require(state.activeSeat)
            let move = try #require(state.game.legalMoves.first)
            state = try state.applying(.move(move, by: seat), now: 1)
        }
        return state
    }

    static func seatLines(_ view: ScreenView) -> [String] { Renderer.seatLines(view, options: .plainASCII).map(\.text) }

    @Test("the seat to move says 'to move' when it is a player's here and 'thinking' for anyone else")
    func toMoveAndThinking() {
        var view = ScreenView(state: Self.table, localSeats: [0])
        #expect(Self.seatLines(view).contains { $0.contains("Ana (you) - to move") }, "\(Self.seatLines(view))")
        view = ScreenView(state: Self.table, localSeats: [1])
        #expect(Self.seatLines(view).contains { $0.contains("> ") && $0.contains("Ana - thinking") }, "\(Self.seatLines(view))")
    }

    @Test("a bot standing in, through the model's events: marked on the seat, cleared when the player is back")
    func standingIn() {
        var model = FullScreenModel(state: Self.table, localSeats: [1], options: .plainASCII)
        _ = model.handle(.presence(seat: 0, away: true, graceLeft: .seconds(60)))
        _ = model.handle(.standIn(seat: 0, bot: "Medium bot"))
        #expect(Self.seatLines(model.view).contains { $0.contains("Ana - thinking, Medium bot standing in") }, "\(Self.seatLines(model.view))")
        _ = model.handle(.presence(seat: 0, away: false, graceLeft: .zero))
        #expect(!Self.seatLines(model.view).contains { $0.contains("standing in") || $0.contains("away") }, "\(Self.seatLines(model.view))")
    }

    @Test("quit and timed out seats say so; every seat shows its boxes")
    func quitTimedOutAndScores() throws {
        var state = try Self.played(3)
        state = try state.applying(.quit(2), now: 2)
        var timed = MatchState(matchID: Fixtures.matchID, game: DotsAndBoxes(seats: 4), seats: Self.table.seats, turnTimeout: 30, now: 1)
        #expect(timed.deadline > 0)
        timed = try timed.applying(.timeExpired(0), now: timed.deadline)
        let lines = Self.seatLines(ScreenView(state: state, localSeats: [0]))
        #expect(lines.contains { $0.contains("Cy - quit") }, "\(lines)")
        #expect(lines.filter { $0.contains("0 boxes") }.count == 2, "two lines, two seats each: \(lines)")
        let timedLines = Self.seatLines(ScreenView(state: timed, localSeats: [1]))
        #expect(timedLines.contains { $0.contains("Ana - ") && $0.contains("time") }, "\(timedLines)")
    }

    @Test("reversi's seat list has each side's discs")
    func reversiDiscs() {
        let seats = [Seat(playerID: PlayerID.random(), name: "Ana"), Seat(playerID: PlayerID.random(), name: "Bo")]
        let state = MatchState(matchID: Fixtures.matchID, game: Reversi(seats: 2), seats: seats)
        let lines = Self.seatLines(ScreenView(state: state, localSeats: [0]))
        #expect(lines.filter { $0.contains("2 discs") }.count == 2, "\(lines)")
    }

    @Test("at 80x24 and 120x40 every state fits on the screen, and a resize redraws it to the new size")
    func sizes() throws {
        var model = FullScreenModel(state: try Self.played(2), localSeats: [1], options: .plainASCII, standInAllowed: true)
        _ = model.handle(.presence(seat: 3, away: true, graceLeft: .seconds(60)))
        _ = model.handle(.standIn(seat: 3, bot: "Medium bot"))
        for size in [TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 120, rows: 40)] {
            let frame = Renderer.screen(for: model.view, options: .plainASCII, size: size)
            let text = frame.textLines.joined(separator: "\n")
            #expect(frame.lines.count <= size.rows && frame.lines.allSatisfy { $0.width < size.columns }, "\(text)")
            #expect(text.contains("Medium bot standing in") && text.contains("boxes"), "\(text)")
            #expect(text.contains("b: bot for away seats"), "\(text)")
        }
    }

    @Test("b on a table's host hands the away seats to a bot; without the key's action there is no b")
    func bKey() {
        var model = FullScreenModel(state: Self.table, localSeats: [0], options: .plainASCII, standInAllowed: true)
        _ = model.handle(.presence(seat: 2, away: true, graceLeft: .seconds(60)))
        let actions = model.handle(.character("b"))
        #expect(actions.contains { if case .standInForAwaySeats = $0 { true } else { false } })
        #expect(model.view.message?.contains("A bot plays the away seats") == true)
        var guest = FullScreenModel(state: Self.table, localSeats: [0], options: .plainASCII)
        #expect(!guest.handle(.character("b")).contains { if case .standInForAwaySeats = $0 { true } else { false } })
    }
}
