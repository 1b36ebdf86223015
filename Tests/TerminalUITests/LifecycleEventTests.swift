import Match
import ParlorTestSupport
import Testing
import TerminalUI

/// The shapes of the events around a match (not its moves) that scripts
/// reading `--json` rely on: leaving for now, resuming, rematches,
/// spectators let in, wrong passcodes.
@Suite struct LifecycleEventTests {
    @Test func leavingForNowNamesTheCommandThatContinues() throws {
        let state = try MatchFixtures.after([3, 3], in: MatchFixtures.newMatch())
        let id = state.matchID.hex
        #expect(JSONEvents.leftForNow(state, reason: "Ctrl-C").encoded
                == #"{"event":"leftForNow","match":"\#(id)","reason":"Ctrl-C","resume":"parlor resume \#(state.matchID.short)"}"#)
        #expect(JSONEvents.resumed(state).encoded == #"{"event":"resumed","match":"\#(id)","moves":2}"#)
    }

    @Test func aRematchSaysTheSeatToPlayersAndNoneToSpectators() {
        #expect(JSONEvents.rematch(match: "ab12", seat: 1).encoded == #"{"event":"rematch","match":"ab12","seat":1}"#)
        #expect(JSONEvents.rematch(match: "ab12").encoded == #"{"event":"rematch","match":"ab12"}"#)
    }

    @Test func spectatorsAndWrongPasscodes() {
        #expect(JSONEvents.watching(address: "10.0.0.2:7777", count: 3).encoded
                == #"{"event":"watching","address":"10.0.0.2:7777","watching":3}"#)
        #expect(JSONEvents.wrongPasscode(from: "192.0.2.7").encoded == #"{"event":"wrongPasscode","from":"192.0.2.7"}"#)
    }
}
