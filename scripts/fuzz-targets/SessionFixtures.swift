// Real protocol messages for seeds, made with the Session module's encoders.
import Games
import Match
import Session

/// The HELLO the guest side of the `handshake` target sends, so WELCOME seeds
/// can admit "its" player.
let fixtureGuestHello = Hello(appVersion: "0.1.0", playerID: FixtureIDs.guest, playerName: "Grace Hopper ♛")

/// HELLOs a real guest sends: by name for one game, by address for the whole
/// catalog, a resume, an unknown game, an odd but valid name, a passcode proof.
func sampleHellos() -> [(String, Hello)] {
    [
        ("catalog", fixtureGuestHello),
        ("one-game", Hello(appVersion: "0.1.0", playerID: FixtureIDs.guest, playerName: "Bo",
                           games: [GameVersion.local("connect4")].compactMap { $0 })),
        ("resume", Hello(appVersion: "0.1.0", playerID: FixtureIDs.guest, playerName: "Bo",
                         matchID: FixtureIDs.match, seatToken: FixtureIDs.seatToken)),
        ("unknown-game", Hello(protocolVersions: [1, 2, 7], appVersion: "9.9.9-beta+x", playerID: FixtureIDs.guest,
                               playerName: "Ünïcødé 名前", games: [GameVersion(id: "chess-960", rulesVersion: 3)])),
        ("long-name", Hello(appVersion: "0.1.0", playerID: FixtureIDs.host,
                            playerName: String(repeating: "é", count: 32), passcodeProof: Array(0..<32))),
    ]
}

/// A WELCOME for `hello`'s player in `state` (the seat that holds that player).
func sampleWelcome(_ state: MatchState) -> Welcome {
    let seat = state.seat(of: FixtureIDs.guest) ?? 1
    return Welcome(protocolVersion: 1, seat: seat, seatToken: FixtureIDs.seatToken,
                   settings: SessionSettings(turnTimeoutSeconds: state.turnTimeout, heartbeatIntervalMilliseconds: 1000,
                                             heartbeatTimeoutMilliseconds: 5000, confirmationTimeoutMilliseconds: 3000),
                   hostAppVersion: "0.1.0", matchBlob: MatchBlob.encode(state))
}

/// One of every message type, with realistic contents.
func sampleMessages() -> [(String, Message)] {
    let matches = sampleMatches()
    let fresh = matches[0].state
    let later = matches.first { $0.state.sequence > 0 && !$0.state.isEnded }?.state ?? fresh
    let ended = matches.first { $0.state.isEnded }?.state ?? fresh
    var messages: [(String, Message)] = sampleHellos().map { ("hello-\($0.0)", .hello($0.1)) }
    messages += [
        ("welcome", .welcome(sampleWelcome(fresh))),
        ("reject", .reject(.matchFull, sentence: "The match on this host already has its players.")),
        ("turn", .turn(sequence: later.sequence, blob: MatchBlob.encode(later))),
        ("confirm", .confirm(sequence: later.sequence, stateHash: later.stateHash, deadline: 1_700_000_030_000)),
        ("turn-rejected", .turnRejected(sequence: 4, reason: .notYourTurn, sentence: "It is not your turn.")),
        ("state-request", .stateRequest(knownSequence: 3)),
        ("state", .state(blob: MatchBlob.encode(later))),
        ("quit", .quit(sequence: ended.sequence, blob: MatchBlob.encode(ended))),
        ("heartbeat", .heartbeat(senderTime: 1_700_000_000_123)),
        ("goodbye", .goodbye(.goodbyeMatchOver, sentence: "Good game.", finalBlob: MatchBlob.encode(ended))),
        ("goodbye-empty", .goodbye(ReasonCode(rawValue: 999), sentence: "", finalBlob: [])),
        ("rematch", .rematch(.offer)),
        ("challenge", .challenge(PasscodeChallenge(matchID: FixtureIDs.match, hostNonce: Array(0xa0...0xaf)))),
        ("talk-say", .talk(.say(Array("gg, well played ✨".utf8)))),
        ("talk-relayed", .talk(.relayed(TalkLine(role: .player, seat: 2, name: "Grace Hopper ♛", text: "après toi", afterSequence: 12)))),
        ("talk-spectator", .talk(.relayed(TalkLine(role: .spectator, seat: nil, name: "Bo", text: "nice", afterSequence: 0)))),
        ("talk-refused", .talk(.refused(.talkTooFast, sentence: "Too many lines at once (5, then one every 2 s); wait a moment."))),
        ("watch", .watch(sampleWatch())),
        ("watching", .watching(sampleWatching(later))),
        ("watching-before", .watching(sampleWatching(nil))),
        ("turn-rejected-spectator", .turnRejected(sequence: 1, reason: .spectatorCannotMove, sentence: "You are watching.")),
        ("goodbye-too-slow", .goodbye(.goodbyeTooSlow, sentence: "You fell too far behind.", finalBlob: [])),
        ("table", .table(sampleSeating(yourSeat: 1))),
        ("table-spectator", .table(sampleSeating(yourSeat: TableSeating.noSeat))),
        ("seat-away", .seat(SeatPresence(seat: 2, away: true, graceLeftMilliseconds: 60_000))),
        ("seat-stand-in", .seat(SeatPresence(seat: 1, away: true, graceLeftMilliseconds: 0, botStandsIn: true))),
    ]
    return messages
}

/// A table of four filling (TABLE, section 16): the host, a guest, a bot and a free seat,
/// as the guest in `yourSeat` sees it (`TableSeating.noSeat`: as a spectator does).
func sampleSeating(yourSeat: SeatIndex) -> TableSeating {
    TableSeating(yourSeat: yourSeat, heartbeatIntervalMilliseconds: 3000, heartbeatTimeoutMilliseconds: 10_000,
                 seats: [TableSeating.Place(kind: .host, name: "Ana"), TableSeating.Place(kind: .guest, name: "Bo ♛"),
                         TableSeating.Place(kind: .bot, name: "Easy bot"), TableSeating.Place(kind: .free, name: "")])
}

/// A spectator's WATCH (section 17): HELLO's layout, no match, no seat token.
func sampleWatch() -> Hello {
    var hello = Hello(protocolVersions: [2, 1], appVersion: "0.2.0", playerID: FixtureIDs.guest, playerName: "Wes",
                      games: [GameVersion(id: "connect4", rulesVersion: 1)])
    hello.watching = true
    return hello
}

/// The host's WATCHING with `state` (nil: before the match begins).
func sampleWatching(_ state: MatchState?) -> SpectatorWelcome {
    SpectatorWelcome(protocolVersion: 2, heartbeatIntervalMilliseconds: 1000, heartbeatTimeoutMilliseconds: 5000,
                     hostAppVersion: "0.2.0", watching: 1, matchBlob: state.map { MatchBlob.encode($0) } ?? [])
}
