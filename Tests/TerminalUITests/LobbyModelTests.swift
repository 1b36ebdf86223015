import Testing
@testable import TerminalUI

/// The lobby's keys, one by one, with rules of the test's own (the tmux test plays the lobby end to end).
@Suite("The lobby's keys")
struct LobbyModelTests {
    /// An address is anything with a colon; a name is anything but "root".
    typealias Model = LobbyModel<String>

    static let rules = Model.Rules(
        catalog: [("connect4", "Connect Four"), ("reversi", "Reversi")], levels: ["easy", "medium", "hard"],
        address: { $0.contains(":") ? .success($0) : .failure(Model.Refusal("'\($0)': no port")) },
        playerName: { $0 == "root" ? .failure(Model.Refusal("That name cannot be used: reserved")) : .success($0) })

    static func game(_ name: String, join: String? = nil, watch: String? = nil) -> Model.Game {
        Model.Game(row: GameRow(name: name, game: "Connect Four", host: "Ana", seats: "1 of 2 seated", state: "waiting",
                                addresses: "192.0.2.7:7777", note: join.map { "cannot join: \($0)" }),
                   joinRefusal: join, watchRefusal: watch)
    }

    static func type(_ text: String, into model: inout Model) -> Model.Choice? {
        var choice: Model.Choice?
        for character in text { choice = model.handle(.character(character)) ?? choice }
        return choice
    }

    @Test("h: the game, the name (prefilled, editable; a bad one says why), a passcode, the seat")
    func hosting() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "medium")
        _ = model.handle(.character("h"))
        _ = model.handle(.character("2"))
        #expect(model.lines(width: 80).contains("Name: Ana_"))
        for _ in 0..<3 { _ = model.handle(.backspace) }
        _ = Self.type("root", into: &model)
        _ = model.handle(.enter)
        #expect(model.lines(width: 80).contains("That name cannot be used: reserved"), "\(model.lines(width: 80))")
        for _ in 0..<4 { _ = model.handle(.backspace) }
        _ = Self.type("Bo", into: &model)
        _ = model.handle(.enter)
        _ = model.handle(.character("y"))
        #expect(model.handle(.character("2")) == .host("reversi", name: "Bo", passcode: true, seat: .second))
    }

    @Test("p: the game, the level (Enter takes the default, or its first letter), the seat; Esc goes back one step")
    func offline() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "easy")
        _ = model.handle(.character("p"))
        _ = model.handle(.enter)
        #expect(model.lines(width: 80).contains("  1  easy (Enter)"), "\(model.lines(width: 80))")
        _ = model.handle(.escape)
        #expect(model.mode == .chooseGame(forHosting: false))
        _ = model.handle(.enter)
        _ = model.handle(.enter)
        #expect(model.handle(.character("r")) == .play("connect4", level: "easy", seat: .random))
        var byLetter = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "easy")
        _ = byLetter.handle(.character("p"))
        _ = byLetter.handle(.character("2"))
        _ = byLetter.handle(.character("h"))
        #expect(byLetter.handle(.enter) == .play("reversi", level: "hard", seat: .first))
    }

    @Test("a: a typed address joins it; a refused one shows the refusal and stays")
    func address() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "medium")
        _ = model.handle(.character("a"))
        _ = Self.type("192.0.2.7", into: &model)
        #expect(model.handle(.enter) == nil)
        #expect(model.mode == .address)
        #expect(model.lines(width: 200).contains("'192.0.2.7': no port"), "\(model.lines(width: 200))")
        _ = Self.type(":7477", into: &model)
        #expect(model.handle(.enter) == .joinAddress("192.0.2.7:7477"))
    }

    @Test("Enter or a number joins; a game that cannot be joined says why; the selection stays on its game")
    func joining() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "medium")
        #expect(model.handle(.enter) == nil)
        #expect(model.lines(width: 200).contains { $0.hasPrefix("No game to join yet.") })
        model.show(games: [Self.game("Bo"), Self.game("Cy", join: "it is full")])
        _ = model.handle(.down)
        #expect(model.handle(.enter) == nil)
        #expect(model.lines(width: 200).contains("\"Cy\" cannot be joined: it is full"), "\(model.lines(width: 200))")
        // A new game listed above keeps the selection on Cy, and Cy keeps its number.
        model.show(games: [Self.game("Al"), Self.game("Bo"), Self.game("Cy", join: "it is full")])
        #expect(model.lines(width: 200).contains { $0.hasPrefix("> 2  Cy") }, "\(model.lines(width: 200))")
        #expect(model.handle(.character("1")) == .join(at: 1))
        #expect(model.handle(.character("9")) == nil)
        #expect(model.lines(width: 200).contains("There is no game 9."))
    }

    @Test("w watches the selected game, or says why it cannot be watched")
    func watching() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "medium")
        #expect(model.handle(.character("w")) == nil)
        #expect(model.lines(width: 200).contains("No game to watch yet."))
        model.show(games: [Self.game("Bo", join: "already playing"), Self.game("Cy", join: "already playing", watch: "takes no spectators")])
        #expect(model.handle(.character("w")) == .watch(at: 0))
        _ = model.handle(.down)
        #expect(model.handle(.character("w")) == nil)
        #expect(model.lines(width: 200).contains("\"Cy\" cannot be watched: takes no spectators"), "\(model.lines(width: 200))")
    }

    @Test("a game keeps its number while others come and go; a newcomer takes the lowest free number")
    func stableNumbers() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "medium")
        model.show(games: [Self.game("Al"), Self.game("Bo"), Self.game("Cy")])
        model.show(games: [Self.game("Bo"), Self.game("Cy")])
        let lines = model.lines(width: 200)
        #expect(lines.contains { $0.hasPrefix("> 2  Bo") } && lines.contains { $0.hasPrefix("  3  Cy") }, "\(lines)")
        #expect(model.handle(.character("3")) == .join(at: 1))
        #expect(model.handle(.character("1")) == nil, "game 1 left")
        model.show(games: [Self.game("Di"), Self.game("Bo"), Self.game("Cy")])
        #expect(model.lines(width: 200).contains { $0.contains("1  Di") }, "\(model.lines(width: 200))")
        #expect(model.handle(.character("1")) == .join(at: 0))
    }

    @Test("your own matches are listed apart, above the LAN's games; Enter or r resumes one, one being played says why not")
    func ownMatches() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "medium")
        model.show(mine: [Model.Mine(id: "aa11", text: "Connect Four vs Bo (aa11) · interrupted · your turn"),
                          Model.Mine(id: "bb22", text: "Reversi vs Cy (bb22) · playing", resumeRefusal: "it is being played right now")])
        model.show(games: [Self.game("Bo")])
        let page = model.page(width: 200)
        let heading = page.lines.firstIndex(of: "Your matches (Enter or r resumes):") ?? .max
        let table = page.lines.firstIndex { $0.contains("NAME") } ?? -1
        #expect(heading < table, "your matches come first, apart: \(page.lines)")
        #expect(page.selected.map { page.lines[$0] } == "> Connect Four vs Bo (aa11) · interrupted · your turn", "\(page.lines)")
        #expect(page.lines.last?.contains("r resume") == true, "\(page.lines)")
        #expect(model.handle(.enter) == .resume("aa11"))
        #expect(model.handle(.character("w")) == nil, "w watches a LAN game, not one of yours")
        #expect(model.lines(width: 200).contains("Choose a game on the LAN with ↑/↓, then press w."))
        _ = model.handle(.down)
        #expect(model.handle(.character("r")) == nil)
        #expect(model.lines(width: 200).contains { $0.hasSuffix("cannot be resumed: it is being played right now") })
        _ = model.handle(.down)
        #expect(model.selection == .game("Bo"))
        #expect(model.handle(.enter) == .join(at: 0))
    }

    @Test("a failed browse says why and how to join without discovery; q and Ctrl-C leave, Esc on the list only says how")
    func discoveryAndLeaving() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "medium")
        model.discoveryFailed("DNS-SD is not available: libdns_sd.so.1 is missing")
        let lines = model.lines(width: 200)
        #expect(lines.contains("DNS-SD is not available: libdns_sd.so.1 is missing"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("Without discovery, join a host by the address it printed") })
        for key: Key in [.character("q"), .interrupt] { #expect(model.handle(key) == .quit) }
        #expect(model.handle(.escape) == nil)
        #expect(model.lines(width: 200).contains("Press q to leave parlor."))
    }

    @Test("a refused DNS-SD operation is said on the lobby's message line (games may be missing for a moment) until the next key")
    func refusedDiscoveryIsSaid() {
        var model = Model(rules: Self.rules, defaultName: "Ana", defaultLevel: "medium")
        model.tell("Some games may be missing for a moment: the daemon refused a connection")
        #expect(model.lines(width: 200).contains { $0.contains("Some games may be missing for a moment") }, "\(model.lines(width: 200))")
        _ = model.handle(.down)
        #expect(!model.lines(width: 200).contains { $0.contains("Some games may be missing") })
    }
}
