import Bots
import Foundation
import Games
import Match
import Store
import TerminalUI

/// Runs `parlor play GAME`: a match at this terminal, against a bot or hot-seat.
///
/// The same `MatchController` runs here as in LAN play; only the participants differ.
/// A person who played a match to its end (and did not quit) is asked
/// "Play again?" (one key on the full screen, a line in plain mode).
///
/// With `desk`, the match is one of several at the lobby's desk, played once.
func runPlay(_ options: PlayOptions, desk: MatchDesk? = nil) async throws -> ExitCode {
    guard let gameType = GameCatalog.game(id: options.game) else {
        throw CommandFailure("unknown game '\(options.game)'", exitCode: .usage)
    }
    var presentation = desk.map { MatchPresentation(desk: $0) } ?? MatchPresentation(flags: options.display)
    presentation.allowHints()
    presentation.ringOnlyWhenOffScreen()
    var generator = SplitMix64(seed: options.seed ?? freshSeed())
    let asks = desk == nil && options.bot == nil && !presentation.isJSON && isatty(STDIN_FILENO) == 1
    // A match nothing can save is refused before it begins: it could never be resumed.
    _ = try LocalData.writableMatchStore()
    while true {
        let question = asks && presentation.isFullScreen ? EndQuestion("Play again?") : nil
        let (exit, localSeats) = try await playOnce(options, gameType: gameType, presentation: presentation,
                                                    generator: &generator, endQuestion: question)
        guard asks, case .ended(let state) = exit, !localSeats.contains(where: { state.seats[$0].outcome == .quit }) else {
            return exit.exitCode
        }
        let again = if let question { question.answer ?? false } else { await LinePrompt.yesNo("Play again? (y/n) ") }
        guard again else { return exit.exitCode }
    }
}

/// One match of `parlor play`; returns how it ended and the seats played at this terminal.
private func playOnce(_ options: PlayOptions, gameType: any Game.Type, presentation: MatchPresentation,
                      generator: inout SplitMix64, endQuestion: EndQuestion?) async throws -> (FrontendExit, [Int]) {
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
    // The person here goes by the name chosen (--name, the settings file), else by the login name,
    // or at a hot seat (whose other players are "Player 2", "Player 3"…) "Player 1"; a local bot by its level.
    let hotSeat = others.contains(.human)
    let localName = options.bot.map(\.playerName) ?? options.name
        ?? (hotSeat ? "Player 1" : PlayerName.defaultName(environment: environment))
    let names = tableNames(local: localName, others: others)

    var locals: [LocalParticipant] = []
    let localID = LocalData.playerID  // read once: where it cannot be saved, each read makes a new one
    func participant(_ id: PlayerID, bot: BotLevelChoice?, seed: UInt64) -> any Participant {
        if let bot {
            let seated = BotParticipant(playerID: id, minimumThinkTime: presentation.botPause, timedStrategy: botStrategy(bot, seed: seed))
            // `play --bot`: the bot plays this terminal's seat; /quit and /say still speak for it.
            if id == localID { locals.append(LocalParticipant(speakingFor: seated)) }
            return seated
        }
        let local = LocalParticipant(playerID: id)
        locals.append(local)
        return local
    }
    // Ids first, then the bots' seeds: the order of draws a two-seat match has always had.
    let otherIDs = others.map { _ in PlayerID.random(using: &generator) }
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
    // A game with chance draws its start from the same generator, so `--seed` reproduces it too.
    let state = MatchState(matchID: .random(using: &generator), gameType: gameType, seats: seats, seed: generator.next(),
                           turnTimeout: timeout, now: wallClockMilliseconds())

    let controller = MatchController(state: state, participants: participants)
    let recorder = MatchRecorder(store: LocalData.matchStore,
                                 record: StoredMatch(state: state, role: .offline, localSeat: localSeatIndex,
                                                     lastActivity: wallClockMilliseconds()))
    let exit = try await presentation.play(controller, locals: locals, recorder: recorder, endQuestion: endQuestion)
    return (exit, locals.compactMap { state.seat(of: $0.playerID) })
}

/// `parlor resume` of a match played offline (against a bot, hot seat, or
/// bots watched): continued on this machine, from the saved state, with the
/// same seats. Which seats a bot plays, and at which level, is read from the
/// seat names `play` gave them (`BotLevelChoice.playerName`); every other
/// seat is the person at this terminal.
enum ResumeOffline {
    /// The bot level of the seat `play` named `name`, nil for a person.
    static func botLevel(seatNamed name: String) -> BotLevelChoice? {
        BotLevelChoice.allCases.first { name == $0.playerName || name == $0.playerName + " 2" }
    }

    static func run(_ record: StoredMatch, presentation: MatchPresentation) async throws -> ExitCode {
        // Offline, as `play`: the hint key works, and a bot's instant answer rings no bell.
        var presentation = presentation
        presentation.allowHints()
        presentation.ringOnlyWhenOffScreen()
        var state = record.state
        // The turn clock starts again now: the time away does not count against the seat to move.
        if state.turnTimeout > 0 { state.deadline = wallClockMilliseconds() + Int64(state.turnTimeout) * 1000 }
        var locals: [LocalParticipant] = []
        let participants: [any Participant] = state.seats.map { seat in
            if let level = botLevel(seatNamed: seat.name) {
                return BotParticipant(playerID: seat.playerID, minimumThinkTime: presentation.botPause,
                                      timedStrategy: botStrategy(level, seed: freshSeed()))
            }
            let local = LocalParticipant(playerID: seat.playerID)
            locals.append(local)
            return local
        }
        Announcer(json: presentation.isJSON).say(
            "Resuming \(state.game.gameDisplayName) match \(state.matchID.short) at move \(state.moves.count + 1).",
            event: JSONEvents.resumed(state))
        var saved = record
        saved.state = state
        saved.lastActivity = wallClockMilliseconds()
        let controller = MatchController(state: state, participants: participants)
        let recorder = MatchRecorder(store: LocalData.matchStore, record: saved)
        return try await presentation.play(controller, locals: locals, recorder: recorder).exitCode
    }
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
