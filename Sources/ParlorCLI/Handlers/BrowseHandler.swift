import Discovery
import Foundation
import Games
import ParlorKit
import Session
import TerminalUI

/// Runs `parlor browse`: lists the parlor games DNS-SD finds on the LAN.
///
/// - `--json`: one object per service event (found, updated, lost) on
///   stdout and nothing else there; notes go to stderr.
/// - text with `--timeout` (default 3 s): the list once, at the end.
/// - text with `--watch`: on a terminal the list is redrawn whenever it
///   changes; otherwise one line per change, with no escape codes.
///
/// Without DNS-SD (no library, no daemon, no D-Bus) it fails with exit 69
/// and says how to start it and how to join by address instead.
func runBrowse(_ options: BrowseOptions) async throws -> ExitCode {
    try await runBrowse(options, directory: DNSSDDirectory())
}

/// `runBrowse` against any directory (tests use an in-memory one).
func runBrowse(_ options: BrowseOptions, directory: any ServiceDirectory) async throws -> ExitCode {
    let inputs = InputMerger<BrowseEvent>()
    defer { inputs.close() }
    inputs.forward(directory.browse(type: parlorServiceType))
    let watching: Bool
    switch options.duration {
    case .timeout(let duration):
        inputs.deadline(after: duration)
        watching = false
        if !options.json && isatty(STDERR_FILENO) == 1 {
            Console.writeError("Looking for games on the LAN for \(BrowseText.seconds(duration))…\n")
        }
    case .watch:
        watching = true
    }
    let redraws = watching && !options.json && isatty(STDOUT_FILENO) == 1
    var list = GameList(gameFilter: options.game, assess: { Listing.assess($0) })
    if redraws { BrowseText.redraw(list, game: options.game) }

    for await input in inputs.stream {
        switch input {
        case .event(.failed(let error)):
            throw BrowseFailure(error: error)
        case .event(.refused(let error)):
            // Said once per browse (Discovery reports it once), which goes on and tries again.
            Console.writeError("parlor: some games may be missing for a moment: \(error)\n")
            if options.json {
                Console.write(JSONValue.object([("event", "refused"), ("reason", .string("\(error)"))]).encoded + "\n")
                fflush(nil)
            }
        case .event(let event):
            guard let change = list.apply(event) else { continue }
            if options.json {
                Console.write(GameListing.json(change).encoded + "\n")
                fflush(nil)
            } else if redraws {
                BrowseText.redraw(list, game: options.game)
            } else if watching {
                Console.write(BrowseText.changeLine(change) + "\n")
                fflush(nil)
            }
        case .deadline:
            if !options.json { Console.write(BrowseText.summary(list, game: options.game)) }
            return .success
        case .key, .line, .endOfInput, .redraw:
            continue
        }
    }
    return .success
}

/// Browsing failed: DNS-SD is missing or went away.
struct BrowseFailure: UserFacingError {
    let error: DiscoveryError
    var exitCode: ExitCode { .serviceUnavailable }
    var message: String { "cannot look for games on the LAN. \(error)" }
}

/// The text forms of `parlor browse`'s output.
enum BrowseText {
    /// "3 s", "0.5 s".
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The list after a timed browse, or what to do when it is empty.
    static func summary(_ list: GameList, game: String?) -> String {
        guard !list.isEmpty else {
            let kind = game.map { "\(GameCatalog.game(id: $0)?.displayName ?? $0) games" } ?? "games"
            return """
                No \(kind) found on the LAN.
                Host one with 'parlor host GAME', or join a host by address: 'parlor join HOST:PORT'.

                """
        }
        return GameListing.table(list.games).joined(separator: "\n") + "\n"
    }

    /// Clears the terminal and draws the live list (`--watch` on a terminal; TerminalUI's `GameTable`).
    static func redraw(_ list: GameList, game: String?) {
        Console.write(GameTable.liveScreen(list.games.map(GameListing.row)))
        fflush(nil)
    }

    /// One line per change, for `--watch` into a pipe or file.
    static func changeLine(_ change: GameList.Change) -> String {
        switch change {
        case .added(let game): return "found: " + describe(game)
        case .updated(let game): return "updated: " + describe(game)
        case .removed(let game): return "lost: " + Text.escapingUnprintable(game.name)
        }
    }

    private static func describe(_ game: ListedGame) -> String {
        GameListing.row(game).line
    }
}
