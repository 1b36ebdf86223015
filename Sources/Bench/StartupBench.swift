import Foundation

/// `parlor bench startup`: the wall time from spawn to exit of
/// `parlor games`, `parlor --version` and a trivial Swift binary
/// (`parlor-trivial`, built beside `parlor`), interleaved in one run, as the
/// median of `StartupBench.runs` runs each, and the ratio to the trivial one
/// against the goal. It says how each binary has the Swift runtime: a release
/// `parlor` links it and Foundation in (Package.swift), `parlor-trivial` is
/// built as `swift build` builds any program, with the shared libraries.
extension StartupBench {
    /// One case's median, and its ratio to the trivial binary's (nil for the trivial binary itself).
    public struct Case: Sendable {
        public var label: String
        public var median: Duration
        public var ratio: Double?
        /// The ratio is within `StartupBench.goal`.
        public var goalMet: Bool { ratio.map { $0 <= StartupBench.goal } ?? true }
    }

    /// Why the bench could not run.
    public enum Failure: Error, Sendable {
        /// /proc/self/exe is unreadable.
        case noOwnExecutable
        /// The trivial binary is not built beside parlor.
        case floorMissing(path: String)
        /// posix_spawn failed (errno's text).
        case cannotStart(String, reason: String)
        /// waitpid failed (errno's text).
        case cannotWait(String, reason: String)
        /// The command did not exit with status 0.
        case runFailed(String, status: Int32)
    }

    /// Times the trivial binary, `parlor games` and `parlor --version` (this
    /// executable), first the trivial one. Throws `Failure`.
    public static func measure() throws -> [Case] {
        guard let parlor = ownExecutable() else { throw Failure.noOwnExecutable }
        let directory = parlor.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let trivial = directory + "/" + trivialName
        guard access(trivial, X_OK) == 0 else { throw Failure.floorMissing(path: trivial) }
        let cases: [(label: String, argv: [String])] = [
            ("trivial Swift binary", [trivial]),
            ("parlor games", [parlor, "games"]),
            ("parlor --version", [parlor, "--version"]),
        ]
        var medians: [Duration] = []
        var samples = Array(repeating: [Duration](), count: cases.count)
        // Interleaved, so a burst of load on the machine falls on every case alike.
        for _ in 0..<(runs + 1) {
            for (index, entry) in cases.enumerated() {
                samples[index].append(try time(entry.argv))
            }
        }
        for index in cases.indices {
            // The first round only warms the page cache.
            medians.append(median(Array(samples[index].dropFirst())))
        }
        let floor = medians[0]
        return cases.enumerated().map { index, entry in
            Case(label: entry.label, median: medians[index],
                 ratio: index == 0 ? nil : Double(medians[index].microseconds) / Double(max(1, floor.microseconds)))
        }
    }
}

/// Spawning and timing a process for `parlor bench startup`.
public enum StartupBench {
    /// Runs per case.
    public static let runs = 20
    /// The floor's executable name, beside `parlor`.
    public static let trivialName = "parlor-trivial"
    /// The goal for `parlor games` and `parlor --version`: at most this many
    /// times the trivial binary's median (issue 11).
    public static let goal = 1.5

    /// Whether this process has the Swift runtime linked in: no shared
    /// libswiftCore among its mappings.
    public static func runtimeLinkedIn() -> Bool {
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
            throw Failure.cannotStart(argv[0], reason: String(cString: strerror(result)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw Failure.cannotWait(argv[0], reason: String(cString: strerror(errno)))
            }
        }
        let elapsed = clock.now - start
        // Exited normally with status 0 (the WIFEXITED/WEXITSTATUS macros, which Swift does not import).
        guard status & 0xffff == 0 else {
            throw Failure.runFailed(argv.joined(separator: " "), status: status)
        }
        return elapsed
    }

    /// The median of `values` (the mean of the middle two for an even count).
    public static func median(_ values: [Duration]) -> Duration {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .zero }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
