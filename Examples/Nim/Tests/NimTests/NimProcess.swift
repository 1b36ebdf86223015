import Foundation

/// A `nim` process started by a test, run as a user runs it: its own
/// `$NIM_HOME`, what it prints line by line as it prints it, and its exit status.
struct NimProcess {
    /// The `nim` executable `swift build` put beside this test bundle.
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("nim")

    /// Each line it prints (stdout and stderr), as it is printed; finished when both close.
    let lines: AsyncStream<String>
    private let status: AsyncStream<Int32>
    private let process: Process
    /// Its stdin, while a test types into it (`input` nil).
    private let typing: FileHandle?

    /// Starts `nim arguments` with `NIM_HOME=home`, `input` as its stdin; with
    /// nil, stdin stays open for `type(_:)` until `endInput()`.
    init(_ arguments: [String], home: URL, input: String? = "") throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["NIM_HOME": home.path]) { $1 }
        let (output, stdin) = (Pipe(), Pipe())
        (process.standardOutput, process.standardError, process.standardInput) = (output, output, stdin)
        let (lines, linesOut) = AsyncStream<String>.makeStream()
        let (status, statusOut) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { statusOut.yield($0.terminationStatus); statusOut.finish() }
        try process.run()
        // Blocking reads on a thread of their own, never on Swift's cooperative pool.
        let reading = output.fileHandleForReading
        Thread.detachNewThread {
            var pending = Data()
            while case let chunk = reading.availableData, !chunk.isEmpty {
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    linesOut.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                }
            }
            linesOut.finish()
        }
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
            typing = nil
        } else {
            typing = stdin.fileHandleForWriting
        }
        (self.lines, self.status, self.process) = (lines, status, process)
    }

    /// Types `text` on its stdin (started with `input: nil`).
    func type(_ text: String) { typing?.write(Data(text.utf8)) }

    /// Ends its stdin, as Ctrl-D would.
    func endInput() { try? typing?.close() }

    /// Kills it at once (SIGKILL): nothing of its own runs after.
    func kill() { Foundation.kill(process.processIdentifier, SIGKILL) }

    /// Runs `nim arguments` to its end: what it printed and how it exited.
    static func run(_ arguments: [String], home: URL, input: String = "") async throws -> (output: [String], status: Int32?) {
        let process = try NimProcess(arguments, home: home, input: input)
        var output: [String] = []
        for await line in process.lines { output.append(line) }
        return (output, await process.exitStatus())
    }

    /// Ends the process if it still runs (a test that failed half-way leaves nothing behind).
    func stop() {
        if process.isRunning { process.terminate() }
    }

    /// The exit status, once it has exited.
    func exitStatus() async -> Int32? { await status.first { _ in true } }
}

/// A fresh `$NIM_HOME` for one test.
func temporaryHome() throws -> URL {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("nim-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    return home
}
