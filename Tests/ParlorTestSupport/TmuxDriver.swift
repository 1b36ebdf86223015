import Foundation

/// Drives a program in a real terminal: a detached tmux session on a private
/// server socket, keys typed with `send-keys`, the screen read with `capture-pane`.
///
/// Reusable for the parlor binary (end-to-end, lab and SSH tests; it lives in
/// ParlorTestSupport so LabTests can drive a lobby inside a lab host with it):
/// ```swift
/// let tmux = try TmuxSession.start(["/path/parlor", "play", "connect4"],
///                                  environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"])
/// defer { tmux.kill() }
/// #expect(await tmux.waitFor("Your turn"))
/// tmux.send("4", "Enter")
/// let screen = tmux.screen()
/// ```
/// The pane stays readable after the program exits (`remain-on-exit`), so the
/// normal screen it leaves behind can be checked too.
public struct TmuxSession: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case tmuxMissing
        case commandFailed([String], status: Int32, output: String)
        public var description: String {
            switch self {
            case .tmuxMissing: "tmux is not installed (apt-get install tmux)"
            case .commandFailed(let arguments, let status, let output): "tmux \(arguments.joined(separator: " ")) exited \(status): \(output)"
            }
        }
    }

    /// The tmux server socket name (`-L`), private to this session so a user's tmux is never touched.
    public let socket: String
    /// The session (and target) name.
    public let name: String

    /// Where tmux lives, or nil.
    public static var executable: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether tests that need tmux can run here.
    public static var isAvailable: Bool { executable != nil }

    /// Starts `command` in a new detached session of `columns` x `rows`.
    /// `environment` is set for the command (through `env`), e.g. TERM and LANG.
    public static func start(_ command: [String], columns: Int = 80, rows: Int = 24,
                      environment: [String: String] = [:]) throws -> TmuxSession {
        let unique = "parlor-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let session = TmuxSession(socket: unique, name: unique)
        let env = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        try session.tmux(["-f", "/dev/null", "new-session", "-d", "-s", unique, "-x", String(columns), "-y", String(rows),
                          "env"] + env + command
                         // Same command queue, so the pane is kept even if the program exits at once.
                         + [";", "set-option", "-w", "-t", unique, "remain-on-exit", "on",
                            ";", "set-option", "-w", "-t", unique, "window-size", "manual"])
        return session
    }

    /// Runs tmux on this session's server and returns its standard output (and error).
    @discardableResult
    public func tmux(_ arguments: [String]) throws -> String {
        guard let executable = Self.executable else { throw Failure.tmuxMissing }
        // posix_spawn and waitpid rather than Foundation's Process: Process waits for a
        // descriptor it hands the child to close, and the tmux server forked by
        // new-session keeps it open for the whole session. Output goes to a file for the same reason.
        let outputPath = FileManager.default.temporaryDirectory.path + "/\(socket)-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else is inherited: a pipe another test holds open must not stay
        // open in a long-lived tmux server (its reader would never see end of file).
        // (posix_spawn_file_actions_addclosefrom_np is not visible to Swift here.)
        for fd in Int32(3)..<Int32(1024) where fcntl(fd, F_GETFD) >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let argv = ([executable, "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // Swift's worker threads block signals, and a spawned process inherits the mask:
        // the tmux server would then ignore its own SIGTERM (kill-server) and pass the
        // blocked mask on to the program under test. Start with no signal blocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGWINCH] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw Failure.commandFailed(arguments, status: spawned, output: "posix_spawn failed") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitStatus == 0 else {
            throw Failure.commandFailed(arguments, status: exitStatus, output: output)
        }
        return output
    }

    /// Types keys: tmux key names ("Enter", "Left", "C-c") or literal text ("4", "b3").
    public func send(_ keys: String...) {
        _ = try? tmux(["send-keys", "-t", name] + keys)
    }

    /// Types `text` literally, character by character (no key-name lookup).
    public func type(_ text: String) {
        _ = try? tmux(["send-keys", "-t", name, "-l", text])
    }

    /// The visible screen as lines (trailing spaces trimmed by tmux).
    public func screen() -> [String] {
        let text = (try? tmux(["capture-pane", "-p", "-t", name])) ?? ""
        return text.components(separatedBy: "\n")
    }

    /// The screen as one string, for `contains` checks and failure messages.
    public func screenText() -> String { screen().joined(separator: "\n") }

    /// Resizes the window, as a person dragging their SSH client's window would (the program gets SIGWINCH).
    public func resize(columns: Int, rows: Int) {
        _ = try? tmux(["resize-window", "-t", name, "-x", String(columns), "-y", String(rows)])
    }

    /// Whether the program in the pane has exited.
    public var programExited: Bool {
        ((try? tmux(["display-message", "-p", "-t", name, "#{pane_dead}"])) ?? "1").hasPrefix("1")
    }

    /// The program's exit status once it has exited.
    public var exitStatus: Int32? {
        guard programExited, let text = try? tmux(["display-message", "-p", "-t", name, "#{pane_dead_status}"]) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The pane's process id (to send it signals).
    public var pid: Int32? {
        (try? tmux(["display-message", "-p", "-t", name, "#{pane_pid}"])).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Polls the screen until `predicate` holds or `timeout` passes; true if it held.
    public func waitUntil(timeout: Duration = .seconds(10), _ predicate: ([String]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if predicate(screen()) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return predicate(screen())
    }

    /// Polls until the screen contains `text`.
    public func waitFor(_ text: String, timeout: Duration = .seconds(10)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.joined(separator: "\n").contains(text) }
    }

    /// Polls until the program has exited.
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if programExited { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return programExited
    }

    /// Ends the session and its tmux server, and removes the server's socket file (a killed server leaves it).
    public func kill() {
        _ = try? tmux(["kill-server"])
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        try? FileManager.default.removeItem(atPath: "\(directory)/tmux-\(getuid())/\(socket)")
    }
}
