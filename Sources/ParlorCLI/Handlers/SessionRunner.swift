import Bots
import Foundation
import Games
import Match
import Session
import Store
import TerminalUI

/// Playing one LAN match to its end on either side, shared by `parlor host`,
/// `parlor join` and `parlor resume`: the participants, the recorder (with
/// write-ahead saves on the host), going away without quitting, and the
/// host waiting for a guest that was away when the match ended.
enum SessionRunner {
    /// This side's participant: a bot with `--bot`, else the person at the terminal.
    static func localParticipant(_ playerID: PlayerID, bot: BotLevelChoice?, presentation: MatchPresentation)
        -> (any Participant, [LocalParticipant]) {
        if let bot {
            return (BotParticipant(playerID: playerID, minimumThinkTime: presentation.botPause,
                                   strategy: botStrategy(bot, seed: freshSeed())), [])
        }
        let local = LocalParticipant(playerID: playerID)
        return (local, [local])
    }

    /// Plays a hosted match (new or resumed) to the end. `record` is what the
    /// store keeps for this side; every committed state is saved before the
    /// guest can see it. Returns how the frontend ended.
    static func playAsHost(_ hosted: HostedMatch, record: StoredMatch, bot: BotLevelChoice?,
                           presentation: MatchPresentation, grace: Duration) async throws -> FrontendExit {
        let (me, locals) = localParticipant(hosted.hostPlayerID, bot: bot, presentation: presentation)
        let controller = hosted.makeController(with: me)
        let recorder = MatchRecorder(store: LocalData.matchStore, record: record)
        hosted.remote.persistBeforeSending { recorder.saveNow($0) }
        let exit = try await presentation.play(controller, locals: locals, recorder: recorder, link: hosted.remote)
        if case .ended = exit, !(await hosted.remote.waitForFinalDelivery(within: .zero)) {
            // The guest was away when the match ended: it learns the end by coming back.
            Console.writeError("parlor: waiting up to \(grace.components.seconds) s for \(hosted.guestName) to come back and see the end\n")
            _ = await hosted.remote.waitForFinalDelivery(within: grace)
        }
        return exit
    }

    /// Plays a joined match (new or resumed) to the end; the recorder keeps `record` up to date.
    static func playAsGuest(_ joined: JoinedMatch, record: StoredMatch, bot: BotLevelChoice?,
                            presentation: MatchPresentation) async throws -> FrontendExit {
        let (me, locals) = localParticipant(joined.playerID, bot: bot, presentation: presentation)
        let controller = joined.makeController(with: me)
        let recorder = MatchRecorder(store: LocalData.matchStore, record: record)
        return try await presentation.play(controller, locals: locals, recorder: recorder, link: joined.remote)
    }

    /// Dials `addresses` again, for a guest getting back to its host.
    static func dialer(addresses: [SocketAddress]) -> Dialer {
        { timeout in
            try await TCPConnection.connect(addresses: addresses, timeout: timeout).byteStream()
        }
    }

    /// Dials `host:port` again (resolving the name each time).
    static func dialer(host: String, port: UInt16) -> Dialer {
        { timeout in
            try await TCPConnection.connect(host: host, port: port, timeout: timeout).byteStream()
        }
    }

    /// Guest options for `--grace`, reconnecting with `dial` when the connection drops.
    static func guestOptions(grace: Duration?, dial: @escaping Dialer) -> GuestOptions {
        var options = GuestOptions(redial: dial)
        if let grace { options.grace = grace }
        return options
    }
}
