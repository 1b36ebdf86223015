@preconcurrency import Glibc
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

/// `hard` Cube Four: principal variation search over bitboards, with
/// iterative deepening to a time budget, a transposition table, killer and
/// history move ordering kept across moves, and forced moves found before
/// any search (a win at once; the block of their only winning cell; never a
/// stone under one of their winning cells; two of their winning cells
/// playable at once is a loss). A forced reply costs no depth, so forcing
/// lines are read to their end. Leaves are judged by the lines still open
/// to each side, by winning cells weighed as a filled-up endgame settles
/// them (level parity, stacked pairs), and by who wins the fill-up played
/// out with those cells (`Cube4FillUp`).
///
/// One engine per bot (`BotMemory`), used by one move at a time: its table
/// holds scores of positions (wins counted from the position's own stone
/// count), true whatever game they came from, so it is never cleared.
struct Cube4Engine {
    /// A win on the move that brings the cube to `n` stones scores `win - n`.
    static let win = 10_000
    static let infinity = 30_000
    /// Scores at least this far from zero are proven wins or losses.
    static let provenWin = win - 100

    /// Weight of a line open to one side holding one or two of its stones.
    static let lineWeights = (1, 5)
    /// Weight of a winning cell that is the lowest in its peg, on its
    /// owner's level parity (levels 1 and 3 for the first player, 2 and 4
    /// for the second, as odd and even threats in Connect Four) or not; of
    /// one above another winning cell; of the lower of two winning cells of
    /// one side stacked in a peg (whoever fills the cell under it loses).
    static let threatWeights = (goodParity: 50, badParity: 12, covered: 4, stacked: 80)
    /// Weight of who wins the cube filled up with today's winning cells
    /// (`Cube4FillUp`): the zugzwang that decides long games, seen long
    /// before the search reaches it.
    static let fillUpWeight = 60

    /// The table, 1 << 20 entries (16 MiB), made with the engine.
    var table = TranspositionTable(bits: 20)
    /// Cut-offs per side and cell, aged every move.
    var history = [Int32](repeating: 0, count: 128)
    /// Two pegs per ply that last cut off there (-1: none).
    var killers = [Int](repeating: -1, count: 2 * 72)
    var nodes = 0
    private var aborted = false
    private var wallDeadline = ContinuousClock.now
    private var cpuDeadline: Int64 = 0
    private var stop: (() -> Bool)?

    /// What `bestMove` found: the peg, the deepest search finished, its score, the nodes searched.
    struct Choice {
        var peg: Int
        var depth: Int
        var score: Int
        var nodes: Int
    }

    /// Searches `game` (not over) and returns the best peg found within
    /// `cpuBudget` of this thread's processor time and `wallBudget` of wall
    /// time, whichever ends first; no new depth is started after
    /// `startBudget` of processor time. Nil when `shouldStop` says so.
    mutating func bestMove(
        _ game: Cube4, cpuBudget: Duration, wallBudget: Duration, startBudget: Duration, maxDepth: Int = 64,
        shouldStop: () -> Bool
    ) -> Choice? {
        let board = Cube4Bits(game)
        let empty = ~board.mask, possible = board.possible
        guard possible != 0 else { return nil }
        let me = board.current, them = board.current ^ board.mask
        let mine = Self.winningCells(me, empty), theirs = Self.winningCells(them, empty)
        if mine & possible != 0 {
            return Choice(peg: (mine & possible).trailingZeroBitCount & 15, depth: 0, score: Self.win - board.moves - 1, nodes: 0)
        }
        let next = Self.playable(possible: possible, theirs: theirs)
        if next == 0 {
            // Lost whatever happens: block a winning cell if there is one, and hope.
            let block = theirs & possible
            return Choice(peg: (block != 0 ? block : possible).trailingZeroBitCount & 15, depth: 0,
                          score: -(Self.win - board.moves - 2), nodes: 0)
        }
        if next & (next &- 1) == 0 {
            return Choice(peg: next.trailingZeroBitCount & 15, depth: 0, score: 0, nodes: 0)
        }

        // Fresh deadlines and ordering hints; the table's facts stay.
        for index in history.indices { history[index] >>= 3 }
        for index in killers.indices { killers[index] = -1 }
        nodes = 0
        aborted = false
        wallDeadline = ContinuousClock.now + wallBudget
        let cpuStart = Self.cpuNanoseconds()
        cpuDeadline = cpuStart + Self.nanoseconds(cpuBudget)
        let startDeadline = cpuStart + Self.nanoseconds(startBudget)

        var ordered: [Int] = []
        var keys = orderKeys(board, next, mine: mine, tableMove: table.probe(board.key)?.move ?? -1, ply: 0)
        while let peg = Cube4Search.popBest(&keys) { ordered.append(peg) }
        var chosen = Choice(peg: ordered[0], depth: 0, score: 0, nodes: 0)
        return withoutActuallyEscaping(shouldStop) { shouldStop in
            stop = shouldStop
            defer { stop = nil }
            for depth in 1...max(1, min(maxDepth, 64 - board.moves)) {
                var alpha = -Self.infinity
                var bestPeg = ordered[0]
                var scores = [Int](repeating: -Self.infinity, count: 16)
                for (index, peg) in ordered.enumerated() {
                    var child = board
                    child.play(next & Cube4Bits.pegMask(peg))
                    var score: Int
                    if index == 0 {
                        score = -search(child, depth: depth - 1, alpha: -Self.infinity, beta: Self.infinity, ply: 1)
                    } else {
                        score = -search(child, depth: depth - 1, alpha: -alpha - 1, beta: -alpha, ply: 1)
                        if score > alpha && !aborted {
                            score = -search(child, depth: depth - 1, alpha: -Self.infinity, beta: -alpha, ply: 1)
                        }
                    }
                    if aborted { break }
                    scores[peg] = score
                    if score > alpha {
                        alpha = score; bestPeg = peg
                        // It beat, at this depth, the best move of the depth before (searched first).
                        if index > 0 { chosen.peg = peg; chosen.score = score }
                    }
                }
                if stop?() == true { return nil }
                if aborted { break }
                chosen = Choice(peg: bestPeg, depth: depth, score: alpha, nodes: nodes)
                ordered.sort { scores[$0] > scores[$1] }
                if abs(alpha) >= Self.provenWin || Self.cpuNanoseconds() >= startDeadline { break }
            }
            chosen.nodes = nodes
            return chosen
        }
    }

    /// The cells the side to move may play without losing at once: its
    /// opponent's only playable winning cell if there is one (none at all if
    /// there are two), and never a cell under one of their winning cells.
    @inline(__always)
    static func playable(possible: UInt64, theirs: UInt64) -> UInt64 {
        var next = possible
        let threats = theirs & possible
        if threats != 0 {
            if threats & (threats &- 1) != 0 { return 0 }
            next = threats
        }
        return next & ~(theirs &>> 16)
    }

    /// The empty cells that complete a line of `side`'s stones.
    @inline(__always)
    static func winningCells(_ side: UInt64, _ empty: UInt64) -> UInt64 {
        var cells: UInt64 = 0
        for direction in Cube4Lines.directions {
            let s = direction.shift, starts = direction.starts
            let a1 = side &>> s, a2 = side &>> (2 * s), a3 = side &>> (3 * s)
            let e1 = empty &>> s, e2 = empty &>> (2 * s), e3 = empty &>> (3 * s)
            let last3 = a2 & a3 & starts
            cells |= (empty & a1 & last3) | ((side & e1 & last3) &<< s)
                | ((side & a1 & e2 & a3 & starts) &<< (2 * s)) | ((side & a1 & a2 & e3 & starts) &<< (3 * s))
        }
        return cells
    }

    /// The judgement of a quiet position for the side to move.
    @inline(__always)
    static func evaluate(_ board: Cube4Bits, mine: UInt64, theirs: UInt64) -> Int {
        let me = board.current, them = board.current ^ board.mask
        var score = 0
        for direction in Cube4Lines.directions {
            let (myOnes, myTwos) = lineCounts(me, them, direction)
            let (theirOnes, theirTwos) = lineCounts(them, me, direction)
            score += lineWeights.0 * (myOnes.nonzeroBitCount - theirOnes.nonzeroBitCount)
                + lineWeights.1 * (myTwos.nonzeroBitCount - theirTwos.nonzeroBitCount)
        }
        // Cells above any winning cell are settled after it.
        var covered = (mine | theirs) &<< 16
        covered |= covered &<< 16
        covered |= covered &<< 32
        let oddLevels: UInt64 = 0x0000_FFFF_0000_FFFF
        let myLevels = board.moves & 1 == 0 ? oddLevels : ~oddLevels
        let fillUp = fillUpWeight * Cube4FillUp.outcome(mask: board.mask, mine: mine, theirs: theirs)
        return score + fillUp + threatValue(mine, covered: covered, good: myLevels) - threatValue(theirs, covered: covered, good: ~myLevels)
    }

    @inline(__always)
    private static func threatValue(_ cells: UInt64, covered: UInt64, good: UInt64) -> Int {
        let lowest = cells & ~covered
        return threatWeights.goodParity * (lowest & good).nonzeroBitCount
            + threatWeights.badParity * (lowest & ~good).nonzeroBitCount
            + threatWeights.covered * (cells & covered).nonzeroBitCount
            + threatWeights.stacked * (lowest & (cells &>> 16)).nonzeroBitCount
    }

    /// The lines of `direction` free of `other` holding one, and two, of `side`'s stones (first cells).
    @inline(__always)
    private static func lineCounts(_ side: UInt64, _ other: UInt64, _ direction: Cube4Lines.Direction) -> (UInt64, UInt64) {
        let s = direction.shift
        let open = direction.starts & ~(other | (other &>> s) | (other &>> (2 * s)) | (other &>> (3 * s)))
        let x = side & open, y = (side &>> s) & open, z = (side &>> (2 * s)) & open, w = (side &>> (3 * s)) & open
        let s1 = x ^ y, c1 = x & y, s2 = z ^ w, c2 = z & w
        let low = s1 ^ s2, mid = c1 ^ c2 ^ (s1 & s2), high = c1 & c2
        // At most three of a side's stones on an open line here (four would have ended the game).
        return (low & ~mid, ~low & mid & ~high & open)
    }

    private mutating func search(_ board: Cube4Bits, depth: Int, alpha: Int, beta: Int, ply: Int) -> Int {
        nodes &+= 1
        if nodes & 1023 == 0 { checkClock() }
        if aborted { return 0 }
        if board.moves == 64 { return 0 }
        let empty = ~board.mask, possible = board.possible
        let me = board.current, them = board.current ^ board.mask
        let mine = Self.winningCells(me, empty)
        if mine & possible != 0 { return Self.win - board.moves - 1 }
        let theirs = Self.winningCells(them, empty)
        let next = Self.playable(possible: possible, theirs: theirs)
        if next == 0 { return -(Self.win - board.moves - 2) }
        // One move that does not lose at once (a block, say): it costs no depth.
        let forced = next & (next &- 1) == 0
        if depth <= 0 && !forced { return Self.evaluate(board, mine: mine, theirs: theirs) }
        let childDepth = forced ? depth : depth - 1

        var alpha = alpha, beta = beta
        // No win at once, and after any move in `next` no loss at once either.
        let best = Self.win - board.moves - 3
        if beta > best { beta = best; if alpha >= beta { return beta } }
        let worst = -(Self.win - board.moves - 4)
        if alpha < worst { alpha = worst; if alpha >= beta { return alpha } }

        let key = board.key
        var tableMove = -1
        if let entry = table.probe(key) {
            tableMove = entry.move
            if entry.depth >= depth {
                switch entry.bound {
                case .exact: return entry.score
                case .lower: if entry.score >= beta { return entry.score }
                case .upper: if entry.score <= alpha { return entry.score }
                }
            }
        }

        var keys = orderKeys(board, next, mine: mine, tableMove: tableMove, ply: ply)
        let alphaBefore = alpha
        var bestScore = -Self.infinity, bestPeg = 0, searched = 0
        let killerSlot = min(ply, killers.count / 2 - 1) * 2
        while let peg = Cube4Search.popBest(&keys) {
            let cell = next & Cube4Bits.pegMask(peg)
            var child = board
            child.play(cell)
            var score: Int
            if searched == 0 {
                score = -search(child, depth: childDepth, alpha: -beta, beta: -alpha, ply: ply + 1)
            } else {
                // Late quiet moves first at one ply less; anything that might be better is searched in full.
                let reduced = searched >= 3 && depth >= 3 && peg != killers[killerSlot] && peg != killers[killerSlot + 1]
                score = -search(child, depth: childDepth - (reduced ? 1 : 0), alpha: -alpha - 1, beta: -alpha, ply: ply + 1)
                if reduced && score > alpha && !aborted {
                    score = -search(child, depth: childDepth, alpha: -alpha - 1, beta: -alpha, ply: ply + 1)
                }
                if score > alpha && score < beta && !aborted {
                    score = -search(child, depth: childDepth, alpha: -beta, beta: -alpha, ply: ply + 1)
                }
            }
            if aborted { return 0 }
            searched += 1
            if score > bestScore { bestScore = score; bestPeg = peg }
            if score > alpha { alpha = score }
            if alpha >= beta {
                let slot = (board.moves & 1) << 6 | cell.trailingZeroBitCount
                history[slot] = min(history[slot] &+ Int32(depth * depth + 1), 1 << 24)
                if killers[killerSlot] != peg { killers[killerSlot + 1] = killers[killerSlot]; killers[killerSlot] = peg }
                break
            }
        }
        let bound: ScoreBound = bestScore <= alphaBefore ? .upper : (bestScore >= beta ? .lower : .exact)
        table.store(key, depth: depth, score: bestScore, bound: bound, move: bestPeg)
        return bestScore
    }

    /// A key per peg (0: not a candidate): the table's move first, then
    /// cells that add to lines still open to the side to move (most of all
    /// making a winning cell) or spoil the opponent's, a killer a little
    /// above its peers, history breaking ties; a cell under one's own
    /// winning cell (it hands the block over) last.
    @inline(__always)
    private func orderKeys(_ board: Cube4Bits, _ moves: UInt64, mine: UInt64, tableMove: Int, ply: Int) -> InlineArray<16, Int32> {
        var keys = InlineArray<16, Int32>(repeating: 0)
        let me = board.current, them = board.current ^ board.mask
        let killerSlot = min(ply, killers.count / 2 - 1) * 2
        let side = (board.moves & 1) << 6
        var remaining = moves
        while remaining != 0 {
            let cell = remaining.trailingZeroBitCount
            remaining &= remaining &- 1
            let peg = cell & 15
            if peg == tableMove { keys[peg] = Int32.max; continue }
            var value: Int32 = 1
            for index in Cube4Lines.start[cell]..<Cube4Lines.start[cell + 1] {
                let line = Cube4Lines.through[index]
                let a = (line & me).nonzeroBitCount, b = (line & them).nonzeroBitCount
                if b == 0 { value += a == 0 ? 1 : (a == 1 ? 4 : 14) }
                if a == 0 { value += b == 0 ? 1 : (b == 1 ? 3 : 9) }
            }
            if peg == killers[killerSlot] || peg == killers[killerSlot + 1] { value += 6 }
            if cell < 48 && mine & (1 << UInt64(cell + 16)) != 0 { value = 1 }
            keys[peg] = value << 20 | min(history[side | cell], (1 << 20) - 1)
        }
        return keys
    }

    private mutating func checkClock() {
        if stop?() == true || Self.cpuNanoseconds() >= cpuDeadline || ContinuousClock.now >= wallDeadline {
            aborted = true
        }
    }

    /// This thread's processor time so far.
    private static func cpuNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}

/// Cube Four move choice for each level.
enum Cube4Player {
    static let mediumDepth = 2
    static let mediumWeights = (0, 1, 4, 16)
    /// `hard` stops searching after this much of its thread's processor
    /// time ,
    /// so its strength does not depend on how busy the machine is...
    static let hardProcessorBudget = Duration.milliseconds(550)
    /// ...or after this much wall-clock time, so that on a loaded machine
    /// too every move takes well under a second.
    static let hardWallBudget = Duration.milliseconds(720)
    /// `hard` starts no new depth after this much processor time: the next
    /// would rarely finish.
    static let hardStartBudget = Duration.milliseconds(300)

    /// The move of `easy`, `medium`, or the `hard` of earlier releases
    /// (`Bot.legacyHard`): the plain search, `Cube4Search`.
    static func chooseMove(_ game: Cube4, level: BotLevel, random: inout SplitMix64, shouldStop: () -> Bool) -> Move? {
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
                return Cube4Search.legacyHard(board, next, candidates, shouldStop: shouldStop).map { Move($0.peg) }
            }
        }
    }

    /// The move of today's `hard`, searched by `engine` (the bot's own, kept
    /// across moves; made here on first use).
    static func hardMove(_ game: Cube4, engine: inout Cube4Engine?, shouldStop: () -> Bool) -> Move? {
        var current = engine ?? Cube4Engine()
        // Moved out and back, so the table is never copied.
        engine = nil
        defer { engine = current }
        return current.bestMove(
            game, cpuBudget: hardProcessorBudget, wallBudget: hardWallBudget, startBudget: hardStartBudget,
            shouldStop: shouldStop
        ).map { Move($0.peg) }
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
}
