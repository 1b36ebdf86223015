import Dispatch
import Games
import Synchronization

extension Connect4Book {
    /// The book `hard` needs to play perfectly in the first `depth` stones
    /// (below `root`, for tests; the empty board for the real book):
    /// every position it can meet there with its turn to move, as either
    /// player, whatever the other side replies, playing as `hard` plays
    /// (`Connect4Player.perfectMove`, which reads this same book), holds the
    /// exact score of each of its moves and its own.
    ///
    /// Far fewer positions than every position of the first `depth` stones:
    /// `hard`'s own moves are fixed, so only the other side's replies branch
    /// (up to 7^(depth/2) lines a side instead of every position). Built from
    /// the first stone down: each layer's positions are solved (`threads` at
    /// once, a solver and its 64 MiB table each), then `hard` chooses its move
    /// in each with the book so far, and every reply to that move is the next
    /// layer but one. A position the `known` book already answers is not solved
    /// again, so a deeper book can be built on a shallower one.
    ///
    /// `progress` gets the number of stones of the layer solved, its positions,
    /// how many of them needed a search, and the book so far (a whole book for
    /// hard up to one stone more than the layer's: a long build can be kept
    /// half-way).
    public static func buildForHard(
        from root: Connect4 = Connect4(), depth: Int, known: Connect4Book? = nil, threads: Int = 1,
        progress: (_ stones: Int, _ positions: Int, _ solved: Int, _ sofar: Connect4Book) -> Void = { _, _, _, _ in }
    ) -> Connect4Book {
        var scores = known?.scores ?? [:]
        let solvers = (0..<max(1, threads)).map { _ in SolverBox(Connect4Solver()) }
        // Hard to move at the root (the first stone, for the real book) and
        // after any move from it (hard plays second).
        var layers: [[Connect4]] = Array(repeating: [], count: max(depth, root.moveCount) + 2)
        layers[root.moveCount] = root.isOver ? [] : [root]
        layers[root.moveCount + 1] = Self.replies(to: root)
        var seen = Set<UInt64>()
        for stones in root.moveCount..<max(depth, root.moveCount) {
            let layer = layers[stones].filter { seen.insert(Connect4Bits($0).key).inserted }
            // Solve each position once (a position and its mirror share their entries).
            var unsolved: [Connect4] = []
            var unsolvedKeys = Set<UInt64>()
            for game in layer where !Self.holds(game, scores)
                && unsolvedKeys.insert(Connect4Bits(game).symmetricKey).inserted {
                unsolved.append(game)
            }
            scores.merge(Self.solve(unsolved, with: solvers)) { old, _ in old }
            progress(stones, layer.count, unsolved.count, Connect4Book(depth: stones + 1, scores: scores))
            // Hard's move in each, chosen as it will be chosen in play, with this book.
            let chooser = solvers[0].solver
            chooser.book = Connect4Book(depth: depth, scores: scores)
            var table: TranspositionTable?
            for game in layer where stones + 2 < layers.count {
                guard let move = Connect4Player.perfectMove(game, solver: chooser, table: &table, shouldStop: { false }) else {
                    continue
                }
                var next = game
                guard (try? next.apply(move)) != nil, !next.isOver else { continue }
                layers[stones + 2] += Self.replies(to: next)
            }
            chooser.book = nil
        }
        return Connect4Book(depth: depth, scores: scores)
    }

    /// The positions after each move from `game` that does not end it.
    private static func replies(to game: Connect4) -> [Connect4] {
        game.legalMoves.compactMap { move in
            var child = game
            guard (try? child.apply(move)) != nil, !child.isOver else { return nil }
            return child
        }
    }

    /// Whether `scores` already give `game`'s score and every move's (a move
    /// after which the other side wins at once needs no entry).
    private static func holds(_ game: Connect4, _ scores: [UInt64: Int]) -> Bool {
        let board = Connect4Bits(game)
        if Connect4Bits.winningCells(board.current, board.mask) & board.possible != 0 { return true }
        guard scores[board.symmetricKey] != nil else { return false }
        return replies(to: game).allSatisfy { child in
            let bits = Connect4Bits(child)
            return scores[bits.symmetricKey] != nil || Connect4Bits.winningCells(bits.current, bits.mask) & bits.possible != 0
        }
    }

    /// The exact scores of every position in `games` and of each position
    /// after one of their moves: each of those a job of its own, so that even
    /// the first stone's seven keep every thread busy.
    private static func solve(_ games: [Connect4], with solvers: [SolverBox]) -> [UInt64: Int] {
        let children: [(parent: Int, column: Int, game: Connect4)] = games.indices.flatMap { index in
            games[index].legalMoves.compactMap { move in
                var child = games[index]
                guard (try? child.apply(move)) != nil else { return nil }
                return (index, move.rawValue, child)
            }
        }
        let next = Atomic<Int>(0)
        // Each child's score for the player who moved into it (a win or a full board: no search).
        let moveScores = Mutex<[Int: [Int: Int]]>([:])
        DispatchQueue.concurrentPerform(iterations: solvers.count) { worker in
            let solver = solvers[worker].solver
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < children.count else { return }
                let (parent, column, child) = children[index]
                let score: Int
                if case .won = child.result {
                    score = (Connect4Solver.cells + 2 - child.moveCount) / 2
                } else if child.isOver {
                    score = 0
                } else if let solved = solver.score(child) {
                    score = -solved
                } else { continue }
                moveScores.withLock { $0[parent, default: [:]][column] = score }
            }
        }
        var entries: [UInt64: Int] = [:]
        for (parent, scores) in moveScores.withLock({ $0 }) {
            let game = games[parent]
            entries[Connect4Bits(game).symmetricKey] = scores.values.max()
            for (column, score) in scores {
                var child = game
                try? child.apply(Move(column))
                if !child.isOver { entries[Connect4Bits(child).symmetricKey] = -score }
            }
        }
        return entries
    }

    /// Every entry, by symmetric key.
    var scores: [UInt64: Int] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0 >> 8, Int($0 & 0xFF) - 64) })
    }
}

/// A solver handed to one worker thread of `buildForHard` (each uses its own).
private final class SolverBox: @unchecked Sendable {
    let solver: Connect4Solver
    init(_ solver: Connect4Solver) { self.solver = solver }
}
