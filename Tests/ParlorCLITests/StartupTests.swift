import Foundation
import ParlorTestSupport
import Testing

/// Issue 11 item 5: start-up. What `parlor games` and `parlor --version`
/// load at start that they do not need is cut, and `parlor bench startup`
/// prints the figure against a trivial Swift binary.
@Suite("Start-up")
struct StartupTests {
    /// The dynamic loader's own list of what it maps at start
    /// (LD_TRACE_LOADED_OBJECTS, what ldd prints): libcrypto is not among
    /// them; passcodes and the channel use libsodium (PasscodeTests and
    /// PasscodeEndToEndTests show the passcode still works).
    @Test("parlor does not load libcrypto at start-up")
    func noCryptoAtStart() async throws {
        let result = try await ParlorProcess.run(["--version"], environment: ["LD_TRACE_LOADED_OBJECTS": "1"])
        // libc, not libswiftCore: a release parlor ($PARLOR_BINARY) has the Swift runtime linked in.
        #expect(result.stdout.contains("libc.so"))
        #expect(!result.stdout.contains("libcrypto"))
    }

    /// The real bench against the real parlor-trivial built beside parlor:
    /// it says what the trivial binary is and how this parlor has the Swift
    /// runtime (the tests run a debug build, which keeps the shared
    /// libraries; a release build links them in), then each median, its
    /// ratio and the goal for both parlor commands.
    @Test("parlor bench startup prints the three medians, the ratios, the goal and how each binary is linked")
    func benchPrintsFigures() async throws {
        let result = try await ParlorProcess.run(["bench", "startup"], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "parlor bench startup: spawn to exit, median of 20 runs, stdout to /dev/null")
        #expect(lines.contains("  the trivial binary: parlor-trivial, prints one line, Swift runtime in shared libraries"))
        // The tests' own build is a debug one; $PARLOR_BINARY may name a release one.
        #expect(lines.contains(
            "  parlor: Swift runtime and Foundation in shared libraries (a debug build; release builds link them in)")
            || lines.contains("  parlor: Swift runtime and Foundation linked in (a release build)"))
        #expect(lines.contains { $0.hasPrefix("  trivial Swift binary: ") && $0.hasSuffix(" ms") })
        for command in ["games", "--version"] {
            #expect(lines.contains {
                $0.hasPrefix("  parlor \(command): ") && $0.contains("x the trivial binary (goal: 1.5x or less, ")
                    && $0.hasSuffix("met)")
            }, "\(lines)")
        }
    }

    /// Help, the version and `parlor games` finish before any task starts,
    /// so no thread of the cooperative pool is started for them (strace -f
    /// sees no clone; before, three threads were started and ended).
    @Test("parlor games and --version start no thread", arguments: [["games"], ["--version"], ["help"]])
    func noThreads(words: [String]) async throws {
        let result = try await ParlorProcess.run(
            ["-f", "-e", "trace=clone,clone3", ParlorBinary.url.path] + words,
            executable: URL(fileURLWithPath: "/usr/bin/strace"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.isEmpty)
        #expect(!result.stderr.contains("clone"), "\(result.stderr)")
    }
}
