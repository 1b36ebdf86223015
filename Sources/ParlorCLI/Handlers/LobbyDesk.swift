// The lobby's desk: the matches a player sits at from the lobby, several at
// once. Each runs as the matching command would (`parlor join`, `parlor
// host`, `parlor play`), on a task of its own, with a `MatchDesk` frontend; the lobby stays
// home, and the desk shows one match at a time (TerminalUI/MatchDesk.swift).

@preconcurrency import Glibc
import Foundation
import Match
import Synchronization
import TerminalUI

/// Starts the lobby's choices at its desk and keeps the tasks that run them,
/// so that leaving waits for every match's last save.
final class DeskSeats: Sendable {
    /// The player's name (the settings file's, else the login name).
    let name: String
    /// The settings file's display choices.
    let display: DisplayFlags
    /// The port hosting tries first (the settings file's, else 7477).
    let preferredPort: UInt16
    /// Where the desk writes one JSON line per turn of every match (`PARLOR_EVENTS`); nil: nowhere.
    let eventsFD: Int32?
    private let running = Mutex<[Task<Void, Never>]>([])
    private let caught = Mutex<Int32?>(nil)

    init(name: String, display: DisplayFlags, preferredPort: UInt16 = HostOptions.defaultPort,
         environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.name = name
        self.display = display
        self.preferredPort = preferredPort
        if let path = environment["PARLOR_EVENTS"], !path.isEmpty {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            eventsFD = fd >= 0 ? fd : nil
        } else {
            eventsFD = nil
        }
    }

    deinit { if let eventsFD { close(eventsFD) } }

    /// A desk on the lobby's terminal, drawing as a match's full screen would.
    func openDesk(on terminal: Terminal, onHomeChanged: @escaping @Sendable () -> Void) -> MatchDesk {
        let environment = ProcessInfo.processInfo.environment
        let options = TerminalUI.DisplayOptions.detect(environment: environment, isTTY: true,
                                                       noColorFlag: !display.colorAllowed(environment: environment),
                                                       asciiFlag: display.ascii)
        let desk = MatchDesk(terminal: terminal, options: options, bell: display.bell, eventsFD: eventsFD, onHomeChanged: onHomeChanged)
        // A line a match prints (the rematch's "Waiting for Bo's answer…") would land on the desk's screen: it is said in the lobby.
        Console.divert { [weak desk] text in desk?.sayWhileOpen(text) ?? false }
        return desk
    }

    /// Starts `choice` (a join or an offline match) at `desk`; what goes wrong is said in the lobby.
    func start(_ choice: LobbyChoice, at desk: MatchDesk) {
        let name = self.name
        let display = self.display
        var join: JoinOptions?
        var play: PlayOptions?
        var host: HostOptions?
        var watch: WatchOptions?
        var resume: ResumeOptions?
        switch choice {
        case .join(let game):
            desk.say("Joining \"\(Text.escapingUnprintable(game.name))\"\u{2026}")
            join = JoinOptions(target: .name(game.name), name: name, display: display)
        case .joinTarget(let target):
            desk.say("Joining \(target)\u{2026}")
            join = JoinOptions(target: target, name: name, display: display)
        case .watch(let game):
            desk.say("Watching \"\(Text.escapingUnprintable(game.name))\"\u{2026}")
            watch = WatchOptions(target: .name(game.name), name: name, display: display)
        case .play(let id, let level, let seat):
            play = PlayOptions(game: id, opponents: [.bot(level)], seat: seat, display: display, name: name)
        case .host(let id, let hostName, let passcode, let seat):
            host = HostOptions(game: id, name: hostName, seat: seat, passcode: passcode ? .generate : nil, display: display)
            host?.preferredPort = preferredPort
        case .resume(let id):
            desk.say("Resuming match \(id.prefix(8))\u{2026}")
            resume = ResumeOptions(target: .match(id: id), display: display)
        case .quit, .left:
            return
        }
        let task = Task { [join, play, host, watch, resume] in
            do {
                if let resume { _ = try await runResume(resume, desk: desk) }
                if let host { _ = try await runHost(host, desk: desk) }
                if let join { _ = try await runJoin(join, desk: desk) }
                if let watch { _ = try await runWatch(watch, desk: desk) }
                if let play { _ = try await runPlay(play, desk: desk) }
            } catch let error as any UserFacingError {
                desk.say(error.message.prefix(1).uppercased() + error.message.dropFirst() + ".")
            } catch {
                desk.say("\(error)")
            }
        }
        running.withLock { $0.append(task) }
    }

    /// A signal left every match; the lobby returns at its next input.
    func signalled(_ number: Int32) { caught.withLock { if $0 == nil { $0 = number } } }

    /// The signal that left the matches, if one did.
    var signal: Int32? { caught.withLock { $0 } }

    /// Waits until every match started here has finished (saved, and told its peer).
    func finishAll() async {
        let tasks = running.withLock { current -> [Task<Void, Never>] in
            defer { current = [] }
            return current
        }
        for task in tasks { await task.value }
    }
}
