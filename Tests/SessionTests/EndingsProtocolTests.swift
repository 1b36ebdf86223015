import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Quits, disconnects, silence, turn timeouts: every way a LAN match ends
/// reaches both sides with the right outcomes.
@Suite struct EndingsProtocolTests {
    /// A match with scripted LocalParticipants on both sides.
    struct Scripted {
        let pair: JoinedPair
        let hostController: MatchController
        let guestController: MatchController
        let hostLocal: LocalParticipant
        let guestLocal: LocalParticipant
        let hostEvents = EventRecorder()
        let guestEvents = EventRecorder()

        static func start(seat: HostConfiguration.SeatPreference, turnTimeout: UInt32 = 0,
                          timeouts: SessionTimeouts = quickTimeouts, guestGrace: Duration = .seconds(2)) async throws -> Scripted {
            let pair = try await JoinedPair.make(seat: seat, turnTimeout: turnTimeout, timeouts: timeouts,
                                                 guestOptions: GuestOptions(grace: guestGrace))
            let (hostController, hostLocal) = pair.hosted.makeController { LocalParticipant(playerID: $0) }
            let (guestController, guestLocal) = pair.joined.makeController { LocalParticipant(playerID: $0) }
            let match = Scripted(pair: pair, hostController: hostController, guestController: guestController,
                                 hostLocal: hostLocal, guestLocal: guestLocal)
            await match.hostEvents.record(hostController)
            await match.guestEvents.record(guestController)
            try await hostController.start()
            try await guestController.start()
            return match
        }

        var hostSeat: SeatIndex { pair.hosted.hostSeat }
        var guestSeat: SeatIndex { pair.hosted.guestSeat }

        /// Both final states, which must be identical.
        func finals(within timeout: Duration = .seconds(6)) async throws -> MatchState {
            let host = try #require(await finished(hostController, within: timeout))
            let guest = try #require(await finished(guestController, within: timeout))
            #expect(host.stateHash == guest.stateHash)
            #expect(await hostController.stopFailure == nil)
            #expect(await guestController.stopFailure == nil)
            return host
        }
    }

    @Test func theGuestQuittingInTurnEndsTheMatchForBoth() async throws {
        let match = try await Scripted.start(seat: .second)  // the guest moves first
        guard case .committed = await match.guestLocal.quit() else { Issue.record("quit not committed"); return }
        let final = try await match.finals()
        #expect(final.seats[match.guestSeat].outcome == .quit)
        #expect(final.seats[match.hostSeat].outcome == .won)
    }

    @Test func theGuestQuittingOutOfTurnEndsTheMatchForBoth() async throws {
        let match = try await Scripted.start(seat: .first)  // the host's turn
        guard case .committed = await match.guestLocal.quit() else { Issue.record("quit not committed"); return }
        let final = try await match.finals()
        #expect(final.seats[match.guestSeat].outcome == .quit)
        #expect(final.seats[match.hostSeat].outcome == .won)
    }

    @Test func theHostQuittingInTurnEndsTheMatchForBoth() async throws {
        let match = try await Scripted.start(seat: .first)
        _ = await match.hostLocal.play(Move(3))
        _ = await match.guestEvents.waitUntil { $0.contains { if case .committed = $0 { true } else { false } } }
        _ = await match.guestLocal.play(Move(3))
        guard case .committed = await match.hostLocal.quit() else { Issue.record("quit not committed"); return }
        let final = try await match.finals()
        #expect(final.moves.count == 2)
        #expect(final.seats[match.hostSeat].outcome == .quit)
        #expect(final.seats[match.guestSeat].outcome == .won)
    }

    @Test func theHostQuittingOutOfTurnEndsTheMatchForBoth() async throws {
        let match = try await Scripted.start(seat: .second)  // the guest's turn
        guard case .committed = await match.hostLocal.quit() else { Issue.record("quit not committed"); return }
        let final = try await match.finals()
        #expect(final.seats[match.hostSeat].outcome == .quit)
        #expect(final.seats[match.guestSeat].outcome == .won)
    }

    @Test func theHostEnforcesTheTurnTimeoutAndTheGuestLearnsIt() async throws {
        let match = try await Scripted.start(seat: .second, turnTimeout: 1)  // the guest's turn, 1 s
        let final = try await match.finals(within: .seconds(5))
        #expect(final.seats[match.guestSeat].outcome == .timeExpired)
        #expect(final.seats[match.hostSeat].outcome == .won)
    }

    @Test func aGuestWhoseConnectionDropsIsShownAndTheMatchIsInterruptedAfterTheGracePeriod() async throws {
        let match = try await Scripted.start(seat: .first)
        let started = ContinuousClock.now
        match.pair.guestEnd.fail("cable pulled")
        // This guest was built without a dialer: it cannot get back, so it stops at once.
        _ = try #require(await finished(match.guestController, within: .seconds(2)))
        guard case .connectionLost? = await match.guestController.stopFailure else {
            Issue.record("the guest did not report the lost connection")
            return
        }
        #expect(await match.hostEvents.waitUntil(timeout: .seconds(2)) { events in
            events.contains { if case .notice(let text) = $0 { text == "Guest disconnected — waiting for Guest to come back (2 s left)" } else { false } }
        })
        let final = try #require(await finished(match.hostController, within: .seconds(5)))
        #expect(ContinuousClock.now - started >= .seconds(2))  // not before the grace period
        // Interrupted, not quit: nobody has an outcome, and both sides can resume.
        #expect(!final.isEnded)
        guard case .connectionLost? = await match.hostController.stopFailure else {
            Issue.record("the host did not stop as interrupted")
            return
        }
    }

    static let fastHeartbeat = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(50),
                                               heartbeatTimeout: .milliseconds(300), confirmation: .seconds(2), grace: .seconds(1))

    @Test func aSilentGuestIsNoticedWithinTheHeartbeatTimeoutAndBothSidesAreInterruptedAfterGrace() async throws {
        let match = try await Scripted.start(seat: .first, timeouts: Self.fastHeartbeat, guestGrace: .seconds(10))
        // Half-open: nothing from the guest reaches the host any more.
        match.pair.guestEnd.setFaults(.init(dropEverything: true))
        #expect(await match.hostEvents.waitUntil(timeout: .seconds(1)) { events in
            events.contains { if case .notice(let text) = $0 { text.hasPrefix("Guest is not responding — waiting for Guest to come back") } else { false } }
        })
        // The host still reaches the guest: its GOODBYE(silence) stops the guest too.
        let host = try #require(await finished(match.hostController, within: .seconds(4)))
        let guest = try #require(await finished(match.guestController, within: .seconds(4)))
        #expect(!host.isEnded && host.stateHash == guest.stateHash)
        guard case .connectionLost? = await match.hostController.stopFailure,
              case .connectionLost? = await match.guestController.stopFailure else {
            Issue.record("expected both sides interrupted")
            return
        }
    }

    @Test func aGuestHeardAgainWithinGraceIsBackAndTheMatchGoesOn() async throws {
        let match = try await Scripted.start(seat: .second, timeouts: SessionTimeouts(
            handshake: .seconds(5), heartbeatInterval: .milliseconds(50), heartbeatTimeout: .milliseconds(300),
            confirmation: .seconds(2), grace: .seconds(5)))
        match.pair.guestEnd.setFaults(.init(dropEverything: true))
        #expect(await match.hostEvents.waitUntil(timeout: .seconds(1)) { events in
            events.contains { if case .notice(let text) = $0 { text.hasPrefix("Guest is not responding — waiting for Guest") } else { false } }
        })
        match.pair.guestEnd.setFaults(.init())
        #expect(await match.hostEvents.waitUntil(timeout: .seconds(1)) { events in
            events.contains { if case .notice("Guest is back") = $0 { true } else { false } }
        })
        guard case .committed = await match.guestLocal.play(Move(2)) else { Issue.record("move not committed"); return }
        #expect(await match.hostController.state.sequence == 1)
    }

    @Test func aSilentHostIsNoticedAndTheGuestGivesUpAfterGrace() async throws {
        let match = try await Scripted.start(seat: .first, timeouts: Self.fastHeartbeat, guestGrace: .milliseconds(500))
        match.pair.hostEnd.setFaults(.init(dropEverything: true))
        #expect(await match.guestEvents.waitUntil(timeout: .seconds(1)) { events in
            events.contains { if case .notice(let text) = $0 { text.hasPrefix("Hostess is not responding — waiting for Hostess") } else { false } }
        })
        _ = try #require(await finished(match.guestController, within: .seconds(3)))
        guard case .connectionLost? = await match.guestController.stopFailure else {
            Issue.record("expected connectionLost")
            return
        }
    }
}
