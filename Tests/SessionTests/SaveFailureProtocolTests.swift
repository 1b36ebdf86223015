import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// A save that fails stops the match, loudly (issue 17, item 3): the host
/// sends no CONFIRM, push or STATE for a state it failed to save, tells its
/// player and the guest at once (GOODBYE cannotSave), refuses the guest's
/// way back while the state is unsaved, and goes on once a save succeeds.
@Suite struct SaveFailureProtocolTests {
    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "write failed: No space left on device" }
    }

    @Test func aFailedSaveSendsNothingPausesAndGoesOnOnceASaveSucceeds() async throws {
        let pair = try await JoinedPair.make(seat: .second)
        let failing = Atomic<Bool>(true)
        let saved = Mutex<[UInt32]>([])
        pair.hosted.remote.persistBeforeSending { state in
            if failing.load(ordering: .acquiring) { throw DiskFull() }
            saved.withLock { $0.append(state.sequence) }
        }
        let (hostController, _) = pair.hosted.makeController { LocalParticipant(playerID: $0) }
        let (guestController, guestLocal) = pair.joined.makeController { LocalParticipant(playerID: $0) }
        let hostEvents = EventRecorder()
        let guestEvents = EventRecorder()
        await hostEvents.record(hostController)
        await guestEvents.record(guestController)
        try await hostController.start()
        try await guestController.start()

        // The guest moves; the host commits it but cannot save it: no CONFIRM.
        let result = await guestLocal.play(Move(3))
        if case .committed = result { Issue.record("the guest got a CONFIRM for a state the host did not save") }
        #expect(await hostController.state.sequence == 1)
        #expect(await guestController.state.sequence == 0)
        // Told at once, on both sides.
        #expect(await hostEvents.waitUntil {
            $0.contains { if case .notice(let text) = $0 { text.contains("could not save the match: write failed") } else { false } }
        })
        #expect(await guestEvents.waitUntil {
            $0.contains { if case .failed(.connectionLost(let why), _) = $0 { why.contains("cannot save the match") } else { false } }
        })
        #expect(saved.withLock { $0 }.isEmpty)

        // Coming back while the state is unsaved: REJECT busy, nothing revealed.
        let hello = Hello(appVersion: "test", playerID: pair.joined.playerID, playerName: "Guest",
                          games: [GameVersion.local("connect4")].compactMap { $0 },
                          matchID: pair.joined.initialState.matchID, seatToken: pair.joined.seatToken)
        let early = try await Self.comeBack(pair.host, hello)
        guard case .reject(let reason, let sentence)? = early else {
            Issue.record("expected REJECT busy while unsaved, got \(String(describing: early))")
            return
        }
        #expect(reason == .busy && sentence.contains("cannot save"))

        // The disk has room again: the retry saves, and the guest is taken back with the saved state.
        failing.store(false, ordering: .releasing)
        #expect(await hostEvents.waitUntil {
            $0.contains { if case .notice(let text) = $0 { text.contains("saved again") } else { false } }
        })
        #expect(saved.withLock { $0 } == [1])
        guard case .welcome(let welcome)? = try await Self.comeBack(pair.host, hello) else {
            Issue.record("the guest was not taken back after the save succeeded")
            return
        }
        #expect(try MatchBlob.decode(welcome.matchBlob).sequence == 1)
    }

    /// One HELLO taking the seat back; the host's first answer.
    static func comeBack(_ host: MatchHost, _ hello: Hello) async throws -> Message? {
        let (client, server) = InMemoryByteStream.pair()
        await host.accept(server)
        let peer = RawPeer(stream: client)
        await peer.send(.hello(hello))
        return await peer.nextMessage()
    }
}
