import Games

/// Tic-tac-toe move choice: `hard` searches the whole (tiny) game tree and
/// never loses; `medium` plays the schoolyard rules with a little randomness.
enum TicTacToePlayer {
    static let lines: [UInt16] = TicTacToe.lines.map { $0.reduce(0) { $0 | UInt16(1) << UInt16($1) } }
    static let full: UInt16 = 0x1FF
    static let corners = [0, 2, 6, 8]
    static let centre = 4
    /// How often `medium` ignores the centre-then-corner rule and plays any safe cell.
    static let mediumWhimPercent: UInt64 = 25

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
            if let win = completing(mine, theirs, empty) { return Move(win) }
            if let block = completing(theirs, mine, empty) { return Move(block) }
            if random.next() % 100 >= mediumWhimPercent {
                if empty.contains(centre) { return Move(centre) }
                if let corner = corners.filter(empty.contains).randomElement(using: &random) { return Move(corner) }
            }
            return empty.randomElement(using: &random).map(Move.init)
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

    /// The empty cell that would complete a line for `stones`, if any.
    static func completing(_ stones: UInt16, _ other: UInt16, _ empty: [Int]) -> Int? {
        empty.first { cell in lines.contains { $0 & (stones | 1 << UInt16(cell)) == $0 } }
    }

    /// The exact value for the side to move (`me`), `them` having just moved:
    /// 10 minus the stones on the board for a win, so quicker wins score higher.
    static func value(_ me: UInt16, _ them: UInt16, alpha: Int, beta: Int) -> Int {
        let stones = me | them
        if lines.contains(where: { $0 & them == $0 }) { return -(10 - stones.nonzeroBitCount) }
        if stones == full { return 0 }
        var alpha = alpha
        for cell in 0..<9 where stones & (1 << UInt16(cell)) == 0 {
            let score = -value(them, me | 1 << UInt16(cell), alpha: -beta, beta: -alpha)
            if score > alpha { alpha = score }
            if alpha >= beta { break }
        }
        return alpha
    }
}
