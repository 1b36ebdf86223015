import Games
import Match
import Secure
import Session

/// A match of `G` watched on the LAN: what a spectator sees (docs/PROTOCOL.md
/// section 17). The host's state, as the players have it, with no seat of
/// its own; GameKit has no spectators, so the events are the players' ones
/// with no participant `isLocal`.
///
/// Made by `TurnBasedLAN.watch`, once the match has begun. A host that
/// plays a rematch keeps its spectators: `nextMatch()` follows it.
public final class TurnBasedWatch<G: Game>: Sendable {
    /// The controller that follows the host's states, for what the front door does not cover.
    public let controller: MatchController
    /// What happens in the match, from when watching began, for one reader.
    public let events: AsyncStream<TurnBasedEvent<G>>
    /// The host's proved identity key (an encrypted host); nil in clear.
    public let hostKey: PlayerPublicKey?

    private let watched: WatchedMatch

    init(watched: WatchedMatch, first: MatchState) async throws {
        self.watched = watched
        self.hostKey = watched.hostKey
        controller = watched.makeController(for: first)
        events = TurnBasedView<G>.events(from: await controller.events(), first: first, localSeat: nil, keys: [:])
        try await controller.start()
    }

    /// The game as the host has it.
    public var game: G {
        get async { TurnBasedView<G>.game(of: await controller.state) }
    }

    /// The whole match as the host has it.
    public var state: MatchState {
        get async { await controller.state }
    }

    /// Every seat, in the order of play (none `isLocal`).
    public var participants: [TurnBasedParticipant] {
        get async { TurnBasedView<G>.participants(of: await controller.state, localSeat: nil, keys: [:]) }
    }

    /// Whose turn it is; nil once the match is over.
    public var currentParticipant: TurnBasedParticipant? {
        get async {
            let state = await controller.state
            return state.activeSeat.map { TurnBasedView<G>.participants(of: state, localSeat: nil, keys: [:])[$0] }
        }
    }

    /// Waits until the match has ended (or the host went away) and returns the final game.
    public func finished() async -> G {
        TurnBasedView<G>.game(of: await controller.finished())
    }

    /// After the end: the players' rematch, watched from its start; nil when
    /// they play no more (or the host went away).
    public func nextMatch() async throws -> TurnBasedWatch<G>? {
        let shown = await controller.state.matchID
        guard let next = await watched.nextMatch(after: shown), next.gameID == G.id else { return nil }
        return try await TurnBasedWatch(watched: watched, first: next)
    }

    /// Stops watching: the host is told, and `events` ends.
    public func stop() {
        watched.feed.leave()
    }
}

extension TurnBasedLAN {
    /// Watches the match hosted at `host`:`port` as a spectator named
    /// `name`, once it has begun (a host still waiting for its players keeps
    /// the spectator until then). `passcode`: the host's spectator code, if it asks for one.
    /// - Throws: `JoinError` (the host refused: no room, a wrong code, no
    ///   spectators), `TurnBasedLANError.otherGame`, `.stopped` (the host
    ///   went away before the match began).
    public static func watch<G: Game>(_ game: G.Type, host: String, port: UInt16, as name: String,
                                      security: ChannelSecurity = .clear, passcode: String? = nil,
                                      appVersion: String = defaultAppVersion) async throws -> TurnBasedWatch<G> {
        let connection = try await TCPConnection.connect(host: host, port: port)
        var options = GuestOptions()
        options.passcode = passcode
        let watched = try await Spectator.watch(over: security.connecting(connection.byteStream()),
                                                hello: Hello(appVersion: appVersion, playerID: .random(), playerName: name),
                                                options: options)
        guard let first = await watched.firstState() else {
            throw TurnBasedLANError.stopped(watched.feed.failure ?? "the host went away before the match began")
        }
        guard first.gameID == G.id else {
            watched.feed.leave()
            throw TurnBasedLANError.otherGame(hosted: first.gameID, wanted: G.id)
        }
        return try await TurnBasedWatch(watched: watched, first: first)
    }
}
