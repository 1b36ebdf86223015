import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// A participant without a seat on the host's side that holds each delivery
/// while the test says so, then refuses it: the host's own change stays
/// unsettled for as long as the test likes, then is rolled back.
private final class HeldWitness: Participant {
    let playerID = PlayerID.random()
    private let state = Mutex<(holding: Bool, held: Int)>((false, 0))
    private let letGo = Gate()

    func hold() { state.withLock { $0.holding = true } }

    /// Lets every held delivery go (each is refused) and stops holding.
    func release() {
        state.withLock { $0.holding = false }
        letGo.open()
    }

    var isHolding: Bool { state.withLock { $0.held > 0 } }

    func attach(to controller: MatchController) {}
    func turnBegan(_ state: MatchState) {}
    func stateChanged(_ newState: MatchState, event: MatchEvent) {}
    func matchEnded(_ final: MatchState, failure: MatchFailure?) {}
    func deliver(_ change: MatchChange, resulting state: MatchState) async throws {
        let holds = self.state.withLock { state -> Bool in
            if state.holding { state.held += 1 }
            return state.holding
        }
        guard holds else { return }
        await letGo.wait()
        throw DeliveryError.rejected("held, then refused")
    }
}

/// The host judges a guest's change again as soon as the host's own change
/// that was being settled is settled, not on a timer: a QUIT that arrives
/// while the host's move waits for its deliveries is confirmed the moment
/// that move is rolled back, long before the confirmation timeout.
@Suite struct SettlingChangeProtocolTests {
    @Test("a guest's QUIT that meets the host's unsettled move is confirmed as soon as that move is rolled back",
          arguments: AttackTransport.allCases)
    func quitWaitsForTheHostsChangeToSettle(over transport: AttackTransport) async throws {
        // A confirmation timeout far beyond the test's patience: only the settling can answer in time.
        let timeouts = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(100),
                                       heartbeatTimeout: .seconds(60), confirmation: .seconds(60), grace: .seconds(2))
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: "connect4", hostName: "Hostess", hostPlayerID: .random(), seatPreference: .second,
            turnTimeoutSeconds: 0, timeouts: timeouts, appVersion: "test"))
        let door = try HostDoor(transport, host: host)
        let peer = try await door.connect()
        let (welcome, initial) = try #require(await peer.handshake(Hello(appVersion: "test", playerID: .random(), playerName: "Quinn")))
        let hosted = try await host.waitForGuest()
        let witness = HeldWitness()
        let hostLocal = LocalParticipant(playerID: hosted.hostPlayerID)
        let controller = hosted.makeController(with: hostLocal, bots: [witness])
        try await controller.start()
        defer { witness.release() }

        // The guest moves first and is confirmed.
        let ours = try initial.applying(.move(Move(3), by: welcome.seat), now: wallClockMilliseconds())
        await peer.send(.turn(sequence: ours.sequence, blob: MatchBlob.encode(ours)))
        guard case .confirm(ours.sequence, _, _)? = await Self.nextAnswer(peer) else {
            Issue.record("the guest's move was not confirmed")
            return
        }
        // The host moves; its change waits for the witness.
        witness.hold()
        let hostMove = Task { await hostLocal.play(Move(0)) }
        let deadline = ContinuousClock.now + .seconds(5)
        while !witness.isHolding, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(witness.isHolding, "the host's move never reached the witness")

        // The guest quits meanwhile, on the state it has: the host cannot take it yet.
        let quit = try ours.applying(.quit(welcome.seat), now: wallClockMilliseconds())
        await peer.send(.quit(sequence: quit.sequence, blob: MatchBlob.encode(quit)))
        try await Task.sleep(for: .milliseconds(200))
        #expect(await controller.isAwaitingConfirmation, "the host's move settled early")

        let released = ContinuousClock.now
        witness.release()
        guard case .rolledBack = await hostMove.value else {
            Issue.record("the host's move was not rolled back")
            return
        }
        let answer = await Self.nextAnswer(peer, timeout: .seconds(10))
        guard case .confirm(quit.sequence, let hash, _)? = answer else {
            Issue.record("expected CONFIRM \(quit.sequence) of the quit, got \(String(describing: answer))")
            return
        }
        #expect(hash == quit.stateHash)
        #expect(ContinuousClock.now - released < .seconds(5), "the quit was judged again only after a timer")
        let final = await controller.state
        #expect(final.isEnded && final.seats[welcome.seat].outcome == .quit)
    }

    /// The next message from the host other than HEARTBEAT, if one comes within `timeout`.
    static func nextAnswer(_ peer: RawPeer, timeout: Duration = .seconds(5)) async -> Message? {
        let deadline = ContinuousClock.now + timeout
        // Event by event: the host's heartbeats must not stretch the wait past `timeout`.
        while ContinuousClock.now < deadline, let event = await peer.next(timeout: deadline - ContinuousClock.now) {
            switch event {
            case .message(.heartbeat): continue
            case .message(let message): return message
            default: return nil
            }
        }
        return nil
    }
}

/// The signal the host's waits use (a frame judged again, the saves, the end's
/// delivery): woken by its event at once, and by its limit when none comes, so
/// a wait is never longer than the limit and never as long when the event comes.
@Suite struct SettleSignalTests {
    @Test("a settle wait ends when the event comes, long before its limit; without one, at its limit")
    func endsAtTheEventOrTheLimit() async throws {
        let signal = SettleSignal()
        let clock = ContinuousClock()
        // Counted before the wait: nothing to wait for.
        let mark = signal.count
        signal.bump()
        let already = clock.now
        await signal.wait(beyond: mark, limit: .seconds(30))
        #expect(clock.now - already < .seconds(1))

        let before = signal.count
        let waiting = Task { await signal.wait(beyond: before, limit: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(100))
        let bumped = clock.now
        signal.bump()
        await waiting.value
        #expect(clock.now - bumped < .seconds(2), "the event did not end the wait")

        let alone = clock.now
        await signal.wait(beyond: signal.count, limit: .milliseconds(300))
        let waited = clock.now - alone
        #expect(waited >= .milliseconds(250) && waited < .seconds(5), "waited \(waited) for a limit of 300 ms")
    }
}

/// A pause on the loop's timer heap (a reconnect's backoff, a hall's stop
/// deadline): as long as asked, and ended at once by cancelling its task.
@Suite struct LoopSleepTests {
    @Test("a loop sleep lasts its delay, and a cancelled one ends at once")
    func lastsItsDelayOrEndsWhenCancelled() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        await LoopAlarm.sleep(for: .milliseconds(300))
        let slept = clock.now - start
        #expect(slept >= .milliseconds(290) && slept < .seconds(5), "slept \(slept) for 300 ms")

        let long = Task { await LoopAlarm.sleep(for: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(100))
        let cancelled = clock.now
        long.cancel()
        await long.value
        #expect(clock.now - cancelled < .seconds(2), "cancelling did not end the sleep")

        // Already cancelled: no wait at all.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let from = ContinuousClock.now
            await LoopAlarm.sleep(for: .seconds(60))
            return ContinuousClock.now - from
        }
        #expect(await early.value < .seconds(1))
    }
}
