// The lead replaces this file with the real handler; the parser calls only
// the function below, so nothing else needs to change.

/// Runs `parlor host` with validated options and says how the process should end.
///
/// Called by `HostOptions.run()` after parsing and `validate()`. Throw a
/// `UserFacingError` for failures a person should read, or a `UsageError`
/// for a bad command line noticed only now (rendered with the usage line).
func runHost(_ options: HostOptions) async throws -> ExitCode {
    Console.writeError("parlor host: not implemented yet\n")
    return .internalError
}
