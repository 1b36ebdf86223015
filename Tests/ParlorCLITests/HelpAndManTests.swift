import Foundation
import ParlorTestSupport
import Testing
@testable import ParlorCLI

/// Golden files live in Tests/Golden (outside every target, so SwiftPM does
/// not ask for them to be declared as resources). Run the tests with
/// PARLOR_UPDATE_GOLDEN=1 to rewrite them after an intended change, then
/// review the diff.
enum Golden {
    static func url(_ name: String) -> URL {
        ParlorBinary.packageRoot.appendingPathComponent("Tests/Golden").appendingPathComponent(name)
    }

    /// Compares `actual` with the golden file `name`, or rewrites the file.
    static func check(_ actual: String, against name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = url(name)
        if ProcessInfo.processInfo.environment["PARLOR_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "differs from Tests/Golden/\(name)", sourceLocation: sourceLocation)
    }
}

extension CommandSpec: CustomTestStringConvertible {
    /// `parlor play` rather than the whole spec in test names and failures.
    public var testDescription: String { "parlor " + name }
}

@Suite("Help text")
struct HelpTests {
    @Test("parlor play --help matches its golden file")
    func playHelp() throws {
        try Golden.check(HelpRenderer.help(for: PlayOptions.spec), against: "play-help.txt")
    }

    @Test("parlor host --help matches its golden file")
    func hostHelp() throws {
        try Golden.check(HelpRenderer.help(for: HostOptions.spec), against: "host-help.txt")
    }

    @Test("parlor help matches its golden file")
    func rootHelp() throws {
        try Golden.check(HelpRenderer.rootHelp(), against: "root-help.txt")
    }

    @Test("parlor help lists every command with its abstract")
    func rootHelpListsEveryCommand() {
        let help = HelpRenderer.rootHelp()
        for spec in CommandRegistry.specs {
            #expect(help.contains("  \(spec.name) "), "\(spec.name) missing from parlor help")
            #expect(help.contains(String(spec.abstract.prefix(30))), "abstract of \(spec.name) missing")
        }
    }

    @Test("every help page fits in 80 columns and lists every option", arguments: CommandRegistry.specs)
    func helpFits(spec: CommandSpec) {
        let help = HelpRenderer.help(for: spec)
        for line in help.split(separator: "\n") {
            #expect(line.count <= 80, "\(spec.name): \(line)")
        }
        for option in spec.options {
            #expect(help.contains(option.longFlag), "\(spec.name) help lacks \(option.longFlag)")
            if let short = option.shortFlag { #expect(help.contains(short + ", " + option.longFlag)) }
        }
        #expect(help.contains("-h, --help"))
    }

    @Test("every spec is well formed: unique flags, exclusive groups name real options, optional arguments last",
          arguments: CommandRegistry.specs)
    func specIsWellFormed(spec: CommandSpec) {
        let names = spec.options.map(\.name)
        #expect(Set(names).count == names.count)
        let shorts = spec.options.compactMap(\.short)
        #expect(Set(shorts).count == shorts.count)
        #expect(!shorts.contains("h"), "-h is reserved for help")
        #expect(!names.contains("help"))
        for group in spec.exclusiveGroups {
            for name in group { #expect(names.contains(name), "\(spec.name): group names unknown --\(name)") }
        }
        if let firstOptional = spec.arguments.firstIndex(where: \.isOptional) {
            let allOptional = spec.arguments[firstOptional...].allSatisfy { $0.isOptional }
            #expect(allOptional)
        }
    }
}

/// The man page, split into what the tests compare with the specs.
struct ManPage {
    let text: String

    static func load() throws -> ManPage {
        ManPage(text: try String(contentsOf: ParlorBinary.packageRoot.appendingPathComponent("man/parlor.1"), encoding: .utf8))
    }

    /// The lines of the section `.Sh name`, up to the next `.Sh`.
    func section(_ name: String) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: Substring(".Sh \(name)")) else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix(".Sh ") } ?? rest.endIndex
        return Array(rest[..<end])
    }

    /// Subsection title -> its lines, within DESCRIPTION.
    func subsections() -> [String: [Substring]] {
        var result: [String: [Substring]] = [:]
        var current: String?
        for line in section("DESCRIPTION") {
            if line.hasPrefix(".Ss ") {
                current = String(line.dropFirst(4))
                result[current!, default: []] = []
            } else if let current {
                result[current, default: []].append(line)
            }
        }
        return result
    }

    /// SYNOPSIS blocks (each starts at a `.Nm` line) keyed by the command
    /// after `.Cm`; the bare and help blocks are skipped.
    func synopsisBlocks() -> [String: [Substring]] {
        var blocks: [[Substring]] = []
        for line in section("SYNOPSIS") {
            if line == ".Nm" { blocks.append([]) } else if !blocks.isEmpty { blocks[blocks.count - 1].append(line) }
        }
        var result: [String: [Substring]] = [:]
        for block in blocks {
            guard let command = block.first, command.hasPrefix(".Cm ") else { continue }
            result[String(command.dropFirst(4))] = block
        }
        return result
    }

    /// The flags in mdoc lines, as typed: `.Fl -port` is `--port`, `.Fl p` is `-p`.
    static func flags(in lines: [Substring]) -> Set<String> {
        var flags = Set<String>()
        for line in lines where line.hasPrefix(".") {
            let words = line.split(separator: " ")
            for (index, word) in words.enumerated() where word == "Fl" || word == ".Fl" {
                if index + 1 < words.count { flags.insert("-" + words[index + 1]) }
            }
        }
        return flags
    }
}

@Suite("The man page is in step with the command specs")
struct ManPageTests {
    @Test("each command's SYNOPSIS line has exactly its long options", arguments: CommandRegistry.specs)
    func synopsis(spec: CommandSpec) throws {
        let blocks = try ManPage.load().synopsisBlocks()
        let block = try #require(blocks[spec.name], "no SYNOPSIS line for parlor \(spec.name)")
        let documented = ManPage.flags(in: block)
        let expected = Set(spec.options.map(\.longFlag))
        #expect(expected.subtracting(documented) == [], "flags missing from the SYNOPSIS of parlor \(spec.name)")
        #expect(documented.subtracting(expected) == [], "flags in the SYNOPSIS of parlor \(spec.name) that it does not have")
    }

    @Test("each command's subsection documents exactly its flags and short aliases", arguments: CommandRegistry.specs)
    func subsection(spec: CommandSpec) throws {
        let subsections = try ManPage.load().subsections()
        let lines = try #require(subsections[spec.name], "no .Ss \(spec.name) in DESCRIPTION")
        let expected = Set(spec.options.map(\.longFlag) + spec.options.compactMap(\.shortFlag))
        let documented = ManPage.flags(in: lines)
        #expect(expected.subtracting(documented) == [], "flags missing from the man page's .Ss \(spec.name)")
        #expect(documented.subtracting(expected) == [], "flags in the man page's .Ss \(spec.name) that it does not have")
    }

    @Test("no subsection or SYNOPSIS line describes a command that does not exist")
    func noStaleCommands() throws {
        let page = try ManPage.load()
        let names = Set(CommandRegistry.specs.map(\.name))
        #expect(Set(page.subsections().keys) == names)
        #expect(Set(page.synopsisBlocks().keys).subtracting(["help"]) == names)
    }

    @Test("EXIT STATUS lists every exit code, and no other")
    func exitStatus() throws {
        let lines = try ManPage.load().section("EXIT STATUS")
        let listed = lines.filter { $0.hasPrefix(".It ") }.map { String($0.dropFirst(4)) }
        #expect(listed == ExitCode.allCases.map { String($0.rawValue) })
    }

    @Test("ENVIRONMENT, FILES and SEE ALSO name what they must")
    func otherSections() throws {
        let page = try ManPage.load()
        let environment = page.section("ENVIRONMENT").joined(separator: "\n")
        for variable in ["NO_COLOR", "XDG_DATA_HOME", "TERM", "USER"] {
            #expect(environment.contains(".It Ev \(variable)"))
        }
        #expect(page.section("FILES").contains(".It Pa ~/.local/share/parlor"))
        let seeAlso = page.section("SEE ALSO").joined(separator: "\n")
        #expect(seeAlso.contains("Xr avahi-daemon 8") && seeAlso.contains("Xr ssh 1"))
        #expect(page.text.contains("port 7477"), "the default port is documented")
    }

    /// mandoc's -Tlint also checks each `.Xr` against the machine's manual
    /// database under /usr/share/man (whatever MANPATH says) and, where
    /// makewhatis(8) has never run, prints "outdated mandoc.db lacks ssh(1)
    /// entry". Those lines judge the machine, not the page, so they alone
    /// are ignored; any other line fails the test.
    @Test("mandoc -Tlint finds nothing", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/mandoc")))
    func lint() async throws {
        let result = try await ParlorProcess.run(
            ["-Tlint", ParlorBinary.packageRoot.appendingPathComponent("man/parlor.1").path],
            timeout: .seconds(30), executable: URL(fileURLWithPath: "/usr/bin/mandoc"))
        let complaints = (result.stdout + result.stderr).split(separator: "\n").filter {
            !$0.contains("outdated mandoc.db lacks")
        }
        #expect(complaints == [])
        #expect(result.status == 0)
    }
}
