import Testing
import Games
import Match
@testable import TerminalUI

/// Builds match states for renderer and model tests.
enum Fixtures {
    static let ana = PlayerID(hex: "0000000000000000000000000000000a")!
    static let bot = PlayerID(hex: "0000000000000000000000000000000b")!
    static let matchID = MatchID(hex: "1a2b3c4d000000000000000000000000")!

    /// A fresh match of `game` between Ana (seat 0) and Bot (seat 1), then `moves` (raw values) played in turn.
    static func state(_ game: any Game, moves: [Int] = [], names: (String, String) = ("Ana", "Bot")) -> MatchState {
        var state = MatchState(matchID: matchID, game: game,
                               seats: [Seat(playerID: ana, name: names.0), Seat(playerID: bot, name: names.1)])
        for raw in moves {
            guard let seat = state.activeSeat, let next = try? state.applying(.move(Move(raw), by: seat), now: 0) else {
                Issue.record("move \(raw) is not playable")
                return state
            }
            state = next
        }
        return state
    }

    static let unicodeColor = DisplayOptions(colorDepth: .palette256, unicode: true)
    static let asciiMono = DisplayOptions(colorDepth: .none, attributes: false, unicode: false)
}
