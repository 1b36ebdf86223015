import Games

/// Tic-tac-toe move choice: `hard` searches the whole (tiny) game tree and
/// never loses; `medium` looks three plies ahead with a little randomness.
enum TicTacToePlayer {
    static let lines: [UInt16] = TicTacToe.lines.map { $0.reduce(0) { $0 | UInt16(1) << UInt16($1) } }
    static let full: UInt16 = 0x1FF
    static let corners = [0, 2, 6, 8]
    static let centre = 4
    /// How often `medium` ignores the centre-then-corner rule among equal moves.
    static let mediumWhimPercent: UInt64 = 25
    /// How far `medium` looks, in plies.
    static let mediumDepth = 3

    static func chooseMove(
        _ game: TicTacToe, level: BotLevel, random: inout SplitMix64, shouldStop: () -> Bool
    ) -> Move? {
        guard let seat = game.activeSeat else { return nil }
        var mine: UInt16 = 0, theirs: UInt16 = 0
        for (cell, owner) in game.cells.enumerated() {
            if owner == seat { mine |= 1 << UInt16(cell) } else if owner != nil { theirs |= 1 << UInt16(cell) }
        }
        let empty = (0..<9).filter { (mine | theirs) & (1 << UInt16($0)) == 0 }
        guard !empty.isEmpty else { return nil }
        switch level {
        case .easy, .medium:
            // Three plies deep: wins, blocks and makes forks, but does not see
            // the opponent's forks coming. Among equal moves, usually the
            // centre, then a corner.
            var best = Int.min
            var bestCells: [Int] = []
            for cell in empty {
                let score = -value(theirs, mine | 1 << UInt16(cell), alpha: -100, beta: 100, depth: mediumDepth - 1)
                if score > best { best = score; bestCells = [cell] } else if score == best { bestCells.append(cell) }
            }
            if random.next() % 100 >= mediumWhimPercent {
                if bestCells.contains(centre) { return Move(centre) }
                if let corner = corners.filter(bestCells.contains).randomElement(using: &random) { return Move(corner) }
            }
            return bestCells.randomElement(using: &random).map(Move.init)
        case .hard:
            var best = Int.min
            var bestCells: [Int] = []
            for cell in empty {
                if shouldStop() { return nil }
                let score = -value(theirs, mine | 1 << UInt16(cell), alpha: -100, beta: 100)
                if score > best { best = score; bestCells = [cell] } else if score == best { bestCells.append(cell) }
            }
            return bestCells.randomElement(using: &random).map(Move.init)
        }
    }

    /// The value for the side to move (`me`), `them` having just moved:
    /// 10 minus the stones on the board for a win, so quicker wins score
    /// higher; exact unless `depth` plies run out first (then 0).
    static func value(_ me: UInt16, _ them: UInt16, alpha: Int, beta: Int, depth: Int = 9) -> Int {
        let stones = me | them
        if lines.contains(where: { $0 & them == $0 }) { return -(10 - stones.nonzeroBitCount) }
        if stones == full || depth == 0 { return 0 }
        var alpha = alpha
        for cell in 0..<9 where stones & (1 << UInt16(cell)) == 0 {
            let score = -value(them, me | 1 << UInt16(cell), alpha: -beta, beta: -alpha, depth: depth - 1)
            if score > alpha { alpha = score }
            if alpha >= beta { break }
        }
        return alpha
    }
}
