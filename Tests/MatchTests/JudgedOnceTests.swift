import Games
import Match
import Testing

/// Issue 10 item 4 at the match layer: a peer's blob read against the state
/// it follows judges only the one change (`successor(decoding:)`), and a
/// state's encoding is worked out once and kept. Neither may accept anything
/// the full checks (`MatchBlob.decode` then `change(to:)`) refuse, nor give
/// another state or other bytes.
@Suite struct JudgedOnceTests {
    /// The same state with its kept encoding dropped, so encoding it works it out afresh.
    func uncached(_ state: MatchState) -> MatchState {
        var copy = state
        let seats = copy.seats
        copy.seats = seats
        return copy
    }

    /// Random matches of every game (fewest and most seats, with a turn timeout),
    /// with quits and time expiries; calls `check` with each state and the next.
    func eachStep(_ check: (MatchState, MatchChange, MatchState, inout SplitMix64) throws -> Void) throws {
        var generator = SplitMix64(seed: 10_4)
        for type in GameCatalog.builtIn {
            for seats in Set([type.seatCounts.min() ?? 2, type.seatCounts.max() ?? 2]) {
                for _ in 0..<2 {
                    let players = (0..<seats).map { Seat(playerID: .random(using: &generator), name: "P\($0)") }
                    var state = MatchState(matchID: .random(using: &generator), game: type.init(seats: seats),
                                           seats: players, turnTimeout: 30, now: 1_000)
                    var now: Int64 = 1_000
                    while let seat = state.activeSeat, state.moves.count < 60 {
                        now += 500
                        let roll = generator.next() % 40
                        let change: MatchChange
                        if roll == 0 {
                            change = .quit(Int(generator.next() % UInt64(seats)))
                        } else if roll == 1 {
                            change = .timeExpired(seat)
                            now = max(now, state.deadline)
                        } else {
                            let legal = state.game.legalMoves
                            change = .move(legal[Int(generator.next() % UInt64(legal.count))], by: seat)
                        }
                        guard let next = try? state.applying(change, now: now) else { continue }
                        try check(state, change, next, &generator)
                        state = next
                    }
                }
            }
        }
    }

    @Test("a successor read against its base is the change and the state the full checks give, with the same bytes")
    func successorAgreesWithTheFullChecks() throws {
        try eachStep { base, change, next, _ in
            let bytes = MatchBlob.encode(next)
            let judged = try #require(base.successor(decoding: bytes), "refused \(change) after \(base.sequence)")
            #expect(judged.change == change)
            #expect(judged.state.stateHash == next.stateHash)
            #expect(MatchBlob.encode(judged.state) == bytes)
            #expect(MatchBlob.encode(uncached(judged.state)) == bytes)
            #expect(judged.state.moves == next.moves && judged.state.leftAfter == next.leftAfter)
            #expect(judged.state.activeSeat == next.activeSeat && judged.state.deadline == next.deadline)
            let decoded = try MatchBlob.decode(bytes)
            #expect(try base.change(to: decoded) == change)
            // Read against any other state, it is not a successor.
            #expect(next.successor(decoding: bytes) == nil)
        }
    }

    @Test("a damaged blob is a successor only when the full checks accept it too, as the same state")
    func damagedBlobsAreRefusedAsBefore() throws {
        var accepted = 0
        try eachStep { base, _, next, generator in
            let bytes = MatchBlob.encode(next)
            for _ in 0..<4 {
                var damaged = bytes
                let index = Int(generator.next() % UInt64(damaged.count))
                damaged[index] ^= UInt8(truncatingIfNeeded: generator.next() % 255 + 1)
                let full = (try? MatchBlob.decode(damaged)).flatMap { state in (try? base.change(to: state)).map { (state, $0) } }
                if let judged = base.successor(decoding: damaged) {
                    accepted += 1
                    let (state, change) = try #require(full, "accepted what the full checks refuse (byte \(index))")
                    #expect(judged.change == change)
                    #expect(judged.state.stateHash == state.stateHash)
                    #expect(MatchBlob.encode(uncached(judged.state)) == damaged)
                }
                if let decoded = try? MatchBlob.decode(damaged) {
                    // What decodes is its state's one encoding, so keeping the bytes as it is honest.
                    #expect(MatchBlob.encode(uncached(decoded)) == damaged)
                }
            }
        }
        // Damage to the deadline bytes is outside the hash: some are accepted, as before.
        #expect(accepted > 0)
    }

    @Test("a new deadline rewrites the kept encoding as encoding afresh would")
    func movingTheDeadlineKeepsTheEncodingRight() throws {
        try eachStep { _, _, next, generator in
            var moved = next
            _ = MatchBlob.encode(moved)
            moved.deadline = Int64(generator.next() % 1_000_000_000)
            #expect(MatchBlob.encode(moved) == MatchBlob.encode(uncached(moved)))
            #expect(moved.stateHash == next.stateHash)
        }
    }

    @Test("a state is encoded once however often it is sent, saved or hashed, and a peer's blob is not encoded again")
    func encodedOnce() throws {
        let state = MatchState(matchID: .random(), game: Connect4(),
                               seats: [Seat(playerID: .random(), name: "A"), Seat(playerID: .random(), name: "B")])
        let next = try state.applying(.move(Move(3), by: 0), now: 0)
        MatchWork.watch(next.matchID)
        defer { MatchWork.stopWatching(next.matchID) }
        let copy = next
        for _ in 0..<3 { _ = MatchBlob.encode(next); _ = next.stateHash; _ = copy.stateHash }
        #expect(MatchWork.counts(for: next.matchID).encodes == 1)
        let received = try MatchBlob.decode(MatchBlob.encode(next))
        _ = MatchBlob.encode(received)
        _ = received.stateHash
        #expect(MatchWork.counts(for: next.matchID) == MatchWork.Counts(decodes: 1, encodes: 1, applies: 1))
    }
}
