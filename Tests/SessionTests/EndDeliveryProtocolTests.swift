import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// The end of a match must reach the guest even when the guest dies at the
/// moment the host ends it. A write into a socket whose process was just
/// killed still succeeds, so the host knows the end arrived only when the
/// guest answers it with its own GOODBYE(matchOver); otherwise it keeps the
/// seat for its grace period, and the guest's `parlor resume` gets the end.
/// (Found by CI: a guest killed right after its move's CONFIRM left the host
/// to win and exit, and the guest's resume could never finish the match.)
@Suite struct EndDeliveryProtocolTests {
    /// The host (seat 0) quits, so the raw guest wins; returns the session.
    static func hostQuits(over transport: AttackTransport) async throws -> RawGuestSession {
        let session = try await RawGuestSession.start(over: transport)
        guard case .committed = await session.hostLocal.quit() else {
            Issue.record("the host's quit was not committed")
            return session
        }
        return session
    }

    @Test(arguments: AttackTransport.allCases)
    func aGuestThatAnswersTheEndHasIt(over transport: AttackTransport) async throws {
        let session = try await Self.hostQuits(over: transport)
        guard case .quit(_, let blob)? = await session.peer.nextMessage() else { Issue.record("expected the QUIT push"); return }
        guard case .goodbye(.goodbyeMatchOver, _, _)? = await session.peer.nextMessage() else { Issue.record("expected GOODBYE"); return }
        // Until the guest answers, the host does not know the end got there.
        #expect(await session.hosted.remote.finalDelivery(within: .milliseconds(300)) == .pending)
        await session.peer.send(.goodbye(.goodbyeMatchOver, sentence: "The match is over.", finalBlob: blob))
        #expect(await session.hosted.remote.finalDelivery(within: .seconds(5)) == .delivered)
        #expect(await session.peer.waitForClose(), "the host closes once the end is acknowledged")
    }

    @Test(arguments: AttackTransport.allCases)
    func aGuestGoneBeforeItReadTheEndGetsItWhenItComesBack(over transport: AttackTransport) async throws {
        let session = try await RawGuestSession.start(over: transport)
        // The guest vanishes (as when killed) just as the host ends the match.
        await session.peer.close()
        _ = await session.hostLocal.quit()
        #expect(await session.hosted.remote.finalDelivery(within: .seconds(5)) == .lost)
        #expect(await session.hosted.remote.waitForFinalDelivery(within: .milliseconds(100)) == false)

        // It comes back with its seat token and is given the end.
        let back = try await session.door.connect()
        var hello = session.hello
        hello.matchID = session.state.matchID
        hello.seatToken = session.welcome.seatToken
        let (_, state) = try #require(await back.handshake(hello))
        #expect(state.isEnded)
        #expect(state.seats[session.seat].outcome == .won)
        guard case .goodbye(.goodbyeMatchOver, _, _)? = await back.nextMessage() else { Issue.record("expected GOODBYE"); return }
        #expect(await session.hosted.remote.waitForFinalDelivery(within: .seconds(5)))
    }

    @Test(arguments: AttackTransport.allCases)
    func aGuestThatNeverAnswersTheEndCountsAsGoneAfterTheConfirmationTimeout(over transport: AttackTransport) async throws {
        let session = try await Self.hostQuits(over: transport)
        let started = ContinuousClock.now
        #expect(await session.hosted.remote.finalDelivery(within: .seconds(10)) == .lost)
        let took = ContinuousClock.now - started
        #expect(took >= .seconds(1) && took < .seconds(5), "gave up after \(took); the confirmation timeout is 2 s")
        #expect(await session.peer.waitForClose(), "the host hangs up on a guest that does not answer")
    }

    @Test(arguments: AttackTransport.allCases)
    func aGuestThatClosesWithoutAnsweringTheEndCountsAsGoneAtOnce(over transport: AttackTransport) async throws {
        let session = try await Self.hostQuits(over: transport)
        guard case .quit? = await session.peer.nextMessage() else { Issue.record("expected the QUIT push"); return }
        await session.peer.close()
        let started = ContinuousClock.now
        #expect(await session.hosted.remote.finalDelivery(within: .seconds(10)) == .lost)
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    /// A whole match between bots; each side keeps its connection for a rematch or not.
    static func playToTheEnd(hostKeeps: Bool, guestKeeps: Bool) async throws -> JoinedPair {
        let pair = try await JoinedPair.make(seat: .first)
        if hostKeeps { pair.hosted.remote.keepConnectionForRematch() }
        if guestKeeps { pair.joined.remote.keepConnectionForRematch() }
        let match = try await BotMatch.start(pair, host: TestStrategies.seeded(3), guest: TestStrategies.seeded(4))
        _ = try #require(await finished(match.hostController))
        _ = try #require(await finished(match.guestController))
        return pair
    }

    /// Every way the two sides may stand after a normal end, with nobody deciding
    /// about a rematch yet (a person still looking at the final board): the
    /// host learns promptly that the end got there, and never waits for a comeback.
    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func aLiveGuestAcknowledgesTheEndWhoeverKeepsTheConnection(hostKeeps: Bool, guestKeeps: Bool) async throws {
        let pair = try await Self.playToTheEnd(hostKeeps: hostKeeps, guestKeeps: guestKeeps)
        let started = ContinuousClock.now
        #expect(await pair.hosted.remote.finalDelivery(within: .seconds(10)) == .delivered)
        let took = ContinuousClock.now - started
        #expect(took < .seconds(3), "took \(took)")
    }
}
