import Testing
import TerminalUI

/// The one shape of a host's first `--json` line, `listening`, that scripts
/// read the port, the join commands and the passcode from (man page, JSON EVENTS).
@Suite struct ListeningEventTests {
    @Test func aHostOfOneMatch() {
        let event = JSONEvents.listening(
            port: 7777, game: "connect4",
            offer: .match(join: ["parlor join 10.0.0.2:7777 --code 4821", "parlor join localhost:7777 --code 4821"],
                          passcode: "4821", ssh: "ssh -L 7777:localhost:7777 box --code 4821"),
            service: "Ana's Connect Four", discovery: nil)
        #expect(event.encoded == #"{"event":"listening","port":7777,"game":"connect4","#
                + #""join":["parlor join 10.0.0.2:7777 --code 4821","parlor join localhost:7777 --code 4821"],"#
                + #""passcode":"4821","ssh":"ssh -L 7777:localhost:7777 box --code 4821","#
                + #""service":"Ana's Connect Four","discovery":null}"#)
    }

    @Test func aHostOfTablesAndAResumedMatch() {
        let tables = JSONEvents.listening(port: 7000, game: "cube4",
                                          offer: .tables(40, join: ["parlor join localhost:7000"], passcode: nil, resuming: ["ab12"]),
                                          service: nil, discovery: "no DNS-SD daemon")
        #expect(tables.encoded == #"{"event":"listening","port":7000,"game":"cube4","tables":40,"#
                + #""join":["parlor join localhost:7000"],"passcode":null,"service":null,"discovery":"no DNS-SD daemon","#
                + #""resuming":["ab12"]}"#)
        let resume = JSONEvents.listening(port: 7001, game: "tictactoe",
                                          offer: .resume(match: "cd34", commands: ["parlor resume cd34", "parlor resume localhost:7001"]),
                                          service: "Bo", discovery: nil)
        #expect(resume.encoded == #"{"event":"listening","port":7001,"game":"tictactoe","match":"cd34","#
                + #""resume":["parlor resume cd34","parlor resume localhost:7001"],"service":"Bo","discovery":null}"#)
    }
}
