import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// docs/PROTOCOL.md, section 6: a code this parlor does not know (from a
/// newer peer) is shown by number with its sentence, for TURN_REJECTED and
/// GOODBYE as for REJECT.
@Suite struct UnknownReasonProtocolTests {
    static let newerTurnCode = ReasonCode(rawValue: 299)
    static let newerGoodbyeCode = ReasonCode(rawValue: 399)

    @Test func aTurnRejectedWithAnUnknownCodeIsShownByNumberWithItsSentence() async throws {
        let script = try await LyingHostProtocolTests.Scripted.make(guestSeat: 0)
        let events = EventRecorder()
        await events.record(script.controller)
        let playing = Task { await script.local.play(Move(3)) }
        guard case .turn(let sequence, _)? = await LyingHostProtocolTests.guestSays(script.peer) else {
            Issue.record("no TURN")
            return
        }
        await script.peer.send(.turnRejected(sequence: sequence, reason: Self.newerTurnCode, sentence: "Moves on the rim wait for rules 2."))
        _ = await playing.value
        let shown = await events.waitUntil { events in
            events.contains {
                if case .rolledBack(_, .rejected(let why), _) = $0 { why == "reason 299: Moves on the rim wait for rules 2." } else { false }
            }
        }
        let seen = await events.events
        #expect(shown, "\(seen)")
    }

    @Test func aGoodbyeWithAnUnknownCodeFromTheHostIsShownByNumberWithItsSentence() async throws {
        let script = try await LyingHostProtocolTests.Scripted.make(guestSeat: 0)
        await script.peer.send(.goodbye(Self.newerGoodbyeCode, sentence: "gone to a newer table", finalBlob: []))
        _ = try #require(await finished(script.controller, within: .seconds(5)))
        let failure = await script.controller.stopFailure
        #expect(failure == .connectionLost("Liar left: reason 399: gone to a newer table"))
    }

    @Test(arguments: AttackTransport.allCases)
    func aGoodbyeWithAnUnknownCodeFromTheGuestIsShownByNumberWithItsSentence(over transport: AttackTransport) async throws {
        let session = try await RawGuestSession.start(over: transport)
        let events = EventRecorder()
        await events.record(session.hostController)
        await session.peer.send(.goodbye(Self.newerGoodbyeCode, sentence: "gone to a newer table", finalBlob: []))
        let shown = await events.waitUntil { events in
            events.contains {
                if case .notice(let text) = $0 { text.hasPrefix("Mallory disconnected (reason 399: gone to a newer table)") } else { false }
            }
        }
        let notices = await events.notices
        #expect(shown, "\(notices)")
    }

    @Test func aKnownCodeIsShownByItsSentenceAlone() {
        #expect(ReasonCode.illegalMove.shown(with: "That move is not allowed by the rules.") == "That move is not allowed by the rules.")
        #expect(Self.newerTurnCode.shown(with: "") == "reason 299")
        // REJECT, for comparison: the number with the sentence.
        #expect(JoinError.rejected(ReasonCode(rawValue: 199), "Come back with rules 2.").description
                == "the host refused: reason 199: Come back with rules 2.")
    }
}
