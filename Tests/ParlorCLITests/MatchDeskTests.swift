import Foundation
import Games
import Match
import ParlorTestSupport
import Testing
import TerminalUI

/// The lobby's desk without a terminal (frames go nowhere): two real
/// controllers, Ana at both through the desk's keys, Ben scripted; the JSON
/// turn lines and the lobby's lines show each of the four cases.
@Suite("The desk of several matches")
struct MatchDeskTests {
    /// One match at the desk: Ana (seat 0, keys at the desk) against scripted Ben.
    struct Seated {
        let controller: MatchController
        let ben: ScriptedParticipant
        let run: Task<FrontendExit, Never>
        var id: String { state.matchID.hex }
        let state: MatchState
    }

    static func seat(_ desk: MatchDesk, seed: UInt64, benDelivery: [DeliveryScript] = []) async throws -> Seated {
        let state = MatchFixtures.newMatch("connect4", seed: seed)
        let ana = LocalParticipant(playerID: state.seats[0].playerID)
        let ben = ScriptedParticipant(playerID: state.seats[1].playerID, script: benDelivery)
        let controller = MatchController(state: state, participants: [ana, ben])
        ben.attach(to: controller)
        let prepared = await desk.frontend().prepare(controller: controller, locals: [ana])
        try await controller.start()
        return Seated(controller: controller, ben: ben, run: Task { await prepared.run() }, state: state)
    }

    static func turns(_ path: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    static func wait(_ what: String, timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test("take the turn, redraw, a quiet update and a notice, each once it happens; Tab switches; leaving returns every match as interrupted")
    func fourCases() async throws {
        let path = NSTemporaryDirectory() + "parlor-desk-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(fd) }
        // Not in full-screen mode: every frame is dropped, the logic runs as on a terminal.
        let desk = MatchDesk(terminal: Terminal(input: -1, output: -1), options: .plainASCII, bell: true, eventsFD: fd) {}
        func happened(_ id: String, _ turnCase: String) -> Bool {
            Self.turns(path).contains { $0["match"] as? String == id && $0["case"] as? String == turnCase }
        }

        // Match A on screen, our first turn: taken, no bell.
        let a = try await Self.seat(desk, seed: 1, benDelivery: [.acceptAfter(.milliseconds(300))])
        #expect(await Self.wait("A's first turn") { happened(a.id, "takeTurn") })
        #expect(Self.turns(path).first?["bell"] as? Bool == false)
        #expect(desk.hasScreen && desk.matchCount == 1)
        // Esc lists the matches, l opens the lobby; match B goes on screen when it starts.
        #expect(desk.handle(.escape) == .handled)
        #expect(desk.handle(.character("l")) == .showLobby && !desk.hasScreen)
        let b = try await Self.seat(desk, seed: 2)
        #expect(await Self.wait("B's first turn") { happened(b.id, "takeTurn") })
        // Our move in B: Ben's turn on screen is a redraw.
        _ = desk.handle(.character("4"))
        _ = desk.handle(.enter)
        #expect(await Self.wait("B redraw") { happened(b.id, "redraw") })
        // Tab: to A, which waits for us; our move there, Ben's confirmation late, and Esc to the
        // list before it comes: Ben's turn in A then begins off screen, a quiet update.
        #expect(desk.handle(.tab) == .handled)
        _ = desk.handle(.character("4"))
        _ = desk.handle(.enter)
        #expect(desk.handle(.escape) == .handled, "the list")
        #expect(await Self.wait("A quiet") { happened(a.id, "quietUpdate") })
        #expect(desk.handle(.escape) == .handled, "back to A's board")
        // Ben moves in B while A is on screen: a notice, with the bell.
        _ = await b.ben.play(3)
        #expect(await Self.wait("B notice") { happened(b.id, "notice") })
        #expect(Self.turns(path).last { $0["case"] as? String == "notice" }?["bell"] as? Bool == true)
        #expect(desk.homeLines().contains { $0.hasPrefix("It's your turn in Connect Four vs Ben (\(b.state.matchID.short)): Ben played 4.") },
                "\(desk.homeLines())")
        // Tab goes to B, and the notice about it is gone.
        #expect(desk.handle(.tab) == .handled)
        #expect(!desk.homeLines().contains { $0.hasPrefix("It's your turn") }, "\(desk.homeLines())")
        // Every turn line names one of the two matches.
        #expect(Self.turns(path).allSatisfy { [a.id, b.id].contains($0["match"] as? String ?? "") })

        // Ctrl-C leaves both for now: each frontend returns interrupted, nothing quit.
        #expect(desk.handle(.interrupt) == .leftAll)
        for seated in [a, b] {
            guard case .interrupted(_, let state) = await seated.run.value else { Issue.record("not left for now"); continue }
            #expect(!state.isEnded)
        }
    }

    @Test("with three matches waiting, Tab goes first to the match the notice names, which counts the others, then to each in turn")
    func tabGoesWhereTheNoticePoints() async throws {
        let path = NSTemporaryDirectory() + "parlor-desk-tab-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(fd) }
        let desk = MatchDesk(terminal: Terminal(input: -1, output: -1), options: .plainASCII, bell: true, eventsFD: fd) {}
        func count(_ id: String, _ turnCase: String) -> Int {
            Self.turns(path).filter { $0["match"] as? String == id && $0["case"] as? String == turnCase }.count
        }
        // Three matches, each started from the lobby; our move in each, so that Ben is to move in all three.
        var seated: [Seated] = []
        for seed in UInt64(1)...3 {
            if !seated.isEmpty {
                #expect(desk.handle(.escape) == .handled)
                #expect(desk.handle(.character("l")) == .showLobby)
            }
            let match = try await Self.seat(desk, seed: seed)
            #expect(await Self.wait("first turn") { count(match.id, "takeTurn") == 1 })
            #expect(desk.matchOnScreen == match.state.matchID)
            _ = desk.handle(.character("4"))
            _ = desk.handle(.enter)
            #expect(await Self.wait("Ben's turn") { count(match.id, "redraw") == 1 })
            seated.append(match)
        }
        let (a, b, c) = (seated[0], seated[1], seated[2])
        // Ben answers in A, then in B (notices, C on screen), then in C (on screen): all three wait for us.
        _ = await a.ben.play(3)
        #expect(await Self.wait("A notice") { count(a.id, "notice") == 1 })
        _ = await b.ben.play(3)
        #expect(await Self.wait("B notice") { count(b.id, "notice") == 1 })
        _ = await c.ben.play(3)
        #expect(await Self.wait("C's turn") { count(c.id, "takeTurn") == 2 })
        let notice = "It's your turn in Connect Four vs Ben (\(b.state.matchID.short)): Ben played 4. Press Tab to switch (1 more waits)."
        #expect(desk.homeLines().contains(notice), "\(desk.homeLines())")
        // Tab: B, which the notice names; then C and A, each match in turn, and B again.
        for next in [b, c, a, b] {
            #expect(desk.handle(.tab) == .handled)
            #expect(desk.matchOnScreen == next.state.matchID, "Tab went to another match than \(next.state.matchID.short)")
        }
        #expect(desk.handle(.interrupt) == .leftAll)
        for match in seated { _ = await match.run.value }
    }
}
