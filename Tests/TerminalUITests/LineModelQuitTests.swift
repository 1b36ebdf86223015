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
}
