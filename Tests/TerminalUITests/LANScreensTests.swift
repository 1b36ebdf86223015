import Testing
@testable import TerminalUI

/// The games on the LAN as a person reads them: the table, browse --watch's screen, the lobby's pages.
@Suite struct LANScreensTests {
    static let ana = GameRow(name: "Ana's Connect Four", game: "Connect Four", host: "Ana", seats: "1 of 2 seated",
                             state: "waiting", addresses: "192.0.2.7:7777", note: nil)
    static let old = GameRow(name: "Bo's Reversi", game: "Reversi", host: "Bo", seats: "2 of 2 seated",
                             state: "playing", addresses: "192.0.2.8:7777", note: "cannot join: it is full")

    @Test func theColumnsLineUpUnderTheHeaderAndAGameThatCannotBeJoinedSaysWhyBelowIt() {
        let lines = GameTable.lines([Self.ana, Self.old], numbered: true)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("#  NAME"))
        #expect(lines[1].hasPrefix("1  Ana's Connect Four  Connect Four  Ana"))
        #expect(lines[2].hasPrefix("2  Bo's Reversi"))
        #expect(lines[3] == "     cannot join: it is full")
        // Every column starts where its title does.
        let cells = [("GAME", Self.ana.game), ("HOST", Self.ana.host), ("SEATS", Self.ana.seats), ("STATE", Self.ana.state),
                     ("ADDRESS", Self.ana.addresses)]
        for (title, cell) in cells {
            let column = lines[0].distance(from: lines[0].startIndex, to: lines[0].range(of: title)!.lowerBound)
            #expect(lines[1].dropFirst(column).hasPrefix(cell), "\(title)")
        }
    }

    @Test func aNarrowTableIsCutWithAnEllipsisNeverWrapped() {
        let lines = GameTable.lines([Self.ana], width: 30)
        #expect(lines.allSatisfy { $0.count <= 30 })
        #expect(lines[1].hasSuffix("…"))
    }

    @Test func theLiveScreenClearsFirstAndSaysWhileNothingIsFound() {
        let empty = GameTable.liveScreen([])
        #expect(empty.hasPrefix(String(decoding: ScreenControl.clear, as: UTF8.self)))
        #expect(empty.contains("(none yet; still looking)"))
        #expect(GameTable.liveScreen([Self.ana]).contains("Ana's Connect Four"))
        #expect(Self.old.line == "Bo's Reversi | Reversi | Bo | 2 of 2 seated | playing | 192.0.2.8:7777 | cannot join: it is full")
    }

    @Test func wrappingBreaksAtSpacesAndCutsAWordLongerThanTheLine() {
        #expect(ScreenText.wrap("one two three", to: 7) == ["one two", "three"])
        #expect(ScreenText.wrap("abcdefghij", to: 4) == ["abcd", "efgh", "ij"])
        #expect(ScreenText.clip("abcdef", to: 4) == "abc…")
        #expect(ScreenText.clip("abc", to: nil) == "abc")
    }

    @Test func theLobbyMarksTheSelectedGameAndKeepsItsKeysOnScreenAt80Columns() {
        let view = LobbyView(page: .games(rows: [Self.ana, Self.old], numbers: [1, 2], mine: [], selected: 1, discoveryProblem: nil),
                             message: "\"Bo's Reversi\" cannot be joined: it is full")
        let lines = view.lines(width: 79)
        #expect(lines.allSatisfy { $0.count <= 79 })
        #expect(lines.contains { $0.hasPrefix("  1  Ana's") })
        #expect(lines.contains { $0.hasPrefix("> 2  Bo's") })
        #expect(lines.contains("\"Bo's Reversi\" cannot be joined: it is full"))
        #expect(lines.suffix(2) == ["↑/↓ choose · Enter or 1-9 join · w watch · a type an address",
                                    "h host a game · p play a bot offline · q quit"])
        #expect(view.lines(width: 200).last?.contains("w watch · a type an address · h host a game") == true)
    }

    @Test func withoutDiscoveryTheLobbySaysHowToJoinByAddress() {
        let lines = LobbyView(page: .games(rows: [], numbers: [], mine: [], selected: nil, discoveryProblem: "avahi-daemon is not running")).lines(width: 80)
        #expect(lines.contains("avahi-daemon is not running"))
        #expect(lines.contains("Without discovery, join a host by the address it printed: press a and type it."))
    }

    @Test func theSeatPageOffersTheRightDefaultOfflineAndWhenHosting() {
        let offline = LobbyView(page: .seat(game: "Connect Four", level: "hard", name: "Ana")).lines(width: 80)
        #expect(offline.first == "parlor: play Connect Four against the hard bot. Which seat?")
        #expect(offline.contains("  1  first (you move first) (Enter)"))
        let hosting = LobbyView(page: .seat(game: "Connect Four", level: nil, name: "Ana")).lines(width: 80)
        #expect(hosting.first == "parlor: host Connect Four as Ana. Which seat?")
        #expect(hosting.contains("  3  random (a coin decides) (Enter)"))
        let levels = LobbyView(page: .botLevel(game: "Reversi", levels: ["easy", "medium", "hard"], defaultLevel: "medium"))
        #expect(levels.lines(width: 80).contains("  2  medium (Enter)"))
    }
}
