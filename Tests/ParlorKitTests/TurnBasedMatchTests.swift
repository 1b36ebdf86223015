import Discovery
import Games
import Match
import ParlorKit
import ParlorTestSupport
import Secure
import Session
import Testing

/// The front door, as a developer with a game of their own uses it: the test
/// suite's `Nim` is not in the Games module. Real sockets on 127.0.0.1.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedMatchTests {
    init() {
        Nim.register()
        MisereNim.register()
    }

    /// What one side saw, and the game it ended with.
    struct Seen: Sendable {
        var events: [String] = []
        var turnsPlayed = 0
        var final: Nim?
        var endedWith: [TurnBasedParticipant] = []
    }

    /// Plays the first legal move whenever it is this side's turn, until the match ends.
    static func playToTheEnd(_ match: TurnBasedMatch<Nim>) async throws -> Seen {
        var seen = Seen()
        for await event in match.events {
            switch event {
            case .turnBegan(let participant, let game):
                seen.events.append("turn \(participant.seat)")
                guard participant.isLocal, let move = game.legalMoves.first else { continue }
                #expect(await match.currentParticipant == participant)
                try await match.endTurn(with: move)
                seen.turnsPlayed += 1
            case .turnEnded(let participant, let move, _, _):
                seen.events.append("ended \(participant.seat) \(move.map { "\($0.rawValue)" } ?? "-")")
            case .ended(let participants, let game):
                seen.events.append("over")
                seen.final = game
                seen.endedWith = participants
            case .stopped(let reason, _):
                seen.events.append("stopped \(reason)")
            case .away, .back, .talk:
                break
            }
        }
        return seen
    }

    static func hostAndJoin(security: (ChannelSecurity, ChannelSecurity) = (.clear, .clear))
        async throws -> (host: TurnBasedMatch<Nim>, guest: TurnBasedMatch<Nim>) {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", security: security.0, advertise: false)
        async let guest = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo", security: security.1)
        let host = try await table.waitForMatch()
        return (host, try await guest)
    }

    @Test("a game from outside parlor is played to its end over TCP, typed on both sides")
    func playedToTheEnd() async throws {
        let (host, guest) = try await Self.hostAndJoin()
        #expect(await host.participants.map(\.name) == (host.localSeat == 0 ? ["Ana", "Bo"] : ["Bo", "Ana"]))
        #expect(await guest.localParticipant.name == "Bo")
        #expect(await host.game.heaps == Nim.startingHeaps)
        async let hostSaw = Self.playToTheEnd(host)
        async let guestSaw = Self.playToTheEnd(guest)
        let (onHost, onGuest) = try await (hostSaw, guestSaw)
        // Both saw the same turns in the same order, and the same end.
        #expect(onHost.events == onGuest.events)
        #expect(onHost.events.last == "over")
        #expect(onHost.turnsPlayed > 0 && onGuest.turnsPlayed > 0)
        #expect(onHost.final?.heaps == [0, 0, 0] && onGuest.final == onHost.final)
        let (hostData, guestData) = (await host.matchData, await guest.matchData)
        #expect(hostData == guestData)
        let (hostOver, guestOver) = (await host.isOver, await guest.isOver)
        #expect(hostOver && guestOver)
        #expect(await host.currentParticipant == nil)
        // One winner and one loser, the same on both sides.
        #expect(Set(onHost.endedWith.map(\.outcome)) == [.won, .lost])
        #expect(onHost.endedWith.map(\.outcome) == onGuest.endedWith.map(\.outcome))
        await host.leave()
    }

    @Test("a move's message reaches the other side with the move; one too long is refused whole and nothing moves")
    func aMessageWithAMove() async throws {
        let (host, guest) = try await Self.hostAndJoin()
        let mover = await host.currentParticipant?.isLocal == true ? host : guest
        let other = mover === host ? guest : host
        let before = await mover.matchData
        await #expect(throws: TurnBasedError.self) {
            try await mover.endTurn(with: Nim.move(heap: 0, count: 1), message: String(repeating: "x", count: 141))
        }
        #expect(await mover.matchData == before, "refused whole: no move either")
        try await mover.endTurn(with: Nim.move(heap: 0, count: 1), message: "Your move, Bo")
        var heard: String?
        for await event in other.events {
            if case .turnEnded(_, _?, let message, _) = event { heard = message; break }
        }
        #expect(heard == "Your move, Bo")
        #expect(await other.state.message?.text == "Your move, Bo")
        try await other.quit()
        _ = await host.finished()
    }

    @Test("a move out of turn is refused and changes nothing")
    func outOfTurnRefused() async throws {
        let (host, guest) = try await Self.hostAndJoin()
        let waiting = await host.currentParticipant?.isLocal == true ? guest : host
        let before = await waiting.matchData
        await #expect(throws: TurnBasedError.refused("it is not your turn")) {
            try await waiting.endTurn(with: Nim.move(heap: 0, count: 1))
        }
        #expect(await waiting.matchData == before)
        try await guest.quit()
        _ = await host.finished()
    }

    @Test("a player who quits out of turn loses, and the other side hears the end")
    func quitOutOfTurn() async throws {
        let (host, guest) = try await Self.hostAndJoin(security: (.encrypted(SecureChannelOptions(identity: try IdentityKeyPair.generate())),
                                                                   .encrypted(SecureChannelOptions(identity: try IdentityKeyPair.generate()))))
        // Encrypted: each side knows the other's proved key.
        #expect(await host.participants[guest.localSeat].key != nil)
        #expect(await guest.participants[host.localSeat].key != nil)
        let quitter = await host.currentParticipant?.isLocal == true ? guest : host
        let other = quitter === guest ? host : guest
        try await quitter.quit()
        let final = await other.finished()
        #expect(final.heaps == Nim.startingHeaps)
        let seats = await other.participants
        #expect(seats[quitter.localSeat].outcome == .quit)
        #expect(seats[other.localSeat].outcome == .won)
        var ended: [TurnBasedParticipant] = []
        for await event in other.events {
            if case .ended(let participants, _) = event { ended = participants }
        }
        #expect(ended.map(\.outcome) == seats.map(\.outcome))
        await #expect(throws: TurnBasedError.matchOver) { try await quitter.quit() }
    }

    @Test("a guest that came for another game is refused with a sentence naming it")
    func otherGameRefused() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false)
        let refused = await #expect(throws: (any Error).self) {
            _ = try await TurnBasedLAN.join(MisereNim.self, host: "127.0.0.1", port: table.port, as: "Bo")
        }
        let sentence = refused.map { "\($0)" } ?? ""
        #expect(sentence.contains("hosting nim (rules version 1)") && sentence.contains("you offered nim-misere"))
        await table.close()
    }

    @Test("a game listed under its host's name is joined by that name, and by a prefix only it has")
    func joinedByName() async throws {
        let lan = InMemoryDirectory()
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", directory: lan)
        #expect(table.listedName == "Ana's Nim")
        // Listed as a game of Nim that this side can join; another game is not in the list.
        let misere = try await TurnBasedLAN.host(MisereNim.self, as: "Eve", directory: lan)
        let listed = try await TurnBasedLAN.games(of: Nim.self, lookingFor: .milliseconds(300), directory: lan)
        #expect(listed.map(\.name) == ["Ana's Nim"] && listed.allSatisfy(\.isJoinable))
        #expect(listed.first?.info?.hostPlayerName == "Ana")
        await misere.close()
        async let guest = TurnBasedLAN.join(Nim.self, named: "ana's nim", as: "Bo", directory: lan)
        let host = try await table.waitForMatch()
        let joined = try await guest
        #expect(await joined.participants[host.localSeat].name == "Ana")
        // Seated: the game is no longer listed.
        #expect(lan.advertisedNames.isEmpty)
        try await joined.quit()
        _ = await host.finished()

        let second = try await TurnBasedLAN.host(Nim.self, as: "Cy", directory: lan)
        async let byPrefix = TurnBasedLAN.join(Nim.self, named: "Cy", as: "Di", directory: lan)
        let hostAgain = try await second.waitForMatch()
        let prefixed = try await byPrefix
        #expect(await prefixed.participants[hostAgain.localSeat].name == "Cy")
        try await hostAgain.quit()
    }
}

/// A table of three through the front door.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedTableTests {
    init() { Nim.register() }

    @Test("a table of three fills with two guests, and all three sides see the same turns and the same end")
    func aTableOfThree() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", seats: 3, advertise: false)
        async let bo = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo")
        async let cy = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Cy")
        let host = try await table.waitForMatch()
        let guests = try await [bo, cy]
        #expect(await host.participants.map(\.name).sorted() == ["Ana", "Bo", "Cy"])
        async let hostSaw = TurnBasedMatchTests.playToTheEnd(host)
        async let boSaw = TurnBasedMatchTests.playToTheEnd(guests[0])
        async let cySaw = TurnBasedMatchTests.playToTheEnd(guests[1])
        let seen = try await [hostSaw, boSaw, cySaw]
        #expect(seen[0].events == seen[1].events && seen[1].events == seen[2].events)
        #expect(seen[0].events.last == "over" && seen.allSatisfy { $0.turnsPlayed > 0 })
        #expect(seen[0].endedWith.filter { $0.outcome == .won }.count == 1)
        await host.leave()
    }
}

/// Seats parlor plays for the caller, through the front door.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedPlayerTests {
    init() { Nim.register() }

    @Test("a host played by parlor's bot and a guest played by a strategy finish the match with nobody calling endTurn")
    func botAndStrategyPlayTheirSeats() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false)
        // The strategy always takes one from the first heap that has any.
        let takeOne: @Sendable (Nim) -> Move? = { nim in
            nim.heaps.firstIndex { $0 > 0 }.map { Nim.move(heap: $0, count: 1) }
        }
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo", playedBy: .strategy(takeOne))
        let host = try await table.waitForMatch(playedBy: .bot(.easy))
        let guest = try await joining
        var guestMoves: [Move] = []
        for await event in guest.events {
            if case .turnEnded(let participant, let move?, _, _) = event, participant.isLocal { guestMoves.append(move) }
        }
        let final = await host.finished()
        #expect(final.heaps == [0, 0, 0])
        #expect(!guestMoves.isEmpty && guestMoves.allSatisfy { $0.rawValue % 8 == 0 }, "the strategy took one each time")
        await #expect(throws: TurnBasedError.refused("this seat is played by parlor (a bot or a strategy), not by endTurn")) {
            try await guest.endTurn(with: Nim.move(heap: 0, count: 1))
        }
        await host.leave()
    }
}
