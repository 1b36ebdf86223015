// How a game found on the LAN is shown: as a table row (browse, the join
// picker, the lobby) and as a JSON object (browse --json). One place, so
// the three agree.

import Discovery
import Games
import TerminalUI

/// The text and JSON forms of `ListedGame`s.
enum GameListing {
    /// The columns of one row, before padding.
    struct Row: Hashable {
        var name: String
        var game: String
        var host: String
        var seats: String
        var state: String
        var addresses: String
        /// "cannot join: …" for games this parlor cannot join now; nil otherwise.
        var note: String?
    }

    static let header = Row(name: "NAME", game: "GAME", host: "HOST", seats: "SEATS", state: "STATE",
                            addresses: "ADDRESS", note: nil)

    /// The facts of one game as words, falling back to the raw TXT values when the record cannot be read.
    static func row(_ game: ListedGame) -> Row {
        let txt = game.service.txt
        let gameText: String
        if let id = game.gameID {
            gameText = GameCatalog.game(id: id)?.displayName ?? id
        } else {
            gameText = "?"
        }
        let host = game.info?.hostPlayerName ?? txt["host"] ?? ""
        // "2 of 4 seated", as the host's own screen says it while its table fills.
        let seats = game.info.map { "\($0.seatsTaken) of \($0.seatsTotal) seated" } ?? txt["seats"] ?? "?"
        var state = game.info?.state.rawValue ?? txt["state"] ?? "?"
        // A coded host: said where people look before they try to join.
        if game.info?.needsPasscode == true { state += ", code needed" }
        // A host of many tables (`--tables`): one service, a table of your own while one is free.
        if let tables = game.info?.tables { state += ", \(tables.inPlay) of \(tables.limit) tables in play" }
        // Spectators (TXT watch): how many look on, and a way in for a game one cannot join.
        if let watching = game.info?.spectators?.watching, watching > 0 { state += ", \(watching) watching" }
        var note = game.assessment.reason.map { "cannot join: \($0)" }
        if let reason = game.assessment.reason, game.info?.welcomesSpectators == true,
           ParlorServiceInfo.assessForWatching(game.assessment).isJoinable {
            note = "cannot join: \(reason); watch it: parlor watch \"\(game.name)\""
        }
        let addresses = game.endpoints.isEmpty ? "\(game.service.hostTarget):\(game.service.port)"
            : game.endpoints.joined(separator: " ")
        return Row(name: Text.escapingUnprintable(game.name), game: Text.escapingUnprintable(gameText), host: Text.escapingUnprintable(host.isEmpty ? "-" : host),
                   seats: Text.escapingUnprintable(seats), state: Text.escapingUnprintable(state), addresses: addresses,
                   note: note.map { Text.escapingUnprintable($0) })
    }

    /// A table: a header, then one line per game (and an indented line with the reason
    /// for games that cannot be joined). `numbered` puts "1", "2"… before the rows.
    static func table(_ games: [ListedGame], numbered: Bool = false, width: Int? = nil) -> [String] {
        let laid = layout(games, numbered: numbered, width: width)
        return [laid.header] + laid.rows.flatMap { $0 }
    }

    /// The table's header line and, per game, its lines (the row, then the reason it cannot be joined).
    static func layout(_ games: [ListedGame], numbered: Bool, width: Int?) -> (header: String, rows: [[String]]) {
        let rows = games.map(row)
        let all = [header] + rows
        func widest(_ column: (Row) -> String) -> Int { all.map { column($0).count }.max() ?? 0 }
        let widths = [widest(\.name), widest(\.game), widest(\.host), widest(\.seats), widest(\.state)]
        let numberWidth = numbered ? String(games.count).count + 2 : 0
        func line(_ row: Row, number: String) -> String {
            let cells = [row.name, row.game, row.host, row.seats, row.state]
            var text = number.padding(toLength: numberWidth, withPad: " ", startingAt: 0)
            for (cell, size) in zip(cells, widths) { text += cell.padding(toLength: size + 2, withPad: " ", startingAt: 0) }
            text += row.addresses
            return clip(text, to: width)
        }
        let lines = rows.enumerated().map { index, row -> [String] in
            var lines = [line(row, number: numbered ? "\(index + 1)" : "")]
            if let note = row.note {
                lines.append(clip(String(repeating: " ", count: numberWidth + 2) + note, to: width))
            }
            return lines
        }
        return (line(header, number: numbered ? "#" : ""), lines)
    }

    /// `text` broken into lines of at most `width` characters, at spaces where it can be.
    static func wrap(_ text: String, to width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
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
    static func clip(_ text: String, to width: Int?) -> String {
        guard let width, width > 1, text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// The `browse --json` object for a change: event found, updated or lost, and every fact.
    static func json(_ change: GameList.Change) -> JSONValue {
        switch change {
        case .added(let game): return json(game, event: "found")
        case .updated(let game): return json(game, event: "updated")
        case .removed(let game):
            return .object([("event", "lost"), ("name", .string(game.name)),
                            ("type", .string(game.service.instance.type)),
                            ("domain", .string(game.service.instance.domain))])
        }
    }

    static func json(_ game: ListedGame, event: String) -> JSONValue {
        let service = game.service
        let info = game.info
        func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        func optional(_ number: Int?) -> JSONValue { number.map { .int(Int64($0)) } ?? .null }
        let txt: [(String, JSONValue)] = service.txt.entries.map { entry in
            (entry.key, entry.value.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .null)
        }
        return .object([
            ("event", .string(event)),
            ("name", .string(service.name)),
            ("game", optional(game.gameID)),
            ("hostPlayer", optional(info?.hostPlayerName ?? service.txt["host"])),
            ("seatsTaken", optional(info?.seatsTaken)),
            ("seatsTotal", optional(info?.seatsTotal)),
            ("state", optional(info?.state.rawValue ?? service.txt["state"])),
            ("match", optional(info?.matchID)),
            ("passcode", info.map { .bool($0.needsPasscode) } ?? .null),
            ("spectatorsWatching", optional(info?.spectators?.watching)),
            ("spectatorsAllowed", optional(info?.spectators?.allowed)),
            ("watchPasscode", info.map { .bool($0.watchNeedsPasscode) } ?? .null),
            ("protocolVersion", optional(service.txt["pv"])),
            ("rulesVersion", optional(info?.rulesVersion)),
            ("app", optional(info?.appVersion ?? service.txt["app"])),
            ("joinable", .bool(game.isJoinable)),
            ("reason", optional(game.assessment.reason?.description)),
            ("hostTarget", .string(service.hostTarget)),
            ("port", .int(Int64(service.port))),
            ("addresses", .array(service.addresses.map { .string($0.host) })),
            ("type", .string(service.instance.type)),
            ("domain", .string(service.instance.domain)),
            ("txt", .object(txt)),
        ])
    }
}
