// Drives scripts/lab from Swift tests: a LAN of network namespaces, each
// host with its own dbus-daemon and avahi-daemon (see docs/LAB.md).
//
//     try await Lab.with(hosts: 2) { lab in
//         let publisher = try lab.start(host: "A", ["avahi-publish", "-s", ...])
//         let result = try await lab.run(host: "B", ["avahi-browse", "-rpt", "_parlor._tcp"])
//         ...
//     }                                   // torn down on every path
//
// Every lab gets its own prefix ("lt<pid>n<k>"), so parallel or stale labs
// never collide; labs left by a test process that died are removed by the
// next Lab.up().

import Foundation
import ParlorTestSupport
import Testing
@preconcurrency import Glibc

/// Why lab tests cannot run here, or nil when they can.
enum LabAvailability {
    static let unavailableReason: String? = {
        if geteuid() != 0 { return "lab tests need root (network namespaces)" }
        for tool in ["/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon", "/usr/bin/avahi-browse", "/usr/bin/unshare"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing; run scripts/lab install"
        }
        guard let ip = ["/usr/sbin/ip", "/usr/bin/ip", "/sbin/ip", "/bin/ip"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else { return "iproute2 ('ip') is missing; run scripts/lab install" }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: ip)
        probe.arguments = ["netns", "list"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do {
            try probe.run()
            probe.waitUntilExit()
        } catch {
            return "cannot run 'ip netns list': \(error)"
        }
        guard probe.terminationStatus == 0 else { return "'ip netns' is not usable here" }
        return nil
    }()

    /// Whether lab tests can run.
    static var isAvailable: Bool { unavailableReason == nil }

    /// The skip comment Swift Testing prints.
    static var skipComment: Comment { Comment(rawValue: unavailableReason ?? "lab available") }

    /// tmux, for the lobby test.
    static let hasTmux: Bool = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    /// Debian's python3-zeroconf, for /usr/bin/python3 only.
    static let hasPythonZeroconf: Bool = {
        FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/zeroconf/__init__.py")
    }()
}

/// What a finished command did.
struct LabResult: Sendable {
    /// The exit status, or nil if it was killed after its timeout.
    var status: Int32?
    var standardOutput: String
    var standardError: String
    var succeeded: Bool { status == 0 }
}

enum LabError: Error, CustomStringConvertible {
    case scriptFailed(arguments: [String], result: LabResult)
    case timedOut(what: String, seconds: Double, output: String)

    var description: String {
        switch self {
        case .scriptFailed(let arguments, let result):
            return "scripts/lab \(arguments.joined(separator: " ")) failed (\(result.status.map(String.init) ?? "timeout")): \(result.standardError)\(result.standardOutput)"
        case .timedOut(let what, let seconds, let output):
            return "\(what) did not happen within \(seconds)s; output so far:\n\(output)"
        }
    }
}

/// A lab that is up. Call `down()` when done (or use `Lab.with`, which always does).
struct Lab: Sendable {
    /// The lab's PARLOR_LAB_PREFIX.
    let prefix: String
    /// How many hosts: 2 (A, B), 3 (A, B, C), up to 250 (A to Z, then "27", "28", ...).
    let hosts: Int

    /// The package root, found from this file's path (Tests/LabTests/Lab.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// scripts/lab.
    static let script: URL = packageRoot.appendingPathComponent("scripts/lab")

    /// Where SwiftPM put the built products (the test bundle's directory), e.g. to find `parlor`.
    static let productsDirectory: URL = {
        URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath().deletingLastPathComponent()
    }()

    /// A built executable such as "parlor", if it was built.
    static func builtProduct(_ name: String) -> URL? {
        let url = productsDirectory.appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    private static let counter = Counter()

    /// Brings a fresh lab up and returns once every avahi-daemon answers.
    static func up(hosts: Int = 2) async throws -> Lab {
        await removeStaleLabs()
        let lab = Lab(prefix: "lt\(getpid())n\(counter.next())", hosts: hosts)
        // A hundred hosts take about half a minute to come up (scripts/lab starts 24 at once).
        let result = await runScript(["up", "--hosts", String(hosts)], prefix: lab.prefix,
                                     timeout: 60 + Double(hosts))
        guard result.succeeded else {
            // up tears itself down on failure; make sure anyway.
            await lab.down()
            throw LabError.scriptFailed(arguments: ["up"], result: result)
        }
        return lab
    }

    /// Runs `body` with a fresh lab and tears it down afterwards, whether `body` returns or throws.
    static func with<T: Sendable>(hosts: Int = 2, _ body: (Lab) async throws -> T) async throws -> T {
        let lab = try await up(hosts: hosts)
        do {
            let value = try await body(lab)
            await lab.down()
            return value
        } catch {
            await lab.down()
            throw error
        }
    }

    /// Stops every process in the lab's namespaces and deletes them. Idempotent.
    func down() async {
        _ = await Self.runScript(["down"], prefix: prefix, timeout: 30 + Double(hosts) / 4)
    }

    /// The IPv4 address of host "A" ... "Z" (or "hostA"), "27", "28" ...: 10.77.0.N for the Nth host.
    func address(of host: String) -> String {
        "10.77.0.\(Self.index(of: host))"
    }

    /// The name of the `index`th host (from 1): "A" to "Z", then "27", "28", ... as scripts/lab names them.
    static func hostName(_ index: Int) -> String {
        index <= 26 ? String(UnicodeScalar(UInt8(64 + index))) : String(index)
    }

    /// Which host a name is, from 1: "A" or "hostA" is 1, "27" is 27.
    static func index(of host: String) -> Int {
        let name = host.hasPrefix("host") ? String(host.dropFirst(4)) : host
        if let number = Int(name) { return number }
        return Int(name.uppercased().unicodeScalars.first.map { $0.value } ?? 65) - 64
    }

    /// Runs `arguments` inside `host` (talking to that host's avahi-daemon) and waits for it.
    func run(host: String, _ arguments: [String], input: String? = nil, timeout: Double = 30) async -> LabResult {
        await Self.runScript(["exec", host] + arguments, prefix: prefix, input: input, timeout: timeout)
    }

    /// Starts `arguments` inside `host` in the background; stop it with `stop()` (down also kills it).
    func start(host: String, _ arguments: [String], input: String? = nil) throws -> LabProcess {
        try LabProcess(arguments: ["exec", host] + arguments, prefix: prefix, input: input)
    }

    /// Retries `run` until `accept` likes the output or `timeout` passes; mDNS answers take a moment.
    func poll(
        host: String, _ arguments: [String], timeout: Double = 10, until accept: (LabResult) -> Bool
    ) async throws -> LabResult {
        let deadline = Date().addingTimeInterval(timeout)
        var last = LabResult(status: nil, standardOutput: "", standardError: "")
        while Date() < deadline {
            last = await run(host: host, arguments, timeout: max(1, deadline.timeIntervalSinceNow))
            if accept(last) { return last }
            try await Task.sleep(for: .milliseconds(300))
        }
        throw LabError.timedOut(
            what: arguments.joined(separator: " ") + " on host \(host)", seconds: timeout,
            output: last.standardOutput + last.standardError)
    }

    /// Tears down labs whose test process is gone (e.g. a run killed mid-test).
    static func removeStaleLabs() async {
        let root = "/run/parlor-lab"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
        for name in names where name.hasPrefix("lt") {
            let digits = name.dropFirst(2).prefix { $0.isNumber }
            guard let pid = Int32(digits), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = await runScript(["down"], prefix: name, timeout: 30)
        }
    }

    static func runScript(
        _ arguments: [String], prefix: String, input: String? = nil, timeout: Double
    ) async -> LabResult {
        do {
            let process = try LabProcess(arguments: arguments, prefix: prefix, input: input)
            let status = await process.wait(timeout: timeout)
            if status == nil { await process.stop() }
            return LabResult(status: status, standardOutput: process.output(), standardError: process.errors())
        } catch {
            return LabResult(status: nil, standardOutput: "", standardError: "cannot start scripts/lab: \(error)")
        }
    }
}

/// scripts/lab running as a child process, its output captured in temporary files.
///
/// `@unchecked Sendable`: Process is thread-safe for what is used here
/// (isRunning, terminate, processIdentifier); the file URLs are immutable.
final class LabProcess: @unchecked Sendable {
    private let process = Process()
    private let outputURL: URL
    private let errorURL: URL

    convenience init(arguments: [String], prefix: String, input: String? = nil) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PARLOR_LAB_PREFIX"] = prefix
        try self.init(executable: Lab.script, arguments: arguments, environment: environment, input: input)
    }

    /// Runs `executable` in this (the root) network namespace, with exactly `environment`.
    init(executable: URL, arguments: [String], environment: [String: String], input: String? = nil) throws {
        let directory = FileManager.default.temporaryDirectory
        let id = UUID().uuidString
        outputURL = directory.appendingPathComponent("lab-\(id).out")
        errorURL = directory.appendingPathComponent("lab-\(id).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        // Files, not pipes: a chatty child can never block on a full pipe.
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        process.standardOutput = output
        process.standardError = errors
        // The child has its own copies once it runs: close ours, or every lab process leaves
        // two descriptors open in the test process for good (the Process keeps its handles).
        // Past about 1,300 open descriptors, Foundation's Process.run over-reads
        // /proc/self/fd's entries and crashes (swift-corelibs-foundation #5472).
        defer {
            try? output.close()
            try? errors.close()
        }
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try Self.withNoSignalBlocked { try process.run() }
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try Self.withNoSignalBlocked { try process.run() }
        }
    }

    /// Runs `spawn` with this thread's signal mask emptied. Swift's worker threads
    /// block most signals and a child inherits the mask of the thread that spawns it:
    /// an ssh client in a tmux pane would then never hear SIGWINCH (and never pass a
    /// resize on), and a parlor started here would never hear SIGTERM or SIGHUP.
    private static func withNoSignalBlocked<T>(_ spawn: () throws -> T) rethrows -> T {
        var none = sigset_t()
        var saved = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        return try spawn()
    }

    /// The command, shortened for a failure message: its words after scripts/lab's `exec`, without `env` settings or
    /// the executable's directory.
    var commandLine: String {
        let words = (process.arguments ?? []).filter { !$0.contains("=") || $0.hasPrefix("--") }
        return words.map { $0.hasPrefix("/") ? ($0 as NSString).lastPathComponent : $0 }
            .drop { $0 == "exec" }.joined(separator: " ")
    }

    /// Everything written to standard output so far.
    func output() -> String {
        (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
    }

    /// Everything written to standard error so far.
    func errors() -> String {
        (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
    }

    /// Waits (without blocking a thread) for the exit status; nil after `timeout` seconds.
    ///
    /// Asks the kernel first (`waitid` with `WNOWAIT`, which leaves the child
    /// for Foundation to reap): Foundation learns of the exit on a Dispatch
    /// queue, and with both cores busy (bot tests in the same process, other
    /// builds) that queue can lag by a minute, failing a step that finished.
    func wait(timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = exitStatusFromKernel() { return status }
            if !process.isRunning { return process.terminationStatus }
            if Date() >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The exit status (128 + signal when killed) if the child has exited and is not reaped yet.
    private func exitStatusFromKernel() -> Int32? {
        var info = siginfo_t()
        let pid = process.processIdentifier
        guard pid > 0, waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return nil }
        // With WNOHANG, a child that has not exited leaves si_pid 0.
        guard info._sifields._sigchld.si_pid == pid else { return nil }
        let status = info._sifields._sigchld.si_status
        return info.si_code == CLD_EXITED ? status : 128 + status
    }

    /// Waits until standard output contains `text`; throws after `timeout` seconds.
    func waitForOutput(containing text: String, timeout: Double = 10) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !output().contains(text) {
            guard Date() < deadline else {
                throw LabError.timedOut(what: "output '\(text)' of \(commandLine)", seconds: timeout, output: output() + errors())
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until the command has entered `host`'s network namespace (`scripts/lab exec`
    /// checks the lab before it execs `ip netns exec`); throws after `timeout` seconds.
    func waitUntilInside(host: String, of lab: Lab, timeout: Double = 10) async throws {
        let namespace = "/run/netns/\(lab.prefix)-host\(host.uppercased().suffix(1))"
        let mine = "/proc/\(process.processIdentifier)/ns/net"
        let target = Self.inode(namespace)
        let deadline = Date().addingTimeInterval(timeout)
        while target == nil || Self.inode(mine) != target {
            guard Date() < deadline, process.isRunning else {
                throw LabError.timedOut(what: "entering host \(host)", seconds: timeout, output: output() + errors())
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The inode a path leads to (a namespace's, for /proc/PID/ns/net), or nil.
    private static func inode(_ path: String) -> ino_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_ino : nil
    }

    /// SIGTERM, then SIGKILL after two seconds; returns when it has exited.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        if await wait(timeout: 2) == nil {
            kill(process.processIdentifier, SIGKILL)
            _ = await wait(timeout: 2)
        }
    }

    /// Sends `signal` (e.g. SIGKILL) to the command; `scripts/lab exec` execs it, so this is its pid.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorURL)
    }
}

/// A thread-safe counter for unique lab prefixes.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

extension LabProcess {
    /// Waits until `accept` likes the standard output so far; throws after `timeout` seconds.
    func waitForOutput(_ what: String, timeout: Double = 10, where accept: (String) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !accept(output()) {
            guard Date() < deadline else {
                throw LabError.timedOut(what: "\(what) of \(commandLine)", seconds: timeout, output: output() + errors())
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A private directory for one parlor process's saved matches (its XDG_DATA_HOME), removed when dropped.
final class DataDirectory: Sendable {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-lab-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The parlor executable under test, and command lines that run it with a data directory of their own.
enum ParlorCommand {
    /// The built `parlor`; fails the test with the reason when it was not built.
    static func executable() throws -> String {
        let url = ParlorBinary.url
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw ParlorProcessError.executableMissing(url.path)
        }
        return url.path
    }

    /// `env XDG_DATA_HOME=DIR parlor ARGS`, for `lab.run` and `lab.start` (the script execs it, and env execs parlor,
    /// so the process's pid is parlor's own).
    static func command(_ arguments: [String], data: DataDirectory) throws -> [String] {
        ["env", "XDG_DATA_HOME=\(data.path)", "USER=lab", try executable()] + arguments
    }
}

/// `--json` output, one object per line.
enum JSONLines {
    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The objects whose "event" is `event`.
    static func events(_ event: String, in text: String) -> [[String: Any]] {
        objects(text).filter { $0["event"] as? String == event }
    }
}
