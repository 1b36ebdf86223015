import Foundation
import ParlorTestSupport

/// A parlor process whose moves the test types: `parlor ARGUMENTS --json`
/// in tmux, reading its moves from a FIFO the test writes and printing its
/// JSON events to a file (a scripted host or guest for terminal tests).
struct ScriptedParlor {
    let tmux: TmuxSession
    /// The file its JSON events go to.
    let output: String
    private let writer: Int32

    /// Starts `parlor ARGUMENTS` with `home` as its data home (created).
    static func start(_ parlor: String, _ arguments: [String], home: String, environment: [String: String] = [:]) throws -> ScriptedParlor {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let fifo = home + "/moves", output = home + "/events.json"
        guard mkfifo(fifo, 0o600) == 0 else { throw TmuxSession.Failure.commandFailed(["mkfifo"], status: errno, output: fifo) }
        // Read and write: the open never blocks, and parlor never sees the end of its input.
        let writer = open(fifo, O_RDWR)
        let tmux = try TmuxSession.start(["sh", "-c", "fifo=$1 output=$2; shift 2; exec \"$0\" \"$@\" < \"$fifo\" > \"$output\"",
                                          parlor, fifo, output] + arguments,
                                         environment: environment.merging(["XDG_DATA_HOME": home]) { _, new in new })
        return ScriptedParlor(tmux: tmux, output: output, writer: writer)
    }

    /// Types `move` once it is `seat`'s turn with at least `moves` moves made.
    func play(_ move: String, seat: Int, after moves: Int) async -> Bool {
        let turn = await LeavingTerminalTests.waitForEvent(in: output) {
            $0["event"] as? String == "turn" && $0["seat"] as? Int == seat && ($0["sequence"] as? Int ?? 0) >= moves
        }
        guard turn != nil else { return false }
        let line = Array((move + "\n").utf8)
        return write(writer, line, line.count) == line.count
    }

    /// The id of the match it started, once it has.
    var matchID: String? {
        LeavingTerminalTests.events(inFile: output).first { $0["event"] as? String == "started" }?["match"] as? String
    }

    func stop() {
        close(writer)
        tmux.kill()
    }
}
