import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Testing

/// Issue 14's lab test for a player in several matches: one lobby (bare
/// `parlor` in a real terminal, tmux) on lab host A joins three Connect Four
/// tables by name through the lab's avahi-daemons, two hosted on B (Bo and
/// Cy) and one on C (Di), and each of GameKit's four cases of a turn event is
/// seen in the lobby's JSON turn lines (`PARLOR_EVENTS`), the notice for
/// another match on the pane's bottom line under a board that stays put, and
/// exactly one BEL byte for it in the bytes the lobby wrote (`tmux pipe-pane`).
/// The hosts are people whose moves the test writes into FIFOs, so every
/// table waits as long as the test needs.
@Suite(.serialized, .enabled(if: LabAvailability.isAvailable && LabAvailability.hasTmux && Lab.builtProduct("parlor") != nil,
                             "needs the lab (root, namespaces, avahi), tmux and a built parlor"))
struct DeskLabTests {
    /// `parlor host connect4 --json` on a lab host, moving first, its moves read from a FIFO.
    struct ScriptedHost {
        let name: String
        let scratch: LinkCutTests.Scratch
        let process: LabProcess

        static func start(_ lab: Lab, on host: String, name: String, port: String) async throws -> ScriptedHost {
            let scratch = LinkCutTests.Scratch()
            let process = try lab.start(host: host, ["sh", "-c", "exec \"$@\" < \"$0\"", scratch.fifo]
                + (try LinkCutTests.command(scratch.hostHome, ["host", "connect4", "--json", "--port", port,
                                                               "--name", name, "--seat", "first"])))
            try await process.waitForOutput(containing: "\"event\":\"listening\"", timeout: 30)
            return ScriptedHost(name: name, scratch: scratch, process: process)
        }

        /// The service the lobby lists: "Bo's Connect Four".
        var service: String { "\(name)'s Connect Four" }

        /// The match id once a guest sat down.
        func matchID() async throws -> String {
            try await process.waitForOutput(containing: "\"event\":\"started\"", timeout: 30)
            return try #require(JSONLines.events("started", in: process.output()).first?["match"] as? String)
        }

        /// Types `move` once it is the host's turn with at least `moves` moves made.
        func play(_ move: String, after moves: Int) async throws {
            try await process.waitForOutput("\(name)'s turn after \(moves) moves", timeout: 30) { output in
                JSONLines.events("turn", in: output).contains { $0["seat"] as? Int == 0 && ($0["sequence"] as? Int ?? 0) >= moves }
            }
            scratch.type(move)
        }
    }

    static func bells(in path: String) -> Int {
        ((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()).filter { $0 == 0x07 }.count
    }

    /// Polls the lobby's JSON turn lines until one for `match` has `turnCase`.
    static func turn(in path: String, _ match: String, _ turnCase: String) async -> [String: Any]? {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if let event = JSONLines.objects(text).first(where: { $0["match"] as? String == match && $0["case"] as? String == turnCase }) {
                return event
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// In the lobby's list of games on the LAN: the number to press for `service`, once it is listed as open.
    static func number(of service: String, in lobby: TmuxSession) async throws -> String {
        var found: String?
        _ = await lobby.waitUntil(timeout: .seconds(30)) { screen in
            found = screen.lazy.compactMap { line -> String? in
                guard line.contains(service), let range = line.range(of: #"^[> ] (\d)  "#, options: .regularExpression) else { return nil }
                return String(line[range].filter(\.isNumber))
            }.first
            return found != nil
        }
        return try #require(found, "\(service) is not listed:\n\(lobby.screenText())")
    }

    @Test func aLobbyOnAAtThreeTablesOnBAndCGetsEachOfTheFourCasesRight() async throws {
        try await Lab.with(hosts: 3) { lab in
            let bo = try await ScriptedHost.start(lab, on: "B", name: "Bo", port: "7630")
            let cy = try await ScriptedHost.start(lab, on: "B", name: "Cy", port: "7631")
            let di = try await ScriptedHost.start(lab, on: "C", name: "Di", port: "7632")
            let home = LinkCutTests.Scratch()
            let events = home.guestHome + "/turns.json", bytes = home.guestHome + "/pane.bytes"
            // The tmux server runs here; the lobby in its pane runs inside host A (scripts/lab exec), under
            // sh, which prints its exit status (tmux does not always report a pane's own when the machine is busy).
            let lobby = try TmuxSession.start(
                ["sh", "-c", "\"$0\" exec A \"$1\"; echo \"exit status $?\"", Lab.script.path, try LinkCutTests.parlor()],
                columns: 100, rows: 30,
                environment: ["PARLOR_LAB_PREFIX": lab.prefix, "XDG_DATA_HOME": home.guestHome,
                              "XDG_CONFIG_HOME": home.guestHome + "/config", "PARLOR_EVENTS": events,
                              "TERM": "xterm-256color", "LANG": "C.UTF-8", "USER": "ana"])
            defer { lobby.kill() }
            try lobby.tmux(["pipe-pane", "-o", "-t", lobby.name, "cat >> '\(bytes)'"])
            func turns() -> [[String: Any]] { JSONLines.objects((try? String(contentsOfFile: events, encoding: .utf8)) ?? "") }

            /// Goes to the lobby (unless `sittingAt` is nil: it is on screen already), joins `host`'s table by
            /// its number there, sees the host to move on screen (redraw), and the host's first move makes it
            /// ours (take the turn); returns the match id and that turn line.
            func sitDown(at host: ScriptedHost, sittingAt: String?) async throws -> (String, [String: Any]?) {
                if let sittingAt {
                    lobby.send("Escape")
                    #expect(await lobby.waitFor("your matches (* waits for you)"), "\(lobby.screenText())")
                    lobby.send("l")
                    #expect(await lobby.waitFor("You sit at \(sittingAt)"), "\(lobby.screenText())")
                }
                lobby.send(try await Self.number(of: host.service, in: lobby))
                let match = try await host.matchID()
                #expect(await Self.turn(in: events, match, "redraw") != nil, "\(turns())")
                try await host.play("4", after: 0)
                let took = await Self.turn(in: events, match, "takeTurn")
                #expect(took != nil, "\(turns())")
                #expect(await lobby.waitFor("Your turn", timeout: .seconds(20)), "\(lobby.screenText())")
                return (match, took)
            }

            // Bo's table by name (the first on B): Bo's move makes the turn ours after the other side moved, so the bell rings.
            let (boMatch, boTurn) = try await sitDown(at: bo, sittingAt: nil)
            #expect(boTurn?["bell"] as? Bool == true, "\(turns())")
            #expect(await lobby.waitFor("Esc: your matches"), "\(lobby.screenText())")

            // Back to the lobby (Bo's match waits for us) and Cy's table, the second on B.
            let (cyMatch, _) = try await sitDown(at: cy, sittingAt: "1 match")
            // Our move, and Tab to Bo's match at once: Cy's turn begins off screen (a quiet update).
            lobby.send("4", "Enter", "Tab")
            #expect(await Self.turn(in: events, cyMatch, "quietUpdate") != nil, "\(turns())")
            #expect(await lobby.waitFor("Your turn"), "\(lobby.screenText())")

            // The lobby again, and Di's table on C: the match on screen.
            let (diMatch, _) = try await sitDown(at: di, sittingAt: "2 matches")
            try? await Task.sleep(for: .milliseconds(500))
            let diBoard = lobby.screen().prefix(20).joined(separator: "\n")
            #expect(diBoard.contains("Di"), "\(diBoard)")
            let bellsBefore = Self.bells(in: bytes)

            // Cy (on B) moves while Di's board is on screen: the notice on the bottom line, one BEL, the board untouched.
            try await cy.play("3", after: 2)
            #expect(await Self.turn(in: events, cyMatch, "notice")?["bell"] as? Bool == true, "\(turns())")
            let notice = "It's your turn in Connect Four vs Cy (\(cyMatch.prefix(8))): Cy played"
            #expect(await lobby.waitFor(notice, timeout: .seconds(20)), "\(lobby.screenText())")
            let bottom = lobby.screen().last { !$0.isEmpty } ?? ""
            #expect(bottom.contains(notice) && bottom.contains("Press Tab to switch"), "the bottom line: \(lobby.screenText())")
            #expect(lobby.screen().prefix(20).joined(separator: "\n") == diBoard, "the board on screen changed:\n\(lobby.screenText())")
            let deadline = ContinuousClock.now + .seconds(5)
            while Self.bells(in: bytes) <= bellsBefore, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
            #expect(Self.bells(in: bytes) == bellsBefore + 1, "one BEL for the notice")

            // Every turn line names one of the three matches, and all four cases happened; the notice only for Cy's.
            let all = turns()
            #expect(Set(all.compactMap { $0["case"] as? String }) == ["takeTurn", "redraw", "notice", "quietUpdate"], "\(all)")
            #expect(all.allSatisfy { [boMatch, cyMatch, diMatch].contains($0["match"] as? String ?? "") }, "\(all)")
            #expect(all.filter { $0["case"] as? String == "notice" }.allSatisfy { $0["match"] as? String == cyMatch }, "\(all)")

            // Ctrl-C leaves all three for now: exit 130 and a resume line for each.
            lobby.send("C-c")
            #expect(await lobby.waitFor("exit status 130", timeout: .seconds(30)), "\(lobby.screenText())")
            #expect(lobby.screenText().components(separatedBy: "parlor resume ").count == 4, "\(lobby.screenText())")
            for host in [bo, cy, di] { await host.process.stop() }
        }
    }
}
