import Testing
import Foundation
import Games
import ParlorTestSupport
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

/// The escape codes of every screen are written in TerminalUI alone: the
/// lobby and `browse --watch` wrote their own.
@Suite("Escape codes live in TerminalUI")
struct EscapeCodesInOnePlaceTests {
    @Test("no source file of ParlorCLI writes an escape code itself")
    func noEscapesInParlorCLI() throws {
        let root = ParlorBinary.packageRoot.appendingPathComponent("Sources/ParlorCLI")
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(!files.isEmpty)
        for file in files {
            // Comments may mention them (how an escape is shown); code may not write them.
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            #expect(!text.contains("\\u{1B}") && !text.contains("\\u{001B}"), "\(file) writes escape codes itself")
        }
    }

    @Test("a page of text: home, each line cleared to its end, the rest cleared")
    func page() {
        #expect(String(decoding: ScreenControl.page(["a", "b"]), as: UTF8.self) == "\u{1B}[Ha\u{1B}[K\r\nb\u{1B}[K\u{1B}[J")
    }
}
