/// Every game this parlor knows, by id.
///
/// The catalog is how the match layer, the wire and the command line turn a
/// game id into rules without knowing concrete types.
public enum GameCatalog {
    /// The game types, in the order `parlor games` lists them.
    public static let all: [any Game.Type] = [
        Connect4.self, Cube4.self, TicTacToe.self, Reversi.self, DotsAndBoxes.self, ChineseCheckers.self,
    ]

    /// The game type with this exact id, or nil.
    public static func game(id: String) -> (any Game.Type)? {
        all.first { $0.id == id }
    }

    /// A fresh game with this id for `seats` players, or nil for an unknown id
    /// or an unsupported number of seats.
    public static func newGame(id: String, seats: Int = 2) -> (any Game)? {
        guard let type = game(id: id), type.seatCounts.contains(seats) else { return nil }
        return type.init(seats: seats)
    }

    /// The known id closest to `name` by edit distance, for "did you mean" hints;
    /// nil when nothing is reasonably close.
    public static func suggestion(for name: String) -> String? {
        let lowered = name.lowercased()
        let scored = all.map { ($0.id, editDistance(lowered, $0.id)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, best.0.count / 2) ? best.0 : nil
    }

    /// Levenshtein distance between two strings.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1,
                                       previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
