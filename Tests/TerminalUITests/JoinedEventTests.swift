import Testing
import TerminalUI

/// The one shape of a `joined` event, on either side, that scripts reading `--json` rely on.
@Suite struct JoinedEventTests {
    @Test func aGuestSittingDownAtTheHostAndAtAHallTable() {
        #expect(JSONEvents.guestJoined(name: "Bo", seat: 1, match: "ab12").encoded
                == #"{"event":"joined","match":"ab12","name":"Bo","seat":1}"#)
        #expect(JSONEvents.guestJoined(name: "Bo", seat: 1, match: "ab12", resumed: true).encoded
                == #"{"event":"joined","match":"ab12","name":"Bo","seat":1,"resumed":true}"#)
        #expect(JSONEvents.guestJoined(name: "Cy", seat: 1, match: "cd34", table: 7).encoded
                == #"{"event":"joined","match":"cd34","table":7,"name":"Cy","seat":1,"resumed":false}"#)
    }

    @Test func thisSideJoiningAHostOrGettingBack() {
        #expect(JSONEvents.joinedHost("Ana", seat: 1, match: "ab12", address: "10.0.0.2:7777").encoded
                == #"{"event":"joined","host":"Ana","seat":1,"match":"ab12","address":"10.0.0.2:7777"}"#)
        #expect(JSONEvents.joinedHost("Ana", seat: 1, match: "ab12", address: "10.0.0.2:7777", resumed: true).encoded
                == #"{"event":"joined","host":"Ana","seat":1,"match":"ab12","address":"10.0.0.2:7777","resumed":true}"#)
    }
}
