import Games

/// A Cube Four position seen from the side to move, as two bitboards
/// (bit = `level * 16 + row * 4 + column`, as in `Cube4.pieces`).
struct Cube4Bits {
    /// Stones of the side to move.
    var current: UInt64
    /// Every stone in the cube.
    var mask: UInt64
    /// Stones in the cube (the number of moves played).
    var moves: Int

    init(_ game: Cube4) {
        let seat = game.moveCount % 2
        current = seat == 0 ? game.pieces.0 : game.pieces.1
        mask = game.pieces.0 | game.pieces.1
        moves = game.moveCount
    }

    /// The four cells of peg `peg`, bottom to top.
    @inline(__always)
    static func pegMask(_ peg: Int) -> UInt64 { 0x0001_0001_0001_0001 &<< UInt64(peg) }

    /// The lowest free cell of every peg that is not full: empty cells
    /// resting on a stone or on the floor.
    @inline(__always)
    var possible: UInt64 { ~mask & ((mask &<< 16) | 0xFFFF) }

    /// A 64-bit digest of the position for the transposition table.
    @inline(__always)
    var key: UInt64 {
        (current &* 0x9E37_79B9_7F4A_7C15) ^ ((mask ^ (mask &>> 29)) &* 0xC2B2_AE3D_27D4_EB4F)
    }

    @inline(__always)
    mutating func play(_ move: UInt64) {
        current ^= mask
        mask |= move
        moves += 1
    }
}

/// Which of the 76 lines pass through each cell, flattened for fast lookup.
enum Cube4Lines {
    static let all: [UInt64] = Cube4.lineMasks
    /// `through[start[cell]..<start[cell + 1]]` are the lines through `cell`.
    static let start: [Int] = {
        var result = [0]
        for cell in 0..<64 { result.append(result[cell] + all.filter { $0 & (1 << UInt64(cell)) != 0 }.count) }
        return result
    }()
    static let through: [UInt64] = (0..<64).flatMap { cell in all.filter { $0 & (1 << UInt64(cell)) != 0 } }
}

/// The search behind `medium` and `hard` Cube Four: negamax with alpha-beta,
/// judging leaves by the open lines each side still has.
struct Cube4Search {
    static let win = 100_000
    static let infinity = 1_000_000
    static let provenWin = win - 128

    let lines = Cube4Lines.all
    let lineStart = Cube4Lines.start
    let linesThrough = Cube4Lines.through
    /// Weight of an open line holding 0, 1, 2 or 3 of one side's stones.
    let weights: (Int, Int, Int, Int)
    /// Whether leaves also judge threats by level parity (`hard`).
    var judgesParity = false
    let nodeBudget: Int
    let shouldStop: () -> Bool
    var table: TranspositionTable?
    var nodes = 0
    var stopped = false
    var outOfBudget = false
    /// When set, the search also runs out of budget at this instant.
    var deadline: ContinuousClock.Instant?

    init(weights: (Int, Int, Int, Int), nodeBudget: Int, tableBits: Int?, shouldStop: @escaping () -> Bool) {
        self.weights = weights
        self.nodeBudget = nodeBudget
        self.shouldStop = shouldStop
        table = tableBits.map { TranspositionTable(bits: $0) }
    }

    private var aborted: Bool { stopped || outOfBudget }

    /// Each side's winning cells (empty cells completing a line) and the
    /// open-line score for the side to move.
    @inline(__always)
    func analyse(_ board: Cube4Bits) -> (mine: UInt64, theirs: UInt64, score: Int) {
        let me = board.current, them = board.current ^ board.mask
        var mine: UInt64 = 0, theirs: UInt64 = 0, score = 0
        for line in lines {
            let a = line & me, b = line & them
            if b == 0 {
                let count = a.nonzeroBitCount
                score += weight(count)
                if count == 3 { mine |= line ^ a }
            } else if a == 0 {
                let count = b.nonzeroBitCount
                score -= weight(count)
                if count == 3 { theirs |= line ^ b }
            }
        }
        return (mine, theirs, score)
    }

    @inline(__always)
    private func weight(_ count: Int) -> Int {
        switch count {
        case 0: weights.0
        case 1: weights.1
        case 2: weights.2
        default: weights.3
        }
    }

    /// Winning cells judged the way a filled-up endgame settles them: only
    /// the lowest in a peg counts fully, most on the level parity that
    /// favours its owner (levels 1 and 3 for the first player, 2 and 4 for
    /// the second), as in Connect Four.
    @inline(__always)
    static func threatScore(_ board: Cube4Bits, mine: UInt64, theirs: UInt64) -> Int {
        var covered = (mine | theirs) &<< 16
        covered |= covered &<< 16
        covered |= covered &<< 32
        let oddLevels: UInt64 = 0x0000_FFFF_0000_FFFF
        let myLevels = board.moves % 2 == 0 ? oddLevels : ~oddLevels
        func value(_ cells: UInt64, good: UInt64) -> Int {
            let lowest = cells & ~covered
            return 40 * (lowest & good).nonzeroBitCount + 12 * (lowest & ~good).nonzeroBitCount
                + 4 * (cells & covered).nonzeroBitCount
        }
        return value(mine, good: myLevels) - value(theirs, good: ~myLevels)
    }

    /// The cells the side to move may play without losing at once, or nil
    /// when it wins at once (`.win`) or loses whatever it does (`.lose`).
    enum Triage { case win, lose, moves(UInt64, score: Int, mine: UInt64, theirs: UInt64) }

    @inline(__always)
    func triage(_ board: Cube4Bits) -> Triage {
        let possible = board.possible
        let (mine, theirs, score) = analyse(board)
        if mine & possible != 0 { return .win }
        var next = possible
        let forced = theirs & possible
        if forced != 0 {
            if forced & (forced &- 1) != 0 { return .lose }
            next = forced
        }
        // Never fill the cell under one of their winning cells.
        next &= ~(theirs &>> 16)
        return next == 0 ? .lose : .moves(next, score: score, mine: mine, theirs: theirs)
    }

    mutating func negamax(_ board: Cube4Bits, depth: Int, alpha: Int, beta: Int) -> Int {
        nodes += 1
        if nodes & 511 == 0 {
            if shouldStop() {
                stopped = true
            } else if nodes >= nodeBudget || deadline.map({ ContinuousClock.now >= $0 }) == true {
                outOfBudget = true
            }
        }
        if aborted { return 0 }
        if board.moves == 64 { return 0 }

        let next: UInt64, judgement: Int, mine: UInt64, theirs: UInt64
        switch triage(board) {
        case .win: return Self.win - (board.moves + 1)
        case .lose: return -(Self.win - (board.moves + 2))
        case .moves(let moves, let score, let myCells, let theirCells):
            (next, judgement, mine, theirs) = (moves, score, myCells, theirCells)
        }
        if board.moves >= 62 { return 0 }
        if depth <= 0 {
            return judgement + (judgesParity ? Self.threatScore(board, mine: mine, theirs: theirs) : 0)
        }

        var alpha = alpha, beta = beta
        let best = Self.win - (board.moves + 3)
        if beta > best { beta = best; if alpha >= beta { return beta } }
        let worst = -(Self.win - (board.moves + 4))
        if alpha < worst { alpha = worst; if alpha >= beta { return alpha } }

        let key = board.key
        var tableMove = -1
        if let entry = table?.probe(key) {
            tableMove = entry.move
            if entry.depth >= depth {
                switch entry.bound {
                case .exact: return entry.score
                case .lower: if entry.score >= beta { return entry.score }
                case .upper: if entry.score <= alpha { return entry.score }
                }
            }
        }

        var keys = orderKeys(board, next, first: tableMove)
        let alphaBefore = alpha
        var bestScore = -Self.infinity
        var bestPeg = 0
        while let peg = Self.popBest(&keys) {
            var child = board
            child.play(next & Cube4Bits.pegMask(peg))
            let score = -negamax(child, depth: depth - 1, alpha: -beta, beta: -alpha)
            if aborted { return 0 }
            if score > bestScore { bestScore = score; bestPeg = peg }
            if score > alpha { alpha = score }
            if alpha >= beta { break }
        }
        let bound: ScoreBound = bestScore <= alphaBefore ? .upper : (bestScore >= beta ? .lower : .exact)
        table?.store(key, depth: depth, score: bestScore, bound: bound, move: bestPeg)
        return bestScore
    }

    /// A key per peg (0 = not a candidate): the table's move first, then
    /// cells on many lines still open to either side, more so with stones on them.
    @inline(__always)
    func orderKeys(_ board: Cube4Bits, _ moves: UInt64, first: Int) -> InlineArray<16, Int32> {
        var keys = InlineArray<16, Int32>(repeating: 0)
        let me = board.current, them = board.current ^ board.mask
        var remaining = moves
        while remaining != 0 {
            let cell = remaining.trailingZeroBitCount
            remaining &= remaining &- 1
            let peg = cell & 15
            if peg == first { keys[peg] = Int32.max; continue }
            var value = 1
            for index in lineStart[cell]..<lineStart[cell + 1] {
                let line = linesThrough[index]
                let a = line & me, b = line & them
                if b == 0 { value += 1 + 2 * a.nonzeroBitCount }
                if a == 0 { value += 1 + b.nonzeroBitCount }
            }
            keys[peg] = Int32(value)
        }
        return keys
    }

    /// Takes the peg with the largest key out of `keys`.
    @inline(__always)
    static func popBest(_ keys: inout InlineArray<16, Int32>) -> Int? {
        var bestKey: Int32 = 0, bestPeg = -1
        for peg in 0..<16 where keys[peg] > bestKey {
            bestKey = keys[peg]; bestPeg = peg
        }
        guard bestPeg >= 0 else { return nil }
        keys[bestPeg] = 0
        return bestPeg
    }
}

/// Cube Four move choice for each level.
enum Cube4Player {
    static let mediumDepth = 2
    static let mediumWeights = (0, 1, 4, 16)
    static let hardWeights = (0, 1, 5, 24)
    /// Nodes the `hard` of earlier releases searched per move, with a fresh
    /// 1 << 18 table each time (`Bot.legacyHard`, for `parlor bench bots`).
    static let legacyNodeBudget = 400_000
    /// Nodes `hard` searches per move: about half a second on one core.
    static let hardNodeBudget = 1_200_000
    /// `hard` stops deepening at this wall-clock time even within its nodes,
    /// so a loaded machine still gets a move within a second.
    static let hardTimeLimit = Duration.milliseconds(800)
    /// `hard`'s table, 1 << 20 entries (16 MiB), kept across moves.
    static let hardTableBits = 20

    /// The move of `level` as earlier releases played it: `hard` with a
    /// fresh table and a smaller budget (`Bot.legacyHard`).
    static func chooseMove(_ game: Cube4, level: BotLevel, random: inout SplitMix64, shouldStop: () -> Bool) -> Move? {
        var none: TranspositionTable?
        return chooseMove(game, level: level, random: &random, table: &none, keepsTable: false, shouldStop: shouldStop)
    }

    /// With `keepsTable`, `hard` searches longer with `table`, the bot's own
    /// kept across moves (made here on first use).
    static func chooseMove(
        _ game: Cube4, level: BotLevel, random: inout SplitMix64, table: inout TranspositionTable?,
        keepsTable: Bool = true, shouldStop: () -> Bool
    ) -> Move? {
        let board = Cube4Bits(game)
        guard board.possible != 0 else { return nil }
        return withoutActuallyEscaping(shouldStop) { shouldStop in
            let probe = Cube4Search(weights: mediumWeights, nodeBudget: 0, tableBits: nil, shouldStop: shouldStop)
            let next: UInt64
            switch probe.triage(board) {
            case .win:
                return pegs(probe.analyse(board).mine & board.possible).first.map(Move.init)
            case .lose:
                // Lost whatever happens: block a threat if there is one, and hope.
                let threats = probe.analyse(board).theirs & board.possible
                return pegs(threats != 0 ? threats : board.possible).first.map(Move.init)
            case .moves(let moves, _, _, _):
                next = moves
            }
            let candidates = pegs(next)
            if candidates.count == 1 { return Move(candidates[0]) }
            switch level {
            case .easy, .medium:
                return medium(board, next, candidates, random: &random, shouldStop: shouldStop)
            case .hard:
                guard keepsTable else {
                    var fresh: TranspositionTable? = TranspositionTable(bits: 18)
                    return hard(board, next, candidates, nodeBudget: legacyNodeBudget, table: &fresh, shouldStop: shouldStop)
                        .map { Move($0.peg) }
                }
                if table == nil { table = TranspositionTable(bits: hardTableBits) }
                return hard(board, next, candidates, nodeBudget: hardNodeBudget, table: &table,
                            deadline: ContinuousClock.now + hardTimeLimit, shouldStop: shouldStop).map { Move($0.peg) }
            }
        }
    }

    /// The pegs whose lowest free cell is set in `cells`.
    static func pegs(_ cells: UInt64) -> [Int] {
        (0..<16).filter { cells & Cube4Bits.pegMask($0) != 0 }
    }

    private static func medium(
        _ board: Cube4Bits, _ next: UInt64, _ candidates: [Int], random: inout SplitMix64,
        shouldStop: @escaping () -> Bool
    ) -> Move? {
        var search = Cube4Search(weights: mediumWeights, nodeBudget: .max, tableBits: nil, shouldStop: shouldStop)
        var best = -Cube4Search.infinity
        var bestPegs: [Int] = []
        for peg in candidates {
            var child = board
            child.play(next & Cube4Bits.pegMask(peg))
            let score = -search.negamax(child, depth: mediumDepth - 1, alpha: -Cube4Search.infinity, beta: -(best - 1))
            if search.stopped { return nil }
            if score > best { best = score; bestPegs = [peg] } else if score == best { bestPegs.append(peg) }
        }
        return bestPegs.randomElement(using: &random).map(Move.init)
    }

    /// The `hard` search: the peg, the last finished depth, its score and the
    /// nodes searched; nil when stopped.
    static func hard(
        _ board: Cube4Bits, _ next: UInt64, _ candidates: [Int], nodeBudget: Int = hardNodeBudget,
        table: inout TranspositionTable?, deadline: ContinuousClock.Instant? = nil,
        shouldStop: @escaping () -> Bool
    ) -> (peg: Int, depth: Int, score: Int, nodes: Int)? {
        var search = Cube4Search(weights: hardWeights, nodeBudget: nodeBudget, tableBits: nil, shouldStop: shouldStop)
        // Moved into the search and back (never two owners), so it is never copied.
        search.table = table
        table = nil
        defer { table = search.table; search.table = nil }
        search.deadline = deadline
        search.judgesParity = true
        var ordered = candidates
        guard var chosen = ordered.first else { return nil }
        var finishedDepth = 0, chosenScore = 0
        for depth in 1...(64 - board.moves) {
            var alpha = -Cube4Search.infinity
            var bestPeg = ordered[0]
            var scores: [Int: Int] = [:]
            for peg in ordered {
                var child = board
                child.play(next & Cube4Bits.pegMask(peg))
                let score = -search.negamax(child, depth: depth - 1, alpha: -Cube4Search.infinity, beta: -alpha)
                if search.stopped { return nil }
                if search.outOfBudget { break }
                scores[peg] = score
                if score > alpha { alpha = score; bestPeg = peg }
            }
            if search.outOfBudget { break }
            chosen = bestPeg; finishedDepth = depth; chosenScore = alpha
            ordered.sort { (scores[$0] ?? 0) > (scores[$1] ?? 0) }
            if let index = ordered.firstIndex(of: chosen) { ordered.remove(at: index); ordered.insert(chosen, at: 0) }
            if abs(alpha) >= Cube4Search.provenWin { break }
        }
        return (chosen, finishedDepth, chosenScore, search.nodes)
    }
}
