import Foundation
@preconcurrency import Glibc

/// Where the built `parlor` executable is, for end-to-end tests.
public enum ParlorBinary {
    /// The `parlor` executable to test.
    ///
    /// In order: `$PARLOR_BINARY`; `parlor` next to the running test
    /// executable (SwiftPM puts every product of a build in one products
    /// directory, e.g. `.build/debug`); `.build/debug/parlor` under the
    /// package root found from this file's path.
    public static var url: URL {
        let environment = ProcessInfo.processInfo.environment
        if let override = environment["PARLOR_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        for directory in productsDirectories() {
            let candidate = directory.appendingPathComponent("parlor")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug/parlor")
    }

    /// The package's root directory (the one holding Package.swift).
    public static var packageRoot: URL {
        // This file is Tests/ParlorTestSupport/ParlorProcess.swift.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private static func productsDirectories() -> [URL] {
        var directories: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL)
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        return directories
    }
}

/// What a finished child process left behind.
public struct ProcessResult: Sendable, Equatable {
    /// The exit status, or 128 + signal number when a signal ended it.
    public var status: Int32
    /// Everything written to stdout, decoded as UTF-8.
    public var stdout: String
    /// Everything written to stderr, decoded as UTF-8.
    public var stderr: String
    /// Whether the hard timeout fired and the child was killed with SIGKILL.
    public var timedOut: Bool
}

/// Why a child process could not be run.
public enum ParlorProcessError: Error, CustomStringConvertible {
    /// There is no executable at the path; build first.
    case executableMissing(String)

    public var description: String {
        switch self {
        case .executableMissing(let path): "no executable at \(path); run 'swift build' first"
        }
    }
}

/// Runs `parlor` (or another executable) as a child process with a hard
/// timeout, for end-to-end tests.
public enum ParlorProcess {
    /// Runs the executable with `arguments`, feeds it `stdin` (or /dev/null
    /// when nil) and collects stdout and stderr.
    ///
    /// - Parameters:
    ///   - environment: variables added to (or replacing) this process's environment.
    ///   - timeout: after this long the child is killed with SIGKILL and
    ///     `timedOut` is true, so a hung child never hangs the test run.
    /// - Throws: `ParlorProcessError.executableMissing` or the error of `Process.run()`.
    ///
    /// The blocking waits run on a Dispatch thread, never on the cooperative pool.
    public static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        timeout: Duration = .seconds(60), executable: URL = ParlorBinary.url
    ) async throws -> ProcessResult {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ParlorProcessError.executableMissing(executable.path)
        }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try runBlocking(arguments, stdin: stdin, environment: environment, timeout: timeout, executable: executable)
                })
            }
        }
    }

    private static func runBlocking(
        _ arguments: [String], stdin: String?, environment: [String: String], timeout: Duration, executable: URL
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let input = stdin.map { _ in Pipe() }
        process.standardInput = input ?? FileHandle.nullDevice

        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()

        let collected = Collected()
        let readers = DispatchGroup()
        for (pipe, keyPath) in [(output, \Collected.stdout), (errors, \Collected.stderr)] {
            readers.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(keyPath, data)
                readers.leave()
            }
        }
        if let input, let stdin {
            DispatchQueue.global().async {
                // A child that exits without reading gets EPIPE here; that is its business.
                signal(SIGPIPE, SIG_IGN)
                try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
                try? input.fileHandleForWriting.close()
            }
        }

        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var timedOut = false
        if finished.wait(timeout: .now() + seconds) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
        }
        // A grandchild could keep the pipes open; do not wait for it forever.
        _ = readers.wait(timeout: .now() + 5)

        let status: Int32 = process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
        return ProcessResult(
            status: status,
            stdout: String(decoding: collected.get(\.stdout), as: UTF8.self),
            stderr: String(decoding: collected.get(\.stderr), as: UTF8.self),
            timedOut: timedOut)
    }
}

/// The bytes two reader threads collect; a lock guards them because the
/// readers and the waiting thread are different Dispatch threads.
private final class Collected: @unchecked Sendable {
    var stdout = Data()
    var stderr = Data()
    private let lock = NSLock()

    func set(_ keyPath: ReferenceWritableKeyPath<Collected, Data>, _ data: Data) {
        lock.withLock { self[keyPath: keyPath] = data }
    }

    func get(_ keyPath: KeyPath<Collected, Data>) -> Data {
        lock.withLock { self[keyPath: keyPath] }
    }
}
