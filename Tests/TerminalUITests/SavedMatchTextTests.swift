import Match
import ParlorTestSupport
import Testing
@testable import TerminalUI

/// A saved match's row in `parlor matches`, as the person who played it reads it.
@Suite struct SavedMatchTextTests {
    @Test func theTurnIsYoursOrTheOpponentsByNameAndNobodysAtTheEnd() throws {
        let fresh = MatchFixtures.newMatch()
        #expect(SavedMatchText.whoseTurn(fresh, localSeat: 0) == "yours")
        #expect(SavedMatchText.whoseTurn(fresh, localSeat: 1) == "Ana")
        #expect(SavedMatchText.outcome(fresh, localSeat: 0) == "-")
        let quit = try fresh.applying(.quit(1), now: 1)
        #expect(SavedMatchText.whoseTurn(quit, localSeat: 0) == "-")
        #expect(SavedMatchText.outcome(quit, localSeat: 0) == "won")
        #expect(SavedMatchText.outcomeText(quit, localSeat: 1) == "quit", "no place at two seats")
    }

    @Test func columnsLineUpTwoSpacesApartAndTheLastIsNotPadded() {
        let lines = SavedMatchText.columns([["ID", "GAME", "LAST"], ["1a2b", "connect4", "2026-12-02 01:00"], ["c", "reversi", "x"]])
        #expect(lines == ["ID    GAME      LAST", "1a2b  connect4  2026-12-02 01:00", "c     reversi   x"])
    }

    @Test func onANarrowTerminalNamesAreCutWhenThatFitsElseRowsWrapBetweenColumns() {
        let rows = [["ID", "GAME", "OPPONENT", "STATE"], ["1a2b", "connect4", "Bo, Cy and a very long name", "interrupted"]]
        #expect(SavedMatchText.columns(rows, width: 40, shrinkable: [2])
            == ["ID    GAME      OPPONENT     STATE", "1a2b  connect4  Bo, Cy and…  interrupted"])
        let wrapped = SavedMatchText.columns(rows, width: 30, shrinkable: [2])
        #expect(wrapped == ["ID    GAME      OPPONENT", "      STATE", "1a2b  connect4", "      Bo, Cy and a very long name",
                            "      interrupted"], "a name too long to fit stays whole on a line of its own: \(wrapped)")
    }

    @Test func theTimestampIsLocalMinutes() {
        let shown = SavedMatchText.timestamp(1_796_174_498_122)
        #expect(shown.count == 16)
        #expect(shown.hasPrefix("2026-"))
    }
}
