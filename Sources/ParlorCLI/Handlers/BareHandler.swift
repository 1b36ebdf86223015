import Foundation

/// Runs bare `parlor` (no arguments) and says how the process should end.
///
/// On a terminal it opens the lobby (LobbyScreen.swift) and then runs the
/// flow the player chose there, exactly as the matching command would:
/// `parlor join NAME|ADDRESS`, `parlor host GAME` or `parlor play GAME`,
/// and afterwards opens the lobby again. When stdin
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
    var message: String?
    // The lobby is home: after a match (or a join that failed) it opens again,
    // saying what happened; q leaves it, and Ctrl-C or a lost terminal in a match ends parlor.
    while true {
        let choice = try await Lobby(model: LobbyModel(defaultName: name, defaultLevel: settings.bot ?? .medium, message: message)).run()
        let code: ExitCode
        do {
            switch choice {
            case .join(let game):
                code = try await runJoin(JoinOptions(target: .name(game.name), name: name, display: display))
            case .joinTarget(let target):
                code = try await runJoin(JoinOptions(target: target, name: name, display: display))
            case .watch(let game):
                code = try await runWatch(WatchOptions(target: .name(game.name), name: name, display: display))
            case .host(let id, let hostName, let passcode, let seat):
                var options = HostOptions(game: id, name: hostName, seat: seat, passcode: passcode ? .generate : nil, display: display)
                options.preferredPort = settings.port ?? HostOptions.defaultPort
                code = try await runHost(options)
            case .play(let id, let level, let seat):
                code = try await runPlay(PlayOptions(game: id, opponents: [.bot(level)], seat: seat, display: display, name: settings.name))
            case .quit:
                return .success
            }
        } catch let error as any UserFacingError {
            message = error.message.prefix(1).uppercased() + error.message.dropFirst() + "."
            continue
        }
        switch code {
        case .interrupted, .terminated, .hangUp: return code
        case .temporaryFailure: message = "The match was left for now: 'parlor resume' continues it."
        default: message = "Back in the lobby after the match."
        }
    }
}
