import Games

/// The exact value of Connect Four positions.
///
/// Techniques from Pascal Pons' "Solving Connect 4: how to build a perfect
/// AI" (blog, 2019), written here from scratch: the 7x(6+1) bitboard of
/// `Connect4Bits`, negamax with alpha-beta, null-window searches that narrow
/// the score's interval, a transposition table of proven bounds, move
/// ordering by the winning cells a move creates (centre first among equals),
/// and never searching a move that lets the opponent win at once.
///
/// Scores, for the side to move: a win with its stone number `k` (counting
/// its own stones) scores `22 - k`, so a quicker win scores higher (an
/// immediate win on a position with `n` stones scores `(43 - n) / 2`); a
/// draw scores 0; a loss scores minus the opponent's winning score.
///
/// The table is allocated once, when the solver is made, and never cleared:
/// every entry is a bound on a position's true value (it does not depend on
/// the search that stored it), so it stays right across moves and games.
/// Not thread-safe: one solver per thread (or behind a lock).
public final class Connect4Solver {
    static let cells = 42
    static let minScore = -(cells / 2) + 3
    static let maxScore = (cells + 1) / 2 - 3
    /// Columns in the order moves are tried: the centre takes part in the most lines.
    static let centreOrder = [3, 2, 4, 1, 5, 0, 6]
    /// `centreOrder`, first column in the lowest four bits.
    static let packedCentreOrder: UInt64 = 0x6051423

    /// A prime number of slots above 2^24, so a slot index and the stored
    /// low 25 bits of a 49-bit key identify the key exactly (Chinese
    /// remainder theorem: slots x 2^25 > 2^49).
    private let size: Int
    /// One 32-bit word a slot, so a probe costs one cache miss: the key's
    /// low 25 bits, then 7 bits of value (0 = empty; 1...37 an upper bound,
    /// score - minScore + 1; 38...74 a lower bound).
    private let entries: UnsafeMutablePointer<UInt32>
    private static let boundSpan = maxScore - minScore + 1
    private static let valueBits: UInt32 = 7
    private static let valueMask: UInt32 = 1 << valueBits - 1

    /// Positions whose score is known without search (the opening book).
    var book: Connect4Book? { didSet { bookDepth = book?.depth ?? -1 } }
    private var bookDepth = -1
    /// Nodes visited since the solver was made (for benches).
    public private(set) var nodes = 0
    /// Asked every few thousand nodes whether to give up; nil: never.
    private var shouldStop: (() -> Bool)?
    private var stopped = false
    /// `nodes` at which the current search gives up (`bestMove`'s budget).
    private var nodeLimit = Int.max
    /// The current search gave up for its node budget (it also sets `stopped`).
    private(set) var outOfBudget = false

    /// A solver whose table has `slots` entries (at least 2^24, 64 MiB),
    /// rounded up to a prime, 4 bytes each.
    public init(slots: Int = 1 << 24, book: Connect4Book? = nil) {
        size = Self.prime(atLeast: max(slots, 1 << 24))
        entries = .allocate(capacity: size)
        entries.initialize(repeating: 0, count: size)
        self.book = book
        bookDepth = book?.depth ?? -1
    }

    deinit {
        entries.deallocate()
    }

    static func prime(atLeast n: Int) -> Int {
        var candidate = n | 1
        while !isPrime(candidate) { candidate += 2 }
        return candidate
    }

    private static func isPrime(_ n: Int) -> Bool {
        if n < 2 { return false }
        var divisor = 2
        while divisor * divisor <= n {
            if n % divisor == 0 { return false }
            divisor += 1
        }
        return true
    }

    /// Forgets every stored bound (only benches need this, to time a cold solver).
    public func clearTable() {
        entries.update(repeating: 0, count: size)
    }

    // MARK: Table

    @inline(__always)
    private func slot(_ key: UInt64) -> Int { Int(key % UInt64(size)) }

    @inline(__always)
    private func stored(_ key: UInt64) -> Int {
        let entry = entries[slot(key)]
        return entry &>> Self.valueBits == UInt32(truncatingIfNeeded: key) & (UInt32.max &>> Self.valueBits)
            ? Int(entry & Self.valueMask) : 0
    }

    @inline(__always)
    private func store(_ key: UInt64, _ value: Int) {
        entries[slot(key)] = UInt32(truncatingIfNeeded: key) &<< Self.valueBits | UInt32(truncatingIfNeeded: value)
    }

    // MARK: Solving

    /// The exact value of `game` and of each of its moves; nil when the game
    /// is over or `shouldStop` returned true. Pure CPU, from microseconds
    /// late in a game to seconds early on without a book.
    public func analyse(_ game: Connect4, shouldStop: (() -> Bool)? = nil) -> Connect4Analysis? {
        guard let scores = scoreMoves(Connect4Bits(game), shouldStop: shouldStop) else { return nil }
        return Connect4Analysis(moveScores: scores)
    }

    /// The exact score of `game` for the side to move; nil when it is over or stopped.
    public func score(_ game: Connect4, shouldStop: (() -> Bool)? = nil) -> Int? {
        solve(Connect4Bits(game), shouldStop: shouldStop)
    }

    /// The exact score of `board` for the side to move; nil when the game
    /// is already over or `shouldStop` returned true (polled every few
    /// thousand nodes).
    func solve(_ board: Connect4Bits, shouldStop: (() -> Bool)? = nil) -> Int? {
        guard !Self.isOver(board) else { return nil }
        // A win at once needs no search (nor anything kept for one).
        if Connect4Bits.winningCells(board.current, board.mask) & board.possible != 0 {
            return (Self.cells + 1 - board.moves) / 2
        }
        stopped = false
        // Nothing to keep (no reference counting) when nothing can stop the search.
        guard let shouldStop else { return exactScore(board) }
        self.shouldStop = shouldStop
        defer { self.shouldStop = nil }
        let score = exactScore(board)
        return stopped ? nil : score
    }

    /// The exact score of each column for the side to move (the score of
    /// the position after that move, seen by the player who made it); nil
    /// for a full column. Nil altogether when the game is over or stopped.
    func scoreMoves(_ board: Connect4Bits, shouldStop: (() -> Bool)? = nil) -> [Int?]? {
        guard !Self.isOver(board) else { return nil }
        self.shouldStop = shouldStop
        stopped = false
        defer { self.shouldStop = nil }
        var scores: [Int?] = Array(repeating: nil, count: 7)
        let possible = board.possible
        let wins = Connect4Bits.winningCells(board.current, board.mask)
        for column in Self.centreOrder {
            let move = possible & Connect4Bits.columnMask(column)
            guard move != 0 else { continue }
            if wins & move != 0 {
                scores[column] = (Self.cells + 1 - board.moves) / 2
                continue
            }
            var child = board
            child.play(move)
            if child.moves == Self.cells { scores[column] = 0; continue }
            scores[column] = -exactScore(child)
            if stopped { return nil }
        }
        return scores
    }

    /// The columns with the best exact score, centre first; nil when the
    /// game is over or stopped. Solves the position once, then asks each
    /// move only whether it keeps that score (a null-window search, far
    /// cheaper than scoring every move exactly). With `firstOnly`, stops at
    /// the first such column.
    ///
    /// With a `nodeBudget`, gives up (nil, `outOfBudget` set) after that many
    /// nodes: a budget, unlike a clock, gives the same answer on every run.
    func bestMoves(
        _ board: Connect4Bits, firstOnly: Bool = false, nodeBudget: Int = .max, shouldStop: (() -> Bool)? = nil
    ) -> (columns: [Int], score: Int)? {
        guard !Self.isOver(board) else { return nil }
        self.shouldStop = shouldStop
        stopped = false
        outOfBudget = false
        nodeLimit = nodeBudget == .max ? .max : nodes &+ nodeBudget
        defer { self.shouldStop = nil; nodeLimit = .max }
        let possible = board.possible
        let wins = Connect4Bits.winningCells(board.current, board.mask) & possible
        let winScore = (Self.cells + 1 - board.moves) / 2
        if wins != 0 { return (Self.centreOrder.filter { wins & Connect4Bits.columnMask($0) != 0 }, winScore) }
        let next = board.nonLosingMoves(possible)
        if next == 0 {
            // Lost at once whatever happens: block a threat, and hope.
            let threats = Connect4Bits.winningCells(board.current ^ board.mask, board.mask) & possible
            let cells = threats != 0 ? threats : possible
            return (Self.centreOrder.filter { cells & Connect4Bits.columnMask($0) != 0 }, -(Self.cells - board.moves) / 2)
        }
        let target = exactScore(board)
        if stopped { return nil }
        var columns: [Int] = []
        for column in Self.centreOrder {
            let move = next & Connect4Bits.columnMask(column)
            guard move != 0 else { continue }
            var child = board
            child.play(move)
            let keeps: Bool
            if child.moves == Self.cells {
                keeps = target <= 0
            } else if let known = book?.score(child) {
                keeps = -known >= target
            } else {
                // Does the child's value, for the opponent, stay at or below -target?
                keeps = -negamax(child, alpha: -target, beta: -target + 1) >= target
            }
            if stopped { return nil }
            if keeps {
                columns.append(column)
                if firstOnly { break }
            }
        }
        return (columns, target)
    }

    /// Whether the book knows the score of `board` and of every move from it
    /// that `bestMoves` weighs (so a best move costs no search): not a win at
    /// once, nor a move after which the other side wins at once.
    func bookHolds(_ board: Connect4Bits) -> Bool {
        guard let book, board.moves < book.depth else { return false }
        let wins = Connect4Bits.winningCells(board.current, board.mask)
        if wins & board.possible != 0 { return true }
        guard book.score(board) != nil else { return false }
        var moves = board.nonLosingMoves(board.possible)
        while moves != 0 {
            let move = moves & (0 &- moves)
            moves &= moves &- 1
            var child = board
            child.play(move)
            if book.score(child) == nil && !Self.isOver(child) { return false }
        }
        return true
    }

    /// Whether a player already has four in a row, or the board is full.
    @inline(__always)
    static func isOver(_ board: Connect4Bits) -> Bool {
        board.moves >= cells || Connect4Bits.hasFour(board.current) || Connect4Bits.hasFour(board.current ^ board.mask)
    }

    /// The score of a position that is not over, by narrowing null windows.
    private func exactScore(_ board: Connect4Bits) -> Int {
        if Connect4Bits.winningCells(board.current, board.mask) & board.possible != 0 {
            return (Self.cells + 1 - board.moves) / 2
        }
        if board.moves <= bookDepth, let known = book?.score(board) { return known }
        var low = -(Self.cells - board.moves) / 2
        var high = (Self.cells + 1 - board.moves) / 2
        while low < high {
            // Probe the middle, but near zero first: most positions are close
            // to a draw, and small windows prove that cheaply.
            var middle = low + (high - low) / 2
            if middle <= 0 && low / 2 < middle {
                middle = low / 2
            } else if middle >= 0 && high / 2 > middle {
                middle = high / 2
            }
            let result = negamax(board, alpha: middle, beta: middle + 1)
            if stopped { return 0 }
            if result <= middle { high = result } else { low = result }
        }
        return low
    }

    /// Negamax with alpha-beta: a score `s` with `alpha < s < beta` is exact,
    /// `s <= alpha` means the value is at most `s`, `s >= beta` at least `s`.
    /// The side to move cannot win at once (callers play non-losing moves).
    private func negamax(_ board: Connect4Bits, alpha: Int, beta: Int) -> Int {
        nodes &+= 1
        if nodes & 4095 == 0, (shouldStop?() ?? false) || nodes >= nodeLimit {
            stopped = true
            outOfBudget = nodes >= nodeLimit
        }
        if stopped { return 0 }

        let possible = board.possible
        let threats = Connect4Bits.winningCells(board.current ^ board.mask, board.mask)
        let next = board.nonLosingMoves(possible, threats: threats)
        // Every move lets the opponent win next.
        if next == 0 { return -(Self.cells - board.moves) / 2 }
        if board.moves >= Self.cells - 2 { return 0 }

        var alpha = alpha, beta = beta
        // The opponent cannot win before its next-but-one stone.
        let lowest = -(Self.cells - 2 - board.moves) / 2
        if alpha < lowest { alpha = lowest; if alpha >= beta { return alpha } }
        // This side cannot win before its next-but-one stone either.
        var highest = (Self.cells - 1 - board.moves) / 2

        let key = board.key
        let entry = stored(key)
        if entry != 0 {
            if entry > Self.boundSpan {
                let bound = entry - Self.boundSpan + Self.minScore - 1
                if alpha < bound { alpha = bound; if alpha >= beta { return alpha } }
            } else {
                highest = min(highest, entry + Self.minScore - 1)
            }
        }
        if beta > highest { beta = highest; if alpha >= beta { return beta } }
        if board.moves <= bookDepth, let known = book?.score(board) { return known }

        // Order: most winning cells after the move first, centre first among equals.
        var order = InlineArray<7, UInt64>(repeating: 0)
        var ranks = InlineArray<7, Int>(repeating: 0)
        var count = 0
        // `centreOrder` as nibbles, read without touching an array.
        var columns: UInt64 = Self.packedCentreOrder
        for _ in 0..<7 {
            let column = columns & 0xF
            columns &>>= 4
            let move = next & (0x3F &<< (column &* 7))
            guard move != 0 else { continue }
            let rank = Connect4Bits.winningCells(board.current | move, board.mask).nonzeroBitCount
            var index = count
            while index > 0 && ranks[index - 1] < rank {
                order[index] = order[index - 1]; ranks[index] = ranks[index - 1]
                index -= 1
            }
            order[index] = move; ranks[index] = rank
            count += 1
        }

        for index in 0..<count {
            var child = board
            child.play(order[index])
            let score = -negamax(child, alpha: -beta, beta: -alpha)
            if stopped { return 0 }
            if score >= beta {
                store(key, score - Self.minScore + 1 + Self.boundSpan)
                return score
            }
            if score > alpha { alpha = score }
        }
        store(key, alpha - Self.minScore + 1)
        return alpha
    }
}

/// The exact value of a Connect Four position and of each of its moves.
public struct Connect4Analysis: Sendable, Hashable {
    /// Each column's score (0-based index), nil for a full column: the value
    /// of the position after that move for the player who made it.
    public let moveScores: [Int?]

    /// An analysis from each column's score (seven entries, nil for a full column).
    public init(moveScores: [Int?]) { self.moveScores = moveScores }

    /// The position's score for the side to move: its best move's score.
    public var score: Int { moveScores.compactMap { $0 }.max() ?? 0 }

    /// The columns that reach `score`, centre first.
    public var bestColumns: [Int] {
        Connect4Solver.centreOrder.filter { moveScores[$0] == score }
    }

    /// The best move, the most central among equals.
    public var best: Int { bestColumns.first ?? 3 }
}

extension Connect4Bits {
    /// A position from raw bitboards: `current` the side to move's stones.
    init(current: UInt64, mask: UInt64, moves: Int) {
        self.init(Connect4())
        self.current = current
        self.mask = mask
        self.moves = moves
    }

    /// The position after `columns` (0-based) from the empty board, or nil
    /// when a column is out of range or full, or a move follows the end.
    init?(columns: [Int]) {
        self.init(Connect4())
        for column in columns {
            guard (0..<7).contains(column), !Connect4Solver.isOver(self) else { return nil }
            let move = possible & Self.columnMask(column)
            guard move != 0 else { return nil }
            play(move)
        }
    }

    /// Whether `stones` hold four in a row in any direction.
    @inline(__always)
    static func hasFour(_ stones: UInt64) -> Bool {
        @inline(__always) func along(_ shift: UInt64) -> Bool {
            let pairs = stones & (stones &>> shift)
            return pairs & (pairs &>> (2 * shift)) != 0
        }
        return along(1) || along(7) || along(6) || along(8)
    }

    /// The same position seen in a mirror (column `c` becomes `6 - c`).
    var mirrored: Connect4Bits {
        Connect4Bits(current: Self.mirror(current), mask: Self.mirror(mask), moves: moves)
    }

    @inline(__always)
    static func mirror(_ bits: UInt64) -> UInt64 {
        var result: UInt64 = 0
        for column in 0..<7 {
            result |= ((bits &>> UInt64(column * 7)) & 0x7F) &<< UInt64((6 - column) * 7)
        }
        return result
    }

    /// The key of the position or its mirror image, whichever is smaller.
    var symmetricKey: UInt64 { min(key, mirrored.key) }
}
