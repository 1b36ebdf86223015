import Testing
import Games
import Match
@testable import TerminalUI

/// The four cases of a turn event (GameKit's turn event handler) and the
/// words a player in several matches reads about them.
@Suite("Turn notices: the four cases")
struct TurnNoticesTests {
    static let other = MatchID(hex: "99999999000000000000000000000000")!

    struct Row: Sendable, CustomTestStringConvertible {
        var onScreen: Bool
        var seatToMove: SeatIndex
        var expected: TurnCase
        var testDescription: String { "\(onScreen ? "on screen" : "another match"), seat \(seatToMove) to move: \(expected)" }
    }

    @Test("each turn event lands in exactly one of the four cases", arguments: [
        Row(onScreen: true, seatToMove: 0, expected: .takeTurn),
        Row(onScreen: true, seatToMove: 1, expected: .redraw),
        Row(onScreen: false, seatToMove: 0, expected: .notice),
        Row(onScreen: false, seatToMove: 1, expected: .quietUpdate),
    ])
    func fourCases(_ row: Row) {
        // We play seat 0; the other side (seat 1) moved last when it is our turn.
        let event = TurnEvent(match: Fixtures.matchID, seat: row.seatToMove, localSeats: [0], lastMover: 1 - row.seatToMove)
        let routing = TurnRouting.route(event, onScreen: row.onScreen ? Fixtures.matchID : Self.other, bell: true)
        #expect(routing.turnCase == row.expected)
        // The bell and the title: only for our turn, on screen or not.
        #expect(routing.ringsBell == (row.seatToMove == 0))
        #expect(routing.setsTitle == (row.seatToMove == 0))
    }

    @Test("with the lobby or the list on screen, every match is another match")
    func nothingOnScreen() {
        let ours = TurnEvent(match: Fixtures.matchID, seat: 0, localSeats: [0], lastMover: 1)
        #expect(TurnRouting.route(ours, onScreen: nil, bell: true).turnCase == .notice)
        let theirs = TurnEvent(match: Fixtures.matchID, seat: 1, localSeats: [0], lastMover: 0)
        #expect(TurnRouting.route(theirs, onScreen: nil, bell: true).turnCase == .quietUpdate)
    }

    @Test("the bell rings only when the turn became ours after another seat moved, and never with the bell off")
    func bellRule() {
        let first = TurnEvent(match: Fixtures.matchID, seat: 0, localSeats: [0], lastMover: nil)
        #expect(!TurnRouting.route(first, onScreen: Fixtures.matchID, bell: true).ringsBell, "the first turn of a match is no news")
        let hotSeat = TurnEvent(match: Fixtures.matchID, seat: 1, localSeats: [0, 1], lastMover: 0)
        #expect(!TurnRouting.route(hotSeat, onScreen: Fixtures.matchID, bell: true).ringsBell, "our own seats taking turns")
        let news = TurnEvent(match: Fixtures.matchID, seat: 0, localSeats: [0], lastMover: 1)
        #expect(TurnRouting.route(news, onScreen: Self.other, bell: true).ringsBell)
        #expect(!TurnRouting.route(news, onScreen: Self.other, bell: false).ringsBell, "--no-bell")
        // An offline match: its bot's instant answer on screen rings nothing; off screen it still rings.
        #expect(!TurnRouting.route(news, onScreen: Fixtures.matchID, bell: true, ringsOnScreen: false).ringsBell)
        #expect(TurnRouting.route(news, onScreen: Self.other, bell: true, ringsOnScreen: false).ringsBell)
        #expect(TurnRouting.route(news, onScreen: Fixtures.matchID, bell: true).ringsBell, "a LAN player's move on screen")
    }

    @Test("the notice names the game, the opponent, the match, the move and the key")
    func noticeText() {
        let state = Fixtures.state(Connect4(), moves: [3, 4], names: ("Ana", "Bo"))
        // Ana (seat 0) to move after Bo played column 5.
        #expect(TurnNotices.yourTurnElsewhere(state, localSeats: [0])
                == "It's your turn in Connect Four vs Bo (1a2b3c4d): Bo played 5. Press Tab to switch.")
        #expect(TurnNotices.label(state, localSeats: [0]) == "Connect Four vs Bo (1a2b3c4d)")
    }

    @Test("a peer's name cannot drive the terminal through the notice or the title")
    func hostileNames() {
        let state = Fixtures.state(TicTacToe(), moves: [4], names: ("Ana", "Bo\u{1B}]2;pwned\u{07}"))
        let notice = TurnNotices.yourTurnElsewhere(state, localSeats: [0])
        #expect(!notice.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        let title = TurnNotices.titleSequence(TurnNotices.title(waiting: state, localSeats: [0], unicode: true))
        // One ESC to open the title and one in the ST that closes it; no BEL at all.
        #expect(title.filter { $0 == 0x1B }.count == 2)
        #expect(!title.contains(0x07))
    }

    @Test("the title says whose turn it is, by game id and opponent")
    func title() {
        let state = Fixtures.state(Connect4(), moves: [3, 4], names: ("Ana", "Bo"))
        #expect(TurnNotices.title(waiting: state, localSeats: [0], unicode: true) == "parlor \u{2014} your turn: connect4 vs Bo")
        #expect(TurnNotices.title(waiting: state, localSeats: [0], unicode: false) == "parlor - your turn: connect4 vs Bo")
        #expect(TurnNotices.title(waiting: nil, localSeats: [0], unicode: true) == "parlor")
        #expect(TurnNotices.titleSequence("parlor") == Array("\u{1B}]2;parlor\u{1B}\\".utf8))
    }

    @Test("several opponents are listed with 'and'")
    func opponents() {
        var state = Fixtures.state(Connect4())
        state.seats.append(Seat(playerID: Fixtures.bot, name: "Cy"))
        #expect(TurnNotices.opponents(state, localSeats: [0]) == "Bot and Cy")
        #expect(TurnNotices.opponents(state, localSeats: [1]) == "Ana and Cy")
    }

    @Test("the JSON turn event carries the match id and the case")
    func json() {
        let state = Fixtures.state(Connect4(), moves: [3, 4], names: ("Ana", "Bo"))
        let event = TurnEvent(seat: 0, state: state, localSeats: [0])
        let routing = TurnRouting.route(event, onScreen: nil, bell: true)
        let text = TurnNotices.json(event, routing: routing, state: state).encoded
        #expect(text.hasPrefix("{\"event\":\"turn\",\"match\":\"1a2b3c4d000000000000000000000000\",\"game\":\"connect4\",\"seat\":0,"))
        #expect(text.contains("\"yours\":true,\"case\":\"notice\",\"bell\":true"))
    }
}

@Suite("The window title of one match")
struct WindowTitleTests {
    @Test("your turn sets it once, the other side's turn and the end put 'parlor' back; a hot seat never says 'your turn'")
    func title() {
        var title = WindowTitle(unicode: true)
        let mine = Fixtures.state(Connect4(), moves: [3, 4], names: ("Ana", "Bo"))
        let set = title.update(after: .turnBegan(seat: 0, mine), localSeats: [0])
        #expect(set == TurnNotices.titleSequence("parlor \u{2014} your turn: connect4 vs Bo"))
        #expect(title.update(after: .turnBegan(seat: 0, mine), localSeats: [0]) == nil, "written once")
        #expect(title.update(after: .notice("hello"), localSeats: [0]) == nil)
        let theirs = Fixtures.state(Connect4(), moves: [3, 4, 2], names: ("Ana", "Bo"))
        #expect(title.update(after: .turnBegan(seat: 1, theirs), localSeats: [0]) == TurnNotices.titleSequence("parlor"))
        var hotSeat = WindowTitle(unicode: true)
        #expect(hotSeat.update(after: .turnBegan(seat: 0, mine), localSeats: [0, 1]) == TurnNotices.titleSequence("parlor"))
    }
}
