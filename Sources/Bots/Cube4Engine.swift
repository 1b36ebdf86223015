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

    /// The lines of one direction: each starts on a cell of `starts` and
    /// goes on `shift`, 2 `shift` and 3 `shift` cells above it.
    struct Direction {
        let shift: UInt64
        let starts: UInt64
    }

    /// The 13 directions (3 along the axes, 6 diagonals in the planes, 4
    /// through the cube), each written with a positive shift: 76 lines in all.
    static let directions: [Direction] = {
        let steps = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (-1, 1, 0), (1, 0, 1), (-1, 0, 1),
                     (0, 1, 1), (0, -1, 1), (1, 1, 1), (-1, 1, 1), (1, -1, 1), (-1, -1, 1)]
        return steps.map { dx, dy, dz in
            var starts: UInt64 = 0
            for z in 0..<4 { for y in 0..<4 { for x in 0..<4 {
                let inside = [0, 3].allSatisfy { k in (0..<4).contains(x + k * dx) && (0..<4).contains(y + k * dy) && (0..<4).contains(z + k * dz) }
                if inside { starts |= 1 << UInt64(z * 16 + y * 4 + x) }
            } } }
            return Direction(shift: UInt64(dx + 4 * dy + 16 * dz), starts: starts)
        }
    }()
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
    /// Today's `hard`: a forced move (a single legal reply, such as the block
    /// of a threat) costs no depth, so forcing lines are read to their end
    /// rather than cut at the horizon; moves after the first are tried with a
    /// null window first; cutting moves are remembered (history) and tried
    /// earlier elsewhere. Off for `medium` and `Bot.legacyHard`.
    var readsForcedLines = false
    /// Cut-offs per side and cell (`readsForcedLines` only), for move ordering.
    var history = [Int32](repeating: 0, count: 128)
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
        // One legal reply (a block, or the only peg left that does not lose at once): it costs no depth.
        let forced = readsForcedLines && next & (next &- 1) == 0
        if depth <= 0 && !(forced && theirs & board.possible != 0) {
            return judgement + (judgesParity ? Self.threatScore(board, mine: mine, theirs: theirs) : 0)
        }
        let childDepth = forced ? depth : depth - 1

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
        var searched = 0
        while let peg = Self.popBest(&keys) {
            var child = board
            let cell = next & Cube4Bits.pegMask(peg)
            child.play(cell)
            var score: Int
            if readsForcedLines && searched > 0 {
                // Prove it is no better than the best so far, cheaply; search it fully only if it is.
                score = -negamax(child, depth: childDepth, alpha: -alpha - 1, beta: -alpha)
                if score > alpha && score < beta && !aborted {
                    score = -negamax(child, depth: childDepth, alpha: -beta, beta: -alpha)
                }
            } else {
                score = -negamax(child, depth: childDepth, alpha: -beta, beta: -alpha)
            }
            searched += 1
            if aborted { return 0 }
            if score > bestScore { bestScore = score; bestPeg = peg }
            if score > alpha { alpha = score }
            if alpha >= beta {
                if readsForcedLines {
                    let slot = (board.moves & 1) << 6 | cell.trailingZeroBitCount
                    history[slot] = min(history[slot] &+ Int32(max(depth, 1) * max(depth, 1)), 1 << 20)
                }
                break
            }
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
            // History breaks ties between cells the lines judge alike.
            keys[peg] = readsForcedLines
                ? Int32(value) << 10 | min(history[(board.moves & 1) << 6 | cell] >> 4, 1023)
                : Int32(value)
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
    /// `hard` searches until this wall-clock time (then plays the best move
    /// of the deepest search finished, or of the one under way if it already
    /// found a better one), so every move takes under a second.
    static let hardTimeLimit = Duration.milliseconds(800)
    /// `hard` also stops after this many nodes (about half a second on this
    /// project's 2-core test machine), so its strength does not depend on how
    /// busy the machine is; the time limit only caps a slow machine.
    static let hardNodeBudget = 400_000
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
                            deadline: ContinuousClock.now + hardTimeLimit, strong: true, shouldStop: shouldStop).map { Move($0.peg) }
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
    /// `strong`: today's `hard` (`Cube4Search.readsForcedLines`); without
    /// it, the search of `Bot.legacyHard`.
    static func hard(
        _ board: Cube4Bits, _ next: UInt64, _ candidates: [Int], nodeBudget: Int,
        table: inout TranspositionTable?, deadline: ContinuousClock.Instant? = nil, strong: Bool = false,
        shouldStop: @escaping () -> Bool
    ) -> (peg: Int, depth: Int, score: Int, nodes: Int)? {
        var search = Cube4Search(weights: hardWeights, nodeBudget: nodeBudget, tableBits: nil, shouldStop: shouldStop)
        // Moved into the search and back (never two owners), so it is never copied.
        search.table = table
        table = nil
        defer { table = search.table; search.table = nil }
        search.deadline = deadline
        search.judgesParity = true
        search.readsForcedLines = strong
        var ordered = candidates
        guard var chosen = ordered.first else { return nil }
        var finishedDepth = 0, chosenScore = 0
        for depth in 1...(64 - board.moves) {
            var alpha = -Cube4Search.infinity
            var bestPeg = ordered[0]
            var scores: [Int: Int] = [:]
            for (index, peg) in ordered.enumerated() {
                var child = board
                child.play(next & Cube4Bits.pegMask(peg))
                var score: Int
                if strong && index > 0 {
                    score = -search.negamax(child, depth: depth - 1, alpha: -alpha - 1, beta: -alpha)
                    if score > alpha && !search.stopped && !search.outOfBudget {
                        score = -search.negamax(child, depth: depth - 1, alpha: -Cube4Search.infinity, beta: -alpha)
                    }
                } else {
                    score = -search.negamax(child, depth: depth - 1, alpha: -Cube4Search.infinity, beta: -alpha)
                }
                if search.stopped { return nil }
                if search.outOfBudget { break }
                scores[peg] = score
                if score > alpha { alpha = score; bestPeg = peg }
            }
            if search.outOfBudget {
                // The last move searched first was the previous best: a move that beat it fully is better still.
                if strong, bestPeg != chosen, let score = scores[bestPeg], let previous = scores[chosen], score > previous {
                    chosen = bestPeg; chosenScore = score
                }
                break
            }
            chosen = bestPeg; finishedDepth = depth; chosenScore = alpha
            ordered.sort { (scores[$0] ?? 0) > (scores[$1] ?? 0) }
            if let index = ordered.firstIndex(of: chosen) { ordered.remove(at: index); ordered.insert(chosen, at: 0) }
            if abs(alpha) >= Cube4Search.provenWin { break }
        }
        return (chosen, finishedDepth, chosenScore, search.nodes)
    }
}
