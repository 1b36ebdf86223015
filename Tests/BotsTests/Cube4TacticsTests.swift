import Bots
import Games
import Testing

/// Issue 16 item 4: what a player sees of Cube Four's `hard` in a tight
/// spot, checked on positions from random play against a brute force over
/// the game's own rules (not the bot's search).
@Suite("Cube Four hard tactics")
struct Cube4TacticsTests {
    /// Positions after 6 to 40 random moves that are not over.
    static func positions(count: Int, seed: UInt64) -> [Cube4] {
        var random = SplitMix64(seed: seed)
        var result: [Cube4] = []
        while result.count < count {
            var game = Cube4()
            let plies = Int.random(in: 6...40, using: &random)
            for _ in 0..<plies {
                guard let move = game.legalMoves.randomElement(using: &random) else { break }
                try? game.apply(move)
                if game.isOver { break }
            }
            if !game.isOver { result.append(game) }
        }
        return result
    }

    static func after(_ game: Cube4, _ move: Move) -> Cube4 {
        var next = game
        try? next.apply(move)
        return next
    }

    /// Whether the side to move wins with this move at once.
    static func winsAtOnce(_ game: Cube4, _ move: Move) -> Bool {
        after(game, move).result == .won(by: game.moveCount % 2)
    }

    /// Whether, after `move`, the opponent has a move that wins at once.
    static func handsOverAWin(_ game: Cube4, _ move: Move) -> Bool {
        let next = after(game, move)
        return !next.isOver && next.legalMoves.contains { winsAtOnce(next, $0) }
    }

    /// Whether `move` wins by the third move at the latest, whatever the opponent replies.
    static func winsWithinThree(_ game: Cube4, _ move: Move) -> Bool {
        if winsAtOnce(game, move) { return true }
        let next = after(game, move)
        guard !next.isOver else { return false }
        return next.legalMoves.allSatisfy { reply in
            let answered = after(next, reply)
            return !answered.isOver && answered.legalMoves.contains { winsAtOnce(answered, $0) }
        }
    }

    @Test("hard takes every immediate win, blocks every single threat and never hands over a win it can avoid")
    func neverMissesTheObvious() {
        var bot = Bot(level: .hard, seed: 1)
        var wins = 0, safeties = 0
        for game in Self.positions(count: 400, seed: 164) {
            let moves = game.legalMoves
            let canWin = moves.contains { Self.winsAtOnce(game, $0) }
            let safe = moves.filter { !Self.handsOverAWin(game, $0) }
            // Only positions with something to get wrong: a win to take, or a threat to stop.
            guard canWin || safe.count < moves.count, let move = bot.chooseMove(in: game) else { continue }
            if canWin {
                wins += 1
                #expect(Self.winsAtOnce(game, move), "missed a win at \(game.moveCount) stones")
            } else if !safe.isEmpty {
                safeties += 1
                #expect(safe.contains(move), "handed over a win at \(game.moveCount) stones")
            }
        }
        #expect(wins >= 20 && safeties >= 20, "too few positions with tactics: \(wins) wins, \(safeties) safeties")
    }

    @Test("hard finds a forced win in three moves (a double threat) when there is one")
    func findsDoubleThreats() {
        var bot = Bot(level: .hard, seed: 2)
        var found = 0
        for game in Self.positions(count: 600, seed: 165) {
            let moves = game.legalMoves
            guard !moves.contains(where: { Self.winsAtOnce(game, $0) }),
                  moves.contains(where: { Self.winsWithinThree(game, $0) }),
                  let move = bot.chooseMove(in: game) else { continue }
            found += 1
            #expect(Self.winsWithinThree(game, move), "missed a forced win at \(game.moveCount) stones")
        }
        #expect(found >= 10, "too few positions with a forced win in three: \(found)")
    }
}
