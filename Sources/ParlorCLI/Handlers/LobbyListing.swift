// How a game found on the LAN is put into words: the row TerminalUI's
// `GameTable` draws (browse, the join picker, the lobby) and the JSON object
// of browse --json. One place, so the three agree.

import Discovery
import Games
import TerminalUI

/// The words and JSON forms of `ListedGame`s.
enum GameListing {
    /// The facts of one game as words, falling back to the raw TXT values when the record cannot be read.
    static func row(_ game: ListedGame) -> GameRow {
        let txt = game.service.txt
        let gameText: String
        if let id = game.gameID {
            gameText = GameCatalog.game(id: id)?.displayName ?? id
        } else {
            gameText = "?"
        }
        var host = game.info?.hostPlayerName ?? txt["host"] ?? ""
        // Known players (issue 38): the advertised start of the host's key against the keys met before.
        if let mark = KnownPeople.listed(name: host, shortKey: game.info?.hostKey) { host += " (\(mark))" }
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
        return GameRow(name: Text.escapingUnprintable(game.name), game: Text.escapingUnprintable(gameText), host: Text.escapingUnprintable(host.isEmpty ? "-" : host),
                   seats: Text.escapingUnprintable(seats), state: Text.escapingUnprintable(state), addresses: addresses,
                   note: note.map { Text.escapingUnprintable($0) })
    }

    /// The table of `games` (TerminalUI's `GameTable`).
    static func table(_ games: [ListedGame], numbered: Bool = false, width: Int? = nil) -> [String] {
        GameTable.lines(games.map(row), numbered: numbered, width: width)
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
            ("hostKey", optional(info?.hostKey)),
            ("hostKnown", optional(KnownPeople.listed(name: info?.hostPlayerName ?? "", shortKey: info?.hostKey))),
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
