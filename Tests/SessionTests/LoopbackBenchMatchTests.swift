import Bots
import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// The match `parlor bench turns` times: a random host against the caller's
/// moves over 127.0.0.1, recorded by whoever passes a recording in.
@Suite("A loopback match for the benches", .serialized)
struct LoopbackBenchMatchTests {
    final class Count: Sendable { let value = Mutex(0) }

    static func start(_ gameID: String = Connect4.id, seed: UInt64, recorded: Count? = nil) async throws -> LoopbackMatch {
        try await LoopbackMatch.start(gameID: gameID, seed: seed, appVersion: "test",
            hostPlayer: { id, random in BotParticipant(playerID: id) { game, _ in random.pick(from: game.legalMoves) } },
            record: { sides in
                recorded?.value.withLock { $0 += 1 }
                #expect(sides.hosted.initialState.matchID == sides.joined.initialState.matchID)
                return []
            })
    }

    @Test func theCallersRandomMovesPlayTheMatchToTheSameEndOnBothSides() async throws {
        let recorded = Count()
        let match = try await Self.start(seed: 5, recorded: recorded)
        #expect(recorded.value.withLock { $0 } == 1)
        for await event in match.events {
            if case .ended = event { break }
            guard case .turnBegan(let seat, let state) = event, seat == match.joined.seat else { continue }
            let (move, bytes) = try #require(match.randomMove(in: state))
            #expect(bytes > FrameFormat.headerSize)
            guard case .committed = await match.local.play(move) else { break }
        }
        await match.finish()
        let host = await match.hostController.finished()
        let guest = await match.guestController.finished()
        #expect(host.isEnded)
        #expect(host.stateHash == guest.stateHash)
        #expect(host.moves.count >= 7)
    }

    @Test("a loopback match of another game than Connect Four, built-in or registered, is played to its end with equal hashes on both sides",
          arguments: [TicTacToe.id, Nim.id])
    func anyRegisteredGamePlaysToTheEnd(gameID: String) async throws {
        Nim.register()
        let match = try await Self.start(gameID, seed: 5)
        #expect(match.joined.initialState.gameID == gameID)
        var guestMoves = 0
        for await event in match.events {
            if case .ended = event { break }
            guard case .turnBegan(let seat, let state) = event, seat == match.joined.seat else { continue }
            let (move, _) = try #require(match.randomMove(in: state))
            guard case .committed = await match.local.play(move) else { break }
            guestMoves += 1
        }
        await match.finish()
        let host = await match.hostController.finished()
        let guest = await match.guestController.finished()
        #expect(host.gameID == gameID && guest.gameID == gameID)
        #expect(host.isEnded && host.game.isOver, "the match ended by the rules, not by the guest quitting")
        #expect(guestMoves > 0)
        #expect(host.stateHash == guest.stateHash)
        #expect(host.moves == guest.moves)
        #expect(!host.seats.contains { $0.outcome == .quit })
    }

    @Test("a loopback match of a game nobody registered is refused with the host's sentence naming it")
    func anUnknownGameIsRefused() async throws {
        do {
            _ = try await Self.start("no-such-game", seed: 1)
            Issue.record("a loopback match of an unknown game started")
        } catch let error as HostError {
            #expect(error == .unknownGame("no-such-game"))
            #expect("\(error)" == "there is no game called 'no-such-game'")
        }
    }

    @Test func finishingAMatchInPlayQuitsItForTheGuest() async throws {
        let match = try await Self.start(seed: 9)
        await match.finish()
        let host = await match.hostController.finished()
        #expect(host.isEnded)
        #expect(host.seats[match.joined.seat].outcome == Outcome.quit)
    }

    /// The host's saves: at once, except the save of `held` sequence, which calls back once `letGo()` is called.
    final class HeldSave: Sendable {
        let held: UInt32
        private let waiting = Mutex<(open: Bool, callbacks: [@Sendable ((any Error)?) -> Void])>((false, []))
        init(holding sequence: UInt32) { held = sequence }

        func save(_ state: MatchState, then: @escaping @Sendable ((any Error)?) -> Void) {
            let now = waiting.withLock { waiting -> Bool in
                if waiting.open || state.sequence != held { return true }
                waiting.callbacks.append(then)
                return false
            }
            if now { then(nil) }
        }

        func letGo() {
            let callbacks = waiting.withLock { waiting in
                waiting.open = true
                defer { waiting.callbacks = [] }
                return waiting.callbacks
            }
            for callback in callbacks { callback(nil) }
        }
    }

    @Test("finishing quits the guest even when its quit crosses the host's move: it is refused as stale, then tried again once the push arrives")
    func aQuitThatCrossesTheHostsMoveIsTriedAgain() async throws {
        // The host moves first, at once; its move is committed but not revealed until its save calls back.
        let hold = HeldSave(holding: 1)
        let match = try await LoopbackMatch.start(seed: 3, appVersion: "test",
            hostPlayer: { id, random in BotParticipant(playerID: id) { game, _ in random.pick(from: game.legalMoves) } },
            record: { sides in
                sides.hosted.saveBeforeRevealing { state, then in hold.save(state, then: then) }
                return []
            })
        defer { hold.letGo() }
        #expect(match.joined.seat == 1)
        let deadline = ContinuousClock.now + .seconds(10)
        while await match.hostController.state.sequence < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        try #require(await match.hostController.state.sequence == 1, "the host never moved")
        let finished = Mutex(false)
        let finishing = Task {
            await match.finish()
            finished.withLock { $0 = true }
        }
        // The guest's quit is on the state before the host's move: refused as stale.
        var refused = false
        for await event in match.events {
            if case .rolledBack(.quit(_), reason: .rejected(_), _) = event {
                refused = true
                break
            }
        }
        try #require(refused, "the guest's quit was never refused")
        let released = ContinuousClock.now
        hold.letGo()
        // Watched from here, so that a finish that never wakes fails the test instead of hanging it.
        while !finished.withLock({ $0 }), ContinuousClock.now - released < .seconds(10) { try await Task.sleep(for: .milliseconds(5)) }
        try #require(finished.withLock { $0 }, "finish() was not woken by the host's push")
        await finishing.value
        #expect(ContinuousClock.now - released < .seconds(5), "the quit was tried again only after a timer")
        let host = await match.hostController.finished()
        #expect(host.sequence == 2 && host.seats[match.joined.seat].outcome == Outcome.quit)
    }

    @Test func theSameSeedMakesTheSameMoves() {
        let moves = (0..<7).map { Move($0) }
        let first = RandomMoves(seed: 3)
        let second = RandomMoves(seed: 3)
        #expect((0..<20).map { _ in first.pick(from: moves) } == (0..<20).map { _ in second.pick(from: moves) })
        #expect(RandomMoves(seed: 3).pick(from: []) == nil)
    }
}
