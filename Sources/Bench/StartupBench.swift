import Foundation

/// Runs `parlor bench startup`: the wall time from spawn to exit of
/// `parlor games`, `parlor --version` and a trivial Swift binary
/// (`parlor-trivial`, built beside `parlor`), interleaved in one run, as the
/// median of `StartupBench.runs` runs each, and the ratio to the trivial one
/// against the goal. It says how each binary has the Swift runtime: a release
/// `parlor` links it and Foundation in (Package.swift), `parlor-trivial` is
/// built as `swift build` builds any program, with the shared libraries.
func runBenchStartup(_ options: BenchStartupOptions) async throws -> ExitCode {
    guard let parlor = StartupBench.ownExecutable() else {
        throw CommandFailure("cannot find parlor's own executable (/proc/self/exe is unreadable)", exitCode: .ioError)
    }
    let directory = parlor.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    let trivial = directory + "/" + StartupBench.trivialName
    guard access(trivial, X_OK) == 0 else {
        throw CommandFailure(
            "the floor \(trivial) is missing: build it with 'swift build -c release --product \(StartupBench.trivialName)'",
            exitCode: .failure)
    }
    let cases: [(label: String, argv: [String])] = [
        ("trivial Swift binary", [trivial]),
        ("parlor games", [parlor, "games"]),
        ("parlor --version", [parlor, "--version"]),
    ]
    Console.write("parlor bench startup: spawn to exit, median of \(StartupBench.runs) runs, stdout to /dev/null\n")
    Console.write("  the trivial binary: \(StartupBench.trivialName), prints one line, Swift runtime in shared libraries\n")
    Console.write(StartupBench.runtimeLinkedIn()
        ? "  parlor: Swift runtime and Foundation linked in (a release build)\n"
        : "  parlor: Swift runtime and Foundation in shared libraries (a debug build; release builds link them in)\n")
    var medians: [Duration] = []
    var samples = Array(repeating: [Duration](), count: cases.count)
    // Interleaved, so a burst of load on the machine falls on every case alike.
    for _ in 0..<(StartupBench.runs + 1) {
        for (index, entry) in cases.enumerated() {
            samples[index].append(try StartupBench.time(entry.argv))
        }
    }
    for index in cases.indices {
        // The first round only warms the page cache.
        medians.append(StartupBench.median(Array(samples[index].dropFirst())))
    }
    let floor = medians[0]
    for (index, entry) in cases.enumerated() {
        var line = "  \(entry.label): \(StartupBench.milliseconds(medians[index])) ms"
        if index > 0 {
            let ratio = Double(medians[index].microseconds) / Double(max(1, floor.microseconds))
            line += ", \(StartupBench.twoDecimals(ratio))x the trivial binary"
            line += " (goal: \(StartupBench.goal)x or less, "
            line += ratio <= StartupBench.goal ? "met)" : "not met)"
        }
        Console.write(line + "\n")
    }
    return .success
}

/// Spawning and timing a process for `parlor bench startup`.
enum StartupBench {
    /// Runs per case.
    static let runs = 20
    /// The floor's executable name, beside `parlor`.
    static let trivialName = "parlor-trivial"
    /// The goal for `parlor games` and `parlor --version`: at most this many
    /// times the trivial binary's median (issue 11).
    static let goal = 1.5

    /// Whether this process has the Swift runtime linked in: no shared
    /// libswiftCore among its mappings.
    static func runtimeLinkedIn() -> Bool {
        guard let maps = fopen("/proc/self/maps", "r") else { return false }
        defer { fclose(maps) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), maps) != nil {
            if strstr(line, "/libswiftCore.so") != nil { return false }
        }
        return true
    }

    /// The path of the running executable.
    static func ownExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The wall time of one run of `argv` from posix_spawn to waitpid, stdout
    /// and stderr to /dev/null, stdin from /dev/null.
    static func time(_ argv: [String]) throws -> Duration {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        let result = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard result == 0 else {
            throw CommandFailure("cannot start \(argv[0]): \(String(cString: strerror(result)))", exitCode: .ioError)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw CommandFailure("cannot wait for \(argv[0]): \(String(cString: strerror(errno)))", exitCode: .ioError)
            }
        }
        let elapsed = clock.now - start
        // Exited normally with status 0 (the WIFEXITED/WEXITSTATUS macros, which Swift does not import).
        guard status & 0xffff == 0 else {
            throw CommandFailure("\(argv.joined(separator: " ")) failed (wait status \(status))", exitCode: .failure)
        }
        return elapsed
    }

    /// The median of `values` (the mean of the middle two for an even count).
    static func median(_ values: [Duration]) -> Duration {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .zero }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// `d` in milliseconds with two decimals.
    static func milliseconds(_ d: Duration) -> String { twoDecimals(Double(d.microseconds) / 1000) }

    /// `value` with two decimals.
    static func twoDecimals(_ value: Double) -> String { String(format: "%.2f", value) }
}
