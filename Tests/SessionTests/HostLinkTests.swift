import Games
import Match
import Testing
@testable import Session

/// The host's in-match machine for one guest's link, frame by frame, without
/// any I/O: each rule of `HostLink` as the actions a shell would perform.
@Suite struct HostLinkTests {
    static let settings = Liveness.Settings(interval: .seconds(1), timeout: .seconds(3), grace: .seconds(30))
    let start = ContinuousClock.now
    let guest = PlayerID.random()
    let id = MatchID.random()

    /// The host ("Liar") in seat 0 moves first; the guest is seat 1.
    func fresh() -> MatchState {
        LyingHostProtocolTests.Scripted.newMatch(guest: guest, guestSeat: 1, id: id)
    }

    func link(_ initial: MatchState, saves: Bool = false, hearsTalk: Bool = false) -> HostLink {
        var link = HostLink(HostLink.Setup(seat: 1, name: "Guest", speaksTalk: true, hearsTalk: hearsTalk,
                                           settings: Self.settings, confirmationTimeout: .seconds(2)),
                            initial: initial, now: start)
        _ = link.handle(.attached(now: start, lastHeard: start, linkOpen: true))
        if saves { _ = link.handle(.savingEnabled) }
        return link
    }

    /// The host's first move, then the guest's: the match at change 1 and 2.
    func afterTwoMoves() throws -> (hostMoved: MatchState, guestMoved: MatchState) {
        let hostMoved = try fresh().applying(.move(Move(3), by: 0), now: 1)
        return (hostMoved, try hostMoved.applying(.move(Move(2), by: 1), now: 2))
    }

    /// `link` with the host's move committed (and pushed).
    func hostHasMoved(saves: Bool = false, hearsTalk: Bool = false) throws -> HostLink {
        var machine = link(fresh(), saves: saves, hearsTalk: hearsTalk)
        let pushed = machine.handle(.controller(.committed(.move(Move(3), by: 0), try afterTwoMoves().hostMoved)))
        #expect(pushed.map(\.summary) == (saves ? ["save 1"] : ["send TURN", "crash after-send"]))
        return machine
    }

    func turn(_ state: MatchState) -> HostLink.Event {
        .inbound(.message(.turn(sequence: state.sequence, blob: MatchBlob.encode(state))))
    }

    @Test func theGuestsMoveIsJudgedOnceSubmittedAsJudgedAndConfirmedWhenCommitted() throws {
        var machine = try hostHasMoved()
        let guestMoved = try afterTwoMoves().guestMoved
        #expect(machine.handle(turn(guestMoved)).map(\.summary) == ["crash before-confirm", "submit 2 judged"])
        // The commit of that very change is answered CONFIRM, not pushed back.
        let committed = machine.handle(.controller(.committed(.move(Move(2), by: 1), guestMoved)))
        #expect(committed.map(\.summary) == ["send CONFIRM", "crash after-confirm"])
        #expect(machine.handle(.submitted(sequence: 2, .committed(guestMoved), mayRetry: true)).isEmpty)
        // Sent again, it is a replay of a committed change: refused, never submitted.
        #expect(machine.handle(turn(guestMoved)).map(\.summary) == ["reject replayed"])
    }

    @Test func aProposalOutOfTurnIsRefusedAndNeverReachesTheController() throws {
        var machine = link(fresh())
        // The host moves first; a guest "moving" anyway is told so.
        let early = try fresh().applying(.move(Move(3), by: 0), now: 1)
        #expect(machine.handle(turn(early)).map(\.summary) == ["reject notYourTurn"])
        // One out of sequence, too.
        var moved = try hostHasMoved()
        let guestMoved = try afterTwoMoves().guestMoved
        #expect(moved.handle(.inbound(.message(.turn(sequence: 5, blob: MatchBlob.encode(guestMoved))))).map(\.summary)
                == ["reject outOfSequence"])
    }

    @Test func aForgedBlobIsRefused() throws {
        var machine = try hostHasMoved()
        // The guest's move with the host's seat quit inside: not one change of the guest's.
        let (hostMoved, _) = try afterTwoMoves()
        let hostQuit = try hostMoved.applying(.quit(0), now: 2)
        let forged = machine.handle(.inbound(.message(.quit(sequence: 2, blob: MatchBlob.encode(hostQuit)))))
        #expect(forged.map(\.summary) == ["reject notYourSeat"])
        // Bytes that are no state at all.
        let garbage = machine.handle(.inbound(.message(.turn(sequence: 2, blob: Array(repeating: 0xAB, count: 40)))))
        #expect(garbage.count == 1 && garbage[0].summary.hasPrefix("reject"))
        // A refusal by the controller goes back as TURN_REJECTED; a busy host judges the frame again.
        #expect(machine.handle(.submitted(sequence: 2, .rejected(.awaitingConfirmation), mayRetry: true)).map(\.summary) == ["retry"])
        #expect(machine.handle(.submitted(sequence: 2, .rejected(.awaitingConfirmation), mayRetry: false)).map(\.summary)
                == ["reject outOfSequence"])
    }

    @Test func aHostileGuestsFramesCloseTheLinkButNeverEndTheMatch() throws {
        var machine = try hostHasMoved()
        let lie = machine.handle(.inbound(.message(.confirm(sequence: 1, stateHash: 9, deadline: 0))))
        #expect(lie.map(\.summary) == ["send GOODBYE", "close", "report Guest sent something invalid (CONFIRM is not a message a guest sends); the connection was closed", "tick"])
        #expect(!lie.contains { if case .fail = $0 { true } else { false } })
        // Its GOODBYE(matchOver) mid-match is the guest going away for now, with its reason kept for the notice.
        let over = machine.handle(.inbound(.message(.goodbye(.goodbyeMatchOver, sentence: "", finalBlob: MatchBlob.encode(fresh())))))
        #expect(over.map(\.summary) == ["close", "tick"])
        let heard = start + .seconds(1)
        let notice = machine.handle(.timerFired(now: heard, lastHeard: heard, linkOpen: false)).map(\.summary)
        #expect(notice.contains("report Guest disconnected (it says the match is over, but it is not over here) — waiting for Guest to come back (30 s left)"))
    }

    @Test func aSilentGuestIsReportedAndGivenUpOnWhenGraceRunsOut() throws {
        var machine = try hostHasMoved()
        let heartbeat = machine.handle(.timerFired(now: start + .seconds(1), lastHeard: start, linkOpen: true)).map(\.summary)
        #expect(heartbeat == ["schedule", "heartbeat"])
        let silent = machine.handle(.timerFired(now: start + .milliseconds(3100), lastHeard: start, linkOpen: true)).map(\.summary)
        #expect(silent.contains("report Guest is not responding — waiting for Guest to come back (30 s left)"))
        #expect(silent.contains("stand-in away"))
        // The controller hears it too (the front door's `away`), with the seat kept for the grace.
        #expect(silent.contains("presence away"), "\(silent)")
        let gone = machine.handle(.timerFired(now: start + .seconds(34), lastHeard: start, linkOpen: true)).map(\.summary)
        #expect(gone.last == "seat gone, not at a table: Guest did not come back within 30 s")
    }

    @Test func aGuestThatComesBackIsWelcomedWithWhatIsOnDiskOnly() throws {
        var machine = try hostHasMoved(saves: true)
        // Change 1 is being saved: the WELCOME carries change 0, the push waits for the save.
        let back = machine.handle(.rejoined(now: start + .seconds(5)))
        #expect(back.map(\.summary) == ["use the rejoined link", "welcome 0", "presence back", "report Guest is back", "stand-in ends"])
        let hostMoved = try afterTwoMoves().hostMoved
        #expect(machine.handle(.saved(hostMoved, frames: [.turn(sequence: 1, blob: MatchBlob.encode(hostMoved))], error: nil))
            .map(\.summary) == ["send TURN", "crash after-send"])
        #expect(machine.handle(.inbound(.message(.stateRequest(knownSequence: 0)))).map(\.summary) == ["send STATE 1"])
    }

    /// The fault matrix's "SIGSTOP host 9 s": the guest's TURN sat in the
    /// stopped host's socket while the guest came back on a new link. The
    /// WELCOME used to carry the state before that TURN and a CONFIRM for it
    /// followed on the new link, which the guest (having rolled the change
    /// back on WELCOME) took as a CONFIRM for a change it never sent.
    @Test func aGuestBackWhileItsChangeIsSettledIsWelcomedWithTheOutcomeAndNoConfirm() throws {
        var machine = try hostHasMoved(saves: true)
        let hostMoved = try afterTwoMoves().hostMoved
        _ = machine.handle(.saved(hostMoved, frames: [], error: nil))
        let guestMoved = try afterTwoMoves().guestMoved
        #expect(machine.handle(turn(guestMoved)).map(\.summary) == ["crash before-confirm", "submit 2 judged"])
        // Back on a new link while the old link's change is with the controller: the WELCOME waits.
        #expect(machine.handle(.rejoined(now: start + .seconds(9))).map(\.summary)
                == ["hold the rejoined link", "presence back", "report Guest is back", "stand-in ends"])
        // Committed: no CONFIRM anywhere (the guest dropped that change), only the save.
        #expect(machine.handle(.controller(.committed(.move(Move(2), by: 1), guestMoved))).map(\.summary) == ["save 2"])
        #expect(machine.handle(.submitted(sequence: 2, .committed(guestMoved), mayRetry: true)).isEmpty)
        // Saved: the new link is used and welcomed with the change in it.
        #expect(machine.handle(.saved(guestMoved, frames: [], error: nil)).map(\.summary)
                == ["use the rejoined link", "welcome 2"])
        // The replay of it on the new link is refused as a replay, as ever.
        #expect(machine.handle(turn(guestMoved)).map(\.summary) == ["reject replayed"])
    }

    @Test func aGuestBackWhileItsConfirmWaitsForTheSaveIsWelcomedOnceItIsSaved() throws {
        var machine = try hostHasMoved(saves: true)
        _ = machine.handle(.saved(try afterTwoMoves().hostMoved, frames: [], error: nil))
        let guestMoved = try afterTwoMoves().guestMoved
        _ = machine.handle(turn(guestMoved))
        let confirm = Message.confirm(sequence: 2, stateHash: guestMoved.stateHash, deadline: guestMoved.deadline)
        #expect(machine.handle(.controller(.committed(.move(Move(2), by: 1), guestMoved))).map(\.summary) == ["save 2"])
        _ = machine.handle(.submitted(sequence: 2, .committed(guestMoved), mayRetry: true))
        // Back before the save called back: the CONFIRM goes to the old link (closed), then the WELCOME.
        #expect(machine.handle(.rejoined(now: start + .seconds(9))).map(\.summary).first == "hold the rejoined link")
        // Back once more before it: still held.
        #expect(machine.handle(.rejoined(now: start + .seconds(10))).map(\.summary).first == "hold the rejoined link")
        #expect(machine.handle(.saved(guestMoved, frames: [confirm], error: nil)).map(\.summary)
                == ["send CONFIRM", "crash after-confirm", "use the rejoined link", "welcome 2"])
    }

    @Test func aGuestBackWhileItsChangeIsRefusedIsWelcomedWithoutIt() throws {
        var machine = try hostHasMoved()
        let guestMoved = try afterTwoMoves().guestMoved
        _ = machine.handle(turn(guestMoved))
        #expect(machine.handle(.rejoined(now: start + .seconds(9))).map(\.summary).first == "hold the rejoined link")
        // No TURN_REJECTED on the new link for a change sent on the old one, and no retry there either.
        #expect(machine.handle(.submitted(sequence: 2, .rejected(.awaitingConfirmation), mayRetry: true)).map(\.summary)
                == ["use the rejoined link", "welcome 1"])
        // Without saving, a commit from an old link is revealed at once.
        var unsaved = try hostHasMoved()
        _ = unsaved.handle(turn(guestMoved))
        _ = unsaved.handle(.rejoined(now: start + .seconds(9)))
        #expect(unsaved.handle(.controller(.committed(.move(Move(2), by: 1), guestMoved))).map(\.summary)
                == ["use the rejoined link", "welcome 2"])
    }

    @Test func aFailedSavePausesTheMatchAndTurnsTheGuestAwayUntilASaveSucceeds() throws {
        var machine = try hostHasMoved(saves: true)
        let hostMoved = try afterTwoMoves().hostMoved
        let failed = machine.handle(.saved(hostMoved, frames: [.turn(sequence: 1, blob: [])], error: "disk full"))
        #expect(failed.map(\.summary) == ["send GOODBYE", "close",
                                          "report could not save the match: disk full — paused until it can be saved; Guest was told",
                                          "start save retry"])
        #expect(machine.unavailable != nil)
        #expect(machine.handle(.rejoined(now: start + .seconds(2))).map(\.summary) == ["refuse rejoin"])
        #expect(machine.handle(.saveRetryDue).map(\.summary) == ["save again 1"])
        #expect(machine.handle(.savedAgain(hostMoved, error: "still full")).isEmpty)
        #expect(machine.handle(.savedAgain(hostMoved, error: nil)).map(\.summary)
                == ["stop save retry", "report the match is saved again; Guest can come back"])
        #expect(machine.unavailable == nil)
        #expect(machine.handle(.rejoined(now: start + .seconds(3))).map(\.summary).prefix(2) == ["use the rejoined link", "welcome 1"])
    }

    @Test func theEndIsHeldForItsSaveAndDeliveredWhenTheGuestAnswersIt() throws {
        var machine = link(fresh(), saves: true)
        let final = try fresh().applying(.quit(0), now: 1)
        #expect(machine.handle(.controller(.committed(.quit(0), final))).map(\.summary) == ["save 1"])
        // The end before its save: nothing reveals it yet.
        let ended = machine.handle(.matchEnded(final, failure: nil, linkOpen: true)).map(\.summary)
        #expect(ended == ["ack timer 2.0 seconds", "stop ticker"])
        let saved = machine.handle(.saved(final, frames: [.quit(sequence: 1, blob: MatchBlob.encode(final))], error: nil))
        #expect(saved.map(\.summary) == ["crash at-end", "send QUIT", "crash after-send", "send GOODBYE"])
        #expect(machine.delivery == .pending)
        // Heartbeats say nothing about the end; the guest's GOODBYE(matchOver) does.
        #expect(machine.handle(.inbound(.message(.heartbeat(senderTime: 1)))).map(\.summary) == ["to the after-match conversation"])
        let answered = machine.handle(.inbound(.message(.goodbye(.goodbyeMatchOver, sentence: "", finalBlob: []))))
        #expect(answered.map(\.summary) == ["delivery changed", "close", "to the after-match conversation"])
        #expect(machine.delivery == .delivered)
    }

    @Test func aGuestAwayAtTheEndGetsItWhenItComesBack() throws {
        var machine = link(fresh())
        let final = try fresh().applying(.quit(0), now: 1)
        _ = machine.handle(.controller(.committed(.quit(0), final)))
        // Away at the end: lost for now, and its way back stays open (no GOODBYE, no close).
        #expect(machine.handle(.matchEnded(final, failure: nil, linkOpen: false)).map(\.summary) == ["delivery changed", "stop ticker"])
        #expect(machine.delivery == .lost)
        let back = machine.handle(.rejoined(now: start + .seconds(3))).map(\.summary)
        #expect(back.prefix(5) == ["use the rejoined link", "welcome 1", "send GOODBYE", "close", "delivery changed"])
        #expect(machine.delivery == .delivered)
    }

    @Test func leavingForNowSaysGoodbyeOnceAndTurnsTheGuestAway() {
        var machine = link(fresh())
        #expect(machine.handle(.leaveForNow("bye", linkOpen: true)).map(\.summary) == ["stop ticker", "send GOODBYE", "close", "linger"])
        #expect(machine.unavailable == "This host is going away for now; try again in a moment.")
        #expect(machine.handle(.timerFired(now: start + .seconds(40), lastHeard: start, linkOpen: false)).isEmpty)
    }

    @Test func talkIsJudgedByTheHostsTableTalkAndRelayedOnlyAfterTheSaveItFollows() throws {
        var off = link(fresh())
        #expect(off.handle(.inbound(.message(.talk(.say(Array("hi".utf8)))))).map(\.summary) == ["send TALK"])
        var machine = try hostHasMoved(saves: true, hearsTalk: true)
        #expect(machine.handle(.inbound(.message(.talk(.say(Array("hi".utf8)))))).map(\.summary) == ["hear talk"])
        // A line after change 1 waits for change 1's save.
        let line = TalkLine(role: .player, seat: 0, name: "Liar", text: "hello", afterSequence: 1)
        #expect(machine.handle(.controller(.talk(line))).isEmpty)
        let hostMoved = try afterTwoMoves().hostMoved
        #expect(machine.handle(.saved(hostMoved, frames: [], error: nil)).map(\.summary) == ["send TALK"])
    }
}

extension HostLink.Action {
    /// One line per action, for comparing what a shell would do.
    var summary: String {
        switch self {
        case .send(.turnRejected(_, let reason, _)): "reject \(reason)"
        case .send(.state(let blob)): "send STATE \((try? MatchBlob.decode(blob))?.sequence ?? 999)"
        case .send(let message): "send \(message.type)"
        case .sendHeartbeat: "heartbeat"
        case .close: "close"
        case .reachCrashPoint(let phase): "crash \(phase.rawValue)"
        case .submit(let sequence, _, let judged): "submit \(sequence)\(judged == nil ? "" : " judged")"
        case .retryProposal: "retry"
        case .hearTalk: "hear talk"
        case .save(let state, _): "save \(state.sequence)"
        case .saveAgain(let state): "save again \(state.sequence)"
        case .startSaveRetry: "start save retry"
        case .stopSaveRetry: "stop save retry"
        case .scheduleTicker: "schedule"
        case .stopTicker: "stop ticker"
        case .tick: "tick"
        case .startAckTimer(let after): "ack timer \(after)"
        case .deliveryChanged: "delivery changed"
        case .report(let notice): "report \(notice)"
        case .reportPresence(let away, _): "presence \(away ? "away" : "back")"
        case .standInAway: "stand-in away"
        case .standInEnds: "stand-in ends"
        case .seatGone(let gone, let atTable, _): "seat gone, \(atTable ? "at a table" : "not at a table"): \(gone)"
        case .fail(.desync(let why)): "fail desync: \(why)"
        case .fail(.connectionLost(let why)): "fail connection lost: \(why)"
        case .keepForAfterMatch: "keep for the after-match conversation"
        case .toAfterMatch: "to the after-match conversation"
        case .useRejoinedLink: "use the rejoined link"
        case .holdRejoinedLink: "hold the rejoined link"
        case .welcome(let state): "welcome \(state.sequence)"
        case .refuseRejoin: "refuse rejoin"
        case .linger: "linger"
        }
    }
}
