/// `parlor version`: the same line as `parlor --version` and `parlor -V`.
public struct VersionOptions: ParsableCommand, Hashable {
    /// Options as code would set them.
    public init() {}

    /// Arguments, flags and help of `parlor version`.
    public static let spec = CommandSpec(
        path: ["version"],
        abstract: "Print parlor's version.",
        discussion: "The same line as 'parlor --version' and 'parlor -V': 'parlor' and the version."
    )

    /// Reads `parlor version`'s words (there are none).
    public init(parsing arguments: ParsedArguments) throws(UsageError) {}

    /// Prints the version line.
    public func run() async throws -> ExitCode {
        Console.write(Parlor.versionLine)
        return .success
    }
}

/// `parlor completions SHELL`: a completion script for bash, zsh or fish.
public struct CompletionsOptions: ParsableCommand, Hashable {
    /// The shell to write the script for.
    public var shell: CompletionShell

    /// Options as code would set them.
    public init(shell: CompletionShell) { self.shell = shell }

    /// Arguments, flags and help of `parlor completions`.
    public static let spec = CommandSpec(
        path: ["completions"],
        abstract: "Print a shell completion script for bash, zsh or fish.",
        discussion: """
            Writes to standard output a script that completes parlor's commands, \
            options, games, bot levels and seats, generated from the same \
            descriptions as --help. Install it once:

            bash: parlor completions bash > ~/.local/share/bash-completion/completions/parlor \
            (or add 'source <(parlor completions bash)' to ~/.bashrc).

            zsh: mkdir -p ~/.zfunc && parlor completions zsh > ~/.zfunc/_parlor, with \
            'fpath=(~/.zfunc $fpath)' before 'compinit' in ~/.zshrc.

            fish: parlor completions fish > ~/.config/fish/completions/parlor.fish

            Then open a new shell.
            """,
        arguments: [ArgumentSpec("SHELL", help: "bash, zsh or fish.")]
    )

    /// Reads `parlor completions`'s words.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        shell = try ValueParser.choice(arguments.argument(0) ?? "", .argument("SHELL"))
    }

    /// Prints the script.
    public func run() async throws -> ExitCode {
        Console.write(CompletionScript.script(for: shell))
        return .success
    }
}
