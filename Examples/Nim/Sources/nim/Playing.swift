import Bots
import Foundation
import Games
import Match
import NimRules

/// This side's seat: parlor's bot with `--bot`, else the person typing moves on stdin.
func seatPlayer(_ playerID: PlayerID, bot: Bool) -> any Participant {
    bot ? BotParticipant(playerID: playerID, bot: Bot(level: .hard, seed: .random(in: 0...UInt64.max)))
        : LocalParticipant(playerID: playerID)
}

/// Plays `controller`'s match to its end, printing each move, the winner and
/// the final state's hash (equal on both sides of a LAN match). When `player`
/// is a person, asks them for a move whenever `seat` is to move.
func playToTheEnd(_ controller: MatchController, player: any Participant, seat: SeatIndex) async throws -> MatchState {
    let person = player as? LocalParticipant
    var typed = person.map { _ in typedLines().makeAsyncIterator() }
    let events = await controller.events()
    try await controller.start()
    for await event in events {
        switch event {
        case .turnBegan(seat: seat, let state) where person != nil:
            while true {
                guard let move = await askForMove(in: state.game, typed: &typed) else {
                    _ = await person?.quit()
                    break
                }
                let result = await person?.play(move)
                // A match that stopped meanwhile (the other side left) asks for nothing more.
                if case .committed = result { break }
                if await controller.isStopped { break }
                print("That move did not count (\(result.map { "\($0)" } ?? "")); type it again.")
            }
        case .committed(.move(let move, let mover, _), let state):
            print("\(state.seats[mover].name) \(took(move)): heaps \(heaps(state))")
        default:
            break
        }
    }
    let final = await controller.finished()
    print(endLine(final))
    print("State hash: \(String(final.stateHash, radix: 16))")
    return final
}

/// Asks the person for a move in `game` until they type a legal one; nil
/// (they quit) when stdin ends.
func askForMove(in game: any Game, typed: inout AsyncStream<String>.AsyncIterator?) async -> Move? {
    print("Heaps \(heaps(of: game)). Your move (heap and count, e.g. 2 3)?")
    while true {
        guard let line = await typed?.next() else {
            print("No more moves on stdin: you quit.")
            return nil
        }
        if let move = game.move(fromNotation: line), game.isLegal(move) { return move }
        print("That is not a move here: a heap (1-3) and at most what is left in it, e.g. 1 1.")
    }
}

/// How the match ended, from each seat's outcome as parlor settled it:
/// "Winner: Bot 2", or in misère Nim at three "Winners: Bot 2 and Bot 3 (You took the last one and lost)".
func endLine(_ final: MatchState) -> String {
    let winners = final.seats.filter { $0.outcome == .won }.map(\.name)
    let losers = final.seats.filter { $0.outcome == .lost }.map(\.name)
    guard winners.count > 1 else { return "Winner: \(winners.first ?? "nobody")" }
    return "Winners: \(winners.joined(separator: " and "))" + (losers.isEmpty ? "" : " (\(losers.joined(separator: " and ")) took the last one and lost)")
}

/// The heaps in `state`, as a person reads them: "3 1 5".
func heaps(_ state: MatchState) -> String { heaps(of: state.game) }

/// With `--random-heaps`, the heaps the match's seed dealt: on the LAN both
/// sides print the same line, since the guest starts from the host's seed.
func sayDealtHeaps(_ start: MatchState) {
    if start.game(as: RandomNim.self) != nil { print("Random heaps: \(heaps(start))") }
}

/// Lines typed on stdin, read on a thread of their own: waiting for a person
/// never holds a thread of Swift's cooperative pool.
func typedLines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream<String>.makeStream()
    Thread.detachNewThread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
    }
    return lines
}

/// `nim play`: you (or a bot, with `--bot`) at seat 1 against parlor's bot; saved at the end.
/// `game` is `Nim`, `RandomNim` (`--random-heaps`), whose heaps a fresh seed deals,
/// or `MisereNim` (`--misere`), at its most seats (three): you against two bots.
func playOffline(_ game: any Game.Type, bot: Bool, home: NimHome) async throws {
    let you = seatPlayer(.random(), bot: bot)
    let opponents = (2...game.seatRange.upperBound).map { _ in
        BotParticipant(playerID: .random(), bot: Bot(level: .hard, seed: .random(in: 0...UInt64.max)))
    }
    let seats = [Seat(playerID: you.playerID, name: bot ? "Bot 1" : "You")]
        + opponents.enumerated().map { Seat(playerID: $1.playerID, name: "Bot \($0 + 2)") }
    let start = MatchState(matchID: .random(), gameType: game, seats: seats)
    sayDealtHeaps(start)
    let final = try await playToTheEnd(MatchController(state: start, participants: [you] + opponents), player: you, seat: 0)
    try home.save(final, role: .offline, seat: 0)
}

/// "took 3 from heap 2", for a move of any of the three games (their moves are `Nim.Take`s).
func took(_ move: Move) -> String {
    guard let take = Nim.value(of: move) else { return "played \(move)" }
    return "took \(take.count) from heap \(take.heap)"
}
