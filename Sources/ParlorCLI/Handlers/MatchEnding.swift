import Foundation
import Match
import TerminalUI

/// What a person reads when a match stops without being over: who left,
/// that nothing was lost, and the exact command that continues it.
enum Ending {
    /// The command that continues `state` on this machine.
    static func resumeLine(_ state: MatchState) -> String { "parlor resume \(state.matchID.short)" }

    /// This side left for now (Ctrl-C, SIGTERM, end of input): the match is
    /// saved as interrupted; on the LAN the other side was told it may come back.
    static func leftForNow(_ exit: FrontendExit, lan: Bool, json: Bool) {
        let state = exit.state
        let why: String
        switch exit {
        case .inputEnded: why = "end of input"
        case .interrupted(let signal, _): why = signal == SIGTERM ? "SIGTERM" : "Ctrl-C"
        default: why = "the terminal went away"
        }
        var text = "You left match \(state.matchID.short) for now (\(why)); nothing was quit and it is saved here."
        if lan { text += " The other side was told you may come back." }
        text += "\nTo continue it, run: \(resumeLine(state))"
        Announcer(json: json).say(text, event: .object([
            ("event", "leftForNow"), ("match", .string(state.matchID.hex)), ("reason", .string(why)),
            ("resume", .string(resumeLine(state))),
        ]))
    }
}
