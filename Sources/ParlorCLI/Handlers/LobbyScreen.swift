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
    /// Host a new game of this id.
    case host(String)
    /// Play this game against a bot, offline.
    case play(String)
    /// Leave.
    case quit
}

/// The lobby's state and what a key does to it. No I/O.
struct LobbyModel {
    /// Which screen is showing.
    enum Mode: Hashable {
        /// The games on the LAN.
        case games
        /// Choosing a game to host, or to play offline.
        case chooseGame(forHosting: Bool)
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

    /// The games a player can host or play, in catalog order.
    let catalog: [(id: String, name: String)] = GameCatalog.all.map { ($0.id, $0.displayName) }

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
        message = nil
        switch mode {
        case .games: return handleInGames(key)
        case .chooseGame(let forHosting): return handleInCatalog(key, forHosting: forHosting)
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
                message = "No game to join yet. Press h to host one, or p to play a bot."
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
        case .character("h"), .character("H"):
            mode = .chooseGame(forHosting: true)
            selectedGameIndex = 0
        case .character("p"), .character("P"):
            mode = .chooseGame(forHosting: false)
            selectedGameIndex = 0
        case .character("q"), .character("Q"), .escape, .interrupt, .endOfTransmission:
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

    private mutating func handleInCatalog(_ key: Key, forHosting: Bool) -> LobbyChoice? {
        func choose(_ index: Int) -> LobbyChoice {
            let id = catalog[index].id
            return forHosting ? .host(id) : .play(id)
        }
        switch key {
        case .up, .character("k"):
            selectedGameIndex = max(0, selectedGameIndex - 1)
        case .down, .character("j"):
            selectedGameIndex = min(catalog.count - 1, selectedGameIndex + 1)
        case .enter:
            return choose(selectedGameIndex)
        case .character(let character) where character.isNumber:
            guard let number = character.wholeNumberValue, number >= 1, number <= catalog.count else {
                message = "There is no game \(character)."
                return nil
            }
            return choose(number - 1)
        case .escape, .character("q"), .character("Q"), .backspace, .left:
            mode = .games
        case .interrupt, .endOfTransmission:
            return .quit
        default:
            break
        }
        return nil
    }

    /// The screen, one string per line, each at most `width` characters.
    func lines(width: Int) -> [String] {
        var lines: [String] = []
        switch mode {
        case .games:
            lines.append("parlor: games on the LAN")
            lines.append("")
            let games = list.games
            if let discoveryProblem {
                lines += GameListing.wrap(discoveryProblem, to: width)
                lines += GameListing.wrap(
                    "Without discovery, join a host by the address it printed: quit (q), then run 'parlor join HOST:PORT'.",
                    to: width)
            } else if games.isEmpty {
                lines.append("Looking for games… none yet. Games hosted on this network appear here as they start.")
            } else {
                let laid = GameListing.layout(games, numbered: true, width: max(20, width - 2))
                lines.append("  " + laid.header)
                for (game, rowLines) in zip(games, laid.rows) {
                    let marker = game.name == selectedName ? "> " : "  "
                    lines.append(marker + rowLines[0])
                    lines += rowLines.dropFirst().map { "  " + $0 }
                }
            }
            lines.append("")
            if let message { lines += GameListing.wrap(message, to: width) }
            lines.append("↑/↓ choose · Enter or 1-9 join · h host a game · p play a bot offline · q quit")
        case .chooseGame(let forHosting):
            lines.append(forHosting ? "parlor: host a game on the LAN. Which game?" : "parlor: play a bot offline. Which game?")
            lines.append("")
            for (index, game) in catalog.enumerated() {
                let marker = index == selectedGameIndex ? "> " : "  "
                lines.append("\(marker)\(index + 1)  \(game.name) (\(game.id))")
            }
            lines.append("")
            if let message { lines += GameListing.wrap(message, to: width) }
            lines.append("↑/↓ choose · Enter or 1-\(catalog.count) start · Esc back")
        }
        return lines.map { GameListing.clip($0, to: width) }
    }
}

/// Runs the lobby on the terminal until the player chooses.
///
/// Owns the terminal while it runs: raw mode and the alternate screen, a
/// key reader on its own thread, and a browse. Every one of them is
/// released before it returns, so the flow it hands over to (join, host,
/// play) finds the terminal as a shell left it.
struct Lobby {
    func run() async throws -> LobbyChoice {
        let terminal = Terminal()
        do { try terminal.enterFullScreen() } catch {
            throw CommandFailure("cannot open the lobby: \(error)", exitCode: .ioError)
        }
        let inputs = InputMerger()
        // Raw mode turns Ctrl-C into a key; these are what may still arrive as signals.
        let signals = SignalWatcher(signals: [SIGTERM, SIGHUP, SIGWINCH]) { number in
            if number == SIGWINCH {
                inputs.redraw()
                return
            }
            terminal.restore()
            exit(ExitCode(endedBy: number).rawValue)
        }
        defer {
            inputs.close()
            signals.cancel()
            terminal.restore()
        }
        inputs.forward(DNSSDDirectory().browse(type: parlorServiceType))
        inputs.readKeys()

        var model = LobbyModel()
        draw(model, on: terminal)
        for await input in inputs.stream {
            switch input {
            case .browse(let event):
                model.apply(event)
            case .key(let key):
                if let choice = model.handle(key) { return choice }
            case .endOfInput:
                return .quit
            case .deadline, .line, .redraw:
                break
            }
            draw(model, on: terminal)
        }
        return .quit
    }

    private func draw(_ model: LobbyModel, on terminal: Terminal) {
        let size = terminal.size()
        // One column spare: writing the last column makes some terminals wrap.
        var lines = model.lines(width: max(20, (size?.columns ?? 80) - 1))
        if let rows = size?.rows, lines.count > rows { lines = Array(lines.prefix(rows)) }
        // Home, each line followed by clear-to-end-of-line, then clear the rest: no flicker.
        var frame = "\u{1B}[H"
        frame += lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n")
        frame += "\u{1B}[J"
        terminal.write(Array(frame.utf8))
    }
}
