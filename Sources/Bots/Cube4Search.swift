import Games

/// The plain search behind `medium` Cube Four and the `hard` of earlier
/// releases (`Bot.legacyHard`, which `parlor bench bots` measures today's
/// `hard`, `Cube4Engine`, against): negamax with alpha-beta and a fixed node
/// budget, judging leaves by the open lines each side still has. Kept as
/// those releases searched, so the bench's opponent really is the old bot.
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

    init(weights: (Int, Int, Int, Int), nodeBudget: Int, tableBits: Int?, shouldStop: @escaping () -> Bool) {
        self.weights = weights
        self.nodeBudget = nodeBudget
        self.shouldStop = shouldStop
        table = tableBits.map { TranspositionTable(bits: $0) }
    }

    private var aborted: Bool { stopped || outOfBudget }

    /// Each side's winning cells (empty cells completing a line) and the
    /// open-line score for the side to move.
    ///
    /// Bit-parallel: the lines of one direction all have their first cell in
    /// `starts` and the next ones `shift`, 2 `shift` and 3 `shift` above it,
    /// so shifting the stones down lines up every line's four cells on its
    /// first cell, and their counts are added bit-sliced, 16 lines at a time.
    /// Gives exactly what `analyseLineByLine` gives (a test checks it).
    @inline(__always)
    func analyse(_ board: Cube4Bits) -> (mine: UInt64, theirs: UInt64, score: Int) {
        let me = board.current, them = board.current ^ board.mask
        var mine: UInt64 = 0, theirs: UInt64 = 0, score = 0
        for direction in Cube4Lines.directions {
            let (a, aCount) = Self.slice(me, direction)
            let (b, bCount) = Self.slice(them, direction)
            let starts = direction.starts
            let openToMe = starts & ~(b.0 | b.1 | b.2 | b.3)
            let openToThem = starts & ~(a.0 | a.1 | a.2 | a.3)
            score += weights.0 * (openToMe & aCount.0).nonzeroBitCount + weights.1 * (openToMe & aCount.1).nonzeroBitCount
                + weights.2 * (openToMe & aCount.2).nonzeroBitCount + weights.3 * (openToMe & aCount.3).nonzeroBitCount
            // A line empty of both counts once, as the first side's (weights.0 is 0 anyway).
            score -= weights.1 * (openToThem & bCount.1).nonzeroBitCount + weights.2 * (openToThem & bCount.2).nonzeroBitCount
                + weights.3 * (openToThem & bCount.3).nonzeroBitCount
            mine |= Self.gaps(openToMe & aCount.3 & ~aCount.4, a, direction.shift)
            theirs |= Self.gaps(openToThem & bCount.3 & ~bCount.4, b, direction.shift)
        }
        return (mine, theirs, score)
    }

    /// The stones of `side` on each line's four cells, moved onto its first
    /// cell, and the lines holding 0, 1, 2, 3 or more (4: `.3` and `.4`) of them.
    @inline(__always)
    private static func slice(_ side: UInt64, _ direction: Cube4Lines.Direction)
        -> ((UInt64, UInt64, UInt64, UInt64), (UInt64, UInt64, UInt64, UInt64, UInt64)) {
        let shift = direction.shift, starts = direction.starts
        let x = side & starts, y = (side &>> shift) & starts
        let z = (side &>> (2 * shift)) & starts, w = (side &>> (3 * shift)) & starts
        let s1 = x ^ y, c1 = x & y, s2 = z ^ w, c2 = z & w
        let low = s1 ^ s2, carry = s1 & s2
        let mid = c1 ^ c2 ^ carry
        let high = (c1 & c2) | (c1 & carry) | (c2 & carry)
        let counts = (~low & ~mid & ~high, low & ~mid & ~high, ~low & mid & ~high, (low & mid) | high, high)
        return ((x, y, z, w), counts)
    }

    /// The empty cell of each line in `lines` (first cells), given the stones moved onto them.
    @inline(__always)
    private static func gaps(_ lines: UInt64, _ stones: (UInt64, UInt64, UInt64, UInt64), _ shift: UInt64) -> UInt64 {
        (lines & ~stones.0) | ((lines & ~stones.1) &<< shift) | ((lines & ~stones.2) &<< (2 * shift))
            | ((lines & ~stones.3) &<< (3 * shift))
    }

    /// `analyse` one line at a time, as earlier releases did: the reference
    /// the bit-parallel version is tested against.
    func analyseLineByLine(_ board: Cube4Bits) -> (mine: UInt64, theirs: UInt64, score: Int) {
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
            if shouldStop() { stopped = true } else if nodes >= nodeBudget { outOfBudget = true }
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

extension Cube4Search {
    /// Nodes the `hard` of earlier releases searched per move, with a fresh
    /// 1 << 18 table each time.
    static let legacyNodeBudget = 400_000
    /// Weights of the `hard` of earlier releases.
    static let legacyWeights = (0, 1, 5, 24)

    /// The move of the `hard` of earlier releases (`Bot.legacyHard`), among
    /// `candidates` (pegs whose lowest free cell is in `next`): iterative
    /// deepening until `nodeBudget` nodes, a fresh table each move; the peg,
    /// the last finished depth, its score and the nodes searched; nil when stopped.
    static func legacyHard(
        _ board: Cube4Bits, _ next: UInt64, _ candidates: [Int], nodeBudget: Int = legacyNodeBudget,
        shouldStop: @escaping () -> Bool
    ) -> (peg: Int, depth: Int, score: Int, nodes: Int)? {
        var search = Cube4Search(weights: legacyWeights, nodeBudget: nodeBudget, tableBits: 18, shouldStop: shouldStop)
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
