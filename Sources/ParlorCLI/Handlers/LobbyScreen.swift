// The lobby: bare `parlor` on a terminal. A live list of the games on the
// LAN, and keys to join one, host a new game, or play a bot offline.
// TerminalUI's `LobbyModel` is pure (keys and games in, lines and a choice
// out); `Lobby` is the thin shell that owns the terminal and the browse
// while it runs, and turns the model's choice into a command's.

@preconcurrency import Glibc
import Discovery
import Foundation
import Games
import ParlorKit
import Store
import TerminalUI

/// What the player chose in the lobby.
enum LobbyChoice: Sendable, Hashable {
    /// Join this game.
    case join(ListedGame)
    /// Join the game at this typed address (or name).
    case joinTarget(JoinTarget)
    /// Watch this game without a seat (`w`, `parlor watch`).
    case watch(ListedGame)
    /// Resume your own match with this id (`parlor resume ID`).
    case resume(String)
    /// Host a new game of this id, as `name`, with a made-up passcode or none, from `seat`.
    case host(String, name: String, passcode: Bool, seat: SeatChoice)
    /// Play this game against a bot of `level` offline, from `seat`.
    case play(String, level: BotLevelChoice, seat: SeatChoice)
    /// Leave.
    case quit
    /// The matches at the desk were left for now (q twice, Ctrl-C, a signal: `signal`).
    case left(signal: Int32?)
}

/// parlor's lobby: TerminalUI's `LobbyModel` with the catalog, the bot
/// levels, and how a typed address and a host's name are checked.
typealias ParlorLobbyModel = LobbyModel<JoinTarget>

extension LobbyModel where Address == JoinTarget {
    init(defaultName: String = PlayerName.fallback, defaultLevel: BotLevelChoice = .medium, message: String? = nil) {
        let rules = Rules(
            catalog: GameCatalog.all.map { ($0.id, $0.displayName) },
            levels: BotLevelChoice.allCases.map(\.rawValue),
            address: { typed in
                do throws(JoinTargetProblem) { return .success(try JoinTarget(parsing: typed)) } catch {
                    return .failure(Refusal("'\(Text.escapingUnprintable(typed))': \(error.explanation)"))
                }
            },
            playerName: { typed in
                do throws(PlayerNameProblem) { return .success(try PlayerName.validated(typed)) } catch {
                    return .failure(Refusal("That name cannot be used: \(error.explanation)"))
                }
            })
        self.init(rules: rules, defaultName: defaultName, defaultLevel: defaultLevel.rawValue, message: message)
    }
}

extension LobbyModel.Game where Address == JoinTarget {
    /// A game found on the LAN as the lobby lists it: its row, and why it cannot be joined or watched.
    init(_ game: ListedGame) {
        self.init(row: GameListing.row(game),
                  joinRefusal: game.assessment.reason.map { Text.escapingUnprintable("\($0)") },
                  watchRefusal: ParlorServiceInfo.assessForWatching(game.assessment).reason.map { Text.escapingUnprintable("\($0)") })
    }
}

extension LobbyModel.Mine where Address == JoinTarget {
    /// One of your saved matches as the lobby lists it: which match, its state
    /// and whose turn; one a process is playing now cannot be resumed.
    init(_ record: StoredMatch) {
        let state = record.state
        let label = TurnNotices.label(state, localSeats: [record.localSeat])
        let turn = state.activeSeat.map { $0 == record.localSeat ? "your turn" : "\(state.seats[$0].name)'s turn" }
        let text = [label, record.phase.description, turn].compactMap { $0 }.joined(separator: " · ")
        self.init(id: state.matchID.hex, text: Text.escapingUnprintable(text),
                  resumeRefusal: record.phase == .playing ? "it is being played right now (Tab lists the matches here)" : nil)
    }

    /// Your matches that are not over, newest first, from the match store (what `parlor matches` lists).
    static func saved() -> [Self] {
        LocalData.matchStore.list().matches.filter { $0.phase != .ended && !$0.state.isEnded }.map(Self.init)
    }
}

extension LobbyChoice {
    /// The model's choice as the command it stands for; `games` are the games the model was shown.
    init(_ choice: ParlorLobbyModel.Choice, games: [ListedGame]) {
        switch choice {
        case .join(let index): self = .join(games[index])
        case .joinAddress(let target): self = .joinTarget(target)
        case .watch(let index): self = .watch(games[index])
        case .resume(let id): self = .resume(id)
        case .host(let game, let name, let passcode, let seat):
            self = .host(game, name: name, passcode: passcode, seat: SeatChoice(seat))
        case .play(let game, let level, let seat):
            self = .play(game, level: BotLevelChoice(rawValue: level) ?? .medium, seat: SeatChoice(seat))
        case .quit: self = .quit
        }
    }
}

extension SeatChoice {
    init(_ seat: ParlorLobbyModel.Seat) {
        switch seat {
        case .first: self = .first
        case .second: self = .second
        case .random: self = .random
        }
    }
}

/// Runs the lobby on the terminal until the player leaves.
///
/// Owns the terminal while it runs: raw mode and the alternate screen, a
/// key reader on its own thread, and a browse. Every one of them is
/// released before it returns. Joining, hosting and playing a bot do not
/// leave it: each such match sits at the lobby's `MatchDesk` (started by
/// `seats`), and the lobby stays home to several matches at once.
struct Lobby {
    /// Where the model starts: the defaults to offer, and a message (why the last join failed).
    var model = ParlorLobbyModel()
    /// Starts the matches chosen here, at the desk.
    var seats: DeskSeats

    func run() async throws -> LobbyChoice {
        let terminal = Terminal()
        do { try terminal.enterFullScreen() } catch {
            throw CommandFailure("cannot open the lobby: \(error)", exitCode: .ioError)
        }
        let inputs = InputMerger<BrowseEvent>()
        let desk = seats.openDesk(on: terminal) { inputs.redraw() }
        // Raw mode turns Ctrl-C into a key; these are what may still arrive as signals.
        let signals = SignalWatcher(signals: [SIGTERM, SIGHUP, SIGWINCH]) { number in
            if number == SIGWINCH {
                desk.resized()
                inputs.redraw()
                return
            }
            // Matches at the desk are left for now (saved, resumable); without any, parlor ends at once.
            guard desk.matchCount > 0 else {
                terminal.restore()
                exit(ExitCode(endedBy: number).rawValue)
            }
            // More hang-ups may follow the first; none may kill parlor while the matches are saved.
            if number == SIGHUP { SignalWatcher.ignoreHangUpsFromNowOn() }
            desk.leaveAll(signal: number, terminalLost: number == SIGHUP)
            seats.signalled(number)
            inputs.redraw()
        }
        defer {
            inputs.close()
            signals.cancel()
            desk.close()
            terminal.restore()
        }
        inputs.forward(DNSSDDirectory().browse(type: parlorServiceType))
        inputs.readKeys()

        var model = self.model
        // The browse's games, in the order the model shows them.
        var list = GameList(assess: { Listing.assess($0) })
        // The LAN's games but your own (hosted here, or a match of yours): those are never offered to join.
        var shown: [ListedGame] = []
        func refresh() {
            let mine = ParlorLobbyModel.Mine.saved()
            shown = Self.othersGames(list.games, ownNames: OwnListings.names, ownMatches: Set(mine.map(\.id)))
            model.show(mine: mine)
            model.show(games: shown.map(ParlorLobbyModel.Game.init))
        }
        refresh()
        // q (or Esc) with matches at the desk asks once: a second q leaves them all for now.
        var leavingAsked = false
        draw(model, desk: desk, on: terminal)
        for await input in inputs.stream {
            if let number = seats.signal { return .left(signal: number) }
            switch input {
            case .event(.failed(let error)):
                model.discoveryFailed("\(error)")
            case .event(.refused(let error)):
                // Said once per browse (Discovery reports it once), which goes on and tries again; as browse says it.
                model.tell("Some games may be missing for a moment: \(error)")
                draw(model, desk: desk, on: terminal)
            case .event(let event):
                list.apply(event)
                refresh()
            case .key(let key):
                if desk.hasScreen {
                    switch desk.handle(key) {
                    case .handled: continue
                    case .showLobby: break
                    case .leftAll: return .left(signal: SIGINT)
                    }
                } else if key == .tab, desk.matchCount > 0 {
                    desk.openList()
                    continue
                } else if key == .interrupt, desk.matchCount > 0 {
                    desk.leaveAll(signal: SIGINT)
                    return .left(signal: SIGINT)
                } else if let choice = model.handle(key).map({ LobbyChoice($0, games: shown) }) {
                    switch choice {
                    case .join, .joinTarget, .play, .host, .watch, .resume:
                        leavingAsked = false
                        model.showGames()
                        seats.start(choice, at: desk)
                    case .quit where desk.matchCount + desk.waitingCount == 0:
                        return .quit
                    case .quit where leavingAsked:
                        desk.leaveAll(signal: nil)
                        return .left(signal: nil)
                    case .quit:
                        leavingAsked = true
                        desk.say(desk.matchCount == 0 ? "You are hosting: press q again to stop waiting and leave."
                                 : "You sit at \(desk.matchCount) match\(desk.matchCount == 1 ? "" : "es"): press q again to leave "
                                   + "them for now ('parlor resume' continues each), or Tab to list them.")
                    case .left:
                        return choice
                    }
                }
            case .endOfInput:
                if desk.matchCount > 0 {
                    SignalWatcher.ignoreHangUpsFromNowOn()
                    desk.leaveAll(signal: nil, terminalLost: true)
                    return .left(signal: SIGHUP)
                }
                return .quit
            case .redraw:
                refresh()  // a match at the desk started, ended or was left: your matches changed
            case .deadline, .line:
                break
            }
            if !desk.hasScreen { draw(model, desk: desk, on: terminal) }
        }
        return .quit
    }

    /// The games on the LAN that are not yours: none that this process
    /// advertises (`ownNames`), none whose match is one of yours (`ownMatches`,
    /// ids): joining either would seat you against yourself.
    static func othersGames(_ games: [ListedGame], ownNames: Set<String>, ownMatches: Set<String>) -> [ListedGame] {
        games.filter { game in
            guard !ownNames.contains(game.name) else { return false }
            guard let match = game.info?.matchID, !match.isEmpty else { return true }
            return !ownMatches.contains(match)
        }
    }

    private func draw(_ model: ParlorLobbyModel, desk: MatchDesk, on terminal: Terminal) {
        let size = terminal.size()
        // One column spare: writing the last column makes some terminals wrap.
        let width = max(20, (size?.columns ?? 80) - 1)
        var (lines, selected) = model.page(width: width)
        let deskLines = desk.homeLines().flatMap { ScreenText.wrap($0, to: width) }
        if !deskLines.isEmpty {
            let at = min(2, lines.count)
            lines.insert(contentsOf: deskLines + [""], at: at)
            if let row = selected, row >= at { selected = row + deskLines.count + 1 }
        }
        desk.showLobby(lines, highlighted: selected)
    }
}
