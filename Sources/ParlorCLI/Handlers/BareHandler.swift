import Foundation

/// Runs bare `parlor` (no arguments) and says how the process should end.
///
/// On a terminal it opens the lobby (LobbyScreen.swift) and then runs the
/// flow the player chose there, exactly as the matching command would:
/// `parlor join NAME`, `parlor host GAME` or `parlor play GAME`. When stdin
/// or stdout is not a terminal, or `TERM` is dumb or unset, it prints the
/// help, as issue 4 asks.
func runBare(settings: Settings = Settings()) async throws -> ExitCode {
    let environment = ProcessInfo.processInfo.environment
    let term = environment["TERM"] ?? ""
    guard isInteractiveTerminal, !term.isEmpty, term != "dumb" else {
        Console.write(HelpRenderer.rootHelp())
        return .success
    }
    let name = settings.name ?? PlayerName.defaultName(environment: environment)
    let display = DisplayFlags(ascii: settings.ascii == true, noColor: settings.color == false, bell: settings.bell == true)
    switch try await Lobby().run() {
    case .join(let game):
        return try await runJoin(JoinOptions(target: .name(game.name), name: name, display: display))
    case .host(let id):
        var options = HostOptions(game: id, name: name, display: display)
        options.preferredPort = settings.port ?? HostOptions.defaultPort
        return try await runHost(options)
    case .play(let id):
        return try await runPlay(PlayOptions(game: id, opponents: [.bot(settings.bot ?? .medium)], display: display, name: settings.name))
    case .quit:
        return .success
    }
}
