import Bots
import Foundation
import Games
import Match
import ParlorKit
import Session
import Store
import Synchronization
import TerminalUI

/// Playing one LAN match to its end on either side, shared by `parlor host`,
/// `parlor join` and `parlor resume`: the participants, the recorder (with
/// write-ahead saves on the host), going away without quitting, and the
/// host waiting for a guest that was away when the match ended.
enum SessionRunner {
    /// This side's participant: a bot with `--bot`, else the person at the terminal.
    static func localParticipant(_ playerID: PlayerID, bot: BotLevelChoice?, presentation: MatchPresentation)
        -> (any Participant, [LocalParticipant]) {
        if let bot {
            // The bot plays the seat; a voice speaks for it, so /quit and /say mean what they mean without --bot.
            let seated = BotParticipant(playerID: playerID, minimumThinkTime: presentation.botPause,
                                        timedStrategy: botStrategy(bot, seed: freshSeed()))
            return (seated, [LocalParticipant(speakingFor: seated)])
        }
        let local = LocalParticipant(playerID: playerID)
        return (local, [local])
    }

    /// The host's bots at a table (`--bots`, then medium bots for the seats
    /// `--fill-with-bots` gave them), one per `hosted.botSeats`.
    static func tableBots(_ hosted: HostedMatch, levels: [BotLevelChoice], presentation: MatchPresentation) -> [any Participant] {
        hosted.botSeats.enumerated().map { index, seat in
            let level = index < levels.count ? levels[index] : .medium
            return BotParticipant(playerID: hosted.initialState.seats[seat].playerID, minimumThinkTime: presentation.botPause,
                                  timedStrategy: botStrategy(level, seed: freshSeed()))
        }
    }

    /// At a table, has a medium bot play each guest's seat once that guest has
    /// been away for `after`, until they are back (`--away-bot`, the full screen's b).
    static func standIn(for hosted: HostedMatch, after: Duration, presentation: MatchPresentation) {
        standIn(for: hosted, after: after, pause: presentation.botPause)
    }

    static func standIn(for hosted: HostedMatch, after: Duration, pause: Duration) {
        for guest in hosted.guests {
            // Medium answers within a second: no turn timeout to heed.
            let medium = botStrategy(.medium, seed: freshSeed())
            guest.standIn(StandInPolicy(strategy: { game, shouldStop in medium(game, nil, shouldStop) }, after: after,
                                        name: "Medium bot", pause: pause))
        }
    }

    /// Plays a hosted match (new or resumed) to the end, then any rematches
    /// (Session's `MatchSeries`). `record` is what the store keeps for this
    /// side; every committed state is saved before the guest can see it.
    /// Returns how the last match ended.
    /// `saves`, when given, made each match's recorder when it saved the match before its WELCOME.
    static func playAsHost(_ first: HostedMatch, host: MatchHost, record: StoredMatch, saves: SavedBeforeWelcome? = nil,
                           bot: BotLevelChoice?, presentation: MatchPresentation, grace: Duration, rematches: Int?,
                           botLevels: [BotLevelChoice] = [], awayBot: Duration? = nil) async throws -> FrontendExit {
        var player = SeriesSide(first, rematches: rematches, bot: bot, presentation: presentation, record: record,
            playOne: { hosted, record, question in
                let (me, locals) = localParticipant(hosted.hostPlayerID, bot: bot, presentation: presentation)
                let controller = hosted.makeController(with: me, bots: tableBots(hosted, levels: botLevels, presentation: presentation))
                let recorder = saves?.taken(hosted) ?? MatchRecorder(store: LocalData.matchStore, record: record)
                recorder.keep(hosted)
                if let awayBot { standIn(for: hosted, after: awayBot, presentation: presentation) }
                var presentation = presentation
                if hosted.initialState.seats.count > 2 {
                    let pause = presentation.botPause
                    presentation.allowStandIn { standIn(for: hosted, after: .zero, pause: pause) }
                }
                return try await play(controller, locals: locals, recorder: recorder, talk: hosted.remote, peer: hosted.guestName,
                                      link: TableLink(guests: hosted.guests), question: question, presentation: presentation)
            },
            nextRecord: { next, record in
                StoredMatch(state: next.initialState, role: .host, localSeat: next.hostSeat, lastActivity: wallClockMilliseconds(),
                            seatToken: next.seatToken.bytes, listenPort: record.listenPort, hostSettings: record.hostSettings,
                            peerKey: record.peerKey)
            })
        return try await MatchSeries.play(from: first, with: &player, timing: MatchSeries.Timing(grace: grace)) {
            await host.rematch(after: $0, wants: $1)
        }
    }

    /// Plays a joined match (new or resumed) to the end, then any rematches
    /// (Session's `MatchSeries`); the recorder keeps `record` up to date.
    /// `saves` holds the recorder of a match saved before anything of it was
    /// shown (the first, by `parlor join`); each rematch is saved there too
    /// before its line is printed.
    static func playAsGuest(_ first: JoinedMatch, record: StoredMatch, saves: FirstSaves = FirstSaves(store: LocalData.matchStore),
                            bot: BotLevelChoice?, presentation: MatchPresentation, rematches: Int?) async throws -> FrontendExit {
        var player = SeriesSide(first, rematches: rematches, bot: bot, presentation: presentation, record: record,
            playOne: { joined, record, question in
                let (me, locals) = localParticipant(joined.playerID, bot: bot, presentation: presentation)
                let controller = joined.makeController(with: me)
                let recorder = saves.take(joined.initialState.matchID) ?? MatchRecorder(store: LocalData.matchStore, record: record)
                recorder.keep(joined)
                return try await play(controller, locals: locals, recorder: recorder, talk: joined.remote, peer: joined.hostName,
                                      link: joined.remote, question: question, presentation: presentation)
            },
            nextRecord: { next, record in
                StoredMatch(state: next.initialState, role: .guest, localSeat: next.seat, lastActivity: wallClockMilliseconds(),
                            peerAddress: record.peerAddress, seatToken: next.seatToken.bytes, peerKey: record.peerKey)
            })
        // A rematch is on disk before "Rematch: match …" is said; a failed save is said, and the match's recorder tries again.
        let announcer = Announcer(json: presentation.isJSON)
        player.saveFirst = { _, record in
            if let failure = await saves.save(record) {
                announcer.say("could not save the rematch: \(failure)", event: JSONEvents.notice("could not save the rematch: \(failure)"))
            }
        }
        // The grace is the host's: a guest owes nobody the end.
        return try await MatchSeries.play(from: first, with: &player, timing: MatchSeries.Timing(grace: .zero)) {
            await Guest.rematch(after: $0, wants: $1)
        }
    }

    /// Plays one match of a series with `presentation`, telling the final
    /// board's `question` the other side's offer or no as it comes.
    private static func play(_ controller: MatchController, locals: [LocalParticipant], recorder: MatchRecorder,
                             talk: any RematchTalk, peer: String, link: any SessionLink, question: EndQuestion?,
                             presentation: MatchPresentation) async throws -> FrontendExit {
        let news = RematchPlan.follow(talk, peer: peer, question: question)
        defer { news?.cancel() }
        return try await presentation.play(controller, locals: locals, recorder: recorder, link: link, endQuestion: question)
    }

    /// Dials `addresses` again, for a guest getting back to its host, behind `channel`'s security as it is then.
    static func dialer(addresses: [SocketAddress], channel: GuestChannel) -> Dialer {
        Listing.dialer(addresses: addresses, security: { channel.security })
    }

    /// Dials `host:port` again (resolving the name each time), behind `channel`'s security as it is then.
    static func dialer(host: String, port: UInt16, channel: GuestChannel) -> Dialer {
        Listing.dialer(host: host, port: port, security: { channel.security })
    }

    /// Guest options for `--grace`, reconnecting with `dial` when the connection drops.
    static func guestOptions(grace: Duration?, dial: @escaping Dialer) -> GuestOptions {
        var options = GuestOptions(redial: dial)
        if let grace { options.grace = grace }
        return options
    }
}

/// Whether and how this side takes part in rematches: `--rematch N` offers
/// and accepts up to N without asking; without it, a person at a terminal
/// (no `--bot`) is asked after each match (on the full screen's final board,
/// one key; in plain mode, a line), unless they quit it; otherwise there is
/// no rematch (the connection closes with GOODBYE at once, which the peer
/// reads as "no").
struct RematchPlan {
    private var left: Int
    private let asks: Bool
    private let onTheBoard: Bool
    /// How the final board is drawn while this side waits for the other's answer (full screen only).
    private let boardOptions: DisplayOptions?
    private let announcer: Announcer

    init(rematches: Int?, bot: BotLevelChoice?, presentation: MatchPresentation) {
        left = rematches ?? 0
        asks = rematches == nil && bot == nil && !presentation.isJSON && isatty(STDIN_FILENO) == 1
        onTheBoard = presentation.isFullScreen
        boardOptions = presentation.fullScreenOptions
        announcer = Announcer(json: presentation.isJSON)
    }

    /// No rematch and no question about one (a table of more than two seats).
    static func never(_ presentation: MatchPresentation) -> RematchPlan {
        RematchPlan(rematches: 0, bot: .medium, presentation: presentation)
    }

    /// Whether a rematch can happen after this match (decides whether the connection is kept).
    var possible: Bool { asks || left > 0 }

    /// The one-key question for the final board, when the person is asked there.
    func question() -> EndQuestion? {
        asks && left == 0 && onTheBoard ? EndQuestion("Rematch with seats swapped?") : nil
    }

    /// Tells `question`, as it comes, whether the other side offered a rematch
    /// or ruled one out (said no, left), until cancelled or settled; nil when
    /// there is no question.
    static func follow(_ talk: any RematchTalk, peer: String, question: EndQuestion?) -> Task<Void, Never>? {
        guard let question else { return nil }
        return Task {
            for await news in talk.rematchNews {
                switch news {
                case .offered:
                    question.tell("\(peer) offers a rematch with seats swapped.", settled: false)
                case .ruledOut(let end):
                    question.tell(sentence(end, peer: peer) ?? "No rematch.", settled: true)
                }
            }
        }
    }

    /// This side's answer: the flag's, the key on the final board, or a typed
    /// line; never asked of a side that quit the match.
    func wanted(peer: String, peerOffered: Bool, question: EndQuestion?, weQuit: Bool) async -> Bool {
        if left > 0 { return true }
        guard asks, !weQuit else { return false }
        let wants: Bool
        if onTheBoard {
            wants = question?.answer ?? false
        } else {
            wants = await LinePrompt.yesNo(peerOffered ? "\(peer) offers a rematch with seats swapped. Accept? (y/n) "
                                               : "Rematch with seats swapped? (y/n) ")
        }
        return wants
    }

    /// Says that this side offered and waits for `peer`'s answer: on the
    /// final `board` when the person answered there (they stay on the full
    /// screen until `close()`), else as a line.
    func waitForAnswer(from peer: String, board: MatchState?, localSeat: Int) -> FinalBoardHold? {
        let line = "Waiting for \(peer)'s answer\u{2026}"
        if asks, onTheBoard, let board, let boardOptions,
           let hold = FinalBoardHold(board, localSeats: [localSeat], line: line, options: boardOptions) {
            return hold
        }
        announcer.say(line)
        return nil
    }

    /// A rematch began.
    mutating func started(_ state: MatchState, localSeat: Int) {
        if left > 0 { left -= 1 }
        announcer.say("Rematch: match \(state.matchID.short), you play seat \(localSeat + 1) now.", event: JSONEvents.rematch(match: state.matchID.hex, seat: localSeat))
    }

    /// Why there is no rematch, when it is worth saying.
    func explain(_ end: RematchEnd, peer: String) {
        guard let text = Self.sentence(end, peer: peer) else { return }
        announcer.say(text, event: JSONEvents.notice(text))
    }

    /// The sentence for why there is no rematch; nil when there is nothing to say.
    static func sentence(_ end: RematchEnd, peer: String) -> String? {
        switch end {
        case .weDeclined, .notConnected: nil
        case .peerDeclined: "\(peer) does not want a rematch."
        case .peerLeft: "\(peer) left; no rematch."
        case .noAnswer: "\(peer) did not answer the rematch offer."
        case .protocolError(let why): "No rematch: \(why)."
        case .cannotSave(let why): "No rematch: it could not be saved: \(why)."
        }
    }
}

/// This side of a LAN series as ParlorCLI composes it: `playOne` sets up one
/// match (participants, recorder, frontend) and plays it, `plan` answers
/// between matches, and `record` follows each new match.
struct SeriesSide<Match: SeriesMatch>: SeriesPlayer {
    var plan: RematchPlan
    var record: StoredMatch
    let json: Bool
    let playOne: (Match, StoredMatch, EndQuestion?) async throws -> FrontendExit
    let nextRecord: (Match, StoredMatch) -> StoredMatch
    /// The final board's question of the match being played, if it is asked there.
    private var question: EndQuestion?
    /// The last match's final state, shown while this side waits for the other's answer.
    private var ended: MatchState?
    /// The final board kept on the full screen while our offer waits for an answer.
    private var hold: FinalBoardHold?
    /// Saves a rematch's record before it is announced (the guest's side; the host saved it before its WELCOME).
    var saveFirst: ((Match, StoredMatch) async -> Void)?
    /// The series' score so far, said before each rematch and after the last match.
    private var tally = SeriesTally()

    init(_ first: Match, rematches: Int?, bot: BotLevelChoice?, presentation: MatchPresentation, record: StoredMatch,
         playOne: @escaping (Match, StoredMatch, EndQuestion?) async throws -> FrontendExit,
         nextRecord: @escaping (Match, StoredMatch) -> StoredMatch) {
        // A table plays one match: rematches swap two seats.
        let atTable = first.initialState.seats.count > 2
        self.plan = atTable ? .never(presentation) : RematchPlan(rematches: rematches, bot: bot, presentation: presentation)
        self.record = record
        self.json = presentation.isJSON
        self.playOne = playOne
        self.nextRecord = nextRecord
    }

    var rematchPossible: Bool { plan.possible }

    mutating func play(_ match: Match) async throws -> (result: FrontendExit, ended: MatchState?) {
        question = plan.question()
        let exit = try await playOne(match, record, question)
        guard case .ended(let state) = exit else { ended = nil; return (exit, nil) }
        ended = state
        tally.add(state)
        // The last match of a series (no rematch can follow): its score. A rematch
        // declined or refused says it in `noRematch`.
        if !plan.possible, tally.matches >= 2 { Announcer(json: json).say(tally.line) }
        return (exit, state)
    }

    mutating func wantsRematch(peer: String, peerOffered: Bool, weQuit: Bool) async -> Bool {
        let wants = await plan.wanted(peer: peer, peerOffered: peerOffered, question: question, weQuit: weQuit)
        if wants && !peerOffered { hold = plan.waitForAnswer(from: peer, board: ended, localSeat: record.localSeat) }
        return wants
    }

    func noRematch(_ end: RematchEnd, peer: String) {
        hold?.close()
        plan.explain(end, peer: peer)
        // The series is over: its score, when there was more than one match.
        if tally.matches >= 2 { Announcer(json: json).say(tally.line) }
    }

    mutating func rematchStarted(_ next: Match) async {
        hold?.close()
        hold = nil
        record = nextRecord(next, record)
        if let saveFirst { await saveFirst(next, record) }
        Announcer(json: json).say(tally.line)
        plan.started(next.initialState, localSeat: next.localSeat)
    }

    /// A JSON notice on stdout with --json, else a line on stderr.
    func tell(_ notice: SeriesNotice) {
        let text = switch notice {
        case .waitingForTheEnd(let guest, let grace):
            "waiting up to \(grace.components.seconds) s for \(guest) to come back and see the end"
        case .guestSawTheEnd(let guest):
            "\(guest) came back and saw the end."
        case .endNotConfirmed(let guest, let grace, let match):
            "\(guest) did not confirm the end within \(grace.components.seconds) s; if their copy is behind, "
                + "'parlor resume \(match.short)' here serves it the end again."
        }
        if json {
            Announcer(json: true).say(text, event: JSONEvents.notice(text))
        } else {
            Console.writeError("parlor: \(text)\n")
        }
    }
}

/// The score of a series of rematches, by player (seats swap each match):
/// "Series after 3 matches: Ana 1, Bo 1, 1 draw." Plain and full-screen
/// mode say it; JSON consumers have each match's `end`.
struct SeriesTally {
    private(set) var matches = 0
    private var wins: [PlayerID: Int] = [:]
    private var players: [(id: PlayerID, name: String)] = []
    private var draws = 0

    /// Counts `state`'s end: one seat won (a quit counts for the other), else a draw.
    mutating func add(_ state: MatchState) {
        matches += 1
        for seat in state.seats {
            if let index = players.firstIndex(where: { $0.id == seat.playerID }) {
                players[index].name = seat.name
            } else {
                players.append((seat.playerID, seat.name))
            }
        }
        let winners = state.seats.filter { $0.outcome == .won }
        if winners.count == 1 { wins[winners[0].playerID, default: 0] += 1 } else { draws += 1 }
    }

    /// "Series after 2 matches: Ana 2, Bo 0." (draws only when there were some).
    var line: String {
        let scores = players.map { "\(Text.escapingUnprintable($0.name)) \(wins[$0.id] ?? 0)" }.joined(separator: ", ")
        let drawn = draws == 0 ? "" : ", \(draws) draw\(draws == 1 ? "" : "s")"
        return "Series after \(matches) match\(matches == 1 ? "" : "es"): \(scores)\(drawn)."
    }
}
