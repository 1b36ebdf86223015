import Games
import Match
import Testing
@testable import TerminalUI

/// A `/quit` the controller refuses (a move awaiting confirmation) is not lost.
@Suite struct LineModelQuitTests {
    static let state = Fixtures.state(Connect4(), moves: [0, 1])

    static func quits(_ actions: [LineAction]) -> [SeatIndex] {
        actions.compactMap { if case .quit(let seat) = $0 { return seat } else { return nil } }
    }

    @Test func aRefusedQuitIsTriedAgainAtTheNextTurnNotDroppedAtTheEndOfInput() {
        var model = LineModel(format: .json, state: Self.state, localSeats: [0])
        _ = model.handle(.started(Self.state))
        _ = model.handle(.turnBegan(seat: 0, Self.state))
        #expect(Self.quits(model.handle(line: "/quit")) == [0])
        _ = model.handleEndOfInput()
        _ = model.submitted(.rejected(.awaitingConfirmation), quitting: true)
        let next = model.handle(.turnBegan(seat: 0, Self.state))
        #expect(Self.quits(next) == [0], "the quit again, not leaving for now: \(next)")
        #expect(!next.contains { if case .finish = $0 { return true } else { return false } })
    }

    @Test func aQuitWhoseResultOvertakesItsEventsIsNotTakenForLeavingAtTheEndOfInput() throws {
        var model = LineModel(format: .text(.plainASCII, interactive: false), state: Self.state, localSeats: [0])
        _ = model.handle(.started(Self.state))
        _ = model.handle(.turnBegan(seat: 0, Self.state))
        #expect(Self.quits(model.handle(line: "/quit")) == [0])
        let quit = try Self.state.applying(.quit(0), now: 0)
        // The quit's result first, then the end of input, then the quit's events.
        #expect(model.submitted(.committed(quit), quitting: true).isEmpty)
        let ended = model.handleEndOfInput()
        #expect(!ended.contains { if case .finish = $0 { return true } else { return false } }, "left for now: \(ended)")
        let said = model.handle(.committed(.quit(0), quit))
        #expect(said.contains { if case .output(let text, _) = $0 { return text.contains("quit.") } else { return false } })
        let end = model.handle(.ended(quit))
        #expect(end.contains { if case .finish(.ended) = $0 { return true } else { return false } })
    }
}
