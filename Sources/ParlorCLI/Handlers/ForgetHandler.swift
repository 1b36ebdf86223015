// The lead replaces this file with the real handler; the parser calls only
// the function below, so nothing else needs to change.

/// Runs `parlor forget` with validated options and says how the process should end.
///
/// Called by `ForgetOptions.run()` after parsing and `validate()`. Throw a
/// `UserFacingError` for failures a person should read, or a `UsageError`
/// for a bad command line noticed only now (rendered with the usage line).
func runForget(_ options: ForgetOptions) async throws -> ExitCode {
    Console.writeError("parlor forget: not implemented yet\n")
    return .internalError
}
