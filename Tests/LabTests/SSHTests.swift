import Foundation
import ParlorTestSupport
import Testing
@preconcurrency import Glibc

/// parlor through a real OpenSSH server: sshd runs inside lab host A
/// (`scripts/lab sshd A`), and host B logs in with `ssh`, as a person at
/// their laptop logs in to a shared box. The full-screen UI runs on sshd's
/// pty, shown in a tmux pane on B that the test types into and reads.
extension LabSuite {
    @Suite(.enabled(if: SSHBox.unavailableReason == nil, Comment(rawValue: SSHBox.unavailableReason ?? "")))
    struct ParlorOverSSH {
        /// Bo, the person on B; Ana is the bot hosting on A.
        static let guestName = "Bo"

        /// A lab with sshd on A and `parlor host connect4` on A with a medium bot, where Bo moves first.
        struct Scene {
            let lab: Lab
            let box: SSHBox
            let host: LabProcess
            let hostHome: DataDirectory
            let guestHome: DataDirectory
            let port: Int

            /// `parlor join A:PORT` as Bo types it on the box, in a terminal that B's ssh client gives him.
            func joinCommand() throws -> [String] {
                box.login(tty: true, try box.parlor(guestHome, [
                    "join", "\(lab.address(of: "A")):\(port)", "--name", ParlorOverSSH.guestName,
                ]))
            }
        }

        /// Brings the scene up, runs `body`, tears everything down; prints how long it took.
        static func withScene(_ name: String, port: Int, hostOutput: String = "--json",
                              _ body: (Scene) async throws -> Void) async throws {
            let started = ContinuousClock.now
            try await Lab.with { lab in
                let box = try await SSHBox.start(in: lab)
                let hostHome = try DataDirectory()
                let host = try lab.start(host: "A", ParlorCommand.command(
                    ["host", "connect4", "--bot", "medium", hostOutput, "--port", String(port),
                     "--seat", "second", "--name", "Ana"], data: hostHome))
                try await host.waitForOutput("the host listening", timeout: 20) {
                    $0.contains("\"event\":\"listening\"") || $0.contains("Waiting for a player")
                }
                try await body(Scene(lab: lab, box: box, host: host, hostHome: hostHome, guestHome: try DataDirectory(),
                                     port: port))
                host.send(SIGKILL)
            }
            print("ssh: \(name) took \(ContinuousClock.now - started)")
        }

        @Test func aFullScreenJoinOverSSHShowsTheBoardRedrawsOnResizeAndPlaysToTheEnd() async throws {
            try await Self.withScene("the full-screen match", port: 7620) { scene in
                let host = scene.host
                try await LabTmux.with(lab: scene.lab, host: "B") { terminal in
                    try await terminal.start(try scene.joinCommand(), columns: 80, rows: 24, keepingPane: true)
                    let first = try await terminal.waitForScreen(timeout: 30) { $0.contains("Your turn") }
                    #expect(first.contains("\(Self.guestName) (you)"), "screen:\n\(first)")
                    #expect(first.contains("1   2   3   4   5   6   7"), "screen:\n\(first)")
                    // Unicode frames: the remote parlor saw the UTF-8 locale that ssh passed on.
                    #expect(first.contains("│ · │"), "screen:\n\(first)")

                    try await SSHPlayer.playOneMove(terminal: terminal, peer: host)
                    let shown = try await SSHPlayer.waitForOurTurn(terminal: terminal, peer: host)

                    // The SSH client's window shrinks below the board, then grows back.
                    await terminal.resize(columns: 30, rows: 10)
                    let small = try await terminal.waitForScreen(timeout: 10) { $0.contains("Window too small") }
                    #expect(!small.contains("└"), "no board is drawn in a window too small for it:\n\(small)")
                    await terminal.resize(columns: 80, rows: 24)
                    let redrawn = try await terminal.waitForScreen(timeout: 10) {
                        !$0.contains("Window too small") && ConnectFourScreen.board(in: $0) != nil
                    }
                    #expect(ConnectFourScreen.board(in: redrawn) == ConnectFourScreen.board(in: shown),
                            "after the resize:\n\(redrawn)\nbefore:\n\(shown)")

                    let moves = try await SSHPlayer.playToTheEnd(terminal: terminal, peer: host)
                    #expect(await host.wait(timeout: 30) == 0, "host: \(host.output())\(host.errors())")
                    try await SSHPlayer.leaveAfterTheEnd(terminal: terminal)
                    print("ssh: a full-screen match over sshd played \(moves) moves")
                }
                try await SSHPlayer.expectBothSidesSavedTheSameEnd(scene)
            }
        }

        @Test func killingTheSSHClientEndsTheRemoteParlorSavesTheMatchAndResumeOverSSHFinishesIt() async throws {
            try await Self.withScene("the disconnect and resume", port: 7621) { scene in
                let host = scene.host
                try await LabTmux.with(lab: scene.lab, host: "B") { terminal in
                    try await terminal.start(try scene.joinCommand(), columns: 80, rows: 24, keepingPane: true)
                    try await SSHPlayer.playOneMove(terminal: terminal, peer: host)
                    _ = try await SSHPlayer.waitForOurTurn(terminal: terminal, peer: host)

                    try await SSHPlayer.killTheSSHClient(in: terminal, remoteHome: scene.guestHome, "the remote parlor join")
                }

                // The host was told Bo is leaving for now (not quitting), and waits for him.
                try await host.waitForOutput("the host waiting for Bo", timeout: 10) {
                    $0.contains("\(Self.guestName) disconnected") && $0.contains("waiting for \(Self.guestName) to come back")
                }
                #expect(JSONLines.events("end", in: host.output()).isEmpty, "the match must go on: \(host.output())")
                try await RemoteProcess.expectIdle(home: scene.hostHome.path, "the host waiting for Bo")
                let listed = try await scene.box.run(try scene.box.parlor(scene.guestHome, ["matches", "--json"]))
                let saved = JSONLines.objects(listed.standardOutput)
                #expect(saved.count == 1 && saved.first?["state"] as? String == "interrupted",
                        "the guest's matches: \(listed.standardOutput)\(listed.standardError)")

                // A new SSH login, and `parlor resume` takes Bo back to the match.
                try await LabTmux.with(lab: scene.lab, host: "B") { terminal in
                    try await terminal.start(scene.box.login(tty: true, try scene.box.parlor(scene.guestHome, ["resume"])),
                                             columns: 80, rows: 24, keepingPane: true)
                    let back = try await SSHPlayer.waitForOurTurn(terminal: terminal, peer: host, timeout: 30)
                    #expect(back.contains("\(Self.guestName) (you)"), "screen:\n\(back)")
                    _ = try await SSHPlayer.playToTheEnd(terminal: terminal, peer: host)
                    #expect(await host.wait(timeout: 30) == 0, "host: \(host.output())\(host.errors())")
                    try await SSHPlayer.leaveAfterTheEnd(terminal: terminal)
                }
                try await SSHPlayer.expectBothSidesSavedTheSameEnd(scene)
            }
        }

        @Test func twoSSHLoginsOnOneBoxHostAndJoinByNameAndTheHostsDroppedLoginResumes() async throws {
            let started = ContinuousClock.now
            try await Lab.with { lab in
                let box = try await SSHBox.start(in: lab)
                let anaHome = try DataDirectory()
                let botHome = try DataDirectory()
                let port = 7624
                // Ana hosts from her SSH login on A; Bo, in another login on the same box, joins her game
                // by name through A's avahi-daemon and lets a bot play (no pty: his moves come back as JSON).
                let hostCommand = box.login(tty: true, try box.parlor(anaHome, [
                    "host", "connect4", "--port", String(port), "--seat", "first", "--name", "Ana",
                ]))
                let guest = try await LabTmux.with(lab: lab, host: "B") { terminal in
                    try await terminal.start(hostCommand, columns: 80, rows: 24, keepingPane: true)
                    let waiting = try await terminal.waitForScreen(timeout: 20) { $0.contains("Waiting for a player") }
                    #expect(waiting.contains("Through SSH: ssh -L \(port):localhost:\(port) "), "screen:\n\(waiting)")
                    let guest = try lab.start(host: "B", box.login(tty: false, try box.parlor(botHome, [
                        "join", "Ana's Connect Four", "--bot", "easy", "--json", "--name", "Bo",
                    ])))
                    try await SSHPlayer.playOneMove(terminal: terminal, peer: guest)
                    _ = try await SSHPlayer.waitForOurTurn(terminal: terminal, peer: guest)

                    try await SSHPlayer.killTheSSHClient(in: terminal, remoteHome: anaHome, "the remote parlor host")
                    return guest
                }
                // The guest was told Ana is leaving for now, and waits for her.
                try await guest.waitForOutput("the guest waiting for Ana", timeout: 10) {
                    $0.contains("Ana disconnected") && $0.contains("waiting for Ana to come back")
                }
                try await RemoteProcess.expectIdle(home: botHome.path, "the guest waiting for Ana")
                let listed = try await box.run(try box.parlor(anaHome, ["matches", "--json"]))
                let saved = try #require(JSONLines.objects(listed.standardOutput).first, "\(listed.standardOutput)")
                #expect(saved["state"] as? String == "interrupted" && saved["role"] as? String == "host", "\(saved)")

                // Ana logs in again: `parlor resume` hosts the match again and the waiting guest comes back.
                try await LabTmux.with(lab: lab, host: "B") { terminal in
                    try await terminal.start(box.login(tty: true, try box.parlor(anaHome, ["resume"])),
                                             columns: 80, rows: 24, keepingPane: true)
                    _ = try await SSHPlayer.waitForOurTurn(terminal: terminal, peer: guest, timeout: 30)
                    _ = try await SSHPlayer.playToTheEnd(terminal: terminal, peer: guest)
                    #expect(await guest.wait(timeout: 30) == 0, "guest: \(guest.output())\(guest.errors())")
                    // Her SSH dies while the final board waits for a key: the match is over, not interrupted.
                    try await SSHPlayer.killTheSSHClient(in: terminal, remoteHome: anaHome, "the parlor on its final board")
                }
                try SSHPlayer.expectTheSameEnd(try await box.run(try box.parlor(anaHome, ["matches", "--json"])),
                                               try await box.run(try box.parlor(botHome, ["matches", "--json"])), peer: guest)
            }
            print("ssh: the host's disconnect and resume took \(ContinuousClock.now - started)")
        }

        @Test func aMatchThroughTheSSHPortForwardThatParlorHostSuggestsPlaysToTheEnd() async throws {
            try await Self.withScene("the port-forward match", port: 7622, hostOutput: "--plain") { scene in
                // "Through SSH: ssh -L 7622:localhost:7622 BOX   # then, on your machine: parlor join localhost:7622"
                let output = scene.host.output()
                let hint = try #require(output.split(separator: "\n").first { $0.hasPrefix("Through SSH: ssh -L ") },
                                        "the host printed: \(output)")
                let words = hint.split(separator: " ").map(String.init)
                let forward = try #require(words.firstIndex(of: "-L").map { words[$0 + 1] })
                #expect(forward == "\(scene.port):localhost:\(scene.port)")
                #expect(hint.hasSuffix("parlor join localhost:\(scene.port)"), "\(hint)")

                // The forward the hint gives, from B (the laptop) through A's sshd.
                let tunnel = try scene.lab.start(host: "B", scene.box.ssh + [
                    "-N", "-o", "ExitOnForwardFailure=yes", "-L", forward, scene.box.destination,
                ])
                _ = try await scene.lab.poll(host: "B", ["ss", "-Hltn", "sport = :\(scene.port)"], timeout: 15) {
                    !$0.standardOutput.isEmpty
                }
                let join = await scene.lab.run(host: "B", try ParlorCommand.command(
                    ["join", "localhost:\(scene.port)", "--bot", "easy", "--json", "--name", Self.guestName],
                    data: scene.guestHome), timeout: 120)
                #expect(join.status == 0, "join: \(join.standardOutput)\(join.standardError)")
                #expect(JSONLines.events("end", in: join.standardOutput).count == 1, "join: \(join.standardOutput)")
                #expect(await scene.host.wait(timeout: 30) == 0, "host: \(output)\(scene.host.errors())")
                await tunnel.stop()
                try await SSHPlayer.expectBothSidesSavedTheSameEnd(scene, guestOnB: true)
            }
        }

        @Test func jsonCommandsOverSSHWithoutAPtyPrintOnlyJSONAndNoEscapeCodes() async throws {
            try await Self.withScene("the commands over ssh without a pty", port: 7623) { scene in
                let box = scene.box
                let home = scene.guestHome
                // A match played over ssh without a pty, so `matches` has something to list.
                let played = try await box.run(try box.parlor(home, [
                    "play", "connect4", "--bot", "easy", "--vs", "bot:easy", "--seed", "1",
                ]))
                #expect(played.status == 0, "\(played.standardError)")
                #expect(played.standardOutput.contains("Result:"), "\(played.standardOutput)")
                Self.expectNoEscapeCodes(played, "parlor play over ssh")

                var browse = LabResult(status: nil, standardOutput: "", standardError: "")
                for _ in 0..<3 where !browse.standardOutput.contains("Ana's Connect Four") {
                    browse = try await box.run(try box.parlor(home, ["browse", "--json", "--timeout", "3"]))
                }
                #expect(browse.status == 0, "\(browse.standardError)")
                let games = try Self.expectOnlyJSONLines(browse, "parlor browse --json over ssh")
                #expect(games.contains { $0["name"] as? String == "Ana's Connect Four" }, "\(browse.standardOutput)")
                Self.expectNoEscapeCodes(browse, "parlor browse --json over ssh")

                let matches = try await box.run(try box.parlor(home, ["matches", "--json"]))
                #expect(matches.status == 0, "\(matches.standardError)")
                let saved = try Self.expectOnlyJSONLines(matches, "parlor matches --json over ssh")
                #expect(saved.count == 1 && saved.first?["state"] as? String == "ended", "\(matches.standardOutput)")
                Self.expectNoEscapeCodes(matches, "parlor matches --json over ssh")

                // TERM as a terminal would have it, but stdout is still ssh's pipe: still no escape codes.
                let text = try await box.run(["env", "TERM=xterm-256color"] + box.parlor(home, ["matches"]))
                #expect(text.status == 0 && text.standardOutput.contains("connect4"), "\(text.standardOutput)\(text.standardError)")
                Self.expectNoEscapeCodes(text, "parlor matches with TERM=xterm-256color over ssh")
            }
        }

        /// How a terminal that logs in over SSH is drawn for: the ssh client's TERM (or none) and the remote NO_COLOR.
        struct TerminalCase: Sendable, CustomStringConvertible {
            let term: String?
            let noColor: Bool
            var description: String { (term.map { "TERM=\($0)" } ?? "no TERM") + (noColor ? " NO_COLOR=1" : "") }
        }

        @Test func theTERMThatSSHPassesOnSetsTheColoursNO_COLORWinsAndDumbIsPlain() async throws {
            let cases = [
                TerminalCase(term: "xterm-256color", noColor: false), TerminalCase(term: "xterm", noColor: false),
                TerminalCase(term: "vt100", noColor: false), TerminalCase(term: "xterm-256color", noColor: true),
                TerminalCase(term: "dumb", noColor: false), TerminalCase(term: nil, noColor: false),
            ]
            let started = ContinuousClock.now
            try await Lab.with { lab in
                let box = try await SSHBox.start(in: lab)
                let homes = try cases.map { _ in try DataDirectory() }
                // All at once, each a bot match in a pty that sshd made (`ssh -tt`) whose bytes land in a file.
                // stdin stays open and silent, as a person's would: ssh's stdin is a pipe from `sleep`.
                let clients = try zip(cases, homes).map { terminal, home in
                    let remote = (terminal.noColor ? ["env", "NO_COLOR=1"] : [])
                        + (try box.parlor(home, ["play", "tictactoe", "--bot", "easy", "--vs", "bot:easy", "--seed", "1"]))
                    let environment = terminal.term.map { ["env", "TERM=\($0)"] } ?? ["env", "-u", "TERM"]
                    return try lab.start(host: "B", environment + ["bash", "-c", #"exec "$@" < <(sleep 60)"#, "ssh"]
                                         + box.login(tty: true, remote))
                }
                for (terminal, client) in zip(cases, clients) {
                    let plain = terminal.term == nil || terminal.term == "dumb"
                    // The full screen keeps the final board until a key; plain text just ends.
                    try await client.waitForOutput(containing: plain ? "Result:" : "Press any key to leave", timeout: 30)
                    let bytes = Array(client.output().utf8)
                    let colours = Self.colourCodes(in: bytes)
                    switch (terminal.term, terminal.noColor) {
                    case ("xterm-256color", false):
                        #expect(colours.contains { $0.contains("38;5;") }, "\(terminal): no 256-colour code in \(colours)")
                    case ("xterm", _):
                        #expect(!colours.isEmpty && !colours.contains { $0.contains("38;5;") }, "\(terminal): \(colours)")
                    case ("dumb", _), (nil, _):
                        #expect(!bytes.contains(0x1B), "\(terminal): an escape code in plain mode: \(client.output())")
                    default:
                        #expect(colours.isEmpty, "\(terminal): colour codes \(colours)")
                        #expect(bytes.contains(0x1B), "\(terminal): the full screen should still move the cursor")
                    }
                    client.send(SIGKILL)
                }
            }
            print("ssh: the TERM and NO_COLOR test took \(ContinuousClock.now - started)")
        }

        /// The SGR sequences (ESC [ … m) in `bytes` that set a colour: 30-37, 90-97 or 38;5;N.
        static func colourCodes(in bytes: [UInt8]) -> Set<String> {
            var found: Set<String> = []
            var index = 0
            while index + 1 < bytes.count {
                guard bytes[index] == 0x1B, bytes[index + 1] == UInt8(ascii: "[") else { index += 1; continue }
                var end = index + 2
                while end < bytes.count, bytes[end] == UInt8(ascii: ";") || (0x30...0x39).contains(bytes[end]) { end += 1 }
                if end < bytes.count, bytes[end] == UInt8(ascii: "m") {
                    let parameters = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
                    let numbers = parameters.split(separator: ";").compactMap { Int($0) }
                    if numbers.contains(where: { (30...38).contains($0) || (90...97).contains($0) }) { found.insert(parameters) }
                }
                index = end
            }
            return found
        }

        /// Every line of stdout is one JSON object; returns them.
        static func expectOnlyJSONLines(_ result: LabResult, _ what: String) throws -> [[String: Any]] {
            #expect(result.standardOutput.isEmpty || result.standardOutput.hasSuffix("\n"),
                    "\(what): the last line is not finished: \(result.standardOutput)")
            return try result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
                return try #require(object as? [String: Any], "\(what): not a JSON object: \(line)")
            }
        }

        static func expectNoEscapeCodes(_ result: LabResult, _ what: String) {
            #expect(!result.standardOutput.utf8.contains(0x1B), "\(what): ESC on stdout: \(result.standardOutput)")
            #expect(!result.standardError.utf8.contains(0x1B), "\(what): ESC on stderr: \(result.standardError)")
        }
    }
}

/// sshd inside a lab host, and the ssh command lines that reach it from another lab host.
struct SSHBox: Sendable {
    let lab: Lab
    /// `ssh -i KEY -o ... -p PORT`, everything before the destination.
    let ssh: [String]
    /// `root@10.77.0.1`.
    let destination: String

    /// Why SSH tests cannot run here, or nil.
    static let unavailableReason: String? = {
        if let reason = LabAvailability.unavailableReason { return reason }
        for tool in ["/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/tmux"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing; run scripts/install-deps"
        }
        if !ParlorBinary.isBuilt { return "parlor is not built (swift build --product parlor)" }
        return nil
    }()

    /// Starts sshd inside `host` with `scripts/lab sshd` and asks the script how to reach it.
    static func start(in lab: Lab, host: String = "A") async throws -> SSHBox {
        let started = await Lab.runScript(["sshd", host], prefix: lab.prefix, timeout: 30)
        guard started.succeeded else { throw LabError.scriptFailed(arguments: ["sshd", host], result: started) }
        let printed = await Lab.runScript(["ssh-command", host], prefix: lab.prefix, timeout: 10)
        guard printed.succeeded else { throw LabError.scriptFailed(arguments: ["ssh-command", host], result: printed) }
        // The lab's paths have no spaces or quotes, so the printed words split on spaces.
        let words = printed.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init)
        guard words.count > 2, let destination = words.last else {
            throw LabError.scriptFailed(arguments: ["ssh-command", host], result: printed)
        }
        return SSHBox(lab: lab, ssh: Array(words.dropLast()), destination: destination)
    }

    /// `env XDG_DATA_HOME=HOME USER=lab /abs/parlor ARGS` for the remote side (sshd's PATH does not reach the build).
    func parlor(_ home: DataDirectory, _ arguments: [String]) throws -> [String] {
        try ParlorCommand.command(arguments, data: home)
    }

    /// The ssh command on B that runs `remote` on the box; `tty` asks for a pty (`-tt`), as an interactive login has.
    func login(tty: Bool, _ remote: [String]) -> [String] {
        ssh + (tty ? ["-tt"] : ["-T"]) + [destination] + remote.map(Self.shellQuoted)
    }

    /// Runs `remote` on the box over ssh from B without a pty, as a script would.
    func run(_ remote: [String], timeout: Double = 60) async throws -> LabResult {
        await lab.run(host: "B", login(tty: false, remote), timeout: timeout)
    }

    /// ssh hands the remote command to the login shell as one string: quote each word.
    static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// The connect4 board as parlor's full screen draws it, and as the host's moves say it is.
enum ConnectFourScreen {
    /// Rows top to bottom, each 7 cells: "●" (first seat), "○" (second seat) or "·".
    typealias Board = [[Character]]

    /// The board on a screen: the six rows above its `└` line, a glyph every 4 columns from
    /// two past the row's left edge `│` (the board is centred, so the edge moves with the window).
    static func board(in screen: String) -> Board? {
        let lines = screen.components(separatedBy: "\n").map { Array($0) }
        guard let bottom = lines.firstIndex(where: { $0.contains("└") }), bottom >= 6 else { return nil }
        let rows = lines[(bottom - 6)..<bottom].map { line -> [Character] in
            guard let edge = line.firstIndex(of: "│") else { return [] }
            return (0..<7).map { column in edge + 2 + 4 * column < line.count ? line[edge + 2 + 4 * column] : " " }
        }
        return rows.allSatisfy { $0.allSatisfy { "●○·".contains($0) } } ? rows : nil
    }

    /// The board after `columns` (0-based) were played in turn, the first seat first.
    static func board(after columns: [Int]) -> Board {
        var board = Board(repeating: Array(repeating: "·", count: 7), count: 6)
        for (index, column) in columns.enumerated() {
            guard let row = (0..<6).reversed().first(where: { board[$0][column] == "·" }) else { continue }
            board[row][column] = index % 2 == 0 ? "●" : "○"
        }
        return board
    }

    /// A column that is not full, the centre first.
    static func openColumn(_ board: Board) -> Int? {
        [3, 2, 4, 1, 5, 0, 6].first { board[0][$0] == "·" }
    }
}

/// The person's side of a full-screen match over SSH: read the screen, check it, type a move.
/// `peer` is the bot on the other side, whose `--json` events say which columns were played.
enum SSHPlayer {
    /// The columns played so far, from the peer's `--json` move events.
    static func columns(_ peer: LabProcess) -> [Int] {
        JSONLines.events("move", in: peer.output()).compactMap { $0["move"] as? Int }
    }

    static func hasEnded(_ peer: LabProcess) -> Bool {
        !JSONLines.events("end", in: peer.output()).isEmpty
    }

    /// Waits until the screen says it is the person's turn and shows exactly the board the peer's moves make.
    @discardableResult
    static func waitForOurTurn(terminal: LabTmux, peer: LabProcess, timeout: Double = 20) async throws -> String {
        try await terminal.waitForScreen(timeout: timeout) { screen in
            screen.contains("Your turn")
                && ConnectFourScreen.board(in: screen) == ConnectFourScreen.board(after: columns(peer))
        }
    }

    /// Types one move (a column digit, then Enter) once the screen is ready for it; returns when the peer has it.
    static func playOneMove(terminal: LabTmux, peer: LabProcess) async throws {
        let screen = try await waitForOurTurn(terminal: terminal, peer: peer)
        let before = columns(peer)
        let column = try #require(ConnectFourScreen.openColumn(ConnectFourScreen.board(after: before)), "\(screen)")
        await terminal.send([String(column + 1), "Enter"])
        try await peer.waitForOutput("the move in column \(column + 1)", timeout: 15) { _ in
            columns(peer).count > before.count
        }
        #expect(columns(peer).dropFirst(before.count).first == column, "the other side got another column than typed")
    }

    /// Plays until the peer reports the end, checking the board before every move; returns the number of moves.
    static func playToTheEnd(terminal: LabTmux, peer: LabProcess) async throws -> Int {
        while !hasEnded(peer) {
            // Whichever comes first: our turn on the screen, or the end (the bot's winning move).
            let screen = try await terminal.waitForScreen(timeout: 30) { screen in
                hasEnded(peer) || (screen.contains("Your turn")
                    && ConnectFourScreen.board(in: screen) == ConnectFourScreen.board(after: columns(peer)))
            }
            if hasEnded(peer) { break }
            _ = screen
            try await playOneMove(terminal: terminal, peer: peer)
        }
        // The last board stays on the screen with the result.
        let final = ConnectFourScreen.board(after: columns(peer))
        _ = try await terminal.waitForScreen(timeout: 15) { screen in
            screen.contains("Press any key to leave") && ConnectFourScreen.board(in: screen) == final
        }
        return columns(peer).count
    }

    /// Kills the ssh client in `terminal` (SIGKILL, as a laptop dying would); the parlor that
    /// sshd ran for it (found by its data home) must exit within 5 s. Prints how long it took.
    static func killTheSSHClient(in terminal: LabTmux, remoteHome: DataDirectory, _ what: String) async throws {
        let remote = try #require(RemoteProcess.parlor(home: remoteHome.path).first, "\(what) does not run on A")
        let client = try #require(await terminal.commandPID(), "no ssh client in the pane")
        let killed = ContinuousClock.now
        kill(client, SIGKILL)
        let gone = await RemoteProcess.waitForExit(remote, timeout: .seconds(10))
        let took = ContinuousClock.now - killed
        print("ssh: \(what) exited \(took) after its ssh client was killed")
        #expect(gone, "\(what) still runs 10 s after its ssh client died")
        #expect(took < .seconds(5), "\(what) took \(took) to exit")
    }

    /// q leaves the final board (it answers no to the rematch question there, if the host's
    /// no, a bot without --rematch, has not withdrawn it yet); the result stays on the normal
    /// screen; nothing more is asked; ssh exits with parlor's status, 0.
    static func leaveAfterTheEnd(terminal: LabTmux) async throws {
        await terminal.send(["q"])
        let after = try await terminal.waitForScreen(timeout: 15) { $0.contains("Result: ") }
        #expect(after.contains("Result: "), "the result stays on the normal screen:\n\(after)")
        #expect(!after.contains("(y/n)"), "asked again after the final board:\n\(after)")
        let status = await terminal.waitForExit(timeout: 15)
        let last = await terminal.screen()
        if status != 0 {
            // What is still around, to tell a hung parlor from a hung ssh or tmux.
            let processes = await terminal.lab?.run(host: "A", ["ps", "-eo", "pid,ppid,stat,wchan:24,args"]).standardOutput ?? ""
            let relevant = processes.split(separator: "\n").filter { $0.contains("ssh") || $0.contains("parlor") || $0.contains("tmux") }
            Issue.record("ssh exited with \(status.map(String.init) ?? "nothing yet"); screen:\n\(last)\nprocesses:\n\(relevant.joined(separator: "\n"))")
        }
    }

    /// `parlor matches --json` on both sides lists the match as ended with the same state hash.
    static func expectBothSidesSavedTheSameEnd(_ scene: LabSuite.ParlorOverSSH.Scene, guestOnB: Bool = false) async throws {
        let hostList = await scene.lab.run(host: "A", try ParlorCommand.command(["matches", "--json"], data: scene.hostHome))
        let guestList = guestOnB
            ? await scene.lab.run(host: "B", try ParlorCommand.command(["matches", "--json"], data: scene.guestHome))
            : try await scene.box.run(try scene.box.parlor(scene.guestHome, ["matches", "--json"]))
        try expectTheSameEnd(hostList, guestList, peer: scene.host)
    }

    /// Both lists (`parlor matches --json`) have the match as ended with the same id and hash as `peer`'s end event.
    static func expectTheSameEnd(_ one: LabResult, _ other: LabResult, peer: LabProcess) throws {
        let first = try #require(JSONLines.objects(one.standardOutput).first, "\(one.standardOutput)\(one.standardError)")
        let second = try #require(JSONLines.objects(other.standardOutput).first, "\(other.standardOutput)\(other.standardError)")
        #expect(first["id"] as? String == second["id"] as? String)
        #expect(first["state"] as? String == "ended", "\(one.standardOutput)")
        #expect(second["state"] as? String == "ended", "\(other.standardOutput)")
        let hash = try #require(second["hash"] as? String)
        #expect(hash == first["hash"] as? String, "one side \(one.standardOutput) the other \(other.standardOutput)")
        if let end = JSONLines.events("end", in: peer.output()).last {
            #expect(end["hash"] as? String == hash, "the end event disagrees with what was saved")
        }
    }
}

/// Processes on the lab's hosts seen from here (one pid namespace for all).
enum RemoteProcess {
    /// Running parlor processes whose XDG_DATA_HOME is `home`.
    static func parlor(home: String) -> [pid_t] {
        guard let binary = try? ParlorCommand.executable(),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { pid_t($0) }.filter { pid in
            // A zombie's exe is unreadable: it has exited.
            guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
                  URL(fileURLWithPath: exe).resolvingSymlinksInPath().path == URL(fileURLWithPath: binary).resolvingSymlinksInPath().path,
                  let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environment.split(separator: 0).contains { Array($0) == Array("XDG_DATA_HOME=\(home)".utf8) }
        }
    }

    /// Whether `pid` has exited (or is a zombie) within `timeout`.
    static func waitForExit(_ pid: pid_t, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if hasExited(pid) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return hasExited(pid)
    }

    /// The processor time (user and system) `pid` has used so far, in seconds.
    static func processorSeconds(_ pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "(comm)": state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The parlor with data home `home` uses under a tenth of a core while it waits (no busy loop).
    static func expectIdle(home: String, _ what: String) async throws {
        let pid = try #require(parlor(home: home).first, "\(what): no such parlor runs")
        let before = try #require(processorSeconds(pid))
        try await Task.sleep(for: .seconds(2))
        let used = try #require(processorSeconds(pid)) - before
        print("ssh: \(what) used \(Int(used * 1000)) ms of processor time in 2 s")
        #expect(used < 0.2, "\(what) used \(used) s of processor time in 2 s")
    }

    static func hasExited(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // "PID (comm) STATE ...": Z is a zombie, X dead.
        guard let close = stat.lastIndex(of: ")") else { return true }
        let state = stat[stat.index(after: close)...].dropFirst().first
        return state == "Z" || state == "X"
    }
}
