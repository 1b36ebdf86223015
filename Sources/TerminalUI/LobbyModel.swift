// The lobby's state and what a key does to it (bare `parlor` on a
// terminal): pure, like `FullScreenModel`, so every key is tested without a
// terminal. ParlorCLI's `Lobby` is the shell: it owns the terminal and the
// browse, puts the games it found into `LobbyModel.Game`s, and turns a
// `Choice` into the command it stands for.

/// The lobby's state and what a key does to it. No I/O.
///
/// From the games on the LAN: Enter or a number joins, `w` watches the selected game, `a` types an address
/// (HOST:PORT, or a game's name) to join, `h` hosts (then the game, the name,
/// a passcode or none, the seat), `p` plays a bot offline (then the game, the
/// level, the seat). Esc goes back one step; q on the list leaves (Esc there
/// only says so). Your own matches (`Mine`, from the match store) are listed
/// apart, above the LAN's games: Enter or `r` on one resumes it. A LAN game
/// keeps the number it was first shown with while others come and go.
/// `Address` is what a typed address becomes once `Rules.address` accepts it.
public struct LobbyModel<Address: Hashable & Sendable>: Sendable {
    /// One game on the LAN as the lobby sees it.
    public struct Game: Hashable, Sendable {
        /// Its row in the list (`row.name` is the name, shown safely).
        public var row: GameRow
        /// Why it cannot be joined now; nil when it can.
        public var joinRefusal: String?
        /// Why it cannot be watched; nil when it can.
        public var watchRefusal: String?

        /// A LAN game with its row and the reasons it cannot be joined or watched (nil: it can).
        public init(row: GameRow, joinRefusal: String?, watchRefusal: String?) {
            self.row = row
            self.joinRefusal = joinRefusal
            self.watchRefusal = watchRefusal
        }
    }

    /// One of your own matches (hosted, joined or offline, not over), as the match store keeps it.
    public struct Mine: Hashable, Sendable {
        /// The match id `parlor resume` takes.
        public var id: String
        /// "Connect Four vs Bo (1a2b3c4d) · interrupted · your turn", made printable.
        public var text: String
        /// Why it cannot be resumed now ("it is being played right now"); nil when it can.
        public var resumeRefusal: String?

        /// One of your matches: its id, its line, and why it cannot be resumed (nil: it can).
        public init(id: String, text: String, resumeRefusal: String? = nil) {
            self.id = id
            self.text = text
            self.resumeRefusal = resumeRefusal
        }
    }

    /// What the list's selection is on: one of your matches (by id) or a LAN game (by name).
    public enum Selection: Hashable, Sendable {
        /// One of your matches, by its match id.
        case mine(String)
        /// A game on the LAN, by its advertised name.
        case game(String)
    }

    /// A typed address or name refused, as the one line the lobby shows.
    public struct Refusal: Error, Hashable, Sendable {
        /// The line shown, e.g. "'host:99999': the port must be a whole number from 1 to 65535."
        public var message: String
        /// A refusal that shows `message`.
        public init(_ message: String) { self.message = message }
    }

    /// What the lobby offers and how it checks what is typed; the caller's rules, not the model's.
    public struct Rules: Sendable {
        /// The games a player can host or play, in catalog order.
        public var catalog: [(id: String, name: String)]
        /// The bot levels, weakest first (1-3, or their first letters).
        public var levels: [String]
        /// A typed address as the join it stands for, or why not.
        public var address: @Sendable (String) -> Result<Address, Refusal>
        /// A typed name for hosting as the name used, or why not.
        public var playerName: @Sendable (String) -> Result<String, Refusal>

        /// The lobby's rules: the games and bot levels offered, and how a typed
        /// address and a typed player name are checked.
        public init(catalog: [(id: String, name: String)], levels: [String],
                    address: @escaping @Sendable (String) -> Result<Address, Refusal>,
                    playerName: @escaping @Sendable (String) -> Result<String, Refusal>) {
            self.catalog = catalog
            self.levels = levels
            self.address = address
            self.playerName = playerName
        }
    }

    /// The seat asked for: first, second, or a coin toss.
    public enum Seat: String, Hashable, Sendable, CaseIterable {
        /// Seat 1 (moves first), seat 2, or a coin toss when the match starts.
        case first, second, random
    }

    /// What the player chose; the lobby ends its step and the shell acts.
    public enum Choice: Hashable, Sendable {
        /// Join the game at this index of the games shown.
        case join(at: Int)
        /// Join the game at this typed address (or name).
        case joinAddress(Address)
        /// Watch the game at this index without a seat.
        case watch(at: Int)
        /// Resume your own match with this id.
        case resume(String)
        /// Host a new game of this id, as `name`, with a made-up passcode or none, from `seat`.
        case host(String, name: String, passcode: Bool, seat: Seat)
        /// Play this game against a bot of `level` offline, from `seat`.
        case play(String, level: String, seat: Seat)
        /// Leave.
        case quit
    }

    /// Which screen is showing.
    public enum Mode: Hashable, Sendable {
        /// The games on the LAN.
        case games
        /// Typing an address to join.
        case address
        /// Choosing a game to host, or to play offline.
        case chooseGame(forHosting: Bool)
        /// Playing offline: the bot's level.
        case botLevel(game: String)
        /// Hosting: the name other players see (typed, prefilled).
        case hostName(game: String)
        /// Hosting: a passcode or none.
        case hostCode(game: String, name: String)
        /// The seat: offline with `level`, or hosting as `name` (with `passcode`).
        case seat(game: String, level: String?, name: String?, passcode: Bool)
    }

    private let rules: Rules
    /// The games on the LAN, in the shell's order.
    public private(set) var games: [Game] = []
    /// Which screen is showing; the lobby starts on the games on the LAN.
    public private(set) var mode = Mode.games
    /// Your own matches, newest first.
    public private(set) var mine: [Mine] = []
    /// The selected row in `.games` (kept by id or name so it stays put as the lists change).
    public private(set) var selection: Selection?
    /// The number each LAN game was first shown with, by name: kept while it is listed.
    private var numbers: [String: Int] = [:]
    /// The selected row in `.chooseGame`.
    public private(set) var selectedGameIndex = 0
    /// Why discovery does not work, once a browse failed.
    public private(set) var discoveryProblem: String?
    /// A one-line message, e.g. why the chosen game cannot be joined.
    public private(set) var message: String?
    /// What is being typed (an address, a name).
    public private(set) var typed = ""
    /// The name hosting starts from (the settings file's, else the login name).
    public let defaultName: String
    /// The bot level offered first (the settings file's, else medium).
    public let defaultLevel: String

    /// A lobby on the games list (empty until `games` are given), with `message`
    /// shown first (e.g. why the last match ended); `defaultName` and
    /// `defaultLevel` are offered first when hosting or playing a bot.
    public init(rules: Rules, defaultName: String, defaultLevel: String, message: String? = nil) {
        self.rules = rules
        self.defaultName = defaultName
        self.defaultLevel = defaultLevel
        self.message = message
    }

    /// Back to the games on the LAN (a join or a match started at the desk; the lobby stays open).
    public mutating func showGames() {
        mode = .games
        typed = ""
    }

    /// The selected LAN game's name, if the selection is on one.
    public var selectedName: String? {
        if case .game(let name)? = selection { return name }
        return nil
    }

    /// The games on the LAN now. A game keeps its number; a new one takes the
    /// lowest free number. The selection stays on its row, else moves to the first.
    public mutating func show(games: [Game]) {
        self.games = games
        let names = Set(games.map(\.row.name))
        numbers = numbers.filter { names.contains($0.key) }
        for game in games where numbers[game.row.name] == nil {
            let taken = Set(numbers.values)
            numbers[game.row.name] = (1...).first { !taken.contains($0) }
        }
        keepSelection()
    }

    /// Your own matches now (from the match store); the selection stays on its row.
    public mutating func show(mine: [Mine]) {
        self.mine = mine
        keepSelection()
    }

    /// The list's rows in the order shown: your matches, then the LAN's games by number.
    private var rows: [Selection] {
        mine.map { .mine($0.id) } + shownGames.map { .game(games[$0].row.name) }
    }

    /// Indices into `games`, in the order they are shown (by number).
    private var shownGames: [Int] {
        games.indices.sorted { (numbers[games[$0].row.name] ?? 0) < (numbers[games[$1].row.name] ?? 0) }
    }

    private mutating func keepSelection() {
        if let selection, rows.contains(selection) { return }
        selection = rows.first
    }

    /// Discovery failed: the list says why, and how to join without it.
    public mutating func discoveryFailed(_ problem: String) {
        discoveryProblem = problem
    }

    /// Shows `text` as the one-line message until the next key (e.g. that some games may be missing for a moment).
    public mutating func tell(_ text: String) {
        message = text
    }

    /// What `key` does: a choice that ends the lobby's step, or nil to keep going (redraw).
    public mutating func handle(_ key: Key) -> Choice? {
        if key == .interrupt || key == .endOfTransmission { return .quit }
        message = nil
        switch mode {
        case .games: return handleInGames(key)
        case .address: return handleAddress(key)
        case .chooseGame(let forHosting): return handleInCatalog(key, forHosting: forHosting)
        case .botLevel(let game): return handleLevel(key, game: game)
        case .hostName(let game): return handleName(key, game: game)
        case .hostCode(let game, let name): return handleCode(key, game: game, name: name)
        case .seat(let game, let level, let name, let passcode):
            return handleSeat(key, game: game, level: level, name: name, passcode: passcode)
        }
    }

    private mutating func handleInGames(_ key: Key) -> Choice? {
        let index = games.firstIndex { $0.row.name == selectedName }
        let rows = self.rows
        let position = selection.flatMap { rows.firstIndex(of: $0) }
        switch key {
        case .up, .character("k"):
            if let position, position > 0 { selection = rows[position - 1] }
        case .down, .character("j"):
            if let position, position + 1 < rows.count { selection = rows[position + 1] }
            else if position == nil { selection = rows.first }
        case .enter:
            if case .mine(let id)? = selection { return resume(id) }
            guard let index else {
                message = "No game to join yet. Press a to type an address, h to host one, or p to play a bot."
                return nil
            }
            return join(at: index)
        case .character("r"), .character("R"):
            if case .mine(let id)? = selection { return resume(id) }
            guard mine.count == 1 else {
                message = mine.isEmpty ? "You have no match to resume." : "Choose one of your matches with ↑/↓, then press r."
                return nil
            }
            selection = .mine(mine[0].id)
            return resume(mine[0].id)
        case .character(let character) where character.isNumber:
            guard let number = character.wholeNumberValue,
                  let found = games.firstIndex(where: { numbers[$0.row.name] == number }) else {
                message = "There is no game \(character)."
                return nil
            }
            selection = .game(games[found].row.name)
            return join(at: found)
        case .character("w"), .character("W"):
            guard let index else {
                message = games.isEmpty ? "No game to watch yet." : "Choose a game on the LAN with ↑/↓, then press w."
                return nil
            }
            if let reason = games[index].watchRefusal {
                message = "\"\(games[index].row.name)\" cannot be watched: \(reason)"
                return nil
            }
            return .watch(at: index)
        case .character("a"), .character("A"):
            mode = .address
            typed = ""
        case .character("h"), .character("H"):
            mode = .chooseGame(forHosting: true)
            selectedGameIndex = 0
        case .character("p"), .character("P"):
            mode = .chooseGame(forHosting: false)
            selectedGameIndex = 0
        case .character("q"), .character("Q"):
            return .quit
        case .escape:
            // Esc goes back a step elsewhere; here there is no step back, and leaving is q's.
            message = "Press q to leave parlor."
        default:
            break
        }
        return nil
    }

    private mutating func resume(_ id: String) -> Choice? {
        guard let match = mine.first(where: { $0.id == id }) else { return nil }
        if let reason = match.resumeRefusal {
            message = "\(match.text) cannot be resumed: \(reason)"
            return nil
        }
        return .resume(id)
    }

    private mutating func join(at index: Int) -> Choice? {
        if let reason = games[index].joinRefusal {
            message = "\"\(games[index].row.name)\" cannot be joined: \(reason)"
            return nil
        }
        return .join(at: index)
    }

    /// Typing: printable characters are added, Backspace takes one back; whether Enter was pressed.
    private mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .character(let character) where typed.utf8.count < 128: typed.append(character)
        case .backspace: if !typed.isEmpty { typed.removeLast() }
        case .enter: return true
        default: break
        }
        return false
    }

    private mutating func handleAddress(_ key: Key) -> Choice? {
        if key == .escape { mode = .games; return nil }
        guard edit(key) else { return nil }
        switch rules.address(typed) {
        case .success(let address): return .joinAddress(address)
        case .failure(let refusal):
            message = refusal.message
            return nil
        }
    }

    private mutating func handleInCatalog(_ key: Key, forHosting: Bool) -> Choice? {
        let catalog = rules.catalog
        func choose(_ index: Int) {
            let id = catalog[index].id
            if forHosting {
                mode = .hostName(game: id)
                typed = defaultName
            } else {
                mode = .botLevel(game: id)
            }
        }
        switch key {
        case .up, .character("k"):
            selectedGameIndex = max(0, selectedGameIndex - 1)
        case .down, .character("j"):
            selectedGameIndex = min(catalog.count - 1, selectedGameIndex + 1)
        case .enter:
            choose(selectedGameIndex)
        case .character(let character) where character.isNumber:
            guard let number = character.wholeNumberValue, number >= 1, number <= catalog.count else {
                message = "There is no game \(character)."
                return nil
            }
            choose(number - 1)
        case .escape, .character("q"), .character("Q"), .backspace, .left:
            mode = .games
        default:
            break
        }
        return nil
    }

    private mutating func handleLevel(_ key: Key, game: String) -> Choice? {
        let levels = rules.levels
        switch key {
        case .enter: mode = .seat(game: game, level: defaultLevel, name: nil, passcode: false)
        case .character(let character) where character.isNumber:
            guard let number = character.wholeNumberValue, number >= 1, number <= levels.count else { return nil }
            mode = .seat(game: game, level: levels[number - 1], name: nil, passcode: false)
        case .character(let character):
            guard let level = levels.first(where: { $0.first == Character(character.lowercased()) }) else { return nil }
            mode = .seat(game: game, level: level, name: nil, passcode: false)
        case .escape, .backspace, .left: mode = .chooseGame(forHosting: false)
        default: break
        }
        return nil
    }

    private mutating func handleName(_ key: Key, game: String) -> Choice? {
        if key == .escape { mode = .chooseGame(forHosting: true); return nil }
        guard edit(key) else { return nil }
        switch rules.playerName(typed) {
        case .success(let name): mode = .hostCode(game: game, name: name)
        case .failure(let refusal): message = refusal.message
        }
        return nil
    }

    private mutating func handleCode(_ key: Key, game: String, name: String) -> Choice? {
        switch key {
        case .character("y"), .character("Y"): mode = .seat(game: game, level: nil, name: name, passcode: true)
        case .character("n"), .character("N"), .enter: mode = .seat(game: game, level: nil, name: name, passcode: false)
        case .escape: mode = .hostName(game: game); typed = name
        default: break
        }
        return nil
    }

    private mutating func handleSeat(_ key: Key, game: String, level: String?, name: String?, passcode: Bool) -> Choice? {
        let seats = Seat.allCases
        var seat: Seat?
        switch key {
        case .enter: seat = name == nil ? .first : .random
        case .character(let character) where character.isNumber:
            if let number = character.wholeNumberValue, number >= 1, number <= seats.count { seat = seats[number - 1] }
        case .character("f"), .character("F"): seat = .first
        case .character("s"), .character("S"): seat = .second
        case .character("r"), .character("R"): seat = .random
        case .escape:
            if let name { mode = .hostCode(game: game, name: name) } else { mode = .botLevel(game: game) }
        default: break
        }
        guard let seat else { return nil }
        if let level { return .play(game, level: level, seat: seat) }
        return .host(game, name: name ?? defaultName, passcode: passcode, seat: seat)
    }

    /// The screen, one string per line, each at most `width` characters (`LobbyView`).
    public func lines(width: Int) -> [String] {
        view.lines(width: width)
    }

    /// The screen's lines and which of them is the selected row (drawn highlighted where the terminal allows).
    public func page(width: Int) -> (lines: [String], selected: Int?) {
        view.page(width: width)
    }

    /// What the screen shows now, in words.
    public var view: LobbyView {
        let catalog = rules.catalog
        func gameName(_ id: String) -> String { catalog.first { $0.id == id }?.name ?? id }
        let page: LobbyView.Page = switch mode {
        case .games:
            .games(rows: shownGames.map { games[$0].row }, numbers: shownGames.map { numbers[games[$0].row.name] ?? 0 },
                   mine: mine.map(\.text), selected: selection.flatMap { rows.firstIndex(of: $0) },
                   discoveryProblem: discoveryProblem)
        case .address: .address(typed: typed)
        case .chooseGame(let forHosting): .chooseGame(forHosting: forHosting, games: catalog, selected: selectedGameIndex)
        case .botLevel(let game): .botLevel(game: gameName(game), levels: rules.levels, defaultLevel: defaultLevel)
        case .hostName(let game): .hostName(game: gameName(game), typed: typed)
        case .hostCode(let game, let name): .hostCode(game: gameName(game), name: name)
        case .seat(let game, let level, let name, _): .seat(game: gameName(game), level: level, name: name ?? defaultName)
        }
        return LobbyView(page: page, message: message)
    }
}
