import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// Issue 39: the host draws the seed of a game with chance (Seeded Nim, its
/// heaps dealt from the seed), the guest adopts it from the WELCOME, and from
/// then on neither side accepts a state with another seed: not a push or a
/// whole state from a lying host, not a TURN from a guest.
@Suite("A game with chance over the Session API", .serialized)
struct SeededGameProtocolTests {
    init() { SeededNim.register() }

    /// A Seeded Nim match dealt from `seed` between seat 0 and seat 1, after `moves` moves of one from the first heap.
    static func match(seed: UInt64, moves: Int, players: [PlayerID] = [.random(), .random()],
                      matchID: MatchID = MatchID(hex: "5eed" + String(repeating: "0", count: 28))!) throws -> MatchState {
        var state = MatchState(matchID: matchID, gameType: SeededNim.self,
                               seats: [Seat(playerID: players[0], name: "Ana"), Seat(playerID: players[1], name: "Ben")], seed: seed)
        for _ in 0..<moves {
            state = try state.applying(.move(try #require(state.game.legalMoves.first), by: try #require(state.activeSeat)), now: 1)
        }
        return state
    }

    /// Two seeds that deal at least `count` in the first heap, so that the same "take one from heap a" history is legal from both.
    static func twoSeeds(firstHeapAtLeast count: Int) -> (UInt64, UInt64) {
        let seeds = (UInt64(1)...).lazy.filter { SeededNim.heaps(dealtFrom: $0)[0] >= count }
        var iterator = seeds.makeIterator()
        return (iterator.next() ?? 0, iterator.next() ?? 0)
    }

    /// A match after its first move, the state after its second, and that state's blob with another
    /// seed (under which the same moves are legal) and a fixed hash; and that other seed.
    static func secondMoveReseeded() throws -> (first: MatchState, second: MatchState, forged: [UInt8], otherSeed: UInt64) {
        let (seed, other) = twoSeeds(firstHeapAtLeast: 3)
        let players = [PlayerID.random(), PlayerID.random()]
        let second = try match(seed: seed, moves: 2, players: players)
        return (try match(seed: seed, moves: 1, players: players), second, reseeded(MatchBlob.encode(second), other), other)
    }

    /// `blob` with its seed replaced by `seed` and its hash fixed.
    static func reseeded(_ blob: [UInt8], _ seed: UInt64) -> [UInt8] {
        BlobForge.forge(blob) { bytes in
            guard let at = BlobForge.seedOffset(in: bytes) else { return }
            for index in 0..<8 { bytes[at + index] = UInt8(truncatingIfNeeded: seed >> (56 - 8 * index)) }
        }
    }

    @Test("the guest starts from the seed the host drew: the same heaps on both sides, and both end with equal state hashes")
    func theGuestAdoptsTheHostsSeed() async throws {
        let pair = try await JoinedPair.make(game: SeededNim.id)
        let hostStart = pair.hosted.initialState, guestStart = pair.joined.initialState
        #expect(hostStart.seed != nil && guestStart.seed == hostStart.seed)
        #expect(guestStart.game(as: SeededNim.self)?.heaps == SeededNim.heaps(dealtFrom: try #require(hostStart.seed)))
        #expect(guestStart.stateHash == hostStart.stateHash)
        let (hostFinal, guestFinal) = try await RegisteredGameProtocolTests.playToTheEnd(pair.hosted, pair.joined)
        #expect(hostFinal.isEnded && guestFinal.stateHash == hostFinal.stateHash && guestFinal.seed == hostStart.seed)
        #expect(guestFinal.game(as: SeededNim.self)?.heaps == [0, 0, 0])
        await pair.host.shutdown()
    }

    @Test("a lying host's push or whole state with another seed is a desync the guest names, even when its moves are legal")
    func aHostChangingTheSeedIsRefused() throws {
        let (known, next, forged, other) = try Self.secondMoveReseeded()
        #expect((try? MatchBlob.decode(forged))?.seed == other, "the forged state is a valid match of its own")
        guard case .failure(let desync) = GuestPushValidator.validate(.turn, sequence: 2, blob: forged, known: known, guestSeat: 0) else {
            Issue.record("the guest took a push with another seed")
            return
        }
        #expect(desync.description.contains("seedChanged"), "\(desync)")
        // A whole state (STATE, a resume's WELCOME) with the same moves and another seed.
        let whole = try MatchBlob.decode(forged)
        #expect(throws: PushDesync("the host's state changes the seed the match began with")) {
            try GuestRecordCheck.adoption(whole, known: known, guestSeat: 0, proposal: nil).get()
        }
        #expect(throws: Never.self) { try GuestRecordCheck.adoption(next, known: known, guestSeat: 0, proposal: nil).get() }
    }

    @Test("a guest's TURN with another seed is refused historyRewritten with a sentence about the seed")
    func aGuestChangingTheSeedIsRefused() throws {
        let (committed, own, forged, _) = try Self.secondMoveReseeded()
        let result = HostTurnValidator.validate(.turn, sequence: 2, blob: forged, committed: committed, guestSeat: 1, committedHashes: [:])
        guard case .failure(let rejection) = result else {
            Issue.record("the host took a TURN with another seed")
            return
        }
        #expect(rejection == TurnRejection(.historyRewritten, "That state changes the seed the match began with."))
        let honest = HostTurnValidator.validate(.turn, sequence: 2, blob: MatchBlob.encode(own), committed: committed, guestSeat: 1,
                                                committedHashes: [:])
        #expect((try? honest.get()) != nil)
    }

    @Test("a host resumes a saved Seeded Nim match, the guest takes its seat back with the same heaps, and they finish it alike")
    func resumed() async throws {
        let saved = try Self.match(seed: 77, moves: 2)
        let (host, hosted, joined, _) = try await RegisteredGameProtocolTests.resume(saved)
        #expect(joined.initialState.seed == 77 && hosted.initialState.seed == 77)
        #expect(joined.initialState.replayPositions.first?.game(as: SeededNim.self)?.heaps == SeededNim.heaps(dealtFrom: 77))
        let (hostFinal, guestFinal) = try await RegisteredGameProtocolTests.playToTheEnd(hosted, joined)
        #expect(hostFinal.isEnded && hostFinal.stateHash == guestFinal.stateHash)
        #expect(Array(guestFinal.moves.prefix(2)) == saved.moves)
        await host.shutdown()
    }
}
