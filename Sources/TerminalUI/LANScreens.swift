// How the games on the LAN are drawn: as a table (browse, the join picker,
// the lobby), as `browse --watch`'s live screen, and the lobby's pages.
// Pure: words in (ParlorCLI turns Discovery's listings into them), lines out.

import Foundation

/// One game found on the LAN as a row shows it: words, already made printable.
public struct GameRow: Hashable, Sendable {
    /// The name the game is advertised by (its host chose it; `parlor join NAME`).
    public var name: String
    /// The game's display name ("Connect Four"), its id when this parlor does not have it, "?" when unknown.
    public var game: String
    /// The host player's name, with a known-player mark such as "(met before)"; "-" when none was given.
    public var host: String
    /// How full it is: "2 of 4 seated".
    public var seats: String
    /// Its state ("open", "playing") and what else a joiner should know: ", code needed",
    /// ", 1 of 4 tables in play", ", 2 watching".
    public var state: String
    /// Where it listens: "HOST:PORT" addresses separated by spaces.
    public var addresses: String
    /// "cannot join: …" for games this parlor cannot join now; nil otherwise.
    public var note: String?

    /// A row from its words, each already made printable by the caller.
    public init(name: String, game: String, host: String, seats: String, state: String, addresses: String, note: String?) {
        self.name = name
        self.game = game
        self.host = host
        self.seats = seats
        self.state = state
        self.addresses = addresses
        self.note = note
    }

    /// The column titles.
    public static let header = GameRow(name: "NAME", game: "GAME", host: "HOST", seats: "SEATS", state: "STATE",
                                       addresses: "ADDRESS", note: nil)

    /// The row on one line, for `browse --watch` into a pipe or file (no padding, no escape codes).
    public var line: String {
        var text = "\(name) | \(game) | \(host) | \(seats) | \(state) | \(addresses)"
        if let note { text += " | " + note }
        return text
    }
}

/// The table of games on the LAN, in one place so browse, the picker and the lobby agree.
public enum GameTable {
    /// A header, then one line per game (and an indented line with the reason
    /// for games that cannot be joined). `numbered` puts "1", "2"… before the rows.
    public static func lines(_ rows: [GameRow], numbered: Bool = false, width: Int? = nil) -> [String] {
        let laid = layout(rows, numbered: numbered, width: width)
        return [laid.header] + laid.rows.flatMap { $0 }
    }

    /// The table's header line and, per game, its lines (the row, then the reason it cannot be joined).
    /// `numbers` gives each row its own number (the lobby keeps a game's number
    /// while others come and go); without them rows are numbered 1, 2, 3….
    public static func layout(_ rows: [GameRow], numbered: Bool, numbers: [Int]? = nil,
                              width: Int?) -> (header: String, rows: [[String]]) {
        let all = [GameRow.header] + rows
        func widest(_ column: (GameRow) -> String) -> Int { all.map { column($0).count }.max() ?? 0 }
        let widths = [widest(\.name), widest(\.game), widest(\.host), widest(\.seats), widest(\.state)]
        let labels = numbers ?? rows.indices.map { $0 + 1 }
        let numberWidth = numbered ? String(labels.max() ?? 0).count + 2 : 0
        func line(_ row: GameRow, number: String) -> String {
            let cells = [row.name, row.game, row.host, row.seats, row.state]
            var text = number.padding(toLength: numberWidth, withPad: " ", startingAt: 0)
            for (cell, size) in zip(cells, widths) { text += cell.padding(toLength: size + 2, withPad: " ", startingAt: 0) }
            text += row.addresses
            return ScreenText.clip(text, to: width)
        }
        let lines = rows.enumerated().map { index, row -> [String] in
            var lines = [line(row, number: numbered ? "\(labels[index])" : "")]
            if let note = row.note {
                lines.append(ScreenText.clip(String(repeating: " ", count: numberWidth + 2) + note, to: width))
            }
            return lines
        }
        return (line(GameRow.header, number: numbered ? "#" : ""), lines)
    }

    /// `browse --watch` on a terminal: the screen cleared, then the live list.
    public static func liveScreen(_ rows: [GameRow]) -> String {
        var text = String(decoding: ScreenControl.clear, as: UTF8.self)
        text += "Games on the LAN (Ctrl-C to stop)\n\n"
        if rows.isEmpty {
            text += "  (none yet; still looking)\n"
        } else {
            text += lines(rows).joined(separator: "\n") + "\n"
        }
        return text
    }
}

/// Plain text fitted to a width.
public enum ScreenText {
    /// `text` broken into lines of at most `width` characters, at spaces where it can be.
    public static func wrap(_ text: String, to width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // A line that fits stays as it is, its leading spaces too.
            if paragraph.count <= width {
                lines.append(String(paragraph))
                continue
            }
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
                while line.count > width {
                    lines.append(String(line.prefix(width)))
                    line = String(line.dropFirst(width))
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// `text` cut to `width` characters, with "…" where it was cut.
    public static func clip(_ text: String, to width: Int?) -> String {
        guard let width, width > 1, text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }
}

/// One page of the lobby (bare `parlor` on a terminal), as words: ParlorCLI's
/// `LobbyModel` says which page shows and what is on it; this draws it.
public struct LobbyView {
    /// Which page shows, and what it holds.
    public enum Page {
        /// Your own matches (`mine`, one line each), then the games on the LAN with their
        /// `numbers`: `selected` is the marked row, counting your matches first;
        /// `discoveryProblem` says why there is no list.
        case games(rows: [GameRow], numbers: [Int], mine: [String], selected: Int?, discoveryProblem: String?)
        /// Typing an address to join.
        case address(typed: String)
        /// Choosing a game to host, or to play offline: `games` in catalog order, `selected` marked.
        case chooseGame(forHosting: Bool, games: [(id: String, name: String)], selected: Int)
        /// Playing offline: the bot's level, `levels` in order, `defaultLevel` taken with Enter.
        case botLevel(game: String, levels: [String], defaultLevel: String)
        /// Hosting: the name other players see, as typed so far.
        case hostName(game: String, typed: String)
        /// Hosting as `name`: a passcode or none.
        case hostCode(game: String, name: String)
        /// The seat: offline against the `level` bot, or hosting as `name`.
        case seat(game: String, level: String?, name: String)
    }

    /// Which page shows, and what it holds.
    public var page: Page
    /// A one-line message, e.g. why the chosen game cannot be joined.
    public var message: String?

    /// The view of `page`, with `message` as its one-line message (nil: none).
    public init(page: Page, message: String? = nil) {
        self.page = page
        self.message = message
    }

    /// The page, one string per line, each at most `width` characters. Game names are display names.
    public func lines(width: Int) -> [String] { page(width: width).lines }

    /// The page's lines and the index of the selected row's line, if a row is selected.
    public func page(width: Int) -> (lines: [String], selected: Int?) {
        var lines: [String] = []
        var selectedLine: Int?
        let message = self.message.map { ScreenText.wrap($0, to: width) } ?? []
        switch page {
        case .games(let rows, let numbers, let mine, let selected, let discoveryProblem):
            lines.append("parlor: games on the LAN")
            lines.append("")
            if !mine.isEmpty {
                lines.append("Your matches (Enter or r resumes):")
                for (index, text) in mine.enumerated() {
                    if index == selected { selectedLine = lines.count }
                    lines.append((index == selected ? "> " : "  ") + text)
                }
                lines.append("")
            }
            if let discoveryProblem {
                lines += ScreenText.wrap(discoveryProblem, to: width)
                lines += ScreenText.wrap("Without discovery, join a host by the address it printed: press a and type it.", to: width)
            } else if rows.isEmpty {
                lines.append("Looking for games… none yet. Games hosted on this network appear here as they start.")
            } else {
                let laid = GameTable.layout(rows, numbered: true, numbers: numbers, width: max(20, width - 2))
                lines.append("  " + laid.header)
                for (index, rowLines) in laid.rows.enumerated() {
                    let isSelected = mine.count + index == selected
                    if isSelected { selectedLine = lines.count }
                    let marker = isSelected ? "> " : "  "
                    lines.append(marker + rowLines[0])
                    lines += rowLines.dropFirst().map { "  " + $0 }
                }
            }
            lines.append("")
            lines += message
            // The keys on one line where it fits, else on two (80 columns): never cut off.
            let joining = "↑/↓ choose · Enter or 1-9 join · w watch · a type an address"
            let starting = (mine.isEmpty ? "" : "r resume · ") + "h host a game · p play a bot offline · q quit"
            if joining.count + 3 + starting.count <= width {
                lines.append(joining + " · " + starting)
            } else {
                lines += [joining, starting]
            }
        case .address(let typed):
            lines = typing("parlor: join a game by its address", prompt: "Address (HOST:PORT, [IPv6]:PORT, or a game's name): ",
                           typed: typed, message: message, keys: "Enter join · Backspace erase · Esc back")
        case .chooseGame(let forHosting, let games, let selected):
            lines.append(forHosting ? "parlor: host a game on the LAN. Which game?" : "parlor: play a bot offline. Which game?")
            lines.append("")
            for (index, game) in games.enumerated() {
                if index == selected { selectedLine = lines.count }
                let marker = index == selected ? "> " : "  "
                lines.append("\(marker)\(index + 1)  \(game.name) (\(game.id))")
            }
            lines.append("")
            lines += message
            lines.append("↑/↓ choose · Enter or 1-\(games.count) next · Esc back")
        case .botLevel(let game, let levels, let defaultLevel):
            lines.append("parlor: play \(game) against a bot. How strong?")
            lines.append("")
            for (index, level) in levels.enumerated() {
                lines.append("  \(index + 1)  \(level)\(level == defaultLevel ? " (Enter)" : "")")
            }
            lines.append("")
            lines.append("1-3 or e/m/h choose · Esc back")
        case .hostName(let game, let typed):
            lines = typing("parlor: host \(game). The name other players see:", prompt: "Name: ", typed: typed, message: message,
                           keys: "Enter next · Backspace erase · Esc back")
        case .hostCode(let game, let name):
            lines.append("parlor: host \(game) as \(name). Ask joining players for a passcode?")
            lines.append("")
            lines.append("  y  yes, make one up (it is shown when hosting starts)")
            lines.append("  n  no, anyone may join (Enter)")
            lines.append("")
            lines.append("y or n · Esc back")
        case .seat(let game, let level, let name):
            let what = level.map { "play \(game) against the \($0) bot" } ?? "host \(game) as \(name)"
            lines.append("parlor: \(what). Which seat?")
            lines.append("")
            lines.append("  1  first (you move first)\(level != nil ? " (Enter)" : "")")
            lines.append("  2  second")
            lines.append("  3  random (a coin decides)\(level == nil ? " (Enter)" : "")")
            lines.append("")
            lines.append("1-3 or f/s/r start · Esc back")
        }
        return (lines.map { ScreenText.clip($0, to: width) }, selectedLine)
    }

    /// A page where something is typed: the title, the prompt with what was typed and a cursor, the keys.
    private func typing(_ title: String, prompt: String, typed: String, message: [String], keys: String) -> [String] {
        [title, "", prompt + typed + "_", ""] + message + [keys]
    }
}
