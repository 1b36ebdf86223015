import Foundation
import ParlorTestSupport
import Testing

/// Issue 15 item 7: `parlor replay` on a terminal shows the boards move by
/// move. The real binary, a match it saved, and a real terminal (tmux).
@Suite("Replay in a real terminal (tmux)")
struct ReplayTerminalTests {
    /// The `parlor` built next to this test bundle.
    static var parlor: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("parlor").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Runs `parlor ARGUMENTS` to the end with stdout on a pipe and returns it.
    static func run(_ parlor: String, _ arguments: [String], environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: parlor)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("the final board first, Home to the start, → one move on, q leaves and restores the shell's screen",
          .enabled(if: TmuxSession.isAvailable && parlor != nil))
    func stepsThroughASavedMatch() async throws {
        let parlor = try #require(Self.parlor)
        let home = NSTemporaryDirectory() + "parlor-replay-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["XDG_DATA_HOME": home]
        _ = try Self.run(parlor, ["play", "tictactoe", "--bot", "easy", "--vs", "bot:easy", "--seed", "3", "--json"],
                         environment: environment)
        let listing = try Self.run(parlor, ["matches", "--json"], environment: environment)
        let first = try #require(listing.split(separator: "\n").first.map { Data($0.utf8) })
        let id = try #require((try JSONSerialization.jsonObject(with: first) as? [String: Any])?["id"] as? String)

        // The shell prints the exit status on the normal screen once parlor has left it.
        let tmux = try TmuxSession.start(["sh", "-c", "\"$0\" replay \"$1\"; echo \"exit status $?\"", parlor, id], environment: environment.merging(
            ["TERM": "xterm-256color", "LANG": "C.UTF-8"]) { _, new in new })
        defer { tmux.kill() }
        let total = try #require(await tmux.waitUntil { $0.joined().contains(" of ") } ? tmux.screenText() : nil,
                                 "no move caption: \(tmux.screenText())")
        // It opens at the end: the last move and the result.
        let caption = try #require(total.split(separator: "\n").first { $0.contains("Move ") && $0.contains(" of ") })
        let words = caption.split(separator: " ")
        let count = try #require(words.firstIndex(of: "of").flatMap { Int(words[$0 + 1].trimmingCharacters(in: .punctuationCharacters)) })
        #expect(caption.contains("Move \(count) of \(count)"), "\(total)")
        #expect(total.contains("←/→: move"), "\(total)")

        tmux.send("Home")
        #expect(await tmux.waitFor("Start: nobody has moved yet (\(count) moves in all)."), "\(tmux.screenText())")
        // The empty board: no piece on it.
        #expect(!tmux.screen().prefix(8).joined().contains("X │") && !tmux.screen().prefix(8).joined().contains("O │"),
                "\(tmux.screenText())")
        tmux.send("Right")
        #expect(await tmux.waitFor("Move 1 of \(count): Easy bot played"), "\(tmux.screenText())")
        tmux.send("End")
        #expect(await tmux.waitFor("Move \(count) of \(count)"), "\(tmux.screenText())")
        tmux.send("q")
        // The shell's echo, or tmux's own note on the dead pane, gives parlor's status.
        #expect(await tmux.waitUntil { $0.joined().contains("exit status 0") || $0.joined().contains("Pane is dead (status 0") },
                "\(tmux.screenText())")
        #expect(!tmux.screenText().contains("←/→: move"), "the alternate screen was left: \(tmux.screenText())")
    }
}
