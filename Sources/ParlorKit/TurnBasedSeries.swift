import Games
import Match
import Session
import Store

/// What a side needs to start each match of a series the same way: the first
/// (`TurnBasedLAN`) and every rematch after it (`TurnBasedMatch.rematch`).
struct TurnBasedSeries<G: Game>: Sendable {
    /// Who plays this side's seat.
    var player: TurnBasedPlayer<G>
    /// Whether the connection is kept past a normal end, so a rematch can be agreed.
    var rematches = false
    /// The host's side: who plays its table's bot seats.
    var bots: [TurnBasedPlayer<G>] = []
    /// The host's side: its host (for the rematch), its saves before WELCOME, and what lets its port go.
    var host: MatchHost?
    var saves: SavedBeforeWelcome?
    var onLeave: (@Sendable () async -> Void)?
    /// The guest's side: where it saves, and where it reached the host.
    var store: MatchStore?
    var peerAddress = ""

    /// The host's match `hosted`, with `recorder` keeping it (nil: the one
    /// that saved it before its WELCOME, if any).
    func hostMatch(_ hosted: HostedMatch, recorder: MatchRecorder? = nil) async throws -> TurnBasedMatch<G> {
        let recorder = recorder ?? saves?.taken(hosted)
        recorder?.keep(hosted)
        if rematches, hosted.guests.count == 1 { hosted.remote.keepConnectionForRematch() }
        let (seated, local) = player.seat(hosted.hostPlayerID)
        let botSeats = zip(hosted.botSeats, bots).map { seat, bot in bot.seat(hosted.initialState.seats[seat].playerID).seated }
        return try await TurnBasedMatch(side: .host(hosted), controller: hosted.makeController(with: seated, bots: botSeats), local: local,
                                        localSeat: hosted.hostSeat, recorder: recorder, series: self)
    }

    /// The guest's match `joined`, saved first when there is a store (on disk
    /// before anything of it is shown: else the host would keep a match this
    /// side cannot resume); `recorder` keeps a resumed one.
    func guestMatch(_ joined: JoinedMatch, recorder: MatchRecorder? = nil) async throws -> TurnBasedMatch<G> {
        var recorder = recorder
        if recorder == nil, let store {
            let saves = FirstSaves(store: store)
            _ = try await saves.saveJoined(joined, peerAddress: peerAddress)
            recorder = saves.take(joined.initialState.matchID)
        }
        recorder?.keep(joined)
        if rematches { joined.remote.keepConnectionForRematch() }
        let (seated, local) = player.seat(joined.playerID)
        return try await TurnBasedMatch(side: .guest(joined), controller: joined.makeController(with: seated), local: local,
                                        localSeat: joined.seat, recorder: recorder, series: self)
    }
}
