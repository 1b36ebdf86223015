import Synchronization

/// Every game this process knows, by id: parlor's own and any a caller registers.
///
/// The catalog is how the match layer, the wire and the command line turn a
/// game id into rules without knowing concrete types: the host, the guest's
/// WELCOME and pushes, the match blob decoder (so the store and a resume) and
/// replay all look a game up here. A game defined in another package plays
/// on the LAN, is saved and replayed once it is registered with
/// `register(_:otherNames:)`; parlor's own games are registered the same way
/// before anything asks.
public enum GameCatalog {
    /// parlor's own games, in the order `parlor games` lists them; they are
    /// the catalog's first entries.
    public static let builtIn: [any Game.Type] = [
        Connect4.self, Cube4.self, TicTacToe.self, Reversi.self, DotsAndBoxes.self, ChineseCheckers.self,
    ]

    /// Every registered game type: the built-in games first, then the others
    /// in the order they were registered.
    public static var all: [any Game.Type] { registry.withLock { $0.map(\.type) } }

    /// Adds `type` to the catalog, so that matches of it can be hosted,
    /// joined, saved, resumed, replayed and watched like the built-in games.
    ///
    /// Call it once at start-up, before hosting, joining or opening a saved
    /// match of the game; any thread may call it. Registering the same type
    /// again changes nothing. `otherNames` are further names a person may
    /// type for the game (the id and display name are always accepted); where
    /// two games share a name, the one registered first has it.
    ///
    /// - Throws: `GameCatalogError` when another type already has the id, or
    ///   the id, rules version or seat counts cannot travel in a match blob.
    public static func register(_ type: any Game.Type, otherNames: [String] = []) throws(GameCatalogError) {
        if let problem = GameCatalogError.problem(with: type) { throw problem }
        try registry.withLock { (entries: inout [Entry]) throws(GameCatalogError) in
            if let taken = entries.first(where: { $0.type.id == type.id }) {
                guard ObjectIdentifier(taken.type) == ObjectIdentifier(type) else {
                    throw .idTaken(type.id, registered: String(reflecting: taken.type), refused: String(reflecting: type))
                }
                return
            }
            entries.append(Entry(type: type, otherNames: otherNames))
        }
    }

    /// The game type with this exact id, or nil.
    public static func game(id: String) -> (any Game.Type)? {
        registry.withLock { entries in entries.first { $0.type.id == id }?.type }
    }

    /// A fresh game with this id for `seats` players, or nil for an unknown id
    /// or an unsupported number of seats. `seed` draws the start of a game
    /// that uses randomness (`Game.usesRandomness`); other games ignore it.
    public static func newGame(id: String, seats: Int = 2, seed: UInt64 = 0) -> (any Game)? {
        guard let type = game(id: id), type.seatCounts.contains(seats) else { return nil }
        return type.start(seats: seats, seed: seed)
    }

    /// A registered game and the other names a person may call it.
    private struct Entry: Sendable {
        let type: any Game.Type
        let otherNames: [String]
    }

    /// The registered games, built-in first; only `register` adds to it.
    private static let registry = Mutex<[Entry]>(builtIn.map { Entry(type: $0, otherNames: builtInOtherNames[$0.id] ?? []) })

    /// The game a person means by `name`: its id, its display name or a common
    /// other name ("othello", "Connect Four", "dots"), in any case and with or
    /// without spaces, dashes and underscores; nil for anything else. This is
    /// the one place that decides which words name a game; the command line,
    /// the lobby and "did you mean" all ask it.
    public static func game(named name: String) -> (any Game.Type)? {
        let key = spellingKey(name)
        guard !key.isEmpty else { return nil }
        return registry.withLock { entries in entries.first { spellings(of: $0).contains(key) }?.type }
    }

    /// Other names people use for the built-in games, by id (the id and the
    /// display name are always accepted too).
    private static let builtInOtherNames: [String: [String]] = [
        Connect4.id: ["connect four", "four in a row", "c4"],
        Cube4.id: ["cube four", "cube", "3d connect four"],
        TicTacToe.id: ["tic tac toe", "noughts and crosses", "ttt"],
        Reversi.id: ["othello"],
        DotsAndBoxes.id: ["dots", "boxes", "dots and boxes"],
        ChineseCheckers.id: ["chinese checkers", "sternhalma", "halma"],
    ]

    /// Every spelling of a registered game's names, as `spellingKey` reduces
    /// them: the id, the display name (with and without its parenthesis) and
    /// the other names.
    private static func spellings(of entry: Entry) -> Set<String> {
        let game = entry.type
        let plainName = game.displayName.split(separator: "(").first.map(String.init) ?? game.displayName
        let names = [game.id, game.displayName, plainName] + entry.otherNames
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
        let entries = registry.withLock { $0 }
        if key.count >= 2 {
            let starting = entries.filter { entry in spellings(of: entry).contains { $0.hasPrefix(key) } }
            if starting.count == 1 { return starting[0].type.id }
        }
        let lowered = name.lowercased()
        let scored = entries.map { ($0.type.id, editDistance(lowered, $0.type.id)) }
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

/// Why `GameCatalog.register(_:otherNames:)` refused a game type: a mistake in
/// the registering program, reported before any match of the game exists.
public enum GameCatalogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Another type is already registered under this id: the id, that type's
    /// name and the refused type's name.
    case idTaken(String, registered: String, refused: String)
    /// The id is not 1 to 32 bytes of a-z, 0-9, '-' and '_' (what the wire
    /// and the match blob carry).
    case invalidID(String)
    /// The rules version does not fit the two bytes the wire carries (0-65535).
    case rulesVersionOutOfRange(id: String, Int)
    /// The game lists no seat count, or one outside 2-8 (what a match holds).
    case seatCountsOutOfRange(id: String, [Int])
    /// The game's moves are bytes (`Game.moveByteLimit`) but its limit is
    /// outside 1 to `Move.maximumByteLimit`.
    case moveByteLimitOutOfRange(id: String, Int)

    /// Longest game id, in bytes (the match blob's and HELLO's limit).
    public static let maximumIDBytes = 32
    /// The seat counts a match can hold.
    public static let seatLimit = 2...8

    /// A sentence naming the game and what to change.
    public var description: String {
        switch self {
        case .idTaken(let id, let registered, let refused):
            "cannot register \(refused) as game '\(id)': \(registered) already has that id; give one of them another id"
        case .invalidID(let id):
            "cannot register game '\(id)': an id is 1 to \(Self.maximumIDBytes) bytes of a-z, 0-9, '-' and '_'"
        case .rulesVersionOutOfRange(let id, let version):
            "cannot register game '\(id)': its rules version \(version) is outside 0-65535"
        case .seatCountsOutOfRange(let id, let counts):
            "cannot register game '\(id)': its seat counts \(counts) must be one or more of 2 to 8"
        case .moveByteLimitOutOfRange(let id, let limit):
            "cannot register game '\(id)': its moves' byte limit \(limit) is outside 1-\(Move.maximumByteLimit)"
        }
    }

    /// What keeps `type` out of the catalog whatever else is registered, or nil.
    static func problem(with type: any Game.Type) -> GameCatalogError? {
        let id = type.id
        let allowed = id.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d || $0 == 0x5f }
        guard (1...maximumIDBytes).contains(id.utf8.count), allowed else { return .invalidID(id) }
        guard (0...Int(UInt16.max)).contains(type.rulesVersion) else { return .rulesVersionOutOfRange(id: id, type.rulesVersion) }
        guard !type.seatCounts.isEmpty, type.seatCounts.allSatisfy(seatLimit.contains) else {
            return .seatCountsOutOfRange(id: id, type.seatCounts)
        }
        if let limit = type.moveByteLimit, !(1...Move.maximumByteLimit).contains(limit) {
            return .moveByteLimitOutOfRange(id: id, limit)
        }
        return nil
    }
}
