import Foundation
import Games
import ParlorCLI
import ParlorTestSupport
import Testing

/// Issue 15: "completions scripts load in bash, zsh and fish and complete a
/// subcommand and a game name". Each script comes from the real
/// `parlor completions SHELL` and runs in the real shell (installed by
/// scripts/install-deps); only zsh's output builtins are stood in for, since
/// zsh runs completion widgets only at an interactive prompt.
@Suite("Shell completions", .serialized)
struct CompletionTests {
    /// Writes `parlor completions SHELL` to a temporary file and returns its path.
    static func script(_ shell: String) async throws -> String {
        let result = try await ParlorProcess.run(["completions", shell], timeout: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.isEmpty)
        let path = NSTemporaryDirectory() + "parlor-completion-\(UUID().uuidString).\(shell)"
        try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `program` with `arguments` and returns its stdout; fails the test on a non-zero exit.
    static func shell(_ program: String, _ arguments: [String]) async throws -> String {
        let path = try #require(["/usr/bin/\(program)", "/bin/\(program)"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                "\(program) is not installed (scripts/install-deps installs it)")
        let result = try await ParlorProcess.run(arguments, timeout: .seconds(30), executable: URL(fileURLWithPath: path))
        #expect(result.status == 0, "\(program) failed: \(result.stderr)")
        return result.stdout
    }

    /// What bash offers for `line` (the cursor at its end), as readline would call the function.
    static func bash(_ script: String, _ line: String) async throws -> [String] {
        let program = """
            source \(script)
            COMP_LINE=\(quoted(line)); COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"; COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            _parlor
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        return try await shell("bash", ["--norc", "--noprofile", "-c", program]).split(separator: "\n").map(String.init)
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test("bash completes commands, games, option values with ':' and '=', and bench's subcommands")
    func bashCompletes() async throws {
        let script = try await Self.script("bash")
        defer { try? FileManager.default.removeItem(atPath: script) }
        #expect(try await Self.bash(script, "parlor pl") == ["play"])
        #expect(try await Self.bash(script, "parlor play c") == GameCatalog.builtIn.map { $0.id }.filter { $0.hasPrefix("c") })
        #expect(try await Self.bash(script, "parlor play cu") == ["cube4"])
        #expect(try await Self.bash(script, "parlor host t") == ["tictactoe"])
        #expect(Set(try await Self.bash(script, "parlor bench t")) == ["turns", "tables"])
        #expect(try await Self.bash(script, "parlor play connect4 --seat s") == ["second"])
        // bash breaks words at ':' and '=' and replaces only what follows: the script offers that part.
        #expect(try await Self.bash(script, "parlor play connect4 --vs bot:h") == ["hard"])
        #expect(try await Self.bash(script, "parlor browse --game=cu") == ["cube4"])
        // A value already given is not taken for the command's argument.
        #expect(try await Self.bash(script, "parlor play --bot easy t") == ["tictactoe"])
        #expect(try await Self.bash(script, "parlor completions z") == ["zsh"])
    }

    @Test("bash offers every option of every command, from the same specs as --help")
    func bashOffersEveryOption() async throws {
        let script = try await Self.script("bash")
        defer { try? FileManager.default.removeItem(atPath: script) }
        for spec in CommandRegistry.specs {
            let offered = Set(try await Self.bash(script, "parlor \(spec.name) --"))
            let expected = Set(spec.options.map(\.longFlag) + ["--help"])
            #expect(offered == expected, "parlor \(spec.name)")
        }
        let top = Set(try await Self.bash(script, "parlor "))
        #expect(top.isSuperset(of: Set(CommandRegistry.specs.map { $0.path[0] } + ["help"])))
    }

    @Test("zsh loads the script under compinit, registers _parlor, and completes a command and a game")
    func zshCompletes() async throws {
        let script = try await Self.script("zsh")
        defer { try? FileManager.default.removeItem(atPath: script) }
        // compadd and _describe only work inside a completion widget: print what they are given instead.
        let program = """
            autoload -U compinit && compinit -u -D
            source \(script)
            print -r -- "registered=$_comps[parlor]"
            compadd() { [[ $1 == -a ]] && print -rl -- ${(P)2} }
            _describe() { print -rl -- ${${(P)${@[-1]}}%%:*} }
            complete() { words=("$@"); CURRENT=${#words}; _parlor }
            print -- '--commands'; complete parlor ''
            print -- '--games'; complete parlor play ''
            print -- '--levels'; complete parlor host connect4 --bot ''
            """
        let output = try await Self.shell("zsh", ["-f", "-c", program])
        let sections = Dictionary(uniqueKeysWithValues: output.components(separatedBy: "--").dropFirst().map { block -> (String, [String]) in
            let lines = block.split(separator: "\n").map(String.init)
            return (lines.first ?? "", Array(lines.dropFirst()))
        })
        #expect(output.hasPrefix("registered=_parlor"), "\(output)")
        #expect(sections["commands"]?.contains("play") == true, "\(output)")
        #expect(sections["commands"]?.contains("completions") == true, "\(output)")
        #expect(sections["games"] == GameCatalog.builtIn.map { $0.id }, "\(output)")
        #expect(sections["levels"] == ["easy", "medium", "hard"], "\(output)")
    }

    @Test("fish completes a command, a game and an option's values with complete -C")
    func fishCompletes() async throws {
        let script = try await Self.script("fish")
        defer { try? FileManager.default.removeItem(atPath: script) }
        func complete(_ line: String) async throws -> [String] {
            let output = try await Self.shell("fish", ["--no-config", "-c", "source \(script); complete -C \(Self.quoted(line))"])
            return output.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try await complete("parlor pl") == ["play"])
        #expect(try await complete("parlor bench r") == ["render"])
        #expect(try await complete("parlor play cu") == ["cube4"])
        #expect(try await complete("parlor play connect4 --seat ").sorted() == ["first", "random", "second"])
        // After a value-taking option, its values are offered, not games.
        #expect(try await complete("parlor play --bot ").sorted() == ["easy", "hard", "medium"])
    }

    @Test("'parlor version', '-V' and '--version' print the same line")
    func versionSpellings() async throws {
        let lines = try await [["version"], ["-V"], ["--version"]].asyncMap { try await ParlorProcess.run($0, timeout: .seconds(30)) }
        for result in lines { #expect(result.status == 0) }
        #expect(Set(lines.map(\.stdout)).count == 1)
        #expect(lines[0].stdout.hasPrefix("parlor "))
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
