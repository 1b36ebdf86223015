import Foundation
import Bots
import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// The way to a host for a guest that reconnects: each dial makes a fresh
/// in-memory pair and hands its far end to the host, unless the "link" is down.
final class Switchboard: Sendable {
    private struct Lines {
        var host: MatchHost?
        var up = true
        var dials = 0
        var ends: [(guest: InMemoryByteStream, host: InMemoryByteStream)] = []
    }
    private let lines = Mutex(Lines())

    func connect(to host: MatchHost) { lines.withLock { $0.host = host } }
    func setLink(up: Bool) { lines.withLock { $0.up = up } }
    var dials: Int { lines.withLock { $0.dials } }
    /// The ends of the newest connection.
    var newest: (guest: InMemoryByteStream, host: InMemoryByteStream)? { lines.withLock { $0.ends.last } }

    /// A dialer over this switchboard.
    var dialer: Dialer {
        { [self] _ in
            let (host, up) = lines.withLock { lines -> (MatchHost?, Bool) in
                lines.dials += 1
                return (lines.host, lines.up)
            }
            guard up, let host else {
                throw NetError.connectFailed(host: "memory", port: 1, attempts: [])
            }
            let (guestEnd, hostEnd) = InMemoryByteStream.pair()
            lines.withLock { $0.ends.append((guestEnd, hostEnd)) }
            await host.accept(hostEnd)
            return guestEnd
        }
    }
}

/// Fast retries for tests.
let quickRetry = ReconnectPolicy(firstDelay: .milliseconds(20), maximumDelay: .milliseconds(200), maximumAttempts: 200,
                                 connectTimeout: .seconds(1))

/// A host and a guest that reconnects through a `Switchboard`.
struct ReconnectingPair {
    let host: MatchHost
    let hosted: HostedMatch
    let joined: JoinedMatch
    let board: Switchboard
    let first: (guest: InMemoryByteStream, host: InMemoryByteStream)

    static func make(seat: HostConfiguration.SeatPreference = .first, turnTimeout: UInt32 = 0,
                     timeouts: SessionTimeouts = quickTimeouts, guestGrace: Duration = .seconds(5)) async throws -> ReconnectingPair {
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: "connect4", hostName: "Hostess", hostPlayerID: .random(), seatPreference: seat,
            turnTimeoutSeconds: turnTimeout, timeouts: timeouts, appVersion: "test"))
        let board = Switchboard()
        board.connect(to: host)
        let stream = try await board.dialer(.seconds(1))
        let hello = Hello(appVersion: "test", playerID: .random(), playerName: "Guest",
                          games: [GameVersion.local("connect4")].compactMap { $0 })
        let options = GuestOptions(grace: guestGrace, redial: board.dialer, reconnect: quickRetry)
        async let joining = Guest.join(over: stream, hello: hello, options: options)
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        let first = try #require(board.newest)
        return ReconnectingPair(host: host, hosted: hosted, joined: joined, board: board, first: first)
    }
}

/// Reconnecting within the grace period: the match goes on as if nothing
/// happened, and the host's state wins (docs/PROTOCOL.md, "Reconnecting").
@Suite(.serialized) struct ReconnectProtocolTests {
    struct Players {
        let pair: ReconnectingPair
        let hostController: MatchController
        let guestController: MatchController
        let hostLocal: LocalParticipant
        let guestLocal: LocalParticipant
        let hostEvents = EventRecorder()
        let guestEvents = EventRecorder()

        static func start(_ pair: ReconnectingPair) async throws -> Players {
            let (hostController, hostLocal) = pair.hosted.makeController { LocalParticipant(playerID: $0) }
            let (guestController, guestLocal) = pair.joined.makeController { LocalParticipant(playerID: $0) }
            let players = Players(pair: pair, hostController: hostController, guestController: guestController,
                                  hostLocal: hostLocal, guestLocal: guestLocal)
            await players.hostEvents.record(hostController)
            await players.guestEvents.record(guestController)
            try await hostController.start()
            try await guestController.start()
            return players
        }

        /// The guest moves; once the host has committed the move, the guest's
        /// link drops and it comes back. The move is then there once, on both
        /// sides, and the match goes on: the host's next move reaches the guest
        /// on the new connection (after `hostSaves`, the host's time to save it).
        func guestMovesAndComesBackOnceTheHostCommits(hostSaves: Duration) async throws {
            async let first = guestLocal.play(Move(3))
            #expect(await hostEvents.waitUntil(timeout: .seconds(2)) { events in
                events.contains { if case .committed = $0 { true } else { false } }
            })
            pair.first.guest.fail("cable pulled")
            _ = await first
            #expect(await guestIsBack())
            // The host's state (with the move) is adopted: the move is there once, on both sides.
            let guest = await guestController.state
            let host = await hostController.state
            #expect(guest.moves.count == 1 && guest.moves == host.moves && guest.stateHash == host.stateHash)
            guard case .committed = await hostLocal.play(Move(2)) else { Issue.record("host move failed"); return }
            try await Task.sleep(for: .milliseconds(200) + hostSaves)
            #expect(await guestController.state.moves.count == 2)
            #expect(await guestController.stopFailure == nil)
            #expect(await hostController.stopFailure == nil)
        }

        /// Waits until the guest has its host again.
        func guestIsBack(within timeout: Duration = .seconds(5)) async -> Bool {
            await guestEvents.waitUntil(timeout: timeout) { events in
                events.contains { if case .notice("Hostess is back") = $0 { true } else { false } }
            }
        }
    }

    @Test func aDroppedConnectionHealsAndBotsFinishWithOneHistory() async throws {
        let pair = try await ReconnectingPair.make()
        let (hostController, _) = pair.hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(3)) }
        let (guestController, _) = pair.joined.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(4)) }
        let hostEvents = EventRecorder(), guestEvents = EventRecorder()
        await hostEvents.record(hostController)
        await guestEvents.record(guestController)
        pair.board.setLink(up: false)
        try await hostController.start()
        try await guestController.start()
        // Cut the line at once and keep it down a moment: the guest retries with backoff.
        pair.first.guest.fail("cable pulled")
        try await Task.sleep(for: .milliseconds(300))
        pair.board.setLink(up: true)
        let host = try #require(await finished(hostController, within: .seconds(20)))
        let guest = try #require(await finished(guestController, within: .seconds(20)))
        #expect(host.isEnded && guest.isEnded)
        #expect(host.moves == guest.moves && host.stateHash == guest.stateHash)
        #expect(await hostController.stopFailure == nil)
        #expect(await guestController.stopFailure == nil)
        #expect(pair.board.dials > 2)  // the first, at least one refused, the one that got through
        #expect(await guestEvents.notices.contains { $0.hasPrefix("the connection to Hostess closed") && $0.contains("waiting for Hostess to come back") })
        #expect(await hostEvents.notices.contains("Guest is back"))
    }

    @Test func aGuestMoveTheHostNeverGotIsDroppedAndAskedForAgain() async throws {
        let players = try await Players.start(try await ReconnectingPair.make(seat: .second))  // the guest moves first
        // The TURN is lost on the way, then the connection drops.
        players.pair.first.guest.setFaults(.init(dropEverything: true))
        async let first = players.guestLocal.play(Move(3))
        try await Task.sleep(for: .milliseconds(100))
        players.pair.first.guest.fail("cable pulled")
        guard case .rolledBack = await first else {
            Issue.record("a move the host never got was kept")
            return
        }
        #expect(await players.guestIsBack())
        #expect(await players.hostController.state.sequence == 0)
        #expect(await players.guestController.state.sequence == 0)
        // It is the guest's turn again: the same move now goes through, once.
        guard case .committed(let state) = await players.guestLocal.play(Move(3)) else {
            Issue.record("the move asked for again was not committed")
            return
        }
        #expect(state.moves.count == 1)
        #expect(await players.hostController.state.moves == state.moves)
    }

    @Test func aGuestMoveWhoseConfirmWasLostIsAppliedExactlyOnce() async throws {
        let players = try await Players.start(try await ReconnectingPair.make(seat: .second))
        // The host gets the TURN and commits it, but its CONFIRM is lost.
        players.pair.first.host.setFaults(.init(dropEverything: true))
        try await players.guestMovesAndComesBackOnceTheHostCommits(hostSaves: .zero)
    }

    /// The fault matrix's "SIGSTOP host 9 s", without the stop: the host has
    /// the guest's TURN and is still saving it when the guest comes back on a
    /// new connection. The WELCOME waits for the save and carries the move;
    /// no CONFIRM follows on the new connection (the guest took that as a
    /// CONFIRM for a change it never sent, and both sides gave up).
    @Test func aGuestBackWhileTheHostSavesItsMoveIsWelcomedWithItAndPlaysOn() async throws {
        let pair = try await ReconnectingPair.make(seat: .second)  // the guest moves first
        pair.hosted.remote.persistBeforeSending(asynchronously: { _, then in
            // A slow disk: the save calls back from its own thread 600 ms later.
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.6)
                then(nil)
            }
        })
        let players = try await Players.start(pair)
        try await players.guestMovesAndComesBackOnceTheHostCommits(hostSaves: .milliseconds(600))
    }

    @Test func aHostMovePushedIntoADeadConnectionArrivesWithTheWelcome() async throws {
        let players = try await Players.start(try await ReconnectingPair.make(seat: .first))
        players.pair.first.host.setFaults(.init(dropEverything: true))
        guard case .committed = await players.hostLocal.play(Move(0)) else { Issue.record("host move failed"); return }
        players.pair.first.guest.fail("cable pulled")
        #expect(await players.guestIsBack())
        #expect(await players.guestController.state.moves == [PlayedMove(seat: players.pair.hosted.hostSeat, move: Move(0))])
    }

    @Test func theEndOfAMatchReachesAGuestThatWasAway() async throws {
        let players = try await Players.start(try await ReconnectingPair.make(seat: .first))
        players.pair.board.setLink(up: false)
        players.pair.first.guest.fail("cable pulled")
        try await Task.sleep(for: .milliseconds(100))
        // The host quits while the guest is away: the guest wins, and must learn it.
        guard case .committed = await players.hostLocal.quit() else { Issue.record("quit failed"); return }
        #expect(await players.pair.hosted.remote.waitForFinalDelivery(within: .zero) == false)
        players.pair.board.setLink(up: true)
        #expect(await players.pair.hosted.remote.waitForFinalDelivery(within: .seconds(5)))
        let guest = try #require(await finished(players.guestController, within: .seconds(5)))
        #expect(guest.seats[players.pair.hosted.guestSeat].outcome == .won)
        #expect(await players.guestController.stopFailure == nil)
    }

    @Test func aGuestThatCannotGetBackWithinGraceIsInterruptedOnBothSides() async throws {
        let pair = try await ReconnectingPair.make(guestGrace: .milliseconds(800))
        let players = try await Players.start(pair)
        pair.board.setLink(up: false)
        pair.first.guest.fail("cable pulled")
        _ = try #require(await finished(players.guestController, within: .seconds(4)))
        guard case .connectionLost(let why)? = await players.guestController.stopFailure else {
            Issue.record("the guest did not stop as interrupted")
            return
        }
        #expect(why.contains("did not come back"))
        #expect(await players.guestEvents.notices.contains { $0.contains("waiting for Hostess to come back (1 s left)") })
        // The host's grace (2 s) runs out too: interrupted, not quit.
        let host = try #require(await finished(players.hostController, within: .seconds(5)))
        #expect(!host.isEnded)
        guard case .connectionLost? = await players.hostController.stopFailure else {
            Issue.record("the host did not stop as interrupted")
            return
        }
    }

    @Test func theHostLeavingForNowSendsTheGuestBackToReconnecting() async throws {
        let players = try await Players.start(try await ReconnectingPair.make())
        await players.pair.hosted.remote.leaveForNow("leaving, may resume")
        #expect(await players.guestEvents.waitUntil(timeout: .seconds(2)) { events in
            events.contains { if case .notice(let text) = $0 { text.hasPrefix("Hostess disconnected (leaving, may resume) — waiting for Hostess to come back") } else { false } }
        })
        #expect(await players.guestController.isStopped == false)
    }

    @Test func aWrongSeatTokenIsRejectedAndNeverTakesTheSeat() async throws {
        let players = try await Players.start(try await ReconnectingPair.make())
        let (client, server) = InMemoryByteStream.pair()
        await players.pair.host.accept(server)
        var hello = Hello(appVersion: "test", playerID: players.pair.joined.playerID, playerName: "Mallory",
                          games: [GameVersion.local("connect4")].compactMap { $0 })
        hello.matchID = players.pair.hosted.initialState.matchID
        hello.seatToken = .random()
        do {
            _ = try await Guest.join(over: client, hello: hello)
            Issue.record("a wrong seat token was admitted")
        } catch {
            #expect(error == .rejected(.badSeatToken, "That seat token does not belong to match \(players.pair.hosted.initialState.matchID.short)."))
        }
        // The real guest still holds the seat.
        guard case .committed = await players.hostLocal.play(Move(1)) else { Issue.record("host move failed"); return }
        try await Task.sleep(for: .milliseconds(200))
        #expect(await players.guestController.state.sequence == 1)
    }
}

/// `parlor resume`: a host offering a saved match, a guest taking its seat back.
@Suite(.serialized) struct ResumeProtocolTests {
    static func saved(moves: [Int], turnTimeout: UInt32 = 0, deadline: Int64? = nil) throws -> (MatchState, PlayerID, PlayerID) {
        let hostID = PlayerID.random(), guestID = PlayerID.random()
        var state = MatchState(matchID: .random(), game: Connect4(), seats: [Seat(playerID: hostID, name: "Hostess"),
                                                                             Seat(playerID: guestID, name: "Guest")],
                               turnTimeout: turnTimeout, now: wallClockMilliseconds())
        for (index, column) in moves.enumerated() {
            state = try state.applying(.move(Move(column), by: index % 2), now: wallClockMilliseconds())
        }
        if let deadline { state.deadline = deadline }
        return (state, hostID, guestID)
    }

    static func host(for state: MatchState, hostID: PlayerID, token: SeatToken) throws -> MatchHost {
        try MatchHost(configuration: HostConfiguration(gameID: "connect4", hostName: "Hostess", hostPlayerID: hostID,
                                                       turnTimeoutSeconds: state.turnTimeout, timeouts: quickTimeouts,
                                                       appVersion: "test"),
                      resuming: SavedHostMatch(state: state, hostSeat: 0, seatToken: token))
    }

    static func resumeHello(_ state: MatchState, guestID: PlayerID, token: SeatToken) -> Hello {
        Hello(appVersion: "test", playerID: guestID, playerName: "Guest", games: [GameVersion.local("connect4")].compactMap { $0 },
              matchID: state.matchID, seatToken: token)
    }

    @Test func aGuestBehindTheHostTakesItsSeatBackAndAdoptsTheHostsState() async throws {
        let (hostState, hostID, guestID) = try Self.saved(moves: [3, 3, 2, 2])
        // The guest's file is one move behind: it crashed before saving the last one.
        let behind = try Self.replay(hostState, upTo: 3)
        let token = SeatToken.random()
        let host = try Self.host(for: hostState, hostID: hostID, token: token)
        let board = Switchboard()
        board.connect(to: host)
        async let resumed = Guest.resume(dial: board.dialer, hello: Self.resumeHello(hostState, guestID: guestID, token: token),
                                         saved: behind, options: GuestOptions(grace: .seconds(5), reconnect: quickRetry))
        let hosted = try await host.waitForGuest()
        let joined = try await resumed
        #expect(joined.initialState.stateHash == hostState.stateHash)
        #expect(hosted.initialState.stateHash == hostState.stateHash && hosted.guestSeat == 1)
        #expect(joined.seatToken == token)
    }

    @Test func aResumingHostRefusesNewGuestsAndWrongTokens() async throws {
        let (state, hostID, guestID) = try Self.saved(moves: [3])
        let token = SeatToken.random()
        let host = try Self.host(for: state, hostID: hostID, token: token)
        let newcomer = Hello(appVersion: "test", playerID: .random(), playerName: "Newcomer",
                             games: [GameVersion.local("connect4")].compactMap { $0 })
        for (hello, expected) in [(newcomer, ReasonCode.matchFull),
                                  (Self.resumeHello(state, guestID: guestID, token: .random()), .badSeatToken)] {
            let (client, server) = InMemoryByteStream.pair()
            await host.accept(server)
            do {
                _ = try await Guest.join(over: client, hello: hello)
                Issue.record("admitted \(hello.playerName)")
            } catch {
                guard case .rejected(let reason, _) = error else { Issue.record("unexpected \(error)"); continue }
                #expect(reason == expected)
            }
        }
        #expect(await host.hasGuest == false)
    }

    @Test func resumeStopsAtOnceOnAFatalRefusalAndKeepsTryingWhileTheHostIsAway() async throws {
        let (state, hostID, guestID) = try Self.saved(moves: [3])
        let token = SeatToken.random()
        let host = try Self.host(for: state, hostID: hostID, token: token)
        let board = Switchboard()
        // The host is not there yet: refused, refused, … then it comes up.
        board.setLink(up: false)
        board.connect(to: host)
        let attempts = Mutex(0)
        async let resumed = Guest.resume(dial: board.dialer, hello: Self.resumeHello(state, guestID: guestID, token: token),
                                         saved: state, options: GuestOptions(grace: .seconds(5), reconnect: quickRetry)) { _, _, _ in
            attempts.withLock { $0 += 1 }
        }
        try await Task.sleep(for: .milliseconds(300))
        board.setLink(up: true)
        _ = try await resumed
        #expect(attempts.withLock { $0 } >= 2)

        // A wrong token is fatal: one attempt, no retry.
        let other = try Self.host(for: state, hostID: hostID, token: .random())
        let board2 = Switchboard()
        board2.connect(to: other)
        do {
            _ = try await Guest.resume(dial: board2.dialer, hello: Self.resumeHello(state, guestID: guestID, token: token),
                                       saved: state, options: GuestOptions(grace: .seconds(5), reconnect: quickRetry))
            Issue.record("a wrong token was accepted")
        } catch {
            guard case .rejoin(.refused(let why)) = error else { Issue.record("unexpected \(error)"); return }
            #expect(why.contains("That seat token does not belong to match") && !why.contains("badSeatToken"), "\(why)")
        }
        #expect(board2.dials == 1)
    }

    @Test func aMatchResumedAfterItsDeadlineEndsWithTimeExpiredForTheSeatToMove() async throws {
        // The guest (seat 1) is to move, and its turn ran out an hour ago.
        let (state, hostID, guestID) = try Self.saved(moves: [3], turnTimeout: 60,
                                                      deadline: wallClockMilliseconds() - 3_600_000)
        let token = SeatToken.random()
        let host = try Self.host(for: state, hostID: hostID, token: token)
        let board = Switchboard()
        board.connect(to: host)
        async let resumed = Guest.resume(dial: board.dialer, hello: Self.resumeHello(state, guestID: guestID, token: token),
                                         saved: state, options: GuestOptions(grace: .seconds(5), reconnect: quickRetry))
        let hosted = try await host.waitForGuest()
        let joined = try await resumed
        let (hostController, _) = hosted.makeController { LocalParticipant(playerID: $0) }
        let (guestController, _) = joined.makeController { LocalParticipant(playerID: $0) }
        try await hostController.start()
        try await guestController.start()
        let hostFinal = try #require(await finished(hostController, within: .seconds(5)))
        let guestFinal = try #require(await finished(guestController, within: .seconds(5)))
        #expect(hostFinal.seats[1].outcome == .timeExpired && hostFinal.seats[0].outcome == .won)
        #expect(guestFinal.stateHash == hostFinal.stateHash)
    }

    @Test func aHostCopyThatDropsSavedMovesIsADesync() async throws {
        let (hostState, hostID, guestID) = try Self.saved(moves: [3])
        let ahead = try hostState.applying(.move(Move(4), by: 1), now: wallClockMilliseconds())
        let token = SeatToken.random()
        let host = try Self.host(for: hostState, hostID: hostID, token: token)
        let board = Switchboard()
        board.connect(to: host)
        do {
            _ = try await Guest.resume(dial: board.dialer, hello: Self.resumeHello(hostState, guestID: guestID, token: token),
                                       saved: ahead, options: GuestOptions(grace: .seconds(5), reconnect: quickRetry))
            Issue.record("a host copy missing a saved move was accepted")
        } catch {
            guard case .desync = error else { Issue.record("unexpected \(error)"); return }
        }
    }

    static func replay(_ state: MatchState, upTo count: Int) throws -> MatchState {
        var replayed = MatchState(matchID: state.matchID, game: Connect4(), seats: state.seats, turnTimeout: state.turnTimeout)
        for played in state.moves.prefix(count) {
            replayed = try replayed.applying(.move(played.move, by: played.seat), now: 0)
        }
        return replayed
    }
}

/// Backoff, the attempt cap and which failures are worth another try.
struct ReconnectPolicyTests {
    @Test func theBackoffDoublesUpToTheCap() {
        let policy = ReconnectPolicy(firstDelay: .milliseconds(250), maximumDelay: .seconds(8))
        #expect((1...8).map { policy.delay(afterAttempt: $0) } == [
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8),
        ])
    }

    @Test(arguments: [
        (JoinError.rejected(.busy, "later") as any Error, true),
        (JoinError.rejected(.handshakeTimeout, "slow") as any Error, true),
        (JoinError.timedOut as any Error, true),
        (JoinError.connectionClosed("reset") as any Error, true),
        (NetError.connectFailed(host: "h", port: 1, attempts: []) as any Error, true),
        (NetError.unknownHost(host: "h", reason: "no") as any Error, true),
        (JoinError.rejected(.badSeatToken, "no") as any Error, false),
        (JoinError.rejected(.matchNotFound, "no") as any Error, false),
        (JoinError.protocolError("bad") as any Error, false),
        (JoinError.badWelcome("bad") as any Error, false),
    ])
    func transientFailuresAreRetriedAndFatalOnesStop(error: any Error, retry: Bool) {
        #expect((ReconnectPolicy.verdict(for: error) == .retry) == retry)
    }

    @Test func whileThePeerIsAwayAReminderComesEveryNoticeInterval() {
        var machine = Liveness(settings: Liveness.Settings(interval: .seconds(3), timeout: .seconds(15), grace: .seconds(120)),
                               now: .now)
        let start = ContinuousClock.now
        #expect(machine.tick(now: start + .seconds(1), lastHeard: start, open: false) == [.peerDisconnected(wait: .seconds(120))])
        #expect(machine.tick(now: start + .seconds(6), lastHeard: start, open: false) == [])
        #expect(machine.tick(now: start + .seconds(11), lastHeard: start, open: false) == [.stillWaiting(left: .seconds(110))])
        #expect(machine.tick(now: start + .seconds(12), lastHeard: start, open: false) == [])
        #expect(machine.tick(now: start + .seconds(21), lastHeard: start, open: false) == [.stillWaiting(left: .seconds(100))])
    }

    @Test func aShortHeartbeatTimeoutStillGivesAValidWelcome() async throws {
        // By default the peer hears three heartbeats before it counts as silent.
        #expect(SessionTimeouts().heartbeatInterval * 3 == SessionTimeouts().heartbeatTimeout)
        // --heartbeat-timeout 3 with the default 5 s interval: the interval shrinks to 1 s.
        let timeouts = SessionTimeouts(heartbeatTimeout: .seconds(3))
        #expect(timeouts.withHeartbeatFittingTheTimeout().heartbeatInterval == .seconds(1))
        let pair = try await JoinedPair.make(timeouts: timeouts)
        #expect(pair.joined.settings.heartbeatIntervalMilliseconds == 1000)
        #expect(pair.joined.settings.heartbeatTimeoutMilliseconds == 3000)
    }

    @Test func theCrashHookReadsPhaseAndOccurrence() {
        #expect(CrashHook.parsePlan("after-send")! == (.afterSend, 1))
        #expect(CrashHook.parsePlan("before-confirm:3")! == (.beforeConfirm, 3))
        #expect(CrashHook.parsePlan("after-send:0") == nil)
        #expect(CrashHook.parsePlan("sometime") == nil)
    }
}

/// After the match: the REMATCH conversation and the new match it starts.
@Suite(.serialized) struct RematchProtocolTests {
    @Test(arguments: [
        // (this side's decision first?, local wants, peer word, expected end state)
        (true, true, RematchWord.accept, RematchNegotiation.State.agreed),
        (true, true, RematchWord.offer, RematchNegotiation.State.agreed),  // offers crossed
        (true, true, RematchWord.decline, RematchNegotiation.State.over(.peerDeclined)),
        (false, true, RematchWord.offer, RematchNegotiation.State.agreed),
        (false, false, RematchWord.offer, RematchNegotiation.State.over(.weDeclined)),
        (false, true, RematchWord.accept, RematchNegotiation.State.over(.protocolError("REMATCH accept does not fit here"))),
    ])
    func theConversationEndsAsTheTableSays(localFirst: Bool, wants: Bool, word: RematchWord, expected: RematchNegotiation.State) {
        var machine = RematchNegotiation()
        if localFirst {
            _ = machine.local(wants: wants)
            _ = machine.peer(word)
        } else {
            _ = machine.peer(word)
            _ = machine.local(wants: wants)
        }
        #expect(machine.state == expected)
    }

    @Test func sayingNoClosesWithGoodbyeAndAnOfferIsDeclinedFirst() {
        var quiet = RematchNegotiation()
        #expect(quiet.local(wants: false) == [.closeWithGoodbye, .over(.weDeclined)])
        var asked = RematchNegotiation()
        _ = asked.peer(.offer)
        #expect(asked.peerHasOffered)
        #expect(asked.local(wants: false) == [.send(.decline), .closeWithGoodbye, .over(.weDeclined)])
        var waiting = RematchNegotiation()
        _ = waiting.local(wants: true)
        #expect(waiting.timedOut() == [.closeWithGoodbye, .over(.noAnswer)])
        var left = RematchNegotiation()
        _ = left.local(wants: true)
        #expect(left.peerLeft() == [.over(.peerLeft)])
        // A GOODBYE(matchOver) is answered in kind: that tells a host the end got here.
        var told = RematchNegotiation()
        #expect(told.peerLeft(answering: true) == [.closeWithGoodbye, .over(.peerDeclined)])
        var agreed = RematchNegotiation()
        _ = agreed.local(wants: true)
        _ = agreed.peer(.accept)
        #expect(agreed.peerLeft(answering: true).isEmpty)
    }

    /// Plays one match between first-legal bots over memory and returns both controllers' finals.
    static func play(_ hosted: HostedMatch, _ joined: JoinedMatch) async throws -> (MatchState, MatchState) {
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(1)) }
        let (guestController, _) = joined.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(2)) }
        hosted.remote.keepConnectionForRematch()
        joined.remote.keepConnectionForRematch()
        try await hostController.start()
        try await guestController.start()
        let host = try #require(await finished(hostController, within: .seconds(10)))
        let guest = try #require(await finished(guestController, within: .seconds(10)))
        return (host, guest)
    }

    @Test func bothWantingARematchStartsANewMatchWithSeatsSwappedOverTheSameConnection() async throws {
        let pair = try await JoinedPair.make(seat: .first)
        let (hostFinal, guestFinal) = try await Self.play(pair.hosted, pair.joined)
        #expect(hostFinal.isEnded && hostFinal.stateHash == guestFinal.stateHash)
        #expect(pair.hosted.remote.rematchRuledOut == nil && pair.joined.remote.rematchRuledOut == nil)
        async let hostSide = pair.host.rematch(after: pair.hosted, wants: true, answerTimeout: .seconds(5))
        async let guestSide = Guest.rematch(after: pair.joined, wants: true, answerTimeout: .seconds(5))
        guard case .newMatch(let hosted) = await hostSide, case .newMatch(let joined) = await guestSide else {
            Issue.record("no rematch")
            return
        }
        #expect(hosted.initialState.matchID == joined.initialState.matchID)
        #expect(hosted.initialState.matchID != pair.hosted.initialState.matchID)
        #expect(hosted.hostSeat == pair.hosted.guestSeat && joined.seat == pair.joined.seat ^ 1)
        #expect(hosted.seatToken == joined.seatToken && hosted.seatToken != pair.hosted.seatToken)
        let (second, secondGuest) = try await Self.play(hosted, joined)
        #expect(second.isEnded && second.stateHash == secondGuest.stateHash)
        // The first move of the rematch was the guest's: the seats really swapped.
        #expect(second.moves.first?.seat == joined.seat)
    }

    /// Everything a news stream says until it ends.
    static func all(_ news: AsyncStream<RematchNews>) async -> [RematchNews] {
        var heard: [RematchNews] = []
        for await item in news { heard.append(item) }
        return heard
    }

    @Test(.timeLimit(.minutes(1))) func aGuestThatSaysNoEndsItForBothAndTheHostHearsWhy() async throws {
        let pair = try await JoinedPair.make(seat: .first)
        _ = try await Self.play(pair.hosted, pair.joined)
        // What each final board would be told, followed from the end on.
        let guestHears = Task { await Self.all(pair.joined.remote.rematchNews) }
        let hostHears = Task { await Self.all(pair.hosted.remote.rematchNews) }
        async let hostSide = pair.host.rematch(after: pair.hosted, wants: true, answerTimeout: .seconds(5))
        try await Task.sleep(for: .milliseconds(50))
        #expect(pair.joined.remote.peerOfferedRematch)
        guard case .over(.weDeclined) = await Guest.rematch(after: pair.joined, wants: false) else {
            Issue.record("the guest's no was not taken")
            return
        }
        guard case .over(.peerDeclined) = await hostSide else {
            Issue.record("the host did not hear the decline")
            return
        }
        // The news streams end with the outcome: the guest heard the offer, the host the no.
        #expect(await guestHears.value == [.offered, .ruledOut(.weDeclined)])
        #expect(await hostHears.value == [.ruledOut(.peerDeclined)])
        // A follower that comes late is told what was said, and its stream ends at once.
        #expect(await Self.all(pair.joined.remote.rematchNews) == [.offered, .ruledOut(.weDeclined)])
    }

    @Test func aPeerThatNeverKeptTheConnectionCountsAsNo() async throws {
        let pair = try await JoinedPair.make(seat: .first)
        let (hostController, _) = pair.hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.firstLegal) }
        let (guestController, _) = pair.joined.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.firstLegal) }
        pair.hosted.remote.keepConnectionForRematch()  // only the host wants to talk
        try await hostController.start()
        try await guestController.start()
        _ = await finished(hostController, within: .seconds(10))
        _ = await finished(guestController, within: .seconds(10))
        #expect(pair.joined.remote.rematchRuledOut == .notConnected)
        // The host learns the guest left without asking its player anything.
        let deadline = ContinuousClock.now + .seconds(5)
        while pair.hosted.remote.rematchRuledOut == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        // Its GOODBYE(matchOver) is its "no".
        #expect(pair.hosted.remote.rematchRuledOut == .peerDeclined)
        guard case .over(.peerDeclined) = await pair.host.rematch(after: pair.hosted, wants: true, answerTimeout: .seconds(5)) else {
            Issue.record("expected the guest's GOODBYE to end it")
            return
        }
        guard case .over(.notConnected) = await Guest.rematch(after: pair.joined, wants: true) else {
            Issue.record("a guest that did not keep its connection cannot rematch")
            return
        }
    }
}
