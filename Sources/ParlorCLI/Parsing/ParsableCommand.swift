/// A command: described by a spec, parsed into a struct, validated, run.
///
/// The dispatcher (`Parlor.run`) finds the command by its spec's path,
/// builds the struct with `init(parsing:)`, calls `validate()`, then `run()`.
/// Any `UsageError` thrown on the way (even from `run`) is rendered with this
/// command's usage line and exits 64.
///
/// Where checks go: `init(parsing:)` converts each value and checks its own
/// range in the same step, so the error can quote the value as typed and
/// state the range once; `validate()` checks what needs outside knowledge
/// (the game catalog) or more than one field.
public protocol ParsableCommand: Sendable {
    /// The command's name, arguments and options, for parsing and help.
    static var spec: CommandSpec { get }
    /// Converts the split command line into typed fields.
    init(parsing arguments: ParsedArguments) throws(UsageError)
    /// Checks what `init(parsing:)` cannot see alone: ranges, combinations.
    func validate() throws(UsageError)
    /// Does the work and says how the process should end.
    func run() async throws -> ExitCode
}

/// A command whose work needs no task (`parlor games`): `Parlor` runs it
/// before any task starts, so its start-up spins up no thread of the
/// cooperative pool. Its `run()` calls `runNow()`.
public protocol SynchronousCommand: ParsableCommand {
    /// Does the work, synchronously, and says how the process should end.
    func runNow() throws -> ExitCode
}

extension ParsableCommand {
    /// Nothing to check beyond conversion.
    public func validate() throws(UsageError) {}
}
