import Foundation
import ParlorTestSupport
import Testing

/// Issue 14 items 2 and 3: one lobby (bare `parlor` in tmux) sits at two
/// tables on two real host processes on loopback, and each of GameKit's four
/// cases of a turn event is seen in its JSON turn events (`PARLOR_EVENTS`),
/// on its screen (the notice line under a board that stays put) and in the
/// bytes it wrote (the bell, BEL, and the window title), read with `tmux pipe-pane`.
/// The hosts are scripted: each reads its moves from a FIFO the test writes.
@Suite("Several matches at one lobby (tmux)", .serialized)
struct DeskTerminalTests {
    /// A host whose moves the test types: `parlor host GAME --json` reading a FIFO.
    struct ScriptedHost {
        let script: ScriptedParlor
        let port: Int
        var output: String { script.output }
        var matchID: String? { script.matchID }

        static func start(_ parlor: String, game: String, name: String, seat: String, home: String,
                          extra: [String] = []) async throws -> ScriptedHost {
            let script = try ScriptedParlor.start(parlor, ["host", game, "--json", "--port", "0", "--name", name, "--seat", seat] + extra,
                                                  home: home, environment: ["USER": name.lowercased()])
            let listening = await LeavingTerminalTests.waitForEvent(in: script.output) { $0["event"] as? String == "listening" }
            guard let port = listening?["port"] as? Int else {
                script.stop()
                throw TmuxSession.Failure.commandFailed(["host"], status: 1, output: script.tmux.screenText())
            }
            return ScriptedHost(script: script, port: port)
        }

        /// Types the host's move once it is the host's turn (`seat` to move, at least `moves` moves made).
        func play(_ move: String, seat: Int, after moves: Int) async -> Bool { await script.play(move, seat: seat, after: moves) }

        func stop() { script.stop() }
    }

    /// Bare `parlor` in tmux with `home` for its data and settings: its JSON turn
    /// lines go to `home/turns.json` and every byte it writes to `home/pane.bytes`.
    static func startLobby(_ parlor: String, home: (path: String, environment: [String: String]),
                           columns: Int = 100) throws -> TmuxSession {
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        var environment = home.environment
        environment["PARLOR_EVENTS"] = home.path + "/turns.json"
        environment["XDG_CONFIG_HOME"] = home.path + "/config"
        let lobby = try TmuxSession.start(["sh", "-c", "\"$0\"; echo \"exit status $?\"; sleep 60", parlor],
                                          columns: columns, rows: 30, environment: environment)
        try lobby.tmux(["pipe-pane", "-o", "-t", lobby.name, "cat >> '\(home.path)/pane.bytes'"])
        return lobby
    }

    static func bells(in path: String) -> Int {
        ((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()).filter { $0 == 0x07 }.count
    }

    @Test("a lobby at two tables: take the turn, redraw, a quiet update and a notice with the bell; Tab switches",
          .enabled(if: LeavingTerminalTests.canRun))
    func fourCasesAtTwoTables() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("desk")
        let hostsHome = NSTemporaryDirectory() + "parlor-desk-hosts-" + UUID().uuidString
        defer { for path in [home.path, hostsHome] { try? FileManager.default.removeItem(atPath: path) } }
        // Bo moves first in Connect Four; Ana moves first in Cy's tic-tac-toe.
        let bo = try await ScriptedHost.start(parlor, game: "connect4", name: "Bo", seat: "first", home: hostsHome + "/bo")
        defer { bo.stop() }
        let cy = try await ScriptedHost.start(parlor, game: "tictactoe", name: "Cy", seat: "second", home: hostsHome + "/cy")
        defer { cy.stop() }

        let events = home.path + "/turns.json", bytes = home.path + "/pane.bytes"
        let lobby = try Self.startLobby(parlor, home: home)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("a type an address"), "\(lobby.screenText())")
        func turns() -> [[String: Any]] { LeavingTerminalTests.events(inFile: events) }
        func turn(_ match: String?, _ turnCase: String) async -> [String: Any]? {
            await LeavingTerminalTests.waitForEvent(in: events) { $0["match"] as? String == match && $0["case"] as? String == turnCase }
        }

        // Join Bo's table: on screen, Bo to move (redraw); Bo moves, and it is our turn (take the turn, bell).
        lobby.send("a")
        lobby.type("127.0.0.1:\(bo.port)")
        lobby.send("Enter")
        #expect(await lobby.waitFor("Bo", timeout: .seconds(20)), "\(lobby.screenText())")
        let boMatch = try #require(await LeavingTerminalTests.waitForEvent(in: bo.output) { $0["event"] as? String == "started" }?["match"] as? String)
        #expect(await turn(boMatch, "redraw") != nil, "\(turns())")
        #expect(await bo.play("4", seat: 0, after: 0))
        let took = await turn(boMatch, "takeTurn")
        #expect(took?["bell"] as? Bool == true, "\(turns())")
        #expect(await lobby.waitFor("Your turn", timeout: .seconds(10)), "\(lobby.screenText())")
        #expect(await lobby.waitFor("Esc: your matches"), "\(lobby.screenText())")

        // Esc lists the matches; l goes to the lobby without leaving Bo's; join Cy's.
        lobby.send("Escape")
        #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Connect Four vs Bo"), "\(lobby.screenText())")
        lobby.send("l")
        #expect(await lobby.waitFor("You sit at 1 match (1 waits for you)"), "\(lobby.screenText())")
        lobby.send("a")
        lobby.type("127.0.0.1:\(cy.port)")
        lobby.send("Enter")
        let cyMatch = try #require(await LeavingTerminalTests.waitForEvent(in: cy.output) { $0["event"] as? String == "started" }?["match"] as? String)
        // Our first turn at Cy's table: taken on screen, no bell (nobody moved before it).
        let first = await turn(cyMatch, "takeTurn")
        #expect(first?["bell"] as? Bool == false, "\(turns())")
        #expect(await lobby.waitFor("Tic-tac-toe", timeout: .seconds(10)) || lobby.screenText().contains("Cy"), "\(lobby.screenText())")
        #expect(await lobby.waitFor("1 waiting for you"), "\(lobby.screenText())")

        // Play the centre and switch at once with Tab to Bo's match (it waits for us):
        // Cy's turn then begins in a match not on screen (a quiet update).
        lobby.send("5", "Enter", "Tab")
        #expect(await turn(cyMatch, "quietUpdate") != nil, "\(turns())")
        #expect(await lobby.waitFor("Your turn"), "\(lobby.screenText())")
        let boBoard = lobby.screen().prefix(20).joined(separator: "\n")
        #expect(boBoard.contains("Bo"), "\(boBoard)")
        let bellsBefore = Self.bells(in: bytes)

        // Cy moves while Bo's board is on screen: a notice on the bottom line, the bell, and the board untouched.
        #expect(await cy.play("1", seat: 1, after: 1))
        let noticed = await turn(cyMatch, "notice")
        #expect(noticed?["bell"] as? Bool == true, "\(turns())")
        let notice = "It's your turn in Tic-tac-toe vs Cy (\(cyMatch.prefix(8))): Cy played"
        #expect(await lobby.waitFor(notice), "\(lobby.screenText())")
        #expect(lobby.screen().last(where: { !$0.isEmpty })?.contains("Press Tab to switch.") == true, "\(lobby.screenText())")
        #expect(lobby.screen().prefix(20).joined(separator: "\n") == boBoard, "the board on screen changed:\n\(lobby.screenText())")
        let deadline = ContinuousClock.now + .seconds(5)
        while Self.bells(in: bytes) <= bellsBefore, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        #expect(Self.bells(in: bytes) == bellsBefore + 1, "one BEL for the notice")
        let written = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: bytes))) ?? Data(), as: UTF8.self)
        #expect(written.contains("\u{1B}]2;parlor \u{2014} your turn: "), "the title is set")

        // Every turn event names its match; the four cases all happened.
        let cases = Set(turns().compactMap { $0["case"] as? String })
        #expect(cases == ["takeTurn", "redraw", "notice", "quietUpdate"], "\(turns())")
        #expect(turns().allSatisfy { [boMatch, cyMatch].contains($0["match"] as? String ?? "") }, "\(turns())")

        // Tab switches to Cy's match; the notice is gone.
        lobby.send("Tab")
        #expect(await lobby.waitUntil { !$0.joined().contains("It's your turn in") }, "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Cy"), "\(lobby.screenText())")

        // Ctrl-C leaves both for now: each gets its resume line, and nothing was quit.
        lobby.send("C-c")
        #expect(await lobby.waitFor("exit status 130", timeout: .seconds(20)), "\(lobby.screenText())")
        #expect(lobby.screenText().components(separatedBy: "parlor resume ").count >= 3, "\(lobby.screenText())")
    }

    @Test("with bell = no in the settings file the turn that becomes ours rings nothing; an offline match sits beside a joined one",
          .enabled(if: LeavingTerminalTests.canRun))
    func bellOff() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("desk-quiet")
        let hostsHome = NSTemporaryDirectory() + "parlor-desk-quiet-hosts-" + UUID().uuidString
        defer { for path in [home.path, hostsHome] { try? FileManager.default.removeItem(atPath: path) } }
        let bo = try await ScriptedHost.start(parlor, game: "connect4", name: "Bo", seat: "first", home: hostsHome + "/bo")
        defer { bo.stop() }
        try FileManager.default.createDirectory(atPath: home.path + "/config/parlor", withIntermediateDirectories: true)
        try "bell = no\n".write(toFile: home.path + "/config/parlor/config", atomically: true, encoding: .utf8)
        let events = home.path + "/turns.json", bytes = home.path + "/pane.bytes"
        let lobby = try Self.startLobby(parlor, home: home)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("a type an address"), "\(lobby.screenText())")

        // An offline match against the easy bot first (we move first), then back to the lobby.
        lobby.send("p")
        #expect(await lobby.waitFor("Which game?"), "\(lobby.screenText())")
        lobby.send("3")  // tic-tac-toe
        #expect(await lobby.waitFor("How strong?"), "\(lobby.screenText())")
        lobby.send("e")
        #expect(await lobby.waitFor("Which seat?"), "\(lobby.screenText())")
        lobby.send("1")
        #expect(await lobby.waitFor("Esc: your matches", timeout: .seconds(15)), "\(lobby.screenText())")
        lobby.send("Escape")
        #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
        lobby.send("l")
        #expect(await lobby.waitFor("You sit at 1 match"), "\(lobby.screenText())")

        // Join Bo's table; Bo moves and the turn is ours: taken on screen, and no bell.
        lobby.send("a")
        lobby.type("127.0.0.1:\(bo.port)")
        lobby.send("Enter")
        let boMatch = try #require(await LeavingTerminalTests.waitForEvent(in: bo.output) { $0["event"] as? String == "started" }?["match"] as? String)
        #expect(await bo.play("4", seat: 0, after: 0))
        let took = await LeavingTerminalTests.waitForEvent(in: events) { $0["match"] as? String == boMatch && $0["case"] as? String == "takeTurn" }
        #expect(took?["bell"] as? Bool == false, "\(LeavingTerminalTests.events(inFile: events))")
        #expect(await lobby.waitFor("Your turn"), "\(lobby.screenText())")
        // Two matches now, the offline one waiting for us (the board's bottom line names it too: wait for the list).
        lobby.send("Escape")
        #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Tic-tac-toe vs Easy bot"), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Connect Four vs Bo"), "\(lobby.screenText())")
        try? await Task.sleep(for: .milliseconds(300))
        #expect(Self.bells(in: bytes) == 0, "bell = no: no BEL at all")
        lobby.send("C-c")
        #expect(await lobby.waitFor("exit status 130", timeout: .seconds(20)), "\(lobby.screenText())")
    }

    @Test("a game hosted from the lobby waits there, says where to join, and goes to the desk when a player joins",
          .enabled(if: LeavingTerminalTests.canRun))
    func hostedAtTheDesk() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("desk-host")
        let guestHome = LeavingTerminalTests.home("desk-host-guest")
        defer { for path in [home.path, guestHome.path] { try? FileManager.default.removeItem(atPath: path) } }
        try FileManager.default.createDirectory(atPath: guestHome.path, withIntermediateDirectories: true)
        let lobby = try Self.startLobby(parlor, home: home, columns: 120)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("a type an address"), "\(lobby.screenText())")
        // Host Connect Four (1) as Ana (Enter), no passcode (n), the first seat (1).
        lobby.send("h")
        #expect(await lobby.waitFor("Which game?"), "\(lobby.screenText())")
        lobby.send("1")
        #expect(await lobby.waitFor("Name:"), "\(lobby.screenText())")
        lobby.send("Enter")
        #expect(await lobby.waitFor("Ask joining players for a passcode?"), "\(lobby.screenText())")
        lobby.send("n")
        #expect(await lobby.waitFor("Which seat?"), "\(lobby.screenText())")
        lobby.send("1")
        #expect(await lobby.waitFor("Waiting for a player", timeout: .seconds(15)), "\(lobby.screenText())")
        let screen = lobby.screenText()
        let port = try #require(screen.range(of: #"on port (\d+)"#, options: .regularExpression).map {
            String(screen[$0].dropFirst("on port ".count))
        }, "\(screen)")
        #expect(screen.contains("parlor: games on the LAN"), "the lobby stays while it waits: \(screen)")

        let guestOut = guestHome.path + "/guest.json"
        let guest = try TmuxSession.start(["sh", "-c", "exec \"$0\" join 127.0.0.1:\"$1\" --bot easy --json --name Bo > \"$2\"",
                                           parlor, port, guestOut], environment: guestHome.environment)
        defer { guest.kill() }
        #expect(await lobby.waitFor("Your turn", timeout: .seconds(20)), "\(lobby.screenText())")
        #expect(await lobby.waitFor("Esc: your matches"), "\(lobby.screenText())")
        lobby.send("4", "Enter")
        // The guest's bot answers: the move went over the wire from the desk.
        #expect(await LeavingTerminalTests.waitForEvent(in: guestOut) { $0["event"] as? String == "move" && $0["seat"] as? Int == 1 } != nil,
                "\(LeavingTerminalTests.events(inFile: guestOut))")
        // Back in the lobby, q asks first; q again leaves the match for now, and the guest hears it.
        #expect(await lobby.waitFor("Your turn"), "\(lobby.screenText())")
        lobby.send("Escape")
        #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
        lobby.send("l")
        #expect(await lobby.waitFor("You sit at 1 match"), "\(lobby.screenText())")
        lobby.send("q")
        #expect(await lobby.waitFor("press q again to leave them for now"), "\(lobby.screenText())")
        lobby.send("q")
        #expect(await lobby.waitFor("exit status 0", timeout: .seconds(20)), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("parlor resume "), "\(lobby.screenText())")
    }

    @Test("q twice in the lobby stops a hosted game's wait for a player and leaves with 0",
          .enabled(if: LeavingTerminalTests.canRun))
    func stopHostingFromTheLobby() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("desk-stop")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let lobby = try Self.startLobby(parlor, home: home, columns: 120)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("a type an address"), "\(lobby.screenText())")
        for key in ["h", "3", "Enter", "n", "1"] {
            lobby.send(key)
            try? await Task.sleep(for: .milliseconds(150))
        }
        #expect(await lobby.waitFor("Waiting for a player", timeout: .seconds(15)), "\(lobby.screenText())")
        lobby.send("q")
        #expect(await lobby.waitFor("You are hosting: press q again"), "\(lobby.screenText())")
        lobby.send("q")
        #expect(await lobby.waitFor("exit status 0", timeout: .seconds(15)), "\(lobby.screenText())")
    }

    @Test("closing the terminal (SIGHUP) while sitting at two matches saves both as interrupted, nothing quit",
          .enabled(if: LeavingTerminalTests.canRun))
    func closedTerminalSavesEveryMatch() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("desk-hup")
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let lobby = try Self.startLobby(parlor, home: home)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("a type an address"), "\(lobby.screenText())")
        // Two offline matches against the easy bot, tic-tac-toe then Connect Four, each with a move played.
        for (game, move) in [("3", "5"), ("1", "4")] {
            for key in ["p", game, "e", "1"] {
                lobby.send(key)
                try? await Task.sleep(for: .milliseconds(150))
            }
            #expect(await lobby.waitFor("Your turn", timeout: .seconds(15)), "\(lobby.screenText())")
            lobby.send(move, "Enter")
            try? await Task.sleep(for: .milliseconds(1200))
            lobby.send("Escape")
            #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
            lobby.send("l")
            #expect(await lobby.waitFor("You sit at"), "\(lobby.screenText())")
        }
        #expect(lobby.screenText().contains("You sit at 2 matches"), "\(lobby.screenText())")
        try lobby.tmux(["kill-session", "-t", lobby.name])
        let deadline = ContinuousClock.now + .seconds(15)
        var states: [String] = []
        while ContinuousClock.now < deadline {
            states = try LeavingTerminalTests.matches(parlor, home: home.path).compactMap { $0["state"] as? String }
            if states == ["interrupted", "interrupted"] { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(states == ["interrupted", "interrupted"])
    }

    @Test("joining a table with --code from the lobby asks for the code unseen; a wrong one says so and asks again, Esc gives up, the other match goes on",
          .enabled(if: LeavingTerminalTests.canRun))
    func passcodeAtTheDesk() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("desk-code")
        let hostsHome = NSTemporaryDirectory() + "parlor-desk-code-hosts-" + UUID().uuidString
        defer { for path in [home.path, hostsHome] { try? FileManager.default.removeItem(atPath: path) } }
        let bo = try await ScriptedHost.start(parlor, game: "connect4", name: "Bo", seat: "first", home: hostsHome + "/bo",
                                              extra: ["--code", "tulip-42"])
        defer { bo.stop() }
        let lobby = try Self.startLobby(parlor, home: home, columns: 120)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("a type an address"), "\(lobby.screenText())")

        // An offline match first, left running at the desk.
        for key in ["p", "3", "e", "1"] {
            lobby.send(key)
            try? await Task.sleep(for: .milliseconds(150))
        }
        #expect(await lobby.waitFor("Esc: your matches", timeout: .seconds(15)), "\(lobby.screenText())")
        lobby.send("Escape")
        #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
        lobby.send("l")
        #expect(await lobby.waitFor("You sit at 1 match"), "\(lobby.screenText())")

        // Bo's table needs a code: the desk asks for it, and nothing typed shows.
        func join() async {
            lobby.send("a")
            lobby.type("127.0.0.1:\(bo.port)")
            lobby.send("Enter")
        }
        await join()
        let prompt = "Passcode for the game at 127.0.0.1:\(bo.port):"
        #expect(await lobby.waitFor(prompt, timeout: .seconds(15)), "\(lobby.screenText())")
        lobby.type("wrong-99")
        try? await Task.sleep(for: .milliseconds(300))
        #expect(!lobby.screenText().contains("wrong-99"), "the code is not echoed: \(lobby.screenText())")
        lobby.send("Enter")
        #expect(await lobby.waitFor("That passcode is wrong (1 of 3 tries)."), "\(lobby.screenText())")
        #expect(lobby.screenText().contains(prompt), "asked again: \(lobby.screenText())")
        // Esc gives up on Bo's table: a clear line in the lobby, and the offline match is still there.
        lobby.send("Escape")
        #expect(await lobby.waitFor("No passcode given for the game at 127.0.0.1:\(bo.port)."), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("You sit at 1 match"), "\(lobby.screenText())")

        // Again, with the right code: Bo's match goes on screen, beside the offline one.
        await join()
        #expect(await lobby.waitFor(prompt, timeout: .seconds(15)), "\(lobby.screenText())")
        lobby.type("tulip-42")
        lobby.send("Enter")
        #expect(await LeavingTerminalTests.waitForEvent(in: bo.output) { $0["event"] as? String == "started" } != nil,
                "\(lobby.screenText())")
        #expect(await lobby.waitFor("Esc: your matches", timeout: .seconds(15)), "\(lobby.screenText())")
        #expect(!lobby.screenText().contains("tulip-42"), "\(lobby.screenText())")
        lobby.send("Escape")
        #expect(await lobby.waitFor("Connect Four vs Bo"), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Tic-tac-toe vs Easy bot"), "\(lobby.screenText())")
        lobby.send("C-c")
        #expect(await lobby.waitFor("exit status 130", timeout: .seconds(20)), "\(lobby.screenText())")
    }

    @Test("a match on screen ends: the desk asks the rematch question on its final board while another match goes on; y starts the rematch",
          .enabled(if: LeavingTerminalTests.canRun))
    func rematchAtTheDesk() async throws {
        let parlor = try #require(LeavingTerminalTests.parlor)
        let home = LeavingTerminalTests.home("desk-rematch")
        let hostsHome = NSTemporaryDirectory() + "parlor-desk-rematch-hosts-" + UUID().uuidString
        defer { for path in [home.path, hostsHome] { try? FileManager.default.removeItem(atPath: path) } }
        let bo = try await ScriptedHost.start(parlor, game: "connect4", name: "Bo", seat: "first", home: hostsHome + "/bo")
        defer { bo.stop() }
        let cy = try await ScriptedHost.start(parlor, game: "tictactoe", name: "Cy", seat: "first", home: hostsHome + "/cy",
                                              extra: ["--rematch", "1"])
        defer { cy.stop() }
        let lobby = try Self.startLobby(parlor, home: home, columns: 120)
        defer { lobby.kill() }
        #expect(await lobby.waitFor("a type an address"), "\(lobby.screenText())")
        func join(_ port: Int) {
            lobby.send("a")
            lobby.type("127.0.0.1:\(port)")
            lobby.send("Enter")
        }
        // Bo's match waits for Bo; from the lobby, join Cy's tic-tac-toe too.
        join(bo.port)
        #expect(await LeavingTerminalTests.waitForEvent(in: bo.output) { $0["event"] as? String == "started" } != nil, "\(lobby.screenText())")
        #expect(await lobby.waitFor("Esc: your matches", timeout: .seconds(15)), "\(lobby.screenText())")
        lobby.send("Escape")
        #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
        lobby.send("l")
        #expect(await lobby.waitFor("You sit at 1 match"), "\(lobby.screenText())")
        join(cy.port)

        // Cy takes the top row while we play 4 and 5.
        #expect(await cy.play("1", seat: 0, after: 0))
        #expect(await lobby.waitFor("Your turn", timeout: .seconds(15)), "\(lobby.screenText())")
        lobby.send("4", "Enter")
        #expect(await cy.play("2", seat: 0, after: 2))
        #expect(await LeavingTerminalTests.waitForEvent(in: cy.output) { $0["event"] as? String == "turn" && $0["seat"] as? Int == 1
            && ($0["sequence"] as? Int ?? 0) >= 3 } != nil)
        try? await Task.sleep(for: .milliseconds(300))
        lobby.send("5", "Enter")
        #expect(await cy.play("3", seat: 0, after: 4))

        // The final board asks, as join does, and says Cy offers one.
        #expect(await lobby.waitFor("Rematch with seats swapped? y: yes", timeout: .seconds(15)), "\(lobby.screenText())")
        #expect(await lobby.waitFor("Cy offers a rematch with seats swapped."), "\(lobby.screenText())")
        // Bo's match goes on meanwhile: Bo moves, and the notice comes under the question.
        #expect(await bo.play("4", seat: 0, after: 0))
        #expect(await lobby.waitFor("It's your turn in Connect Four vs Bo"), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Rematch with seats swapped? y: yes"), "still asked: \(lobby.screenText())")

        // y: the rematch begins at Cy's table (we move first now), and nothing was printed over the screen.
        lobby.send("y")
        let rematch = await LeavingTerminalTests.waitForEvent(in: cy.output) { $0["event"] as? String == "rematch" }
        #expect(rematch != nil, "\(LeavingTerminalTests.events(inFile: cy.output))")
        #expect(await lobby.waitFor("Your turn", timeout: .seconds(15)), "\(lobby.screenText())")
        #expect(!lobby.screenText().contains("Rematch: match"), "said in the lobby, not over the board: \(lobby.screenText())")
        lobby.send("Escape")
        #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Tic-tac-toe vs Cy"), "\(lobby.screenText())")
        #expect(lobby.screenText().contains("Connect Four vs Bo"), "\(lobby.screenText())")
        lobby.send("C-c")
        #expect(await lobby.waitFor("exit status 130", timeout: .seconds(20)), "\(lobby.screenText())")
    }
}
