import Bots
import Games
import Testing

/// Issue 16 item 4: Cube Four's `hard` in hand-made spots a player would
/// notice, and forcing lines longer than the `hard` of earlier releases
/// could read; checked against the game's own rules, not the bot's search.
@Suite("Cube Four hard engine")
struct Cube4EngineTests {
    /// The position after `pegs` (row * 4 + column) from an empty cube.
    static func position(_ pegs: [Int]) throws -> Cube4 {
        var game = Cube4()
        for peg in pegs { try game.apply(Move(peg)) }
        return game
    }

    static func after(_ game: Cube4, _ move: Move) -> Cube4 {
        var next = game
        try? next.apply(move)
        return next
    }

    /// The pegs where a stone of `seat` would complete a line now, whoever is to move.
    static func winningPegs(_ game: Cube4, for seat: Int) -> [Int] {
        let stones = seat == 0 ? game.pieces.0 : game.pieces.1
        return (0..<16).filter { peg in
            guard game.heights[peg] < 4 else { return false }
            let bit = UInt64(1) << UInt64(game.heights[peg] * 16 + peg)
            return Cube4.lineMasks.contains { $0 & bit != 0 && ($0 & ~bit) & ~stones == 0 }
        }
    }

    /// Whether `move` starts a win for the side to move within `threats` of
    /// its moves, each but the last leaving it a win at once (so that every
    /// reply but the block loses at once) and the last completing a line.
    static func startsForcingWin(_ game: Cube4, _ move: Move, threats: Int) -> Bool {
        let seat = game.moveCount % 2
        let next = after(game, move)
        if next.result == .won(by: seat) { return true }
        guard threats > 1, !next.isOver, !winningPegs(next, for: seat).isEmpty,
              winningPegs(next, for: 1 - seat).isEmpty else { return false }
        return next.legalMoves.allSatisfy { reply in
            let answered = after(next, reply)
            return !answered.isOver && winsByForcing(answered, threats: threats - 1)
        }
    }

    /// Whether the side to move wins with one of its next `moves` moves
    /// whatever the replies: every line searched, for short wins.
    static func winsWithin(_ game: Cube4, moves: Int) -> Bool {
        let seat = game.moveCount % 2
        return game.legalMoves.contains { move in
            let next = after(game, move)
            if next.result == .won(by: seat) { return true }
            guard moves > 1, !next.isOver else { return false }
            return next.legalMoves.allSatisfy { reply in
                let answered = after(next, reply)
                return !answered.isOver && winsWithin(answered, moves: moves - 1)
            }
        }
    }

    /// Whether `move` wins by force: by a line of up to `threats` threats,
    /// or, quicker, within three moves by any means.
    static func wins(_ game: Cube4, by move: Move, threats: Int) -> Bool {
        if startsForcingWin(game, move, threats: threats) { return true }
        let next = after(game, move)
        return !next.isOver && next.legalMoves.allSatisfy { reply in
            let answered = after(next, reply)
            return !answered.isOver && winsWithin(answered, moves: 2)
        }
    }

    static func winsByForcing(_ game: Cube4, threats: Int) -> Bool {
        if !winningPegs(game, for: game.moveCount % 2).isEmpty { return true }
        return game.legalMoves.contains { startsForcingWin(game, $0, threats: threats) }
    }

    @Test("hard completes its line when it can (d1 after a1 b1 c1)")
    func takesTheWin() throws {
        // First player: a1 b1 c1 on the floor; second: a4 b4 c3.
        let game = try Self.position([0, 12, 1, 13, 2, 10])
        var bot = Bot(level: .hard, seed: 1)
        #expect(bot.chooseMove(in: game) == Move(3))
    }

    @Test("hard blocks the only winning cell of its opponent")
    func blocksTheThreat() throws {
        // First player: a1 b1 c1 on the floor, second to move with a4 b4.
        let game = try Self.position([0, 12, 1, 13, 2])
        var bot = Bot(level: .hard, seed: 1)
        #expect(bot.chooseMove(in: game) == Move(3))
    }

    @Test("hard never drops a stone under its opponent's winning cell")
    func neverFillsUnderAThreat() throws {
        // First player: a1 and, on level 2, a1 b1 c1 (over second's a1 and c1,
        // and its own b1): level 2 of d1 wins for it, and d1 is empty. The
        // second, to move, hands over the win by dropping on d1.
        let game = try Self.position([1, 0, 0, 2, 2, 15, 1])
        try #require(Self.winningPegs(game, for: 0).isEmpty)
        try #require(Self.winningPegs(Self.after(game, Move(3)), for: 0) == [3])
        for seed in UInt64(1)...3 {
            var bot = Bot(level: .hard, seed: seed)
            let move = bot.chooseMove(in: game)
            #expect(move != nil && move != Move(3))
        }
    }

    /// Positions from random play, the side to move without a win at once.
    static func positions(count: Int, seed: UInt64) -> [Cube4] {
        var random = SplitMix64(seed: seed)
        var result: [Cube4] = []
        while result.count < count {
            var game = Cube4()
            for _ in 0..<Int.random(in: 8...36, using: &random) {
                guard let move = game.legalMoves.randomElement(using: &random) else { break }
                try? game.apply(move)
                if game.isOver { break }
            }
            if !game.isOver && winningPegs(game, for: game.moveCount % 2).isEmpty { result.append(game) }
        }
        return result
    }

    @Test("hard finds a win forced by a line of five to seven threats (up to 13 plies), which earlier releases' hard missed")
    func readsForcingLines() {
        let misses = Self.forcedWinsMissed(shortest: 5, longest: 7, count: 1500, by: { Bot(level: .hard, seed: $0) })
        #expect(misses.found >= 10, "too few positions with a forcing line: \(misses.found)")
        #expect(misses.missed == 0, "missed \(misses.missed) of \(misses.found) forced wins")
    }

    /// On positions from random play with a forcing line of `shortest` to
    /// `longest` threats and none shorter: how many there were, and how
    /// many times the bot `make` returns played a move that does not win
    /// by force. (`Bot.legacyHard` missed 2 of the 31 of the test, medium 10.)
    static func forcedWinsMissed(shortest: Int, longest: Int, count: Int, by make: (UInt64) -> Bot) -> (found: Int, missed: Int) {
        var found = 0, missed = 0
        for (index, game) in positions(count: count, seed: 416).enumerated() {
            // Long lines only: short ones the tactics suite covers.
            guard !game.legalMoves.contains(where: { startsForcingWin(game, $0, threats: shortest - 1) }),
                  game.legalMoves.contains(where: { startsForcingWin(game, $0, threats: longest) }) else { continue }
            found += 1
            var bot = make(UInt64(index))
            if let move = bot.chooseMove(in: game), wins(game, by: move, threats: longest + 1) { continue }
            missed += 1
        }
        return (found, missed)
    }
}
