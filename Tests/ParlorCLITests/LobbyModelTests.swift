import Testing
import Games
import TerminalUI
@testable import ParlorCLI

/// The lobby's choices, key by key (the tmux test plays the offline flow end to end).
@Suite("The lobby's choices")
struct LobbyModelTests {
    static func type(_ text: String, into model: inout LobbyModel) -> LobbyChoice? {
        var choice: LobbyChoice?
        for character in text { choice = model.handle(.character(character)) ?? choice }
        return choice
    }

    @Test("h: the game, the name (prefilled, editable), a passcode, the seat")
    func hosting() {
        var model = LobbyModel(defaultName: "Ana")
        _ = model.handle(.character("h"))
        _ = model.handle(.character("2"))
        #expect(model.lines(width: 80).contains("Name: Ana_"))
        _ = model.handle(.backspace)
        _ = model.handle(.backspace)
        _ = model.handle(.backspace)
        _ = Self.type("Bo", into: &model)
        _ = model.handle(.enter)
        _ = model.handle(.character("y"))
        let choice = model.handle(.character("2"))
        let expected = LobbyChoice.host(GameCatalog.all[1].id, name: "Bo", passcode: true, seat: .second)
        #expect(choice == expected, "\(String(describing: choice))")
    }

    @Test("p: the game, the level (Enter takes the settings file's), the seat; Esc goes back one step")
    func offline() {
        var model = LobbyModel(defaultName: "Ana", defaultLevel: .easy)
        _ = model.handle(.character("p"))
        _ = model.handle(.enter)
        _ = model.handle(.escape)
        #expect(model.mode == .chooseGame(forHosting: false))
        _ = model.handle(.enter)
        _ = model.handle(.enter)
        #expect(model.handle(.character("r")) == .play(GameCatalog.all[0].id, level: .easy, seat: .random))
    }

    @Test("a: a typed address joins it; a bad one says why and stays")
    func address() {
        var model = LobbyModel()
        _ = model.handle(.character("a"))
        _ = Self.type("192.0.2.7", into: &model)
        #expect(model.handle(.enter) == nil)
        #expect(model.mode == .address)
        #expect(model.lines(width: 200).contains { $0.contains("'192.0.2.7':") }, "\(model.lines(width: 200))")
        _ = Self.type(":7477", into: &model)
        #expect(model.handle(.enter) == .joinTarget(.address(host: "192.0.2.7", port: 7477)))
    }
}
