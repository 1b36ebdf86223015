import Games

/// Exact scores of every Connect Four position in the first few moves,
/// computed once by `Connect4Solver` (scripts/build-connect4-book) and
/// shipped in `Connect4BookData.swift`, so `hard` and `parlor analyze`
/// answer at once where a search would take minutes.
///
/// A position and its mirror image share one entry. Positions that are
/// over, and positions where the side to move wins at once, are left out
/// (the solver answers those without a search).
public struct Connect4Book: Sendable {
    /// The deepest position held, in stones on the board.
    public let depth: Int
    /// Sorted: `symmetricKey << 8 | (score + 64)`.
    let entries: [UInt64]

    /// How many positions the book holds.
    public var count: Int { entries.count }

    init(depth: Int, scores: [UInt64: Int]) {
        self.depth = depth
        entries = scores.map { key, score in key << 8 | UInt64(score + 64) }.sorted()
    }

    /// The score of `board` for the side to move, if the book holds it.
    @inline(__always)
    func score(_ board: Connect4Bits) -> Int? {
        guard board.moves <= depth else { return nil }
        let key = board.symmetricKey
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let found = entries[middle] >> 8
            if found == key { return Int(entries[middle] & 0xFF) - 64 }
            if found < key { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Whether the score of every move from `game` is known without a
    /// search: each move ends the game, leaves the other side a win at once,
    /// or leads to a position the book holds.
    public func scoresEveryMove(of game: Connect4) -> Bool {
        let board = Connect4Bits(game)
        var moves = board.possible
        while moves != 0 {
            let move = moves & (0 &- moves)
            moves &= moves &- 1
            var child = board
            child.play(move)
            if Connect4Solver.isOver(child) || score(child) != nil { continue }
            if Connect4Bits.winningCells(child.current, child.mask) & child.possible != 0 { continue }
            return false
        }
        return true
    }

    /// The book that ships with parlor, decoded on first use (nil if the
    /// shipped text were damaged: then every position is searched).
    public static let shipped: Connect4Book? = Connect4Book(encoded: Connect4BookData.text)

    // MARK: Text form

    /// The first line `connect4-book DEPTH COUNT`, then every entry as 16
    /// hex digits, eight to a line.
    public var encoded: String {
        var text = "connect4-book \(depth) \(entries.count)\n"
        text.reserveCapacity(entries.count * 17 + 40)
        for (index, entry) in entries.enumerated() {
            let hex = String(entry, radix: 16)
            text += String(repeating: "0", count: 16 - hex.count) + hex
            text += index % 8 == 7 || index == entries.count - 1 ? "\n" : " "
        }
        return text
    }

    /// Reads `encoded`'s form; nil when the header or an entry is malformed,
    /// or the entries are not sorted.
    public init?(encoded text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
        guard let header = lines.popFirst() else { return nil }
        let words = header.split(separator: " ")
        guard words.count == 3, words[0] == "connect4-book", let depth = Int(words[1]), let count = Int(words[2]),
              (0...41).contains(depth), count >= 0 else { return nil }
        var entries: [UInt64] = []
        entries.reserveCapacity(count)
        for line in lines {
            for word in line.split(separator: " ") {
                guard let entry = UInt64(word, radix: 16), entries.last.map({ $0 < entry }) ?? true else { return nil }
                entries.append(entry)
            }
        }
        guard entries.count == count else { return nil }
        self.depth = depth
        self.entries = entries
    }

    // MARK: Building

    /// Solves every position of up to `depth` stones reachable from `root`
    /// (the empty board for the real book; a later one for tests), deepest
    /// first, so each shallower one finds its children already known.
    /// `progress` gets the depth being solved and its number of positions.
    public static func build(
        from root: Connect4 = Connect4(), depth: Int, progress: (Int, Int) -> Void = { _, _ in }
    ) -> Connect4Book {
        var layers: [[Connect4Bits]] = [root.isOver ? [] : [Connect4Bits(root)]]
        for _ in 0..<max(depth - root.moveCount, 0) {
            var seen = Set<UInt64>()
            var layer: [Connect4Bits] = []
            for board in layers[layers.count - 1] {
                let wins = Connect4Bits.winningCells(board.current, board.mask)
                var moves = board.possible
                while moves != 0 {
                    let move = moves & (0 &- moves)
                    moves &= moves &- 1
                    // A winning move ends the game: no position to store after it.
                    if wins & move != 0 { continue }
                    var child = board
                    child.play(move)
                    if seen.insert(child.symmetricKey).inserted { layer.append(child) }
                }
            }
            layers.append(layer)
        }
        let solver = Connect4Solver()
        var scores: [UInt64: Int] = [:]
        for ply in stride(from: layers.count - 1, through: 0, by: -1) {
            progress(root.moveCount + ply, layers[ply].count)
            for board in layers[ply] where Connect4Bits.winningCells(board.current, board.mask) & board.possible == 0 {
                if let score = solver.solve(board) { scores[board.symmetricKey] = score }
            }
            solver.book = Connect4Book(depth: depth, scores: scores)
        }
        return Connect4Book(depth: depth, scores: scores)
    }
}
