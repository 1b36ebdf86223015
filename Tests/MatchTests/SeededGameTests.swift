import Games
import ParlorTestSupport
import Testing
@testable import Match

/// Issue 39: a game that uses randomness gets its seed from the host, and the
/// match blob carries it (format 3, docs/PROTOCOL.md section 5), so that the
/// host, the guest, a saved match and its replay all start from the same
/// position; every other game's bytes stay exactly as they were.
@Suite("A game with chance")
struct SeededGameTests {
    init() {
        Nim.register()
        SeededNim.register()
    }

    /// A Seeded Nim match between Ana and Ben from `seed`.
    static func newMatch(seed: UInt64, seats: Int = 2) -> MatchState {
        var generator = SplitMix64(seed: 39)
        let seats = ["Ana", "Ben", "Cy"].prefix(seats).map { Seat(playerID: .random(using: &generator), name: $0) }
        return MatchState(matchID: .random(using: &generator), gameType: SeededNim.self, seats: seats, seed: seed)
    }

    /// `state` after each active seat takes one from the first heap that has any.
    static func played(_ moves: Int, in state: MatchState) throws -> MatchState {
        var state = state
        for _ in 0..<moves {
            let move = try #require(state.game.legalMoves.first)
            state = try state.applying(.move(move, by: try #require(state.activeSeat)), now: 1)
        }
        return state
    }

    @Test("the seed deals the start: equal seeds give equal heaps and bytes, and the match keeps the seed it began with")
    func theSeedDealsTheStart() throws {
        let seven = Self.newMatch(seed: 7)
        #expect(seven.seed == 7)
        #expect(seven.game(as: SeededNim.self)?.heaps == SeededNim.heaps(dealtFrom: 7))
        #expect(MatchBlob.encode(Self.newMatch(seed: 7)) == MatchBlob.encode(seven))
        // Other seeds deal other starts (three heaps of 1-8: 512 possible).
        let starts = Set((0..<20).map { Self.newMatch(seed: $0).game(as: SeededNim.self)?.heaps ?? [] })
        #expect(starts.count > 10)
        #expect(try Self.played(3, in: seven).seed == 7)
    }

    @Test("the host draws a fresh seed for each match from the system generator")
    func theHostDrawsAFreshSeed() {
        let seeds = (0..<8).compactMap { _ in
            MatchState(matchID: .random(), gameType: SeededNim.self, seats: [Seat(playerID: .random(), name: "A"),
                                                                            Seat(playerID: .random(), name: "B")]).seed
        }
        #expect(seeds.count == 8 && Set(seeds).count == 8)
    }

    @Test("a blob of a game with chance is format 3 with the seed after the rules version, and decodes to the same start, moves and hash")
    func theBlobCarriesTheSeed() throws {
        for seats in [2, 3] {
            let state = try Self.played(3, in: Self.newMatch(seed: 0x0123_4567_89AB_CDEF, seats: seats))
            let blob = MatchBlob.encode(state)
            #expect(Array(blob[4..<6]) == [0, 3])
            let seedAt = 4 + 2 + 16 + 1 + SeededNim.id.utf8.count + 2
            #expect(Array(blob[seedAt..<seedAt + 8]) == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF])
            #expect(BlobForge.seedOffset(in: blob) == seedAt)
            let decoded = try MatchBlob.decode(blob)
            #expect(decoded.seed == state.seed)
            #expect(decoded.game(as: SeededNim.self)?.heaps == state.game(as: SeededNim.self)?.heaps)
            #expect(decoded.stateHash == state.stateHash)
            #expect(MatchBlob.encode(decoded) == blob)
            // The seed is covered by the hash: another seed is another state.
            #expect(Self.newMatch(seed: 1, seats: seats).stateHash != Self.newMatch(seed: 2, seats: seats).stateHash)
        }
    }

    @Test("a saved match replays from the heaps its seed dealt, not from a fixed start")
    func replayStartsFromTheSeed() throws {
        let seed: UInt64 = 2026
        let state = try MatchBlob.decode(MatchBlob.encode(try Self.played(3, in: Self.newMatch(seed: seed))))
        let positions = state.replayPositions
        #expect(positions.count == 4)
        #expect(positions.first?.game(as: SeededNim.self)?.heaps == SeededNim.heaps(dealtFrom: seed))
        #expect(positions.first?.seed == seed)
        #expect(positions.last?.stateHash == state.stateHash)
        #expect(state.moveNotations.count == 3)
    }

    @Test("a next state with another seed is refused as a changed seed, by the full check and by the one-change reading")
    func anotherSeedIsRefused() throws {
        let committed = try Self.played(2, in: Self.newMatch(seed: 5))
        let honest = try Self.played(1, in: committed)
        #expect(committed.successor(decoding: MatchBlob.encode(honest)) != nil)
        let forged = BlobForge.forge(MatchBlob.encode(honest)) { blob in
            if let at = BlobForge.seedOffset(in: blob) { blob[at + 7] ^= 1 }
        }
        #expect(committed.successor(decoding: forged) == nil)
        // The same next state with another seed (whether or not its heaps would allow the moves).
        let reseeded = MatchState(matchID: honest.matchID, game: honest.game, seed: 4, seats: honest.seats, moves: honest.moves,
                                  sequence: honest.sequence, turnTimeout: honest.turnTimeout, deadline: honest.deadline,
                                  leftAfter: honest.leftAfter)
        #expect(throws: SuccessorError.seedChanged) { try committed.change(to: reseeded) }
        #expect(throws: Never.self) { try committed.change(to: honest) }
    }

    @Test("every built-in game's blob is format 1 or 2 with no seed, byte for byte what the old initialiser made")
    func builtInGamesKeepTheirBytes() throws {
        for gameType in GameCatalog.builtIn {
            let usesChance = gameType.usesRandomness
            #expect(!usesChance, "\(gameType.id)")
            for seats in gameType.seatCounts {
                var generator = SplitMix64(seed: UInt64(seats))
                let players = (0..<seats).map { Seat(playerID: .random(using: &generator), name: "P\($0)") }
                let id = MatchID.random(using: &generator)
                let before = MatchState(matchID: id, game: gameType.init(seats: seats), seats: players, turnTimeout: 30, now: 1000)
                let after = MatchState(matchID: id, gameType: gameType, seats: players, seed: 12345, turnTimeout: 30, now: 1000)
                #expect(after.seed == nil)
                #expect(MatchBlob.encode(after) == MatchBlob.encode(before), "\(gameType.id) at \(seats) seats")
                #expect(MatchBlob.encode(after)[5] == (seats == 2 ? 1 : 2))
            }
        }
    }

    @Test("a seed where the game has none, or none where it needs one, is an invalid field, not another game")
    func theSeedMatchesTheGame() throws {
        // Format 3 around a Nim blob (no chance): a seed inserted after the rules version.
        var generator = SplitMix64(seed: 1)
        let nim = MatchState(matchID: .random(using: &generator), game: Nim(seats: 2),
                             seats: [Seat(playerID: .random(using: &generator), name: "Ana"), Seat(playerID: .random(using: &generator), name: "Ben")])
        var plain = MatchBlob.encode(nim)
        let afterRules = 4 + 2 + 16 + 1 + Nim.id.utf8.count + 2
        let seatBytes = plain[(afterRules + 1)...].count - (4 + 4 + 8 + 2 + 8)
        plain.insert(contentsOf: [UInt8](repeating: 0, count: 8), at: afterRules)
        // Format 3 also carries each seat's "left after" (FFFF: still playing).
        var withLeft = Array(plain.prefix(afterRules + 8 + 1))
        var rest = Array(plain[(afterRules + 8 + 1)...])
        let perSeat = seatBytes / 2
        for _ in 0..<2 { withLeft += rest.prefix(perSeat) + [0xFF, 0xFF]; rest.removeFirst(perSeat) }
        withLeft += rest
        withLeft[5] = 3
        #expect(throws: MatchBlobError.invalidField("seed for nim, which uses none")) { try MatchBlob.decode(BlobForge.rehash(withLeft)) }

        // Format 1 from a Seeded Nim blob: the seed and "left after" taken out.
        let seeded = MatchBlob.encode(Self.newMatch(seed: 3))
        let seedAt = try #require(BlobForge.seedOffset(in: seeded))
        var stripped = Array(seeded.prefix(seedAt)) + Array(seeded[(seedAt + 8)...])
        stripped[5] = 1
        var firstSeat = seedAt + 1
        for _ in 0..<2 {
            firstSeat += 16 + 1 + Int(stripped[firstSeat + 16]) + 2
            stripped.removeSubrange(firstSeat..<(firstSeat + 2))
        }
        #expect(throws: MatchBlobError.invalidField("format for nim-seeded, which needs a seed")) {
            try MatchBlob.decode(BlobForge.rehash(stripped))
        }
    }

    @Test("a blob cut anywhere, the seed field included, is a clean error; mutated bytes never trap")
    func truncatedAndMutatedSeedBlobs() throws {
        let blob = MatchBlob.encode(try Self.played(2, in: Self.newMatch(seed: 99, seats: 3)))
        let seedAt = try #require(BlobForge.seedOffset(in: blob))
        for length in 0..<blob.count {
            #expect(throws: MatchBlobError.self) { try MatchBlob.decode(Array(blob.prefix(length))) }
        }
        // Cut inside the seed: the reader names where the seed began.
        for length in seedAt..<(seedAt + 8) {
            #expect(throws: MatchBlobError.truncated(offset: seedAt)) { try MatchBlob.decode(Array(blob.prefix(length))) }
        }
        for bytes in BlobForge.mutations(of: blob, count: 2000, seed: 3) {
            if let state = try? MatchBlob.decode(bytes) { #expect(MatchBlob.encode(state) == bytes) }
        }
    }

    @Test("a parlor that reads formats 1 and 2 only calls a seeded blob newer, with the sentence that says to update")
    func olderParlorsSayNewer() {
        #expect(MatchBlob.currentFormat >= 3)  // format 4 (a move's message) came later
        #expect(MatchBlobError.newerFormat(3).description == "the match was made by a newer parlor (format 3); update parlor to open it")
    }
}
