import Games
import Match

/// What a series reads of either side's remote participant between matches.
public protocol RematchTalk: Sendable {
    /// The other side offered a rematch that this side has not answered.
    var peerOfferedRematch: Bool { get }
    /// Why there can be no rematch any more, or nil while one is possible.
    var rematchRuledOut: RematchEnd? { get }
    /// The same, as it comes: an offer, then why there is none (the stream ends
    /// then); nothing while the connection is not kept past the end.
    var rematchNews: AsyncStream<RematchNews> { get }
    /// Keeps the connection past a normal end, so that a rematch can be agreed over it.
    func keepConnectionForRematch()
}

extension RemoteGuest: RematchTalk {}
extension RemoteHost: RematchTalk {}

/// One side's match in a series: a hosted match on the host, a joined one on a guest.
public protocol SeriesMatch: Sendable {
    /// The match as it starts.
    var initialState: MatchState { get }
    /// This side's seat.
    var localSeat: SeatIndex { get }
    /// The other side's name, as this side's sentences say it.
    var peerName: String { get }
    /// The other side's participant, which carries the talk about a rematch.
    var talk: any RematchTalk { get }
    /// The guests that must still be given the end (the host's; none on a guest).
    var guestsOwedTheEnd: [RemoteGuest] { get }
    /// The spectators that must be told the end before this side may exit (the host's).
    var spectatorsOwedTheEnd: SpectatorGallery? { get }
    /// Waits, at most `limit`, until the link this side closed at the end is
    /// closed at the other end too (a guest's; the host has nothing to wait for).
    func linkClosed(within limit: Duration) async
}

extension HostedMatch: SeriesMatch {
    /// The host's seat.
    public var localSeat: SeatIndex { hostSeat }
    /// The guest's name.
    public var peerName: String { guestName }
    /// The guest's link, which carries the rematch talk.
    public var talk: any RematchTalk { remote }
    /// Every guest link of the match: each must be given the end.
    public var guestsOwedTheEnd: [RemoteGuest] { guests }
    /// The match's spectators, told the end before the host exits (nil: watching was off).
    public var spectatorsOwedTheEnd: SpectatorGallery? { spectators }
}

extension SeriesMatch {
    /// Nothing to wait for (the host's side).
    public func linkClosed(within limit: Duration) async {}
}

extension JoinedMatch: SeriesMatch {
    /// The guest's own seat.
    public var localSeat: SeatIndex { seat }
    /// The host's name.
    public var peerName: String { hostName }
    /// The host's link, which carries the rematch talk.
    public var talk: any RematchTalk { remote }
    /// None: a guest owes nobody the end.
    public var guestsOwedTheEnd: [RemoteGuest] { [] }
    /// None: spectators watch the host.
    public var spectatorsOwedTheEnd: SpectatorGallery? { nil }
    /// The host closes once our GOODBYE has reached it; its own GOODBYE may
    /// still be on its way. Exiting before it arrives would answer it with a
    /// reset, which can overtake our GOODBYE: the host would then wait its
    /// grace period for an end we had acknowledged (the soak found it).
    public func linkClosed(within limit: Duration) async { await remote.waitForTheLinkToClose(within: limit) }
}

/// What the series tells its caller while it waits for a guest to see the end.
public enum SeriesNotice: Hashable, Sendable {
    /// `guest` was away at the end (or went before acknowledging it): the host
    /// keeps its seat for `grace` so that its `parlor resume` gets the end.
    case waitingForTheEnd(guest: String, grace: Duration)
    /// `guest` came back and has the end.
    case guestSawTheEnd(guest: String)
    /// `guest` did not confirm the end within `grace`; resuming `match` here serves it again.
    case endNotConfirmed(guest: String, grace: Duration, match: MatchID)
}

/// The caller's side of a series: how one match is played and shown, and
/// what this side wants between matches. ParlorCLI composes it from the
/// frontend, the store and the flags; the series decides the order.
public protocol SeriesPlayer {
    /// One side's match: `HostedMatch` on the host, `JoinedMatch` on a guest.
    associatedtype Match: SeriesMatch
    /// What playing one match returns to the caller (e.g. how the command exits).
    associatedtype Result
    /// Whether a rematch can follow the next match (decides whether the connection is kept past its end).
    var rematchPossible: Bool { get }
    /// Plays `match` to its end; the ended state when it ended normally, nil otherwise.
    mutating func play(_ match: Match) async throws -> (result: Result, ended: MatchState?)
    /// This side's answer after a normal end, when the other side has not ruled a rematch out.
    /// `weQuit`: this side's seat quit the match.
    mutating func wantsRematch(peer: String, peerOffered: Bool, weQuit: Bool) async -> Bool
    /// There will be no rematch, for the reason `end`.
    func noRematch(_ end: RematchEnd, peer: String)
    /// A rematch begins: `next` is the new match (a new id, seats swapped).
    /// Awaited before the match is played, so a side can save it before it says so.
    mutating func rematchStarted(_ next: Match) async
    /// Something worth saying while the series waits for a guest.
    func tell(_ notice: SeriesNotice)
}

/// A match, then rematches over the same connection while both sides want
/// one: the one loop `parlor host`, `join` and `resume` play on either side.
///
/// After a normal end the host first makes sure every guest has the end
/// (within `Timing.delivery`; a guest that was away gets `Timing.grace` to
/// come back for it, and then the series is over); then, when a rematch is
/// possible and not ruled out, this side's answer goes to the other side
/// through `rematch`, which returns the next match or why there is none.
public enum MatchSeries {
    /// How long the series waits for the end to reach the guests.
    public struct Timing: Sendable {
        /// How long a guest has to acknowledge the end before it counts as away.
        public var delivery: Duration = .seconds(30)
        /// How long the host keeps serving an away guest's seat after the end.
        public var grace: Duration
        /// How long the spectators' last frames may take to leave (they acknowledge nothing).
        public var spectators: Duration = .seconds(2)
        /// How long a guest waits at the end for the host to close the link too.
        public var closing: Duration = .seconds(2)
        /// The timing with the host's grace period `grace` and the other waits at their defaults.
        public init(grace: Duration) { self.grace = grace }
    }

    /// Plays `first` and any rematches; returns the last match's result.
    /// `rematch` agrees (or not) on the next match: `MatchHost.rematch(after:wants:)`
    /// on the host, `Guest.rematch(after:wants:)` on a guest.
    public static func play<Player: SeriesPlayer>(
        from first: Player.Match, with player: inout Player, timing: Timing,
        rematch: (Player.Match, Bool) async -> RematchOutcome<Player.Match>
    ) async throws -> Player.Result {
        // Spectators stay through the rematches and get GOODBYE when the series
        // is over; the process may exit right after this returns, so it waits for that.
        let spectators = first.spectatorsOwedTheEnd
        var last = first
        do {
            let result = try await series(from: first, last: &last, with: &player, timing: timing, rematch: rematch)
            await spectators?.seriesOver(within: timing.spectators)
            await last.linkClosed(within: timing.closing)
            return result
        } catch {
            await spectators?.seriesOver(within: timing.spectators)
            await last.linkClosed(within: timing.closing)
            throw error
        }
    }

    /// The series; `match` is the match being played, then the last one.
    private static func series<Player: SeriesPlayer>(
        from first: Player.Match, last match: inout Player.Match, with player: inout Player, timing: Timing,
        rematch: (Player.Match, Bool) async -> RematchOutcome<Player.Match>
    ) async throws -> Player.Result {
        match = first
        while true {
            let possible = player.rematchPossible
            if possible {
                match.talk.keepConnectionForRematch()
                match.spectatorsOwedTheEnd?.keepForRematch()
            }
            let (result, ended) = try await player.play(match)
            guard let ended else { return result }
            // Each guest acknowledges the end at once (GOODBYE, or by staying for the rematch talk);
            // one that was away, or went away before it, learns the end by coming back.
            var missed: [RemoteGuest] = []
            for guest in match.guestsOwedTheEnd where await guest.finalDelivery(within: timing.delivery) != .delivered {
                missed.append(guest)
            }
            if !missed.isEmpty {
                for guest in missed { await waitForTheEnd(guest, of: match, timing: timing, player: player) }
                return result
            }
            guard possible else { return result }
            if let end = match.talk.rematchRuledOut {
                player.noRematch(end, peer: match.peerName)
                return result
            }
            let wants = await player.wantsRematch(peer: match.peerName, peerOffered: match.talk.peerOfferedRematch,
                                                  weQuit: ended.seats[match.localSeat].outcome == .quit)
            switch await rematch(match, wants) {
            case .over(let end):
                player.noRematch(end, peer: match.peerName)
                return result
            case .newMatch(let next):
                match = next
                await player.rematchStarted(next)
            }
        }
    }

    /// Keeps serving an away guest's seat for the grace period, so that its
    /// `parlor resume` (or reconnect) gets the end.
    private static func waitForTheEnd<Player: SeriesPlayer>(_ guest: RemoteGuest, of match: Player.Match, timing: Timing,
                                                           player: Player) async {
        player.tell(.waitingForTheEnd(guest: guest.name, grace: timing.grace))
        // Whether their copy is behind is not known here: they may have saved the end and died before answering.
        if await guest.waitForFinalDelivery(within: timing.grace) {
            player.tell(.guestSawTheEnd(guest: guest.name))
        } else {
            player.tell(.endNotConfirmed(guest: guest.name, grace: timing.grace, match: match.initialState.matchID))
        }
    }
}
