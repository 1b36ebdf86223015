import Games

/// A Connect Four position seen from the side to move, as two bitboards.
///
/// Same layout as `Connect4.pieces` (bit `column * 7 + row`, a spare bit on
/// top of every column), so the usual shift tricks find lines: see
/// Pascal Pons, "Solving Connect 4" (2019).
struct Connect4Bits {
    /// Stones of the side to move.
    var current: UInt64
    /// Every stone on the board.
    var mask: UInt64
    /// Stones on the board (the number of moves played).
    var moves: Int

    static let bottomRow: UInt64 = 0x0000_0408_1020_4081
    static let boardMask: UInt64 = 0x0000_FDFB_F7EF_DFBF
    /// Rows 1, 3 and 5 as a person counts them (bit rows 0, 2, 4): where
    /// the first player's threats pay off in a filled-up endgame.
    static let oddRows: UInt64 = 0x0000_54A9_52A5_4A95
    /// Rows 2, 4 and 6 (bit rows 1, 3, 5): the second player's good rows.
    static let evenRows: UInt64 = 0x0000_A952_A54A_952A
    /// Columns searched first: the centre takes part in the most lines.
    static let centreOrder = [3, 2, 4, 1, 5, 0, 6]

    init(_ game: Connect4) {
        let seat = game.moveCount % 2
        current = seat == 0 ? game.pieces.0 : game.pieces.1
        mask = game.pieces.0 | game.pieces.1
        moves = game.moveCount
    }

    @inline(__always)
    static func columnMask(_ column: Int) -> UInt64 { 0x3F &<< UInt64(column * 7) }

    /// The lowest free cell of every column that is not full.
    @inline(__always)
    var possible: UInt64 { (mask &+ Self.bottomRow) & Self.boardMask }

    /// A number that identifies the position (and whose turn it is).
    @inline(__always)
    var key: UInt64 { current &+ mask }

    /// Plays the single-bit cell `move` for the side to move.
    @inline(__always)
    mutating func play(_ move: UInt64) {
        current ^= mask
        mask |= move
        moves += 1
    }

    /// The empty cells that would complete four in a row for `stones`.
    @inline(__always)
    static func winningCells(_ stones: UInt64, _ mask: UInt64) -> UInt64 {
        let p = stones
        let r = (p &<< 1) & (p &<< 2) & (p &<< 3)
            | lines(p, shift: 7) | lines(p, shift: 6) | lines(p, shift: 8)
        return r & (boardMask ^ mask)
    }

    /// Cells completing three of `p` along one direction, from either end or a gap.
    @inline(__always)
    private static func lines(_ p: UInt64, shift: UInt64) -> UInt64 {
        var pair = (p &<< shift) & (p &<< (2 * shift))
        var r = pair & (p &<< (3 * shift))
        r |= pair & (p &>> shift)
        pair = (p &>> shift) & (p &>> (2 * shift))
        r |= pair & (p &<< shift)
        r |= pair & (p &>> (3 * shift))
        return r
    }

    /// Playable cells that do not hand the opponent an immediate win; zero
    /// when every move loses. Assumes the side to move cannot win at once.
    @inline(__always)
    func nonLosingMoves(_ possible: UInt64) -> UInt64 {
        nonLosingMoves(possible, threats: Self.winningCells(current ^ mask, mask))
    }

    /// `nonLosingMoves(_:)` given the opponent's winning cells, `threats`.
    @inline(__always)
    func nonLosingMoves(_ possible: UInt64, threats: UInt64) -> UInt64 {
        var moves = possible
        let forced = possible & threats
        if forced != 0 {
            if forced & (forced &- 1) != 0 { return 0 }
            moves = forced
        }
        return moves & ~(threats &>> 1)
    }
}

/// The search behind `medium` and `hard` Connect Four.
///
/// Negamax with alpha-beta. Every node first takes a win in one, then keeps
/// only moves that do not give the opponent a win in one, so the leaves'
/// judgement never has to see a tactic one move deep.
struct Connect4Search {
    /// How leaves are judged.
    enum Judgement {
        /// Open lines of one, two and three stones (`medium`).
        case lines
        /// Open lines plus threats, weighted by the rows where they pay off (`hard`).
        case linesAndThreats
    }

    static let win = 100_000
    static let infinity = 1_000_000
    /// Scores at least this large in size are proven wins or losses.
    static let provenWin = win - 64
    static let minimumTableDepth = 2

    let judgement: Judgement
    /// How much the side to move at the root dislikes a draw (`hard` plays to win).
    var contempt = 0
    /// `moves % 2` of the root position: whose dislike `contempt` is.
    var rootParity = 0
    let nodeBudget: Int
    let shouldStop: () -> Bool
    var table: TranspositionTable?
    var nodes = 0
    /// The caller asked to stop: the answer is thrown away.
    var stopped = false
    /// The node budget ran out: the last finished depth stands.
    var outOfBudget = false

    init(judgement: Judgement, nodeBudget: Int, tableBits: Int?, shouldStop: @escaping () -> Bool) {
        self.judgement = judgement
        self.nodeBudget = nodeBudget
        self.shouldStop = shouldStop
        table = tableBits.map { TranspositionTable(bits: $0) }
    }

    private var aborted: Bool { stopped || outOfBudget }

    /// A draw's value for the side to move.
    @inline(__always)
    func drawScore(_ board: Connect4Bits) -> Int {
        board.moves % 2 == rootParity ? -contempt : contempt
    }

    /// The position's value for the side to move, searching `depth` more plies.
    mutating func negamax(_ board: Connect4Bits, depth: Int, alpha: Int, beta: Int) -> Int {
        nodes += 1
        if nodes & 1023 == 0 {
            if shouldStop() { stopped = true } else if nodes >= nodeBudget { outOfBudget = true }
        }
        if aborted { return 0 }

        let possible = board.possible
        let myThreats = Connect4Bits.winningCells(board.current, board.mask)
        if myThreats & possible != 0 { return Self.win - (board.moves + 1) }
        let theirThreats = Connect4Bits.winningCells(board.current ^ board.mask, board.mask)
        let next = board.nonLosingMoves(possible, threats: theirThreats)
        if next == 0 { return -(Self.win - (board.moves + 2)) }
        if board.moves >= 40 { return drawScore(board) }
        if depth <= 0 { return evaluate(board, myThreats: myThreats, theirThreats: theirThreats) }

        var alpha = alpha, beta = beta
        // No win is possible before move moves + 3, and no loss before moves + 4.
        let best = Self.win - (board.moves + 3)
        if beta > best { beta = best; if alpha >= beta { return beta } }
        let worst = -(Self.win - (board.moves + 4))
        if alpha < worst { alpha = worst; if alpha >= beta { return alpha } }

        let key = board.key
        var tableMove = -1
        // Near the leaves a probe's cache miss costs more than the nodes it saves.
        let useTable = depth >= Self.minimumTableDepth
        if useTable, let entry = table?.probe(key) {
            tableMove = entry.move
            if entry.depth >= depth {
                switch entry.bound {
                case .exact: return entry.score
                case .lower: if entry.score >= beta { return entry.score }
                case .upper: if entry.score <= alpha { return entry.score }
                }
            }
        }

        var order = orderKeys(board, next, first: tableMove)
        let alphaBefore = alpha
        var bestScore = -Self.infinity
        var bestColumn = 0
        while let column = Self.popBest(&order) {
            var child = board
            child.play(next & Connect4Bits.columnMask(column))
            let score = -negamax(child, depth: depth - 1, alpha: -beta, beta: -alpha)
            if aborted { return 0 }
            if score > bestScore { bestScore = score; bestColumn = column }
            if score > alpha { alpha = score }
            if alpha >= beta { break }
        }
        let bound: ScoreBound = bestScore <= alphaBefore ? .upper : (bestScore >= beta ? .lower : .exact)
        if useTable { table?.store(key, depth: depth, score: bestScore, bound: bound, move: bestColumn) }
        return bestScore
    }

    /// One byte per column (0 = not a candidate): the table's move first,
    /// then moves that make the most threats, then the centre.
    @inline(__always)
    func orderKeys(_ board: Connect4Bits, _ moves: UInt64, first: Int) -> UInt64 {
        var keys: UInt64 = 0
        for (rank, column) in Connect4Bits.centreOrder.enumerated() {
            let move = moves & Connect4Bits.columnMask(column)
            guard move != 0 else { continue }
            var value: UInt64
            if column == first {
                value = 255
            } else {
                let threats = Connect4Bits.winningCells(board.current | move, board.mask | move).nonzeroBitCount
                value = 1 + UInt64(min(threats, 30)) * 8 + UInt64(6 - rank)
            }
            keys |= value &<< UInt64(column * 8)
        }
        return keys
    }

    /// Takes the column with the largest key out of `keys`.
    @inline(__always)
    static func popBest(_ keys: inout UInt64) -> Int? {
        guard keys != 0 else { return nil }
        var bestKey: UInt64 = 0, bestColumn = 0
        for column in 0..<7 {
            let key = (keys &>> UInt64(column * 8)) & 0xFF
            if key > bestKey { bestKey = key; bestColumn = column }
        }
        keys &= ~(0xFF &<< UInt64(bestColumn * 8))
        return bestColumn
    }

    /// How good the position looks for the side to move, well inside ±`provenWin`.
    func evaluate(_ board: Connect4Bits, myThreats: UInt64, theirThreats: UInt64) -> Int {
        let mine = board.current, theirs = board.current ^ board.mask
        var score = Self.lineScore(mine, against: theirs) - Self.lineScore(theirs, against: mine)
        if judgement == .linesAndThreats {
            score += threatScore(board, myThreats: myThreats, theirThreats: theirThreats)
        }
        return score
    }

    /// Threats (empty cells that would complete a line) judged the way a
    /// filled-up endgame settles them: only the lowest threat in a column
    /// counts fully, and it counts most on the row parity that favours its
    /// owner (odd rows for the first player, even rows for the second).
    @inline(__always)
    func threatScore(_ board: Connect4Bits, myThreats: UInt64, theirThreats: UInt64) -> Int {
        let covered = Self.above(myThreats | theirThreats)
        // The side to move is the first player when an even number of stones is down.
        let myRows = board.moves % 2 == 0 ? Connect4Bits.oddRows : Connect4Bits.evenRows
        let theirRows = Connect4Bits.boardMask ^ myRows
        func value(_ threats: UInt64, goodRows: UInt64) -> Int {
            let lowest = threats & ~covered
            return 40 * (lowest & goodRows).nonzeroBitCount + 12 * (lowest & ~goodRows).nonzeroBitCount
                + 4 * (threats & covered).nonzeroBitCount
        }
        return value(myThreats, goodRows: myRows) - value(theirThreats, goodRows: theirRows)
    }

    /// The cells with one of `cells` somewhere below them in the same column.
    @inline(__always)
    static func above(_ cells: UInt64) -> UInt64 {
        var result = (cells &<< 1) & Connect4Bits.boardMask
        result |= (result &<< 1) & Connect4Bits.boardMask
        result |= (result &<< 2) & Connect4Bits.boardMask
        result |= (result &<< 2) & Connect4Bits.boardMask
        return result
    }

    /// Open windows of four holding one, two or three of `stones` and none
    /// of `other`, weighted, in all four directions.
    @inline(__always)
    static func lineScore(_ stones: UInt64, against other: UInt64) -> Int {
        // Each direction's shift, with the first cells of its windows that lie on the board.
        lineScore(stones, other, shift: 1, starts: 0x1C38_70E1_C387)
            + lineScore(stones, other, shift: 7, starts: 0x7EF_DFBF)
            + lineScore(stones, other, shift: 6, starts: 0x70E_1C38)
            + lineScore(stones, other, shift: 8, starts: 0xE1_C387)
    }

    @inline(__always)
    static func lineScore(_ stones: UInt64, _ other: UInt64, shift: UInt64, starts: UInt64) -> Int {
        let open = starts & ~(other | other &>> shift | other &>> (2 * shift) | other &>> (3 * shift))
        let a = stones, b = stones &>> shift, c = stones &>> (2 * shift), d = stones &>> (3 * shift)
        // Bit-sliced count of a + b + c + d (the fourth stone would be a win, never seen here).
        let low1 = a ^ b, carry1 = a & b, low2 = c ^ d, carry2 = c & d
        let bit0 = low1 ^ low2
        let bit1 = carry1 ^ carry2 ^ (low1 & low2)
        return (open & bit0 & ~bit1).nonzeroBitCount
            + 4 * (open & ~bit0 & bit1).nonzeroBitCount
            + 16 * (open & bit0 & bit1).nonzeroBitCount
    }
}

/// Connect Four move choice for each level.
enum Connect4Player {
    /// `medium`: four plies deep, judging open lines, a random pick among equal moves.
    static let mediumDepth = 4
    /// `hard`: nodes searched per move (iterative deepening stops at the first
    /// depth that would pass it); a few tenths of a second in a release build.
    static let hardNodeBudget = 3_000_000
    /// How much `hard` prefers an unclear position to a certain draw.
    static let hardContempt = 25
    /// `hard`'s transposition table: 1 << 19 entries, 8 MiB.
    static let hardTableBits = 19

    static func chooseMove(
        _ game: Connect4, level: BotLevel, random: inout SplitMix64, shouldStop: () -> Bool
    ) -> Move? {
        var table: TranspositionTable?
        return chooseMove(game, level: level, random: &random, table: &table, shouldStop: shouldStop)
    }

    /// `chooseMove`, with `hard`'s table kept by the caller across moves
    /// (made on first use, cleared before each search).
    static func chooseMove(
        _ game: Connect4, level: BotLevel, random: inout SplitMix64, table: inout TranspositionTable?,
        hardNodes: Int = hardNodeBudget, shouldStop: () -> Bool
    ) -> Move? {
        let board = Connect4Bits(game)
        let possible = board.possible
        guard possible != 0 else { return nil }
        if let win = columns(Connect4Bits.winningCells(board.current, board.mask) & possible).first {
            return Move(win)
        }
        let next = board.nonLosingMoves(possible)
        if next == 0 {
            // Lost whatever happens: block one threat and hope for a mistake.
            let threats = Connect4Bits.winningCells(board.current ^ board.mask, board.mask) & possible
            return Move(columns(threats != 0 ? threats : possible).first ?? 0)
        }
        let candidates = columns(next)
        if candidates.count == 1 { return Move(candidates[0]) }

        return withoutActuallyEscaping(shouldStop) { shouldStop in
            switch level {
            case .easy, .medium:
                return medium(board, candidates: candidates, random: &random, shouldStop: shouldStop)
            case .hard:
                return hard(board, candidates: candidates, nodeBudget: hardNodes, table: &table, shouldStop: shouldStop)
                    .map { Move($0.column) }
            }
        }
    }

    /// How many nodes `hard` lets the exact solver search before it falls
    /// back to the heuristic search: about 15 s on one core (some 10 million
    /// nodes a second), a safety net, not a limit play reaches. In 80 games
    /// from the empty board (`connect4-book selfplay`), every one of hard's
    /// moves after the book kept the exact value, and the slowest (its first
    /// solve after the book) took 2.4 s; with a budget of 2 million (a fifth
    /// of a second) it let the value slip in 14 of 491 such moves. Nodes, not
    /// time, so a seeded game replays the same on any machine.
    static let perfectNodeBudget = 150_000_000
    /// Nodes of heuristic search that choose among moves of equal exact value
    /// in drawn and lost positions.
    static let tieBreakNodeBudget = 300_000
    /// Below this many stones (and outside the book) an exact search takes
    /// from seconds to hours on one core, so `hard` does not try: it plays the
    /// heuristic search's move at once.
    static let perfectFromMove = 8

    /// `hard`: a move with the best exact score (the quickest win, a draw
    /// when no win exists, the longest resistance when lost), the most
    /// central among equals. A position the solver cannot finish within
    /// `perfectNodeBudget` gets the heuristic search's move instead.
    static func perfectMove(_ game: Connect4, solver exact: Connect4Solver, shouldStop: () -> Bool) -> Move? {
        var table: TranspositionTable?
        return perfectMove(game, solver: exact, table: &table, shouldStop: shouldStop)
    }

    /// `perfectMove`, with the heuristic search's table kept by the caller
    /// across moves (made on first use, cleared before each search). With
    /// `answerBy` (a turn timeout), a solve still running then gives way to
    /// a short heuristic search (`tieBreakNodeBudget`): a move in time beats a
    /// perfect one after the deadline.
    static func perfectMove(
        _ game: Connect4, solver exact: Connect4Solver, table: inout TranspositionTable?,
        answerBy: ContinuousClock.Instant? = nil, shouldStop: () -> Bool
    ) -> Move? {
        let late = { answerBy.map { ContinuousClock.now >= $0 } ?? false }
        let board = Connect4Bits(game)
        guard !Connect4Solver.isOver(board) else { return nil }
        if board.moves < perfectFromMove && !exact.bookHolds(board) {
            var random = SplitMix64(seed: 0)
            return chooseMove(game, level: .hard, random: &random, table: &table, shouldStop: shouldStop)
        }
        let column: Int? = withoutActuallyEscaping(shouldStop) { shouldStop in
            guard let best = exact.bestMoves(board, nodeBudget: perfectNodeBudget, shouldStop: { shouldStop() || late() }),
                  let first = best.columns.first else { return nil }
            // A win: the quickest, the most central. A draw or a loss against
            // perfect play: among the moves that keep it, the one the heuristic
            // search likes best, which a weaker opponent must answer precisely.
            guard best.score <= 0, best.columns.count > 1, board.nonLosingMoves(board.possible) != 0, !shouldStop() else {
                return first
            }
            return hard(board, candidates: best.columns, nodeBudget: tieBreakNodeBudget, table: &table, shouldStop: shouldStop)?.column ?? first
        }
        if let column { return Move(column) }
        let hurried = late()
        guard exact.outOfBudget || hurried, !shouldStop() else { return nil }
        // The heuristic search is deterministic for `hard`: the generator goes unused.
        var random = SplitMix64(seed: 0)
        return chooseMove(game, level: .hard, random: &random, table: &table,
                          hardNodes: hurried ? tieBreakNodeBudget : hardNodeBudget, shouldStop: shouldStop)
    }

    /// The columns whose cell is set in `cells`, in column order.
    static func columns(_ cells: UInt64) -> [Int] {
        (0..<7).filter { cells & Connect4Bits.columnMask($0) != 0 }
    }

    private static func medium(
        _ board: Connect4Bits, candidates: [Int], random: inout SplitMix64, shouldStop: @escaping () -> Bool
    ) -> Move? {
        var search = Connect4Search(judgement: .lines, nodeBudget: .max, tableBits: nil, shouldStop: shouldStop)
        var best = -Connect4Search.infinity
        var bestColumns: [Int] = []
        for column in candidates {
            var child = board
            child.play(board.possible & Connect4Bits.columnMask(column))
            // A window just below the best so far: ties come back exact, worse moves cheaply.
            let score = -search.negamax(child, depth: mediumDepth - 1, alpha: -Connect4Search.infinity, beta: -(best - 1))
            if search.stopped { return nil }
            if score > best { best = score; bestColumns = [column] } else if score == best { bestColumns.append(column) }
        }
        return bestColumns.randomElement(using: &random).map(Move.init)
    }

    /// The `hard` search: the column, the last finished depth and its score;
    /// nil when stopped. `table` is made on first use (`hardTableBits`) and
    /// cleared before the search, so the answer never depends on earlier moves.
    static func hard(
        _ board: Connect4Bits, candidates: [Int], nodeBudget: Int = hardNodeBudget, table: inout TranspositionTable?,
        shouldStop: @escaping () -> Bool
    ) -> (column: Int, depth: Int, score: Int, nodes: Int)? {
        var search = Connect4Search(
            judgement: .linesAndThreats, nodeBudget: nodeBudget, tableBits: nil, shouldStop: shouldStop)
        if table == nil { table = TranspositionTable(bits: hardTableBits) } else { table?.clear() }
        // Lent to the search (moved, not copied) and handed back however it ends.
        swap(&table, &search.table)
        defer { swap(&table, &search.table) }
        search.contempt = hardContempt
        search.rootParity = board.moves % 2
        let next = board.nonLosingMoves(board.possible)
        var ordered = candidates.sorted {
            Connect4Bits.centreOrder.firstIndex(of: $0) ?? 0 < Connect4Bits.centreOrder.firstIndex(of: $1) ?? 0
        }
        guard var chosen = ordered.first else { return nil }
        var finishedDepth = 0, chosenScore = 0
        for depth in 1...(42 - board.moves) {
            var alpha = -Connect4Search.infinity
            var bestColumn = ordered[0]
            var scores: [Int: Int] = [:]
            for column in ordered {
                var child = board
                child.play(next & Connect4Bits.columnMask(column))
                let score = -search.negamax(child, depth: depth - 1, alpha: -Connect4Search.infinity, beta: -alpha)
                if search.stopped { return nil }
                if search.outOfBudget { break }
                scores[column] = score
                if score > alpha { alpha = score; bestColumn = column }
            }
            if search.outOfBudget { break }
            if alpha <= -Connect4Search.provenWin && finishedDepth > 0 && chosenScore > -Connect4Search.provenWin {
                // Lost against perfect play, but only beyond the last depth's
                // horizon: keep the move that looked best there, which a
                // weaker opponent has to answer precisely for longest.
                break
            }
            chosen = bestColumn; finishedDepth = depth; chosenScore = alpha
            // Search the best move first next time, then the rest by this depth's scores.
            ordered.sort { (scores[$0] ?? 0) > (scores[$1] ?? 0) }
            if let index = ordered.firstIndex(of: chosen) { ordered.remove(at: index); ordered.insert(chosen, at: 0) }
            if abs(alpha) >= Connect4Search.provenWin { break }
        }
        return (chosen, finishedDepth, chosenScore, search.nodes)
    }
}
