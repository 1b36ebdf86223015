import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// Issue 39, item 3, "a message with a turn": over the LAN a move's message
/// travels in its blob (format 4) both ways, only between parlors that speak
/// protocol 4, and a guest or host whose message breaks the rules is refused.
@Suite("A message with a turn over the Session API", .serialized)
struct TurnMessageProtocolTests {
    /// Holds the host's player, made inside `LoopbackMatch.start`'s closure.
    final class HostSeat: Sendable {
        let participant = Mutex<LocalParticipant?>(nil)
        func make(_ id: PlayerID) -> LocalParticipant {
            let local = LocalParticipant(playerID: id)
            participant.withLock { $0 = local }
            return local
        }
    }

    static func message(_ text: String) throws -> TurnMessage { try TurnMessage(text) }

    @Test("over loopback TCP the host's message reaches the guest with the move, the guest's reaches the host, and both keep them alike")
    func bothWays() async throws {
        let seat = HostSeat()
        let match = try await LoopbackMatch.start(seed: 5, appVersion: "test", hostPlayer: { id, _ in seat.make(id) })
        let host = try #require(seat.participant.withLock { $0 })
        #expect(match.joined.remote.readsTurnMessages && match.hosted.remote.readsTurnMessages, "both speak protocol 4")
        #expect(match.joined.seat == 1)

        guard case .committed = await host.play(Move(3), message: try Self.message("Your move, Guest")) else {
            Issue.record("the host's move with a message was not committed")
            return
        }
        var seen: MatchChange?
        for await event in match.events {
            if case .committed(let change, _) = event { seen = change; break }
        }
        #expect(seen == .move(Move(3), by: 0, message: try Self.message("Your move, Guest")))
        #expect(await match.guestController.state.message?.text == "Your move, Guest")

        guard case .committed(let guestAfter) = await match.local.play(Move(3), message: try Self.message("Nice one, Host")) else {
            Issue.record("the guest's move with a message was not committed")
            return
        }
        let hostAfter = await match.hostController.state
        #expect(hostAfter.message?.text == "Nice one, Host")
        #expect(hostAfter.moves.map(\.message?.text) == ["Your move, Guest", "Nice one, Host"])
        #expect(hostAfter.stateHash == guestAfter.stateHash && MatchBlob.encode(hostAfter)[5] == 4)
        await match.finish()
    }

    /// A host of this build and a guest whose HELLO offers `versions`, over an in-memory link, each side played by a `LocalParticipant`.
    static func pair(guestVersions: [UInt8]) async throws -> (MatchHost, host: LocalParticipant, guest: LocalParticipant, JoinedMatch) {
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: "connect4", hostName: "Ana", hostPlayerID: .random(), seatPreference: .first, timeouts: quickTimeouts, appVersion: "test"))
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        async let joining = Guest.join(over: guestEnd, hello: Hello(protocolVersions: guestVersions, appVersion: "0.2.0",
                                                                     playerID: .random(), playerName: "Ben"))
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        let (hostController, hostLocal) = hosted.makeController { LocalParticipant(playerID: $0) }
        let (guestController, guestLocal) = joined.makeController { LocalParticipant(playerID: $0) }
        try await hostController.start()
        try await guestController.start()
        return (host, hostLocal, guestLocal, joined)
    }

    @Test("with a guest whose parlor offers protocols 2 and 1 only, a message is refused on both sides with a sentence, and the move without one is played")
    func anOlderPeerIsNeverSentOne() async throws {
        let (host, ana, ben, joined) = try await Self.pair(guestVersions: [2, 1])
        #expect(!joined.remote.readsTurnMessages)
        guard case .rejected(.messagesUnreadable) = await ana.play(Move(3), message: try Self.message("Your move")) else {
            Issue.record("the host sent a message to a guest that cannot read one")
            return
        }
        guard case .committed(let after) = await ana.play(Move(3)) else {
            Issue.record("the host's move without a message was not played")
            return
        }
        #expect(MatchBlob.encode(after)[5] == 1, "the blob a protocol-2 guest gets is format 1, as before")
        // The guest's own message is refused before anything leaves, too.
        guard case .rejected(.messagesUnreadable) = await ben.play(Move(4), message: try Self.message("Thanks")) else {
            Issue.record("the guest sent a message to a host that cannot read one")
            return
        }
        await host.shutdown()
    }

    /// A connect4 match after Ana's (seat 0's) first move with a message, and the blob of Ben's (seat 1's) answer with `text`'s bytes as its message.
    static func guestAnswer(text: [UInt8]) throws -> (committed: MatchState, blob: [UInt8]) {
        let committed = try MatchFixtures.newMatch("connect4").applying(.move(Move(3), by: 0, message: message("Your move")), now: 1)
        let honest = try committed.applying(.move(Move(3), by: 1, message: message("placeholder")), now: 2)
        return (committed, BlobForge.replacingLastMessage(in: MatchBlob.encode(honest), old: "placeholder", with: text))
    }

    @Test("a hostile guest's TURN whose message is too long, has an escape code or is not UTF-8 is refused badBlob with a sentence naming the message",
          arguments: [Array(repeating: UInt8(ascii: "a"), count: 141), Array("\u{1B}[2Jgotcha".utf8), [0xFF, 0xFE]])
    func aHostileGuestsMessageIsRefused(text: [UInt8]) throws {
        let (committed, blob) = try Self.guestAnswer(text: text)
        let result = HostTurnValidator.validate(.turn, sequence: 2, blob: blob, committed: committed, guestSeat: 1, committedHashes: [:])
        guard case .failure(let rejection) = result else {
            Issue.record("the host took a TURN with a bad message")
            return
        }
        #expect(rejection == TurnRejection(.badBlob, "The match state is unreadable: the match data has an invalid message with move 2."))
        // The same TURN with a message by the rules is taken, message and all.
        let (_, honest) = try Self.guestAnswer(text: Array("Good game".utf8))
        let taken = try HostTurnValidator.validate(.turn, sequence: 2, blob: honest, committed: committed, guestSeat: 1, committedHashes: [:]).get()
        #expect(taken.change == .move(Move(3), by: 1, message: try Self.message("Good game")))
    }

    @Test("a guest's TURN that rewrites the host's earlier message is refused historyRewritten; a lying host's push that does is a desync")
    func rewritingAMessageIsRefused() throws {
        let start = MatchFixtures.newMatch("connect4")
        let committed = try start.applying(.move(Move(3), by: 0, message: Self.message("Your move")), now: 1)
        let rewritten = try start.applying(.move(Move(3), by: 0, message: Self.message("I resign")), now: 1)
            .applying(.move(Move(3), by: 1), now: 2)
        let result = HostTurnValidator.validate(.turn, sequence: 2, blob: MatchBlob.encode(rewritten), committed: committed, guestSeat: 1,
                                                committedHashes: [:])
        guard case .failure(let rejection) = result else {
            Issue.record("the host took a TURN that rewrites its message")
            return
        }
        #expect(rejection == TurnRejection(.historyRewritten, "That state changes moves that were already played."))
        // A host's push whose message breaks the rules: the guest names it.
        let known = try start.applying(.move(Move(3), by: 0), now: 1)
        let push = BlobForge.replacingLastMessage(
            in: MatchBlob.encode(try known.applying(.move(Move(3), by: 1, message: Self.message("placeholder")), now: 2)),
            old: "placeholder", with: Array("\u{1B}]0;pwned\u{07}".utf8))
        guard case .failure(let desync) = GuestPushValidator.validate(.turn, sequence: 2, blob: push, known: known, guestSeat: 0) else {
            Issue.record("the guest took a push with an escape code in its message")
            return
        }
        #expect(desync.description == "the host's change 2 is invalid: the match data has an invalid message with move 2")
    }
}

/// A saved match with messages taken back up: by a guest of this build, and not by an older one.
@Suite("A message with a turn, resumed", .serialized)
struct TurnMessageResumeTests {
    /// A connect4 match the host (seat 0) saved after two moves, each with a message.
    static func saved() throws -> MatchState {
        var state = MatchState(matchID: .random(), game: Connect4(), seats: [Seat(playerID: .random(), name: "Ana"),
                                                                           Seat(playerID: .random(), name: "Ben")])
        state = try state.applying(.move(Move(3), by: 0, message: TurnMessage("Your move")), now: 1)
        return try state.applying(.move(Move(3), by: 1, message: TurnMessage("Thanks")), now: 2)
    }

    @Test("the host resumes a saved match with messages, the guest takes its seat back with them, and the next message travels")
    func resumedWithItsMessages() async throws {
        let saved = try Self.saved()
        let (host, hosted, joined, _) = try await RegisteredGameProtocolTests.resume(saved)
        #expect(joined.initialState.moves.map(\.message?.text) == ["Your move", "Thanks"])
        #expect(joined.initialState.stateHash == saved.stateHash)
        let (hostController, ana) = hosted.makeController { LocalParticipant(playerID: $0) }
        let (guestController, _) = joined.makeController { LocalParticipant(playerID: $0) }
        let guestEvents = EventRecorder()
        await guestEvents.record(guestController)
        try await hostController.start()
        try await guestController.start()
        guard case .committed(let after) = await ana.play(Move(2), message: try TurnMessage("Back again")) else {
            Issue.record("the host's move with a message was not committed after the resume")
            return
        }
        #expect(after.moves.map(\.message?.text) == ["Your move", "Thanks", "Back again"])
        // The host does not wait for the guest to take its push: wait for the guest's commit.
        #expect(await guestEvents.waitUntil { $0.contains { if case .committed(_, let state) = $0 { state.sequence == 3 } else { false } } })
        let guestState = await guestController.state
        #expect(guestState.message?.text == "Back again" && guestState.stateHash == after.stateHash)
        await host.shutdown()
    }

    @Test("a guest whose parlor offers protocols 2 and 1 cannot take back the seat of a match with messages: REJECT versionUnsupported with a sentence")
    func anOlderGuestIsRefused() async throws {
        let saved = try Self.saved()
        let token = SeatToken.random()
        let host = try MatchHost(configuration: HostConfiguration(gameID: "connect4", hostName: "Ana", hostPlayerID: saved.seats[0].playerID,
                                                                  timeouts: quickTimeouts, appVersion: "test"),
                                 resuming: SavedHostMatch(state: saved, hostSeat: 0, seatToken: token))
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let peer = RawPeer(stream: guestEnd)
        await peer.send(.hello(Hello(protocolVersions: [2, 1], appVersion: "0.2.0", playerID: saved.seats[1].playerID, playerName: "Ben",
                                     matchID: saved.matchID, seatToken: token)))
        guard case .reject(let reason, let sentence)? = await peer.nextMessage() else {
            Issue.record("an older guest was welcomed back to a match with messages")
            return
        }
        #expect(reason == .versionUnsupported)
        #expect(sentence == "This match carries messages with its moves, which needs parlor protocol 4; yours speaks 2, 1: update parlor to take your seat back.")
        await host.shutdown()
    }
}

/// A hostile guest that offered protocols 2 and 1, then sends a move with a message anyway.
@Suite("A message over a connection below protocol 4", .serialized)
struct TurnMessageBelowProtocol4Tests {
    @Test("the host answers TURN_REJECTED badBlob with a sentence, commits nothing, and the same move without the message is confirmed")
    func refusedAtTheHost() async throws {
        var session = try await RawGuestSession.start(hello: Hello(protocolVersions: [2, 1], appVersion: "0.2.0",
                                                                   playerID: .random(), playerName: "Mallory"))
        #expect(session.welcome.protocolVersion == 2)
        let (sequence, blob) = try session.proposal(.move(Move(3), by: session.seat, message: try TurnMessage("gotcha")))
        let answer = await session.send(.turn(sequence: sequence, blob: blob))
        #expect(answer == .turnRejected(sequence: 1, reason: .badBlob,
                                        sentence: "This match's connection is below protocol 4: a move cannot carry a message."))
        #expect(await session.hostController.state.sequence == 0)
        try await session.play(3)
        #expect(session.state.sequence == 1)
    }
}
