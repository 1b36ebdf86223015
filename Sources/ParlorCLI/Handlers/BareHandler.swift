import Foundation
import TerminalUI

/// Runs bare `parlor` (no arguments) and says how the process should end.
///
/// On a terminal it opens the lobby (LobbyScreen.swift) and then runs the
/// flow the player chose there, exactly as the matching command would:
/// `parlor join NAME|ADDRESS`, `parlor host GAME` or `parlor play GAME`,
/// at the lobby's desk, several at once (LobbyDesk.swift). When stdin
/// or stdout is not a terminal, or `TERM` is dumb or unset, it prints the
/// help, as issue 4 asks.
func runBare(settings: Settings = Settings()) async throws -> ExitCode {
    let environment = ProcessInfo.processInfo.environment
    let term = environment["TERM"] ?? ""
    guard Terminal.isInteractive, !term.isEmpty, term != "dumb" else {
        Console.write(HelpRenderer.rootHelp())
        return .success
    }
    let name = settings.name ?? PlayerName.defaultName(environment: environment)
    let display = DisplayFlags(ascii: settings.ascii == true, noColor: settings.color == false, bell: settings.bell != false)
    let seats = DeskSeats(name: name, display: display, preferredPort: settings.port ?? HostOptions.defaultPort)
    // The lobby is home: joined, hosted and offline matches sit at its desk, several at
    // once, while it stays open; q leaves it, and Ctrl-C or a lost terminal ends parlor.
    let choice = try await Lobby(model: LobbyModel(defaultName: name, defaultLevel: settings.bot ?? .medium), seats: seats).run()
    // Every match at the desk has been left (or none was there): wait for their saves and "parlor resume" lines.
    await seats.finishAll()
    if case .left(let signal?) = choice { return ExitCode(endedBy: signal) }
    return .success
}
