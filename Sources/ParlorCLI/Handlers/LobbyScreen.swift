// The lobby: bare `parlor` on a terminal. A live list of the games on the
// LAN, and keys to join one, host a new game, or play a bot offline.
// `LobbyModel` is pure (keys and browse events in, lines and a choice
// out); `Lobby` is the thin shell that owns the terminal while it runs.

@preconcurrency import Glibc
import Discovery
import Foundation
import Games
import TerminalUI

/// What the player chose in the lobby.
enum LobbyChoice: Sendable, Hashable {
    /// Join this game.
    case join(ListedGame)
    /// Join the game at this typed address (or name).
    case joinTarget(JoinTarget)
    /// Watch this game without a seat (`w`, `parlor watch`).
    case watch(ListedGame)
    /// Host a new game of this id, as `name`, with a made-up passcode or none, from `seat`.
    case host(String, name: String, passcode: Bool, seat: SeatChoice)
    /// Play this game against a bot of `level` offline, from `seat`.
    case play(String, level: BotLevelChoice, seat: SeatChoice)
    /// Leave.
    case quit
    /// The matches at the desk were left for now (q twice, Ctrl-C, a signal: `signal`).
    case left(signal: Int32?)
}

/// The lobby's state and what a key does to it. No I/O.
///
/// From the games on the LAN: Enter or a number joins, `w` watches the selected game, `a` types an address
/// (HOST:PORT, or a game's name) to join, `h` hosts (then the game, the name,
/// a passcode or none, the seat), `p` plays a bot offline (then the game, the
/// level, the seat). Esc goes back one step; q or Esc on the list leaves.
struct LobbyModel {
    /// Which screen is showing.
    enum Mode: Hashable {
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
        case seat(game: String, level: BotLevelChoice?, name: String?, passcode: Bool)
    }

    private(set) var list = GameList(assess: { LAN.assess($0) })
    private(set) var mode = Mode.games
    /// The selected game's name in `.games` (kept by name so it stays put as the list changes).
    private(set) var selectedName: String?
    /// The selected row in `.chooseGame`.
    private(set) var selectedGameIndex = 0
    /// Why discovery does not work, once a browse failed.
    private(set) var discoveryProblem: String?
    /// A one-line message, e.g. why the chosen game cannot be joined.
    private(set) var message: String?
    /// What is being typed (an address, a name).
    private(set) var typed = ""
    /// The name hosting starts from (the settings file's, else the login name).
    let defaultName: String
    /// The bot level offered first (the settings file's, else medium).
    let defaultLevel: BotLevelChoice

    init(defaultName: String = PlayerName.fallback, defaultLevel: BotLevelChoice = .medium, message: String? = nil) {
        self.defaultName = defaultName
        self.defaultLevel = defaultLevel
        self.message = message
    }

    /// The games a player can host or play, in catalog order.
    let catalog: [(id: String, name: String)] = GameCatalog.all.map { ($0.id, $0.displayName) }

    /// Back to the games on the LAN (a join or a match started at the desk; the lobby stays open).
    mutating func showGames() {
        mode = .games
        typed = ""
    }

    /// Takes in a browse event.
    mutating func apply(_ event: BrowseEvent) {
        if case .failed(let error) = event {
            discoveryProblem = "\(error)"
            return
        }
        list.apply(event)
        if selectedName == nil || !list.games.contains(where: { $0.name == selectedName }) {
            selectedName = list.games.first?.name
        }
    }

    /// What `key` does: a choice that ends the lobby, or nil to keep going (redraw).
    mutating func handle(_ key: Key) -> LobbyChoice? {
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

    private mutating func handleInGames(_ key: Key) -> LobbyChoice? {
        let games = list.games
        let index = games.firstIndex { $0.name == selectedName }
        switch key {
        case .up, .character("k"):
            if let index, index > 0 { selectedName = games[index - 1].name }
        case .down, .character("j"):
            if let index, index + 1 < games.count { selectedName = games[index + 1].name }
            else if index == nil { selectedName = games.first?.name }
        case .enter:
            guard let index else {
                message = "No game to join yet. Press a to type an address, h to host one, or p to play a bot."
                return nil
            }
            return join(games[index])
        case .character(let character) where character.isNumber:
            guard let number = character.wholeNumberValue, number >= 1, number <= games.count else {
                message = "There is no game \(character)."
                return nil
            }
            selectedName = games[number - 1].name
            return join(games[number - 1])
        case .character("w"), .character("W"):
            guard let index else {
                message = "No game to watch yet."
                return nil
            }
            let game = games[index]
            if let reason = ParlorServiceInfo.assessForWatching(game.assessment).reason {
                message = Text.escapingUnprintable("\"\(game.name)\" cannot be watched: \(reason)")
                return nil
            }
            return .watch(game)
        case .character("a"), .character("A"):
            mode = .address
            typed = ""
        case .character("h"), .character("H"):
            mode = .chooseGame(forHosting: true)
            selectedGameIndex = 0
        case .character("p"), .character("P"):
            mode = .chooseGame(forHosting: false)
            selectedGameIndex = 0
        case .character("q"), .character("Q"), .escape:
            return .quit
        default:
            break
        }
        return nil
    }

    private mutating func join(_ game: ListedGame) -> LobbyChoice? {
        if let reason = game.assessment.reason {
            message = Text.escapingUnprintable("\"\(game.name)\" cannot be joined: \(reason)")
            return nil
        }
        return .join(game)
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

    private mutating func handleAddress(_ key: Key) -> LobbyChoice? {
        if key == .escape { mode = .games; return nil }
        guard edit(key) else { return nil }
        do { return .joinTarget(try JoinTarget(parsing: typed)) } catch {
            message = "'\(Text.escapingUnprintable(typed))': \(error.explanation)"
            return nil
        }
    }

    private mutating func handleInCatalog(_ key: Key, forHosting: Bool) -> LobbyChoice? {
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

    private mutating func handleLevel(_ key: Key, game: String) -> LobbyChoice? {
        let levels = BotLevelChoice.allCases
        switch key {
        case .enter: mode = .seat(game: game, level: defaultLevel, name: nil, passcode: false)
        case .character(let character) where character.isNumber:
            guard let number = character.wholeNumberValue, number >= 1, number <= levels.count else { return nil }
            mode = .seat(game: game, level: levels[number - 1], name: nil, passcode: false)
        case .character(let character):
            guard let level = levels.first(where: { $0.rawValue.first == Character(character.lowercased()) }) else { return nil }
            mode = .seat(game: game, level: level, name: nil, passcode: false)
        case .escape, .backspace, .left: mode = .chooseGame(forHosting: false)
        default: break
        }
        return nil
    }

    private mutating func handleName(_ key: Key, game: String) -> LobbyChoice? {
        if key == .escape { mode = .chooseGame(forHosting: true); return nil }
        guard edit(key) else { return nil }
        do {
            mode = .hostCode(game: game, name: try PlayerName.validated(typed))
        } catch {
            message = "That name cannot be used: \(error.explanation)"
        }
        return nil
    }

    private mutating func handleCode(_ key: Key, game: String, name: String) -> LobbyChoice? {
        switch key {
        case .character("y"), .character("Y"): mode = .seat(game: game, level: nil, name: name, passcode: true)
        case .character("n"), .character("N"), .enter: mode = .seat(game: game, level: nil, name: name, passcode: false)
        case .escape: mode = .hostName(game: game); typed = name
        default: break
        }
        return nil
    }

    private mutating func handleSeat(_ key: Key, game: String, level: BotLevelChoice?, name: String?, passcode: Bool) -> LobbyChoice? {
        let seats: [SeatChoice] = [.first, .second, .random]
        var seat: SeatChoice?
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

    /// The screen, one string per line, each at most `width` characters (TerminalUI's `LobbyView`).
    func lines(width: Int) -> [String] {
        view.lines(width: width)
    }

    /// What the screen shows now, in words.
    var view: LobbyView {
        func gameName(_ id: String) -> String { catalog.first { $0.id == id }?.name ?? id }
        let page: LobbyView.Page = switch mode {
        case .games:
            .games(rows: list.games.map(GameListing.row), selected: list.games.firstIndex { $0.name == selectedName },
                   discoveryProblem: discoveryProblem)
        case .address: .address(typed: typed)
        case .chooseGame(let forHosting): .chooseGame(forHosting: forHosting, games: catalog, selected: selectedGameIndex)
        case .botLevel(let game):
            .botLevel(game: gameName(game), levels: BotLevelChoice.allCases.map(\.rawValue), defaultLevel: defaultLevel.rawValue)
        case .hostName(let game): .hostName(game: gameName(game), typed: typed)
        case .hostCode(let game, let name): .hostCode(game: gameName(game), name: name)
        case .seat(let game, let level, let name, _): .seat(game: gameName(game), level: level?.rawValue, name: name ?? defaultName)
        }
        return LobbyView(page: page, message: message)
    }
}

/// Runs the lobby on the terminal until the player leaves.
///
/// Owns the terminal while it runs: raw mode and the alternate screen, a
/// key reader on its own thread, and a browse. Every one of them is
/// released before it returns. Joining, hosting and playing a bot do not
/// leave it: each such match sits at the lobby's `MatchDesk` (started by
/// `seats`), and the lobby stays home to several matches at once.
struct Lobby {
    /// Where the model starts: the defaults to offer, and a message (why the last join failed).
    var model = LobbyModel()
    /// Starts the matches chosen here, at the desk.
    var seats: DeskSeats

    func run() async throws -> LobbyChoice {
        let terminal = Terminal()
        do { try terminal.enterFullScreen() } catch {
            throw CommandFailure("cannot open the lobby: \(error)", exitCode: .ioError)
        }
        let inputs = InputMerger<BrowseEvent>()
        let desk = seats.openDesk(on: terminal) { inputs.redraw() }
        // Raw mode turns Ctrl-C into a key; these are what may still arrive as signals.
        let signals = SignalWatcher(signals: [SIGTERM, SIGHUP, SIGWINCH]) { number in
            if number == SIGWINCH {
                desk.resized()
                inputs.redraw()
                return
            }
            // Matches at the desk are left for now (saved, resumable); without any, parlor ends at once.
            guard desk.matchCount > 0 else {
                terminal.restore()
                exit(ExitCode(endedBy: number).rawValue)
            }
            // More hang-ups may follow the first; none may kill parlor while the matches are saved.
            if number == SIGHUP { SignalWatcher.ignoreHangUpsFromNowOn() }
            desk.leaveAll(signal: number, terminalLost: number == SIGHUP)
            seats.signalled(number)
            inputs.redraw()
        }
        defer {
            inputs.close()
            signals.cancel()
            desk.close()
            terminal.restore()
        }
        inputs.forward(DNSSDDirectory().browse(type: parlorServiceType))
        inputs.readKeys()

        var model = self.model
        // q (or Esc) with matches at the desk asks once: a second q leaves them all for now.
        var leavingAsked = false
        draw(model, desk: desk, on: terminal)
        for await input in inputs.stream {
            if let number = seats.signal { return .left(signal: number) }
            switch input {
            case .event(let event):
                model.apply(event)
            case .key(let key):
                if desk.hasScreen {
                    switch desk.handle(key) {
                    case .handled: continue
                    case .showLobby: break
                    case .leftAll: return .left(signal: SIGINT)
                    }
                } else if key == .tab, desk.matchCount > 0 {
                    desk.openList()
                    continue
                } else if key == .interrupt, desk.matchCount > 0 {
                    desk.leaveAll(signal: SIGINT)
                    return .left(signal: SIGINT)
                } else if let choice = model.handle(key) {
                    switch choice {
                    case .join, .joinTarget, .play, .host, .watch:
                        leavingAsked = false
                        model.showGames()
                        seats.start(choice, at: desk)
                    case .quit where desk.matchCount + desk.waitingCount == 0:
                        return .quit
                    case .quit where leavingAsked:
                        desk.leaveAll(signal: nil)
                        return .left(signal: nil)
                    case .quit:
                        leavingAsked = true
                        desk.say(desk.matchCount == 0 ? "You are hosting: press q again to stop waiting and leave."
                                 : "You sit at \(desk.matchCount) match\(desk.matchCount == 1 ? "" : "es"): press q again to leave "
                                   + "them for now ('parlor resume' continues each), or Tab to list them.")
                    case .left:
                        return choice
                    }
                }
            case .endOfInput:
                if desk.matchCount > 0 {
                    SignalWatcher.ignoreHangUpsFromNowOn()
                    desk.leaveAll(signal: nil, terminalLost: true)
                    return .left(signal: SIGHUP)
                }
                return .quit
            case .deadline, .line, .redraw:
                break
            }
            if !desk.hasScreen { draw(model, desk: desk, on: terminal) }
        }
        return .quit
    }

    private func draw(_ model: LobbyModel, desk: MatchDesk, on terminal: Terminal) {
        let size = terminal.size()
        // One column spare: writing the last column makes some terminals wrap.
        let width = max(20, (size?.columns ?? 80) - 1)
        var lines = model.lines(width: width)
        let deskLines = desk.homeLines().flatMap { ScreenText.wrap($0, to: width) }
        if !deskLines.isEmpty { lines.insert(contentsOf: deskLines + [""], at: min(2, lines.count)) }
        desk.showLobby(lines)
    }
}
