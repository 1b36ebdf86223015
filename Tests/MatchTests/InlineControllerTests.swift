import Bots
import Games
import ParlorTestSupport
import Synchronization
import Testing
@testable import Match

/// Issue 37: the controller steps its core inline on the caller's thread
/// (no actor), and a receiver that passes a change on by itself
/// (`DeliversInline`) has it committed on the thread that reports the
/// verdict, with no task in between.
@Suite("The match controller, stepped inline")
struct InlineControllerTests {
    /// A participant without a seat that hears every change and notes
    /// whether two of its calls ever overlapped, and the order of the commits.
    final class Observer: Participant {
        let playerID = PlayerID.random()
        let inside = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let committed = Mutex<[UInt32]>([])

        func turnBegan(_ state: MatchState) {}

        func stateChanged(_ state: MatchState, event: MatchEvent) {
            if inside.add(1, ordering: .acquiringAndReleasing).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
            if case .committed = event { committed.withLock { $0.append(state.sequence) } }
            // A little work, so that a caller arriving now would overlap if the controller let it.
            var spin = 0
            for index in 0..<2_000 { spin &+= index }
            _ = spin
            inside.subtract(1, ordering: .acquiringAndReleasing)
        }
    }

    @Test("a proposed move is committed on the proposer's thread; one chosen on a state the match has left is dropped")
    func proposedMoves() async throws {
        let state = MatchFixtures.newMatch("connect4")
        let ana = LocalParticipant(playerID: state.seats[0].playerID)
        let ben = LocalParticipant(playerID: state.seats[1].playerID)
        let controller = MatchController(state: state, participants: [ana, ben])
        try await controller.start()
        // Ana's move, chosen on the first state: committed before propose returns (nobody to deliver to).
        controller.propose(.move(Move(3), by: 0), from: ana, chosenAt: state.sequence)
        let afterAna = await controller.state
        #expect(afterAna.sequence == state.sequence + 1)
        // Ben's move chosen on that first state too (a bot that thought while Ana moved): it is his turn now, but
        // the state it was chosen on is gone, so it is dropped.
        controller.propose(.move(Move(4), by: 1), from: ben, chosenAt: state.sequence)
        #expect(await controller.state.sequence == afterAna.sequence)
        // Chosen on the state the match is in: committed.
        controller.propose(.move(Move(4), by: 1), from: ben, chosenAt: afterAna.sequence)
        #expect(await controller.state.sequence == afterAna.sequence + 1)
        // Refused by the rules (not Ben's turn now): dropped, nothing changes and nobody waits.
        let now = await controller.state
        controller.propose(.move(Move(0), by: 1), from: ben, chosenAt: now.sequence)
        #expect(await controller.state.sequence == now.sequence)
        #expect(!(await controller.isAwaitingConfirmation))
    }

    @Test("participants hear every commit one call at a time and in order while many tasks call the controller at once")
    func callbacksStayInOrderUnderContention() async throws {
        for seed in 1...5 {
            let state = MatchFixtures.newMatch("connect4")
            let a = BotParticipant(playerID: state.seats[0].playerID, strategy: randomStrategy(seed: UInt64(seed)))
            let b = BotParticipant(playerID: state.seats[1].playerID, strategy: randomStrategy(seed: UInt64(seed + 10)))
            let observer = Observer()
            let controller = MatchController(state: state, participants: [a, b, observer])
            let noise = (0..<6).map { index in
                Task {
                    var count = 0
                    while !(await controller.isStopped) {
                        await controller.reportPresence(seat: index % 2, away: count % 2 == 0, graceLeft: .seconds(5))
                        count += 1
                        await Task.yield()
                    }
                }
            }
            try await controller.start()
            let final = await controller.finished()
            for task in noise { await task.value }
            #expect(final.isEnded)
            let overlapped = observer.overlapped.load(ordering: .relaxed)
            #expect(!overlapped, "two participant calls overlapped")
            #expect(observer.committed.withLock { $0 } == Array(1...final.sequence), "commits heard out of order or missed")
        }
    }

    /// Seat 1: passes changes on inline when `inline`, else only through `deliver`.
    final class InlineReceiver: DeliversInline {
        struct Record {
            var finish: (@Sendable (DeliveryError?) -> Void)?
            var started = 0
            var delivered = 0
            var cancelled = 0
            var events: [String] = []
        }
        let playerID: PlayerID
        let inline: Bool
        let record = Mutex(Record())
        func turnBegan(_ state: MatchState) {}

        init(playerID: PlayerID, inline: Bool) {
            self.playerID = playerID
            self.inline = inline
        }

        func startDelivery(_ change: MatchChange, resulting state: MatchState,
                           finished: @escaping @Sendable (DeliveryError?) -> Void) -> (@Sendable () -> Void)? {
            guard inline else { return nil }
            record.withLock {
                $0.finish = finished
                $0.started += 1
            }
            return { [self] in record.withLock { $0.cancelled += 1 } }
        }

        func deliver(_ change: MatchChange, resulting state: MatchState) async throws {
            record.withLock { $0.delivered += 1 }
        }

        func stateChanged(_ state: MatchState, event: MatchEvent) {
            record.withLock { $0.events.append("\(event)".prefix(while: { $0 != "(" }).description) }
        }

        /// Waits until `count` deliveries have started inline, and returns how to finish the last.
        func started(_ count: Int = 1) async -> @Sendable (DeliveryError?) -> Void {
            while true {
                if let finish = record.withLock({ $0.started >= count ? $0.finish : nil }) { return finish }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// A started two-seat match: seat 0 moves (`mover`), seat 1 is an `InlineReceiver`.
    func started(inline: Bool, confirmationTimeout: Duration = .seconds(30)) async throws
        -> (mover: ScriptedParticipant, receiver: InlineReceiver, controller: MatchController) {
        let state = MatchFixtures.newMatch()
        let mover = ScriptedParticipant(playerID: state.seats[0].playerID)
        let receiver = InlineReceiver(playerID: state.seats[1].playerID, inline: inline)
        let controller = MatchController(state: state, participants: [mover, receiver],
                                         configuration: .init(confirmationTimeout: confirmationTimeout))
        try await controller.start()
        return (mover, receiver, controller)
    }

    @Test("a receiver that delivers inline has the change committed before its verdict call returns, and deliver is never called")
    func inlineVerdictCommitsOnTheCallersThread() async throws {
        let (mover, receiver, _) = try await started(inline: true)
        let played = Task { await mover.play(3) }
        let finish = await receiver.started()
        #expect(receiver.record.withLock { $0.events }.isEmpty)
        finish(nil)
        // No await since the verdict: the commit was performed inside that call.
        #expect(receiver.record.withLock { $0.events } == ["committed"])
        guard case .committed(let next) = await played.value else { Issue.record("the move was not committed"); return }
        #expect(next.sequence == 1)
        #expect(receiver.record.withLock { ($0.started, $0.delivered) } == (1, 0))
    }

    @Test("a receiver that declines to deliver inline gets deliver in a task, and the move is committed")
    func declinedInlineFallsBackToDeliver() async throws {
        let (mover, receiver, _) = try await started(inline: false)
        guard case .committed = await mover.play(3) else { Issue.record("the move was not committed"); return }
        #expect(receiver.record.withLock { ($0.started, $0.delivered) } == (0, 1))
    }

    @Test("an inline delivery with no verdict is cancelled at the confirmation timeout, and a verdict after it is ignored")
    func inlineDeliveryTimesOut() async throws {
        let (mover, receiver, controller) = try await started(inline: true, confirmationTimeout: .milliseconds(200))
        guard case .rolledBack(.confirmationTimeout) = await mover.play(3) else {
            Issue.record("the move was not rolled back at the timeout"); return
        }
        #expect(receiver.record.withLock { $0.cancelled } == 1)
        let finish = await receiver.started()
        finish(nil)
        #expect(await controller.state.sequence == 0)
        #expect(await controller.lateConfirmationsIgnored == 1)
        // The seat may move again at once.
        let again = Task { await mover.play(4) }
        await receiver.started(2)(nil)
        guard case .committed = await again.value else { Issue.record("the next move was not committed"); return }
    }

    @Test("an observer hears every event inline, the commit before play returns, and its end once after the last event")
    func observerHearsEventsInline() async throws {
        let (mover, receiver, controller) = try await started(inline: true)
        let heard = Mutex<[String]>([])
        let ends = Atomic<Int>(0)
        await controller.observe({ event in heard.withLock { $0.append("\(event)".prefix(while: { $0 != "(" }).description) } },
                                 ended: { ends.add(1, ordering: .relaxed) })
        let played = Task { await mover.play(3) }
        await receiver.started()(nil)
        guard case .committed = await played.value else { Issue.record("the move was not committed"); return }
        #expect(heard.withLock { $0 } == ["awaitingConfirmation", "committed", "turnBegan"])
        await controller.fail(.connectionLost("test"))
        #expect(heard.withLock { $0.last } == "failed")
        #expect(ends.load(ordering: .relaxed) == 1)
        // One that comes after the end hears only the end.
        let late = Atomic<Int>(0)
        await controller.observe({ _ in late.add(10, ordering: .relaxed) }, ended: { late.add(1, ordering: .relaxed) })
        #expect(late.load(ordering: .relaxed) == 1)
    }
}
