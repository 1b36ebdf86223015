import Testing
import Foundation
import Games
import ParlorTestSupport
import TerminalUI
@testable import ParlorCLI

/// parlor's lobby rules (TerminalUI's `LobbyModel` has its own key tests):
/// the catalog, the levels, and typed addresses and names, as the commands they stand for.
@Suite("The lobby's choices")
struct LobbyModelTests {
    static func type(_ text: String, into model: inout ParlorLobbyModel) -> LobbyChoice? {
        var choice: LobbyChoice?
        for character in text { choice = model.handle(.character(character)).map { LobbyChoice($0, games: []) } ?? choice }
        return choice
    }

    static func press(_ key: Key, in model: inout ParlorLobbyModel) -> LobbyChoice? {
        model.handle(key).map { LobbyChoice($0, games: []) }
    }

    @Test("h: the game, the name (prefilled, editable), a passcode, the seat")
    func hosting() {
        var model = ParlorLobbyModel(defaultName: "Ana")
        _ = Self.press(.character("h"), in: &model)
        _ = Self.press(.character("2"), in: &model)
        #expect(model.lines(width: 80).contains("Name: Ana_"))
        for _ in 0..<3 { _ = Self.press(.backspace, in: &model) }
        _ = Self.press(.enter, in: &model)
        #expect(model.lines(width: 200).contains { $0.hasPrefix("That name cannot be used: ") }, "\(model.lines(width: 200))")
        _ = Self.type("Bo", into: &model)
        _ = Self.press(.enter, in: &model)
        _ = Self.press(.character("y"), in: &model)
        let choice = Self.press(.character("2"), in: &model)
        let expected = LobbyChoice.host(GameCatalog.all[1].id, name: "Bo", passcode: true, seat: .second)
        #expect(choice == expected, "\(String(describing: choice))")
    }

    @Test("p: the game, the level (Enter takes the settings file's), the seat; Esc goes back one step")
    func offline() {
        var model = ParlorLobbyModel(defaultName: "Ana", defaultLevel: .easy)
        _ = Self.press(.character("p"), in: &model)
        _ = Self.press(.enter, in: &model)
        _ = Self.press(.escape, in: &model)
        #expect(model.mode == .chooseGame(forHosting: false))
        _ = Self.press(.enter, in: &model)
        _ = Self.press(.enter, in: &model)
        #expect(Self.press(.character("r"), in: &model) == .play(GameCatalog.all[0].id, level: .easy, seat: .random))
    }

    @Test("a: a typed address joins it; a bad one says why and stays")
    func address() {
        var model = ParlorLobbyModel()
        _ = Self.press(.character("a"), in: &model)
        _ = Self.type("192.0.2.7:", into: &model)
        #expect(Self.press(.enter, in: &model) == nil)
        #expect(model.mode == .address)
        #expect(model.lines(width: 200).contains { $0.contains("'192.0.2.7:':") }, "\(model.lines(width: 200))")
        _ = Self.press(.backspace, in: &model)
        // No port: parlor's own, 7477.
        #expect(Self.press(.enter, in: &model) == .joinTarget(.address(host: "192.0.2.7", port: 7477)))
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
