import Games
import Testing

@testable import Match
import ParlorTestSupport

/// The controller's decisions as a value (issue 37, item 3): stepped with
/// events and the time, it answers with the actions to perform, in order;
/// no task, clock or participant inside, so a shell on an event loop can step
/// it inline. These tests step it by hand, as such a shell would.
@Suite struct MatchCoreTests {
    /// Objects that stand for participants: only their identity is used.
    final class Stand: Sendable {}

    let local = Stand()
    let remote = Stand()
    let state = MatchFixtures.newMatch()

    /// A two-seat core: seat 0 played here (no deliveries), seat 1 a peer that takes deliveries.
    func core(remoteIsAuthority: Bool = false, state: MatchState? = nil) -> MatchCore {
        let state = state ?? self.state
        return MatchCore(state: state, members: [
            .init(id: ObjectIdentifier(local), playerID: state.seats[0].playerID, isAuthority: false, takesDeliveries: false),
            .init(id: ObjectIdentifier(remote), playerID: state.seats[1].playerID, isAuthority: remoteIsAuthority, takesDeliveries: true),
        ], confirmationTimeout: .seconds(30))
    }

    /// A short name for each action, to compare orders.
    static func names(_ actions: [MatchCore.Action]) -> [String] {
        actions.map {
            switch $0 {
            case .attachAll: "attach"
            case .emit(let event):
                switch event {
                case .started: "emit started"
                case .turnBegan(let seat, _): "emit turnBegan \(seat)"
                case .awaitingConfirmation: "emit awaiting"
                case .committed: "emit committed"
                case .rolledBack(_, let reason, _): "emit rolledBack \(reason)"
                case .adopted: "emit adopted"
                case .ended: "emit ended"
                case .failed: "emit failed"
                default: "emit other"
                }
            case .tellParticipants: "tell"
            case .turnBegan(let seat, _): "turnBegan \(seat)"
            case .deliver(let token, _, _, let to): "deliver \(token) to \(to.count)"
            case .cancelDeliveries(let token): "cancel \(token)"
            case .answer(let token, let result):
                switch result {
                case .committed: "answer \(token) committed"
                case .rejected(let why): "answer \(token) rejected \(why)"
                case .rolledBack(let why): "answer \(token) rolledBack \(why)"
                }
            case .watchConfirmation: "watch"
            case .armDeadline(_, let seat, _): "arm \(seat)"
            case .disarmDeadline: "disarm"
            case .settled: "settled"
            case .stop(_, let failure): failure == nil ? "stop" : "stop failed"
            }
        }
    }

    @Test("a local move is applied to a copy, delivered, and committed only when the delivery answers; then the next turn begins")
    func aMoveWaitsForItsDelivery() throws {
        var core = core()
        #expect(Self.names(try core.start(now: 1)) == ["attach", "emit started", "emit turnBegan 0", "disarm", "turnBegan 0"])
        guard case .pending(let token, let actions) = core.submit(.move(Move(3), by: 0), from: ObjectIdentifier(local), now: 2) else {
            Issue.record("the move was not proposed"); return
        }
        #expect(Self.names(actions) == ["disarm", "watch", "emit awaiting", "deliver \(token) to 1"])
        #expect(core.state.moves.isEmpty, "the move counted as committed before its delivery answered")
        #expect(core.isAwaitingConfirmation)
        // Input is refused while it waits.
        guard case .answered(.rejected(.awaitingConfirmation), _) = core.submit(.move(Move(4), by: 1), from: ObjectIdentifier(remote), now: 3) else {
            Issue.record("a second change was accepted while one was pending"); return
        }
        let done = core.deliveriesFinished(token: token, error: nil, now: 4)
        #expect(Self.names(done) == ["cancel \(token)", "emit committed", "tell", "answer \(token) committed",
                                     "emit turnBegan 1", "disarm", "turnBegan 1", "settled"])
        #expect(core.state.moves.map(\.move) == [Move(3)])
        #expect(!core.isAwaitingConfirmation)
    }

    @Test("a move nobody must take the delivery of is committed at once")
    func aMoveWithNoReceiverCommitsAtOnce() throws {
        var core = core()
        _ = try core.start(now: 1)
        guard case .pending(let first, _) = core.submit(.move(Move(0), by: 0), from: ObjectIdentifier(local), now: 2) else { return }
        _ = core.deliveriesFinished(token: first, error: nil, now: 3)
        // The remote seat's own move: the only other member takes no deliveries.
        guard case .answered(.committed(let next), let actions) = core.submit(.move(Move(1), by: 1), from: ObjectIdentifier(remote), now: 4) else {
            Issue.record("the peer's move was not committed at once"); return
        }
        #expect(next.moves.count == 2)
        #expect(Self.names(actions).contains("emit committed") && !Self.names(actions).contains { $0.hasPrefix("deliver") })
    }

    @Test("the rules and the seats are judged before anything is applied")
    func refusalsChangeNothing() throws {
        var core = core()
        guard case .answered(.rejected(.matchOver), let none) = core.submit(.move(Move(0), by: 0), from: ObjectIdentifier(local), now: 1), none.isEmpty else {
            Issue.record("a move before the start was not refused matchOver"); return
        }
        _ = try core.start(now: 1)
        guard case .answered(.rejected(.notYourSeat), let none) = core.submit(.move(Move(0), by: 1), from: ObjectIdentifier(local), now: 2), none.isEmpty else {
            Issue.record("a move for another seat was not refused"); return
        }
        guard case .answered(.rejected(.notAParticipant), let none) = core.submit(.move(Move(0), by: 0), from: ObjectIdentifier(Stand()), now: 2), none.isEmpty else {
            Issue.record("a stranger's move was not refused"); return
        }
        guard case .answered(.rejected(.rule), let none) = core.submit(.move(Move(9), by: 0), from: ObjectIdentifier(local), now: 2), none.isEmpty else {
            Issue.record("an illegal column was not refused by the rules"); return
        }
        #expect(core.state.moves.isEmpty && !core.isAwaitingConfirmation)
    }

    @Test("the confirmation deadline rolls a pending change back; its late confirmation is ignored and counted")
    func theDeadlineRollsBack() throws {
        var core = core()
        _ = try core.start(now: 1)
        let proposed = ContinuousClock.now
        guard case .pending(let token, _) = core.submit(.move(Move(3), by: 0), from: ObjectIdentifier(local), now: 2, instant: proposed) else { return }
        // Woken early (another change's deadline): watch on to this one's.
        let early = core.confirmationDeadline(instant: proposed + .seconds(10), now: 3)
        guard case .watchConfirmation(let until)? = early.first, early.count == 1 else { Issue.record("\(Self.names(early))"); return }
        #expect(until == proposed + .seconds(30))
        let due = core.confirmationDeadline(instant: proposed + .seconds(30), now: 4)
        #expect(Self.names(due).prefix(4) == ["cancel \(token)", "emit rolledBack no confirmation arrived in time", "tell",
                                              "answer \(token) rolledBack no confirmation arrived in time"])
        #expect(core.state.moves.isEmpty)
        #expect(core.deliveriesFinished(token: token, error: nil, now: 5).isEmpty)
        #expect(core.lateConfirmationsIgnored == 1)
        #expect(core.state.moves.isEmpty, "a confirmation after the deadline committed the change")
    }

    @Test("the authority's change supersedes ours; a state that drops our moves stops the match as a desync")
    func theAuthorityWins() throws {
        var core = core(remoteIsAuthority: true)
        _ = try core.start(now: 1)
        guard case .pending(let ours, _) = core.submit(.move(Move(3), by: 0), from: ObjectIdentifier(local), now: 2) else { return }
        // The host says seat 0 played 5 instead (it never saw ours).
        let theirs = try MatchFixtures.after([5], in: state, now: 2)
        let (taken, actions) = core.adopt(theirs, from: ObjectIdentifier(remote), now: 3)
        #expect(taken)
        #expect(Self.names(actions).starts(with: ["cancel \(ours)", "emit rolledBack the other side's state arrived first", "tell",
                                                  "answer \(ours) rolledBack the other side's state arrived first", "settled",
                                                  "disarm", "emit adopted"]))
        #expect(core.state.moves.map(\.move) == [Move(5)])
        // Only the authority may hand us a state.
        #expect(core.adopt(theirs, from: ObjectIdentifier(local), now: 4).taken == false)
        // A state that drops a move we committed is a desync, and the match stops.
        let (dropped, stop) = core.adopt(state, from: ObjectIdentifier(remote), now: 5)
        #expect(!dropped)
        #expect(Self.names(stop).suffix(2) == ["emit failed", "stop failed"])
        #expect(core.isStopped)
        guard case .desync? = core.failure else { Issue.record("the failure is \(String(describing: core.failure))"); return }
    }

    @Test("with a turn timeout and no authority, the deadline is armed for the seat to move and expires its time")
    func theTurnTimeoutExpires() throws {
        let timed = MatchFixtures.newMatch(turnTimeout: 30, now: 1_000)
        var core = core(state: timed)
        let started = try core.start(now: 1_000)
        guard let armed = started.first(where: { if case .armDeadline = $0 { true } else { false } }),
              case .armDeadline(let sequence, let seat, let milliseconds) = armed else {
            Issue.record("no deadline armed: \(Self.names(started))"); return
        }
        #expect(seat == 0 && milliseconds == 30_000)
        // A stale deadline (the turn moved on) does nothing.
        #expect(core.deadlinePassed(sequence: sequence &+ 1, seat: seat, now: 31_000) == nil)
        guard case .pending(let token, _)? = core.deadlinePassed(sequence: sequence, seat: seat, now: 31_000) else {
            Issue.record("the deadline did not expire the seat's time"); return
        }
        let done = core.deliveriesFinished(token: token, error: nil, now: 31_001)
        #expect(Self.names(done).contains("stop"), "a two-seat match whose seat ran out of time did not end")
        #expect(core.state.seats[0].outcome == .timeExpired)
    }
}
