import Bots
import Foundation
import Games
import Match
import Store
import TerminalUI

/// Runs `parlor play GAME`: a match at this terminal, against a bot or hot-seat.
///
/// The same `MatchController` runs here as in LAN play; only the participants differ.
func runPlay(_ options: PlayOptions) async throws -> ExitCode {
    guard let gameType = GameCatalog.game(id: options.game) else {
        throw CommandFailure("unknown game '\(options.game)'", exitCode: .usage)
    }
    let presentation = MatchPresentation(flags: options.display)
    let seed = options.seed ?? freshSeed()
    var generator = SplitMix64(seed: seed)
    let environment = ProcessInfo.processInfo.environment

    // Who sits where. Seat 0 moves first; the others fill the remaining seats in `--vs` order.
    let seatCount = options.seats
    let localSeatIndex: SeatIndex
    if let number = options.seatNumber {
        localSeatIndex = number - 1
    } else {
        switch options.seat {
        case .first: localSeatIndex = 0
        case .second: localSeatIndex = 1
        case .random: localSeatIndex = Int(generator.next() % UInt64(seatCount))
        }
    }
    let others = options.otherSeats
    let hotSeat = others.contains(.human)
    let localName = hotSeat ? "Player 1" : options.bot.map(\.playerName) ?? PlayerName.defaultName(environment: environment)
    let names = tableNames(local: localName, others: others)

    var locals: [LocalParticipant] = []
    func participant(_ id: PlayerID, bot: BotLevelChoice?, seed: UInt64) -> any Participant {
        if let bot {
            return BotParticipant(playerID: id, minimumThinkTime: presentation.botPause, strategy: botStrategy(bot, seed: seed))
        }
        let local = LocalParticipant(playerID: id)
        locals.append(local)
        return local
    }
    // Ids first, then the bots' seeds: the order of draws a two-seat match has always had.
    let otherIDs = others.map { _ in PlayerID.random(using: &generator) }
    let localID = LocalData.playerID  // read once: where it cannot be saved, each read makes a new one
    var seats = [Seat(playerID: localID, name: localName)]
    var participants = [participant(localID, bot: options.bot, seed: generator.next())]
    for (index, other) in others.enumerated() {
        seats.append(Seat(playerID: otherIDs[index], name: names[index]))
        let level: BotLevelChoice? = if case .bot(let level) = other { level } else { nil }
        participants.append(participant(otherIDs[index], bot: level, seed: generator.next()))
    }
    // The local player moves from index 0 to their chosen seat; the others keep their order.
    seats.insert(seats.removeFirst(), at: localSeatIndex)

    let timeout = options.turnTimeout.map { UInt32(max(1, $0.components.seconds)) } ?? 0
    let state = MatchState(matchID: .random(using: &generator), game: gameType.init(seats: seatCount), seats: seats,
                           turnTimeout: timeout, now: wallClockMilliseconds())

    let controller = MatchController(state: state, participants: participants)
    let recorder = MatchRecorder(store: LocalData.matchStore,
                                 record: StoredMatch(state: state, role: .offline, localSeat: localSeatIndex,
                                                     lastActivity: wallClockMilliseconds()))
    let exit = try await presentation.play(controller, locals: locals, recorder: recorder)
    return exit.exitCode
}

/// The names of the seats other than the local player's, in `--vs` order:
/// hot-seat players are "Player 2", "Player 3"…; bots are named by level, and a
/// name already taken (by the local bot or an earlier bot) gets the next number:
/// "Easy bot", "Easy bot 2".
func tableNames(local: String, others: [Opponent]) -> [String] {
    var bases = [local]
    var humans = 1
    var names: [String] = []
    for other in others {
        let base: String
        switch other {
        case .human: humans += 1; base = "Player \(humans)"
        case .bot(let level): base = level.playerName
        }
        let uses = bases.filter { $0 == base }.count
        bases.append(base)
        names.append(uses == 0 ? base : "\(base) \(uses + 1)")
    }
    return names
}
