import Foundation

/// Runs bare `parlor` (no arguments) and says how the process should end.
///
/// On a terminal it opens the lobby (LobbyScreen.swift) and then runs the
/// flow the player chose there, exactly as the matching command would:
/// `parlor join NAME`, `parlor host GAME` or `parlor play GAME`. When stdin
/// or stdout is not a terminal, or `TERM` is dumb or unset, it prints the
/// help, as issue 4 asks.
func runBare() async throws -> ExitCode {
    let environment = ProcessInfo.processInfo.environment
    let term = environment["TERM"] ?? ""
    guard isInteractiveTerminal, !term.isEmpty, term != "dumb" else {
        Console.write(HelpRenderer.rootHelp())
        return .success
    }
    let name = PlayerName.defaultName(environment: environment)
    switch try await Lobby().run() {
    case .join(let game):
        return try await runJoin(JoinOptions(target: .name(game.name), name: name))
    case .host(let id):
        return try await runHost(HostOptions(game: id, name: name))
    case .play(let id):
        return try await runPlay(PlayOptions(game: id))
    case .quit:
        return .success
    }
}
