// `parlor join NAME` and `parlor join` with no target: find the game on
// the LAN by its advertised name (Discovery's `GameFinder`, or let the
// player pick one here), then connect to it, trying each address DNS-SD
// resolved until one answers.

import Discovery
import Foundation
import ParlorKit
import Session
import TerminalUI

/// Finds an advertised game and connects to it.
enum ServiceFinder {
    /// Finds the game `name` names (nil: let the player pick one) and connects to it.
    ///
    /// With `json`, the picker writes to stderr, keeping stdout for JSON events.
    ///
    /// - Throws: `UsageError.missingArgument` when `name` is nil and there is
    ///   no terminal to pick on; `CommandFailure` (exit 69) without DNS-SD;
    ///   `CommandFailure` when nothing or several games match, or the game
    ///   cannot be joined; `ConnectFailure` when no address answers.
    static func reach(name: String?, json: Bool = false, watching: Bool = false, directory: any ServiceDirectory = DNSSDDirectory(),
                      timeout: Duration = GameFinder.defaultTimeout)
        async throws -> (connection: TCPConnection, address: String, needsPasscode: Bool, name: String, hintsAllowed: Bool) {
        let canPick = Terminal.isInteractive
        if name == nil && !canPick { throw UsageError.missingArgument("TARGET") }
        // To watch, a match already playing is what one looks for (`parlor watch NAME`).
        let finder = GameFinder(directory: directory, timeout: timeout,
                                assess: { watching ? ParlorServiceInfo.assessForWatching(Listing.assess($0)) : Listing.assess($0) })
        let game: ListedGame
        do { game = try await finder.find(name: name, picker: canPick ? NumberedPicker(toStandardError: json) : nil) } catch {
            throw failure(error)
        }
        let connection = try await connect(to: game)
        let needsCode = watching ? game.info?.watchNeedsPasscode : game.info?.needsPasscode
        return (connection, connection.remoteAddress, needsCode ?? false, game.name, game.info?.hintsAllowed ?? false)
    }

    /// Why no game was joined, as the user reads it.
    static func failure(_ error: GameSearchError) -> any Error {
        switch error {
        case .browseFailed(let error, let name):
            let what = name.map { "cannot look up \"\(Text.escapingUnprintable($0))\" on the LAN" } ?? "cannot look for games on the LAN"
            return CommandFailure("\(what). \(error)", exitCode: .serviceUnavailable)
        case .notJoinable(let game, let reason):
            return CommandFailure("\"\(Text.escapingUnprintable(game.name))\" cannot be joined: \(Text.escapingUnprintable(reason.description))")
        case .ambiguous(let name, let games):
            return CommandFailure("\"\(Text.escapingUnprintable(name))\" matches several games: " + quotedNames(games) + "; give more of the name")
        case .notFound(let name, let seen):
            return CommandFailure(notFound(name, seen: seen))
        case .noName:
            return UsageError.missingArgument("TARGET")
        case .cancelled:
            return CommandFailure("no game chosen; nothing joined")
        }
    }

    /// Connects to the first of the game's addresses that answers, IPv4 first,
    /// link-local IPv6 through the interface it was seen on. `GameFinder`
    /// gives only games with addresses: a `.local` name avahi could not
    /// resolve is never handed to the system resolver.
    static func connect(to game: ListedGame, timeout: Duration = .seconds(5)) async throws -> TCPConnection {
        let service = game.service
        let addresses = Listing.socketAddresses(of: service)
        let shown = "\"\(Text.escapingUnprintable(service.name))\""
        do {
            return try await TCPConnection.connect(addresses: addresses, timeout: timeout)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw ConnectFailure(target: "\(shown) (\(game.endpoints.joined(separator: ", ")))", error: error)
        }
    }

    private static func quotedNames(_ games: [ListedGame]) -> String {
        games.map { "\"\(Text.escapingUnprintable($0.name))\"" }.joined(separator: ", ")
    }

    private static func notFound(_ name: String, seen: [ListedGame]) -> String {
        let shown = Text.escapingUnprintable(name)
        if seen.isEmpty {
            return """
                no game called "\(shown)" was found on the LAN, nor any other game.
                Check that the host is running and on this network ('parlor doctor' checks discovery), \
                or join it by the address it printed: 'parlor join HOST:PORT'.
                """
        }
        return "no game called \"\(shown)\" was found on the LAN; games found: \(quotedNames(seen))"
    }
}

/// The join picker on a terminal: TerminalUI's `NumberedChoice` over the games found.
struct NumberedPicker: GamePicker {
    /// Prompts go to stderr (for `--json`, whose stdout is for scripts).
    var toStandardError = false

    func pick(from candidates: [ListedGame], all: [ListedGame]) async -> PickerChoice {
        let toStandardError = toStandardError
        let choice = NumberedChoice(say: { text in
            if toStandardError { Console.writeError(text) } else { Console.write(text); fflush(nil) }
        })
        switch await choice.ask(numbered: GameListing.table(candidates, numbered: true), count: candidates.count,
                                seen: GameListing.table(all)) {
        case .chosen(let index): return .chosen(candidates[index])
        case .lookAgain: return .lookAgain
        case .cancelled: return .cancelled
        }
    }
}
