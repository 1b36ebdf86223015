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

    /// The game a person means by `name`: its id, its display name or a common
    /// other name ("othello", "Connect Four", "dots"), in any case and with or
    /// without spaces, dashes and underscores; nil for anything else. This is
    /// the one place that decides which words name a game; the command line,
    /// the lobby and "did you mean" all ask it.
    public static func game(named name: String) -> (any Game.Type)? {
        let key = spellingKey(name)
        guard !key.isEmpty else { return nil }
        return all.first { spellings(of: $0).contains(key) }
    }

    /// Other names people use for the games, by id (the id and the display
    /// name are always accepted too).
    static let otherNames: [String: [String]] = [
        Connect4.id: ["connect four", "four in a row", "c4"],
        Cube4.id: ["cube four", "cube", "3d connect four"],
        TicTacToe.id: ["tic tac toe", "noughts and crosses", "ttt"],
        Reversi.id: ["othello"],
        DotsAndBoxes.id: ["dots", "boxes", "dots and boxes"],
        ChineseCheckers.id: ["chinese checkers", "sternhalma", "halma"],
    ]

    /// Every spelling of `game`'s names, as `spellingKey` reduces them: the
    /// id, the display name (with and without its parenthesis) and the other names.
    private static func spellings(of game: any Game.Type) -> Set<String> {
        let plainName = game.displayName.split(separator: "(").first.map(String.init) ?? game.displayName
        let names = [game.id, game.displayName, plainName] + (otherNames[game.id] ?? [])
        return Set(names.map(spellingKey))
    }

    /// Lower-case letters and digits only: "Connect Four", "connect-four" and
    /// "connect_four" are one spelling.
    private static func spellingKey(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
            .map(Character.init))
    }

    /// The id a person most likely meant by `name`, for "did you mean" hints:
    /// the one game whose id, display name or other name starts with it
    /// ("dot" → dots-and-boxes, "chinese" → chinese-checkers), else the id
    /// closest by edit distance; nil when nothing is reasonably close.
    public static func suggestion(for name: String) -> String? {
        let key = spellingKey(name)
        if key.count >= 2 {
            let starting = all.filter { game in spellings(of: game).contains { $0.hasPrefix(key) } }
            if starting.count == 1 { return starting[0].id }
        }
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
