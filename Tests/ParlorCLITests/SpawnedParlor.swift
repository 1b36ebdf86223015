import Foundation
@preconcurrency import Glibc
import ParlorTestSupport

/// A `parlor` process started with posix_spawn and left running, for tests
/// that crash, signal or restart peers. Output goes to files (a chatty
/// child never blocks on a full pipe); waits poll `waitpid(WNOHANG)` with
/// `Task.sleep`, so no thread of the cooperative pool is ever blocked.
///
/// `@unchecked Sendable`: the pid and paths are immutable; `status` is
/// guarded by the lock.
final class SpawnedParlor: @unchecked Sendable {
    let pid: pid_t
    let arguments: [String]
    private let outputPath: String
    private let errorPath: String
    private let lock = NSLock()
    private var status: Int32?
    /// The write end of the child's stdin when it was kept open, else -1.
    private var stdinWriter: Int32 = -1

    /// Starts `parlor arguments` with `environment` added to this process's.
    /// With `keepStdinOpen`, stdin is a pipe that stays open (a player who has
    /// not typed yet) until `closeStdin()`; otherwise it is /dev/null.
    init(_ arguments: [String], environment: [String: String], keepStdinOpen: Bool = false,
         executable: URL = ParlorBinary.url) throws {
        self.arguments = arguments
        let directory = FileManager.default.temporaryDirectory.path
        let id = UUID().uuidString
        outputPath = "\(directory)/parlor-\(id).out"
        errorPath = "\(directory)/parlor-\(id).err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        if keepStdinOpen, pipe(&pipeEnds) == 0 {
            // Neither end may leak into other children; dup2 clears the flag on the child's fd 0.
            _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        defer { if pipeEnds[0] >= 0 { close(pipeEnds[0]) } }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable.path, &actions, nil, argv, envp)
        guard result == 0 else {
            if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
            throw SpawnError.failed(result)
        }
        pid = child
        stdinWriter = pipeEnds[1]
    }

    /// Types `text` on the child's stdin (when it was kept open).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(stdinWriter, $0.baseAddress, bytes.count) }
    }

    /// Closes the child's stdin (end of input).
    func closeStdin() {
        lock.lock()
        defer { lock.unlock() }
        if stdinWriter >= 0 { close(stdinWriter) }
        stdinWriter = -1
    }

    enum SpawnError: Error { case failed(Int32) }

    /// Everything written to stdout so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    /// Everything written to stderr so far.
    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) { kill(pid, signal) }

    /// The exit status (128 + N for signal N) once the child has ended, reaping it.
    private func poll() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let signal = raw & 0x7F
        status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        return status
    }

    /// Waits for the child to end; nil after `timeout` (it keeps running).
    func wait(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = poll() { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return poll()
    }

    /// Waits until stdout has a line containing `text`; returns that line, or nil after `timeout`.
    func line(containing text: String, timeout: Duration = .seconds(20)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// What to print when a test fails.
    var transcript: String { "parlor \(arguments.joined(separator: " "))\n--- stdout\n\(output)\n--- stderr\n\(errors)" }

    deinit {
        closeStdin()
        if poll() == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            _ = waitpid(pid, &raw, 0)
        }
        unlink(outputPath)
        unlink(errorPath)
    }
}

/// A fresh directory for one side's `XDG_DATA_HOME`.
func temporaryDataHome() -> String {
    var template = Array("/tmp/parlor-side-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return path.map { String(cString: $0) } ?? "/tmp/parlor-side-fallback-\(getpid())"
}
