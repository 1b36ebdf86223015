import Foundation
import Match
import TerminalUI

/// What a person reads when this side leaves a match that is not over: why,
/// that nothing was lost, the exact command that continues it, and (on the
/// LAN) what the other side was told.
enum Ending {
    /// This side left for now (Ctrl-C, SIGTERM, end of input): the match is
    /// saved as interrupted; `peer` (on the LAN) was told it may come back.
    /// `unsaved` is why the last save failed: then nothing says it is saved,
    /// nor offers a `parlor resume` that could not find it.
    static func leftForNow(_ exit: FrontendExit, peer: Peers?, unsaved: String? = nil, json: Bool) {
        let state = exit.state
        let why: String
        switch exit {
        case .inputEnded: why = "end of input"
        case .interrupted(let signal, _): why = signal == SIGTERM ? "SIGTERM" : "Ctrl-C"
        default: why = "the terminal went away"
        }
        let command = MatchText.resumeCommand(state)
        var text: String
        if let unsaved {
            text = "You left match \(state.matchID.short) (\(why)); nothing was quit, but its last moves could not be saved "
                + "(\(unsaved)), so this side cannot continue it."
            if let peer { text += "\n\(peer.names) \(peer.several ? "were" : "was") told you may come back." }
        } else {
            text = "You left match \(state.matchID.short) for now (\(why)); nothing was quit and it is saved here."
            if let peer { text += "\n\(peer.names) \(peer.several ? "were" : "was") told you may come back, and "
                + (peer.several ? "wait" : "waits") + " for you." }
            text += "\nTo continue it, run: \(command)"
        }
        Announcer(json: json).say(text, event: JSONEvents.leftForNow(state, reason: why, unsaved: unsaved))
    }

    /// Who else sits at the table, by name ("Bo", "Bo, Cy and Di"), and whether they are several.
    static func peers(_ state: MatchState, locals: [LocalParticipant]) -> Peers {
        let mine = Set(locals.compactMap { state.seat(of: $0.playerID) })
        return Peers(names: TurnNotices.opponents(state, localSeats: mine), several: state.seats.count - mine.count > 1)
    }

    /// The other players a message names: "Bo was told", "Bo, Cy and Di were told".
    struct Peers {
        let names: String
        let several: Bool
    }
}
