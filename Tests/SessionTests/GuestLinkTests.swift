import Games
import Match
import Testing
@testable import Session

/// The guest's in-match machine, frame by frame, without any I/O: each rule
/// of `GuestLink` as the actions a shell would perform.
@Suite struct GuestLinkTests {
    static let settings = Liveness.Settings(interval: .seconds(1), timeout: .seconds(3), grace: .seconds(30))
    let start = ContinuousClock.now
    let guest = PlayerID.random()
    let id = MatchID.random()

    /// Host "Liar" in seat 0 moves first; we are seat 1.
    func fresh() -> MatchState {
        LyingHostProtocolTests.Scripted.newMatch(guest: guest, guestSeat: 1, id: id)
    }

    func link(_ initial: MatchState, reconnects: Bool = false, seats hostSeat: SeatIndex = 0) -> GuestLink {
        var link = GuestLink(GuestLink.Setup(guestSeat: 1, hostSeat: hostSeat, hostName: "Liar", speaksTalk: true,
                                             reconnects: reconnects, settings: Self.settings),
                             initial: initial, now: start)
        _ = link.handle(.attached(now: start))
        return link
    }

    /// The state after the host's first move and ours: the match at change 2.
    func afterTwoMoves() throws -> (hostMoved: MatchState, weMoved: MatchState) {
        let hostMoved = try fresh().applying(.move(Move(3), by: 0), now: 1)
        return (hostMoved, try hostMoved.applying(.move(Move(2), by: 1), now: 2))
    }

    /// `link` at change 1 (the host's move committed), our move on the wire under token 7.
    func ourMoveSent(reconnects: Bool = false) throws -> (GuestLink, MatchState) {
        let (hostMoved, weMoved) = try afterTwoMoves()
        var machine = link(fresh(), reconnects: reconnects)
        _ = machine.handle(.controller(.committed(.move(Move(3), by: 0), hostMoved)))
        let sent = machine.handle(.ownChange(.move(Move(2), by: 1), resulting: weMoved, token: 7, linkOpen: true, cancelled: false))
        #expect(sent.map(\.summary) == ["crash before-send", "send TURN"])
        return (machine, weMoved)
    }

    @Test func ourMoveGoesOutAndItsConfirmSettlesItBeforeTheNextFrameIsRead() throws {
        var (machine, weMoved) = try ourMoveSent()
        let confirmed = machine.handle(.inbound(.message(.confirm(sequence: 2, stateHash: weMoved.stateHash, deadline: 0))))
        #expect(confirmed.map(\.summary) == ["crash after-send", "settle 7 confirmed", "wait for the controller", "crash after-confirm"])
        // The same CONFIRM again answers nothing we are waiting for, and nothing we sent since.
        _ = machine.handle(.controller(.committed(.move(Move(2), by: 1), weMoved)))
        let again = machine.handle(.inbound(.message(.confirm(sequence: 2, stateHash: weMoved.stateHash, deadline: 0))))
        #expect(again.map(\.summary).last?.hasPrefix("fail connection lost: Liar broke the protocol: CONFIRM for change 2") == true)
    }

    @Test func aConfirmForAChangeWeNeverSentIsAProtocolViolation() throws {
        var (machine, weMoved) = try ourMoveSent()
        let wrong = machine.handle(.inbound(.message(.confirm(sequence: 5, stateHash: weMoved.stateHash, deadline: 0))))
        #expect(wrong.map(\.summary) == ["crash after-send", "send GOODBYE", "close",
                                         "fail connection lost: Liar broke the protocol: CONFIRM for change 5, which we never sent"])
        // Nothing went out before any change of ours either.
        var idle = link(fresh())
        #expect(idle.handle(.inbound(.message(.confirm(sequence: 1, stateHash: 9, deadline: 0)))).map(\.summary).count == 3)
    }

    @Test func aConfirmWithAnotherHashFailsTheDeliveryAndIsADesync() throws {
        var (machine, weMoved) = try ourMoveSent()
        let other = machine.handle(.inbound(.message(.confirm(sequence: 2, stateHash: weMoved.stateHash ^ 1, deadline: 0))))
        #expect(other.map(\.summary) == ["crash after-send", "settle 7 failed desync",
                                         "fail desync: the host committed change 2 with a different state hash"])
    }

    @Test func aRejectionSettlesOurChangeAndTheRollbackAsksForTheHostsStateOnce() throws {
        var (machine, weMoved) = try ourMoveSent()
        let rejected = machine.handle(.inbound(.message(.turnRejected(sequence: 2, reason: .illegalMove, sentence: "No."))))
        #expect(rejected.map(\.summary) == ["settle 7 rejected", "wait for the controller"])
        let hostMoved = try afterTwoMoves().hostMoved
        let rollback = machine.handle(.controller(.rolledBack(.move(Move(2), by: 1), reason: .rejected("No."), hostMoved)))
        #expect(rollback.map(\.summary) == ["send STATE_REQUEST"])
        // A late TURN_REJECTED or a second rollback asks for nothing more.
        #expect(machine.handle(.inbound(.message(.turnRejected(sequence: 2, reason: .illegalMove, sentence: "")))).isEmpty)
        #expect(machine.handle(.controller(.rolledBack(.move(Move(2), by: 1), reason: .confirmationTimeout, hostMoved))).isEmpty)
        _ = weMoved
    }

    @Test func aLateConfirmIsCountedAndPushesWaitForTheHostsState() throws {
        var (machine, weMoved) = try ourMoveSent()
        let hostMoved = try afterTwoMoves().hostMoved
        // The controller cancels the delivery, then reports the rollback (no resync yet).
        #expect(machine.handle(.ownChangeCancelled(token: 7)).map(\.summary) == ["settle 7 cancelled"])
        #expect(machine.handle(.controller(.rolledBack(.move(Move(2), by: 1), reason: .superseded, hostMoved))).isEmpty)
        let late = machine.handle(.inbound(.message(.confirm(sequence: 2, stateHash: weMoved.stateHash, deadline: 0))))
        #expect(late.map(\.summary) == ["send STATE_REQUEST"])
        #expect(machine.lateConfirmations == 1)
        // The host's next push builds on the change we rolled back: skipped, the STATE holds it.
        let third = try weMoved.applying(.move(Move(3), by: 0), now: 3)
        #expect(machine.handle(.inbound(.message(.turn(sequence: 3, blob: MatchBlob.encode(third))))).isEmpty)
        let adopted = machine.handle(.inbound(.message(.state(blob: MatchBlob.encode(third)))))
        #expect(adopted.map(\.summary) == ["adopt 3"])
    }

    @Test func aPushOutOfOrderIsADesync() throws {
        var machine = link(fresh())
        let (_, weMoved) = try afterTwoMoves()
        let skipped = machine.handle(.inbound(.message(.turn(sequence: 2, blob: MatchBlob.encode(weMoved)))))
        #expect(skipped.map(\.summary) == ["fail desync: the host sent change 2 after change 0"])
    }

    @Test func theHostsNextMoveIsSubmittedAsJudgedOnce() throws {
        var machine = link(fresh())
        let hostMoved = try afterTwoMoves().hostMoved
        let pushed = machine.handle(.inbound(.message(.turn(sequence: 1, blob: MatchBlob.encode(hostMoved)))))
        #expect(pushed.map(\.summary) == ["submit 1 judged"])
        // Our copy refusing what the validator took is a desync too.
        #expect(machine.handle(.pushAnswered(sequence: 1, .rejected(.notYourSeat))).map(\.summary).first?
            .hasPrefix("fail desync: our copy refused the host's change 1") == true)
    }

    @Test func aLyingHostsIllegalChangeIsRefused() throws {
        var machine = link(fresh())
        let (hostMoved, weMoved) = try afterTwoMoves()
        // A move for our seat that we never sent: the host puts words in our mouth.
        var told = link(fresh())
        _ = told.handle(.controller(.committed(.move(Move(3), by: 0), hostMoved)))
        let mouth = told.handle(.inbound(.message(.turn(sequence: 2, blob: MatchBlob.encode(weMoved)))))
        #expect(mouth.map(\.summary) == ["fail desync: the host's change 2 (seat 1 plays 2) is not one the host may make"])
        // A move the rules refuse: the host's blob does not follow from our state.
        var blob = MatchBlob.encode(hostMoved)
        blob[blob.count - 9] ^= 0x7F
        let forged = machine.handle(.inbound(.message(.turn(sequence: 1, blob: blob))))
        #expect(forged.count == 1 && forged[0].summary.hasPrefix("fail desync: the host's change 1"))
        // A quit of our seat that we never sent.
        let quit = try fresh().applying(.quit(1), now: 1)
        let quitting = machine.handle(.inbound(.message(.quit(sequence: 1, blob: MatchBlob.encode(quit)))))
        #expect(quitting.map(\.summary) == ["fail desync: the host's change 1 (seat 1 quits) is not one the host may make"])
        // A STATE holding a move of ours we never made, after a resync was asked for.
        _ = machine.handle(.controller(.rolledBack(.move(Move(2), by: 1), reason: .confirmationTimeout, fresh())))
        let state = machine.handle(.inbound(.message(.state(blob: MatchBlob.encode(weMoved)))))
        #expect(state.map(\.summary) == ["fail desync: the host's state holds move 2 for our seat, which we never made"])
    }

    @Test func aStateNobodyAskedForIsIgnoredAndAnUnreadableOneIsADesync() throws {
        var machine = link(fresh())
        #expect(machine.handle(.inbound(.message(.state(blob: [1, 2, 3])))).isEmpty)
        _ = machine.handle(.controller(.rolledBack(.move(Move(2), by: 1), reason: .confirmationTimeout, fresh())))
        #expect(machine.handle(.inbound(.message(.state(blob: [1, 2, 3])))).first?.summary.hasPrefix("fail desync: the host's state is invalid") == true)
    }

    @Test func aGoodbyeMidTurnWithoutADialerLosesTheMatchAndFailsOurDelivery() throws {
        var (machine, _) = try ourMoveSent()
        let leaving = machine.handle(.inbound(.message(.goodbye(.goodbyeLeaving, sentence: "lost its terminal", finalBlob: []))))
        #expect(leaving.map(\.summary) == ["close", "fail connection lost: Liar disconnected (lost its terminal)"])
        let ended = machine.handle(.matchEnded(try afterTwoMoves().hostMoved, failure: .connectionLost("gone"), linkOpen: false))
        #expect(ended.map(\.summary) == ["stop timers", "settle 7 failed the match has stopped", "send GOODBYE", "close"])
        // After the end, what still arrives goes to the after-match conversation, if any.
        #expect(machine.handle(.inbound(.message(.heartbeat(senderTime: 1)))).map(\.summary) == ["to the after-match conversation"])
    }

    @Test func aGoodbyeMidTurnWithADialerGetsBackToTheHostAndTheHostsStateWins() throws {
        var (machine, weMoved) = try ourMoveSent(reconnects: true)
        let leaving = machine.handle(.inbound(.message(.goodbye(.goodbyeLeaving, sentence: "", finalBlob: []))))
        #expect(leaving.map(\.summary) == ["close", "start reconnecting"])
        #expect(machine.reconnecting)
        // Once: the closed stream that follows starts nothing more, and the timer waits.
        #expect(machine.handle(.inbound(.closed(nil, midFrame: false))).isEmpty)
        #expect(machine.handle(.timerFired(now: start + .seconds(10), lastHeard: start, linkOpen: false)).isEmpty)
        let first = machine.handle(.rejoinStarted(now: start))
        // The controller hears that the host's seat is away (the front door's `away`), beside the notice.
        #expect(first.map(\.summary) == ["presence 0 away", "report Liar disconnected — waiting for Liar to come back (30 s left); "
            + "if Liar's parlor stopped, Liar must run 'parlor resume \(weMoved.matchID.short)' there"])
        // Failed attempts remind the player once per notice interval.
        #expect(machine.handle(.rejoinAttemptFailed(left: .seconds(29), now: start + .seconds(1))).isEmpty)
        #expect(machine.handle(.rejoinAttemptFailed(left: .seconds(19), now: start + .seconds(11))).first?.summary
            .hasPrefix("report waiting for Liar to come back (19 s left)") == true)
        // Our move waits while we are away; a change made now is not sent either.
        #expect(machine.handle(.rejoined(now: start + .seconds(12))).map(\.summary) == ["use the rejoined link", "schedule"])
        // The host committed our move: its state holds it once, and is adopted.
        let reconciled = machine.handle(.reconciling(host: weMoved, ours: try afterTwoMoves().hostMoved, awaitingConfirmation: true))
        #expect(reconciled.map(\.summary) == ["adopt 2", "presence 0 back", "report Liar is back"])
    }

    @Test func aSilentHostIsReconnectedToOnceAndGivenUpOnWhenGraceRunsOut() throws {
        var machine = link(fresh(), reconnects: true)
        let beat = machine.handle(.timerFired(now: start + .seconds(1), lastHeard: start + .seconds(1), linkOpen: true))
        #expect(beat.map(\.summary) == ["heartbeat", "schedule"])
        let silent = machine.handle(.timerFired(now: start + .seconds(5), lastHeard: start + .seconds(1), linkOpen: true))
        // A half-open link looks like this: a fresh connection tells, and nothing more is done on this one.
        #expect(silent.map(\.summary) == ["start reconnecting"])
        let rejoining = machine.handle(.rejoinStarted(now: start)).map(\.summary)
        #expect(rejoining.first == "presence 0 away" && rejoining.last?.hasPrefix("report Liar is not responding — waiting") == true)
        let gaveUp = machine.handle(.rejoinFailed(.gaveUp(attempts: 9, last: "refused")))
        #expect(gaveUp.map(\.summary) == ["fail connection lost: Liar did not come back within 30 s (gave up after 9 attempts (last: refused))"])
        // Without a dialer the same silence is only a notice, and the grace period fails the match.
        var plain = link(fresh())
        _ = plain.handle(.timerFired(now: start + .seconds(4), lastHeard: start, linkOpen: true))
        let expired = plain.handle(.timerFired(now: start + .seconds(40), lastHeard: start, linkOpen: true))
        #expect(expired.map(\.summary).contains("fail connection lost: no word from Liar for 33 s"))
    }

    /// The guest's timer is the process's shared clock, set for the next
    /// instant liveness may act at (the next heartbeat, or the silence
    /// deadline), not a tick every second; none while getting back to the host.
    @Test func theTickerIsSetForTheNextHeartbeatOrSilenceAndStopsWhileGettingBack() {
        func scheduled(_ actions: [GuestLink.Action]) -> [ContinuousClock.Instant] {
            actions.compactMap { if case .scheduleTicker(let at, _) = $0 { at } else { nil } }
        }
        var fresh = GuestLink(GuestLink.Setup(guestSeat: 1, hostSeat: 0, hostName: "Liar", speaksTalk: true,
                                              reconnects: true, settings: Self.settings),
                              initial: self.fresh(), now: start)
        // Attached: the first heartbeat is due one interval on.
        #expect(scheduled(fresh.handle(.attached(now: start))) == [start + .seconds(1)])
        // Heard just now: the next heartbeat comes before the silence deadline.
        #expect(scheduled(fresh.handle(.timerFired(now: start + .seconds(1), lastHeard: start + .seconds(1), linkOpen: true)))
                == [start + .seconds(2)])
        // Nothing heard for a while: the silence deadline comes first.
        _ = fresh.handle(.timerFired(now: start + .seconds(2), lastHeard: start + .milliseconds(500), linkOpen: true))
        #expect(scheduled(fresh.handle(.timerFired(now: start + .seconds(3), lastHeard: start + .milliseconds(500), linkOpen: true)))
                == [start + .milliseconds(3500)])
        // Silent past it: getting back to the host, and no tick until it is back.
        let silent = fresh.handle(.timerFired(now: start + .seconds(4), lastHeard: start + .milliseconds(500), linkOpen: true))
        #expect(silent.map(\.summary) == ["start reconnecting"])
        #expect(fresh.handle(.timerFired(now: start + .seconds(5), lastHeard: start, linkOpen: false)).isEmpty)
        #expect(scheduled(fresh.handle(.rejoined(now: start + .seconds(6)))) == [start + .seconds(7)])
    }

    @Test func leavingForNowStopsGettingBackAndDropsALinkThatArrivesLate() {
        var machine = link(fresh(), reconnects: true)
        _ = machine.handle(.inbound(.closed("reset", midFrame: false)))
        #expect(machine.handle(.leaveForNow("bye", linkOpen: false)).map(\.summary) == ["stop timers"])
        #expect(machine.handle(.rejoined(now: start)).map(\.summary) == ["drop the rejoined link"])
        #expect(machine.handle(.rejoinFailed(.refused("no"))).isEmpty)
        var open = link(fresh())
        #expect(open.handle(.leaveForNow("bye", linkOpen: true)).map(\.summary) == ["stop timers", "send GOODBYE", "close", "linger"])
    }

    @Test func theEndsAcknowledgementWaitsUntilTheEndIsSaved() throws {
        var machine = link(fresh())
        _ = machine.handle(.savingEnabled)
        let ended = try fresh().applying(.quit(0), now: 1)
        #expect(machine.handle(.controller(.committed(.quit(0), ended))).map(\.summary) == ["save 1 acknowledging"])
        #expect(machine.handle(.matchEnded(ended, failure: nil, linkOpen: true)).map(\.summary) == ["stop timers"])
        #expect(machine.handle(.endSaved).map(\.summary) == ["crash at-end", "end is saved", "send GOODBYE", "close"])
        // Without a save the answer goes at once.
        var unsaved = link(fresh())
        _ = unsaved.handle(.controller(.committed(.quit(0), ended)))
        #expect(unsaved.handle(.matchEnded(ended, failure: nil, linkOpen: true)).map(\.summary)
            == ["stop timers", "crash at-end", "send GOODBYE", "close"])
        // Kept for a rematch: the after-match conversation takes the link over.
        var kept = link(fresh())
        _ = kept.handle(.keepForRematch)
        #expect(kept.handle(.matchEnded(ended, failure: nil, linkOpen: true)).map(\.summary)
            == ["keep for the after-match conversation", "stop timers", "crash at-end"])
    }

    @Test func aGoodbyeMatchOverIsAdoptedOnlyWhenItKeepsOurWords() throws {
        var machine = link(fresh())
        let ended = try fresh().applying(.quit(0), now: 1)
        let over = machine.handle(.inbound(.message(.goodbye(.goodbyeMatchOver, sentence: "", finalBlob: MatchBlob.encode(ended)))))
        #expect(over.map(\.summary) == ["adopt 1", "fail desync: the host says the match is over, but it is not over here"])
        var lied = link(fresh())
        let ourQuit = try fresh().applying(.quit(1), now: 1)
        let forged = lied.handle(.inbound(.message(.goodbye(.goodbyeMatchOver, sentence: "", finalBlob: MatchBlob.encode(ourQuit)))))
        #expect(forged.map(\.summary) == ["fail desync: the host's state has our seat quit, which we never did"])
    }

    @Test func seatNewsOnlyComesAtATableAndAboutAnotherGuest() {
        var machine = link(fresh())
        let seat = machine.handle(.inbound(.message(.seat(SeatPresence(seat: 0, away: true, graceLeftMilliseconds: 0)))))
        #expect(seat.map(\.summary).last?.hasPrefix("fail connection lost: Liar broke the protocol: SEAT names seat 0") == true)
    }

    @Test func talkIsRefusedHereOnlyWhenItCannotBeSent() {
        var machine = link(fresh())
        #expect(machine.handle(.say("hi", linkOpen: true)).map(\.summary) == ["send TALK"])
        #expect(machine.handle(.say("hi", linkOpen: false)).map(\.summary) == ["refuse talk"])
    }
}

extension GuestLink.Action {
    /// One line per action, for comparing what a shell would do.
    var summary: String {
        switch self {
        case .send(let message): "send \(message.type)"
        case .sendHeartbeat: "heartbeat"
        case .close: "close"
        case .reachCrashPoint(let phase): "crash \(phase.rawValue)"
        case .settleDelivery(let token, let outcome):
            switch outcome {
            case .confirmed: "settle \(token) confirmed"
            case .rejected: "settle \(token) rejected"
            case .failed(let why): "settle \(token) failed \(why)"
            case .cancelled: "settle \(token) cancelled"
            }
        case .waitForController: "wait for the controller"
        case .submitPush(let sequence, _, _, let judged): "submit \(sequence)\(judged == nil ? "" : " judged")"
        case .adopt(let state, _): "adopt \(state.sequence)"
        case .fail(.desync(let why)): "fail desync: \(why)"
        case .fail(.connectionLost(let why)): "fail connection lost: \(why)"
        case .report(let notice): "report \(notice)"
        case .reportPresence(let seat, let away, _): "presence \(seat) \(away ? "away" : "back")"
        case .reportStandIn(let seat, let bot): "stand-in \(seat) \(bot ?? "none")"
        case .relayTalk: "relay talk"
        case .reportTalkRefused: "talk refused"
        case .refuseTalk: "refuse talk"
        case .save(let state, let acknowledges): "save \(state.sequence)\(acknowledges ? " acknowledging" : "")"
        case .endIsSaved: "end is saved"
        case .stopTimers: "stop timers"
        case .scheduleTicker: "schedule"
        case .keepForAfterMatch: "keep for the after-match conversation"
        case .toAfterMatch: "to the after-match conversation"
        case .startReconnecting: "start reconnecting"
        case .useRejoinedLink: "use the rejoined link"
        case .dropRejoinedLink: "drop the rejoined link"
        case .linger: "linger"
        }
    }
}
