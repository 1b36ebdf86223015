import Bots
import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Issue 39: a game from another package (Nim, registered by the caller) is
/// hosted, joined, played to the end and resumed through the unchanged
/// Session API, over in-memory links and real loopback TCP; a guest whose
/// parlor lacks the game is told which game and version it lacks.
@Suite("A registered game over the Session API", .serialized)
struct RegisteredGameProtocolTests {
    init() { Nim.register() }

    /// Both sides' final states, after each has played to the end.
    static func playToTheEnd(_ hosted: HostedMatch, _ joined: JoinedMatch) async throws -> (host: MatchState, guest: MatchState) {
        let (hostController, _) = hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.seeded(1)) }
        let (guestController, _) = joined.makeController { BotParticipant(playerID: $0, bot: Bot(level: .medium, seed: 2)) }
        try await guestController.start()
        try await hostController.start()
        let hostFinal = try #require(await finished(hostController))
        let guestFinal = try #require(await finished(guestController))
        #expect(await hostController.stopFailure == nil)
        #expect(await guestController.stopFailure == nil)
        return (hostFinal, guestFinal)
    }

    /// Checks what a person would see at the end of a Nim match on both sides.
    static func expectSameEnd(_ final: (host: MatchState, guest: MatchState)) {
        #expect(final.host.gameID == "nim" && final.guest.game(as: Nim.self) != nil)
        #expect(final.host.isEnded && final.guest.isEnded)
        #expect(final.guest.game(as: Nim.self)?.heaps == [0, 0, 0])
        #expect(final.host.stateHash == final.guest.stateHash)
        #expect(final.host.moves == final.guest.moves)
        #expect(Set(final.host.seats.map(\.outcome)) == [.won, .lost])
    }

    /// `saved` as the host (seat 0) and the guest (seat 1) kept it on disk, taken back up by both:
    /// the host resumes it and the guest resumes its seat over an in-memory switchboard (kept for reconnects).
    static func resume(_ saved: MatchState) async throws -> (MatchHost, HostedMatch, JoinedMatch, Switchboard) {
        let onDisk = try MatchBlob.decode(MatchBlob.encode(saved))
        let token = SeatToken.random()
        let (hostSeat, guestSeat) = (saved.seats[0], saved.seats[1])
        let host = try MatchHost(configuration: HostConfiguration(gameID: saved.gameID, hostName: hostSeat.name, hostPlayerID: hostSeat.playerID,
                                                                  timeouts: quickTimeouts, appVersion: "test"),
                                 resuming: SavedHostMatch(state: onDisk, hostSeat: 0, seatToken: token))
        let board = Switchboard()
        board.connect(to: host)
        let hello = Hello(appVersion: "test", playerID: guestSeat.playerID, playerName: guestSeat.name,
                          games: [GameVersion.local(saved.gameID)].compactMap { $0 }, matchID: onDisk.matchID, seatToken: token)
        async let resuming = Guest.resume(dial: board.dialer, hello: hello, saved: onDisk,
                                          options: GuestOptions(grace: .seconds(5), reconnect: quickRetry))
        let hosted = try await host.waitForGuest()
        let joined = try await resuming
        return (host, hosted, joined, board)
    }

    @Test("over an in-memory link, host and guest play Nim to the end with equal state hashes")
    func inMemory() async throws {
        let pair = try await JoinedPair.make(game: Nim.id)
        #expect(pair.joined.initialState.gameID == "nim")
        Self.expectSameEnd(try await Self.playToTheEnd(pair.hosted, pair.joined))
        await pair.host.shutdown()
    }

    @Test("over loopback TCP, a guest joins a Nim host by address and both end with equal state hashes")
    func loopbackTCP() async throws {
        let (listener, host, serving) = try LoopbackMatchTests().openHost(Nim.id)
        defer { serving.cancel(); listener.close() }
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        // The HELLO's default game list is the catalog, which now has Nim.
        async let joining = Guest.join(over: connection.byteStream(),
                                       hello: Hello(appVersion: "test", playerID: .random(), playerName: "Ben"))
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        Self.expectSameEnd(try await Self.playToTheEnd(hosted, joined))
        await host.shutdown()
    }

    @Test("a host resumes a saved Nim match, the guest takes its seat back, and they finish it alike")
    func resumed() async throws {
        let hostID = PlayerID.random(), guestID = PlayerID.random()
        var saved = MatchState(matchID: .random(), game: try #require(GameCatalog.newGame(id: Nim.id)),
                               seats: [Seat(playerID: hostID, name: "Ana"), Seat(playerID: guestID, name: "Ben")])
        saved = try saved.applying(.move(Nim.move(heap: 2, count: 2), by: 0), now: 1)
        saved = try saved.applying(.move(Nim.move(heap: 0, count: 3), by: 1), now: 2)
        let (host, hosted, joined, _) = try await Self.resume(saved)
        #expect(joined.initialState.moves == saved.moves)
        let final = try await Self.playToTheEnd(hosted, joined)
        Self.expectSameEnd(final)
        #expect(Array(final.host.moves.prefix(2)) == saved.moves)
        await host.shutdown()
    }

    @Test("a guest with more than 32 games joins Nim when its HELLO puts Nim first; listed last, Nim was not among the 32 sent")
    func moreGamesThanAHelloCarries() async throws {
        // 40 games before Nim, as a process with that many registered would list them.
        let many = (1...40).map { GameVersion(id: "game-\($0)", rulesVersion: 1) } + [try #require(GameVersion.local(Nim.id))]
        func hello(_ games: [GameVersion]) -> Hello { Hello(appVersion: "test", playerID: .random(), playerName: "Ben", games: games) }
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: Nim.id, hostName: "Ana", hostPlayerID: .random(), timeouts: quickTimeouts, appVersion: "test"))

        // Listed last, Nim is cut from the HELLO: the host does not see it.
        let (lateEnd, lateHostEnd) = InMemoryByteStream.pair()
        await host.accept(lateHostEnd)
        do {
            _ = try await Guest.join(over: lateEnd, hello: hello(many))
            Issue.record("Nim was found in a HELLO that cut it")
        } catch {
            guard case .rejected(let reason, let sentence) = error else { Issue.record("\(error)"); return }
            #expect(reason == .gameUnknown && sentence.contains("you offered game-1, game-2"))
        }
        #expect(await host.hasGuest == false)

        // Nim first: it travels, with the first 31 of the others after it.
        let first = GameVersion.listing(many, first: Nim.id)
        let sent = try Message.decode(Frame(type: .hello, payload: Message.hello(hello(first)).payload))
        guard case .hello(let received) = sent else { Issue.record("not a HELLO: \(sent)"); await host.shutdown(); return }
        #expect(received.games.count == MessageLimits.maximumGames)
        #expect(received.games.first == GameVersion.local(Nim.id))
        #expect(Array(received.games.dropFirst()) == Array(many.prefix(MessageLimits.maximumGames - 1)))
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        async let joining = Guest.join(over: guestEnd, hello: hello(first))
        let hosted = try await host.waitForGuest()
        let joined = try await joining
        #expect(joined.initialState.gameID == Nim.id)
        Self.expectSameEnd(try await Self.playToTheEnd(hosted, joined))
        await host.shutdown()
    }

    @Test("this process's catalog with the game being joined first: every game once, that one first, unknown ids change nothing")
    func catalogWithTheJoinedGameFirst() {
        let listed = GameVersion.catalog(first: Nim.id)
        #expect(listed.first == GameVersion.local(Nim.id))
        #expect(listed.count == GameVersion.catalog.count && Set(listed) == Set(GameVersion.catalog))
        #expect(GameVersion.catalog(first: "no-such-game") == GameVersion.catalog)
        #expect(GameVersion.catalog(first: Connect4.id) == GameVersion.catalog, "the first game is already first")
    }

    @Test("a guest whose parlor lacks Nim is refused with a sentence naming the game and its rules version")
    func guestWithoutTheGame() async throws {
        let host = try MatchHost(configuration: HostConfiguration(
            gameID: Nim.id, hostName: "Ana", hostPlayerID: .random(), timeouts: quickTimeouts, appVersion: "test"))
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        // A parlor without Nim offers the built-in games only.
        let builtIn = GameCatalog.builtIn.compactMap { GameVersion.local($0.id) }
        do {
            _ = try await Guest.join(over: guestEnd, hello: Hello(appVersion: "test", playerID: .random(), playerName: "Ben",
                                                                  games: builtIn))
            Issue.record("a guest without Nim was admitted")
        } catch {
            let offered = builtIn.map(\.id).joined(separator: ", ")
            #expect(error == .rejected(.gameUnknown, "This host is hosting nim (rules version 1), which your parlor does not have; "
                                       + "you offered \(offered)."))
            #expect("\(error)".contains("nim (rules version 1)"))
        }
        #expect(await host.hasGuest == false)
        await host.shutdown()
    }
}
