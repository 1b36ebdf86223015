import Dispatch
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Issue 37: frames from one peer are processed strictly in arrival order
/// (docs/PROTOCOL.md section 8), even when several arrive in one segment and
/// the first one's answer waits for a save. Each save here takes 60 ms, so a
/// host that answered the later frames at once would answer them first.
@Suite struct ArrivalOrderProtocolTests {
    /// A save that calls back after `delay`, as a slow disk does.
    static func slowSave(_ delay: Duration = .milliseconds(60)) -> RemoteGuest.Persist {
        { _, then in
            let nanoseconds = Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { then(nil) }
        }
    }

    /// The frames of `messages`, in one write.
    static func segment(_ messages: [Message]) -> [UInt8] { messages.flatMap(\.encoded) }

    /// The next messages other than HEARTBEAT, until `count` came or nothing more does.
    static func answers(_ peer: RawPeer, count: Int) async -> [Message] {
        var seen: [Message] = []
        while seen.count < count, let message = await peer.nextMessage(timeout: .seconds(5)) {
            if case .heartbeat = message { continue }
            seen.append(message)
        }
        return seen
    }

    @Test("TURN, HEARTBEAT and STATE_REQUEST in one write: CONFIRM first, then STATE holding that turn", arguments: AttackTransport.allCases)
    func turnThenStateRequest(over transport: AttackTransport) async throws {
        let session = try await RawGuestSession.start(over: transport, save: Self.slowSave())
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat))
        await session.peer.send(bytes: Self.segment([.turn(sequence: sequence, blob: blob), .heartbeat(senderTime: 1), .stateRequest(knownSequence: 0)]))
        let seen = await Self.answers(session.peer, count: 2)
        guard seen.count == 2, case .confirm(sequence, _, _) = seen[0], case .state(let stateBlob) = seen[1] else {
            Issue.record("expected CONFIRM \(sequence) then STATE, got \(seen)")
            return
        }
        #expect(try MatchBlob.decode(stateBlob).sequence == sequence, "the STATE answers after the turn it follows")
    }

    @Test("a legal TURN and an out-of-turn TURN in one write: CONFIRM of the first, then the refusal of the second",
          arguments: AttackTransport.allCases)
    func legalThenOutOfTurn(over transport: AttackTransport) async throws {
        let session = try await RawGuestSession.start(over: transport, save: Self.slowSave())
        let first = try session.state.applying(.move(Move(3), by: session.seat), now: wallClockMilliseconds())
        // A second move of ours, as if it were still our turn: forged on top of the first.
        let second = BlobForge.forge(MatchBlob.encode(try first.applying(.move(Move(4), by: session.hostSeat), now: wallClockMilliseconds()))) {
            $0[BlobForge.lastMoveOffset(in: $0)] = UInt8(session.seat)
        }
        await session.peer.send(bytes: Self.segment([.turn(sequence: first.sequence, blob: MatchBlob.encode(first)),
                                                    .turn(sequence: first.sequence + 1, blob: second)]))
        let seen = await Self.answers(session.peer, count: 2)
        guard seen.count == 2, case .confirm(first.sequence, _, _) = seen[0],
              case .turnRejected(let rejected, let reason, _) = seen[1] else {
            Issue.record("expected CONFIRM then TURN_REJECTED, got \(seen)")
            return
        }
        #expect(rejected == first.sequence + 1 && reason == .notYourTurn, "\(reason)")
    }

    @Test("a TURN and a GOODBYE in one write: the turn is committed and confirmed before the host lets the guest go",
          arguments: AttackTransport.allCases)
    func turnThenGoodbye(over transport: AttackTransport) async throws {
        let session = try await RawGuestSession.start(over: transport, save: Self.slowSave())
        let (sequence, blob) = try session.proposal(.move(Move(2), by: session.seat))
        await session.peer.send(bytes: Self.segment([.turn(sequence: sequence, blob: blob),
                                                    .goodbye(.goodbyeLeaving, sentence: "back soon", finalBlob: [])]))
        let seen = await Self.answers(session.peer, count: 1)
        guard case .confirm(sequence, _, _)? = seen.first else {
            Issue.record("expected CONFIRM \(sequence) before the link closed, got \(seen)")
            return
        }
        #expect(await session.hostController.state.sequence == sequence)
    }
}
