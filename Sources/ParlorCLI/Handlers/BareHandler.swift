// The lead replaces this file with the real handler (the lobby on a TTY,
// help otherwise); the parser calls only the function below.

/// Runs bare `parlor` (no arguments) and says how the process should end.
///
/// For now it prints the help, as issue 4 asks for when stdin or stdout is
/// not a terminal. `PlayOptions(game: "connect4")` is the offline default.
func runBare() async throws -> ExitCode {
    Console.write(HelpRenderer.rootHelp())
    return .success
}
