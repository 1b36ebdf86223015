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
    var presentation = MatchPresentation(flags: options.display)
    presentation.allowHints()
    let seed = options.seed ?? freshSeed()
    var generator = SplitMix64(seed: seed)
    let environment = ProcessInfo.processInfo.environment

    // Who sits where. Seat 0 moves first.
    let localFirst: Bool
    switch options.seat {
    case .first: localFirst = true
    case .second: localFirst = false
    case .random: localFirst = generator.next() & 1 == 0
    }
    let localID = LocalData.playerID
    let opponentID = PlayerID.random(using: &generator)
    var localName = options.bot.map(\.playerName) ?? PlayerName.defaultName(environment: environment)
    var opponentName: String
    switch options.opponent {
    case .bot(let level): opponentName = level.playerName
    case .human: opponentName = "Player 2"; localName = "Player 1"
    }
    if opponentName == localName { opponentName += " 2" }
    let localSeat = Seat(playerID: localID, name: localName)
    let opponentSeat = Seat(playerID: opponentID, name: opponentName)
    let seats = localFirst ? [localSeat, opponentSeat] : [opponentSeat, localSeat]

    let timeout = options.turnTimeout.map { UInt32(max(1, $0.components.seconds)) } ?? 0
    let state = MatchState(matchID: .random(using: &generator), game: gameType.init(seats: 2), seats: seats,
                           turnTimeout: timeout, now: wallClockMilliseconds())

    var locals: [LocalParticipant] = []
    func participant(_ id: PlayerID, bot: BotLevelChoice?, seed: UInt64) -> any Participant {
        if let bot {
            return BotParticipant(playerID: id, minimumThinkTime: presentation.botPause, strategy: botStrategy(bot, seed: seed))
        }
        let local = LocalParticipant(playerID: id)
        locals.append(local)
        return local
    }
    let me = participant(localID, bot: options.bot, seed: generator.next())
    let opponentBot: BotLevelChoice?
    if case .bot(let level) = options.opponent { opponentBot = level } else { opponentBot = nil }
    let them = participant(opponentID, bot: opponentBot, seed: generator.next())

    let controller = MatchController(state: state, participants: [me, them])
    let recorder = MatchRecorder(store: LocalData.matchStore,
                                 record: StoredMatch(state: state, role: .offline, localSeat: localFirst ? 0 : 1,
                                                     lastActivity: wallClockMilliseconds()))
    let exit = try await presentation.play(controller, locals: locals, recorder: recorder)
    return exit.exitCode
}
