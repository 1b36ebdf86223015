import Foundation
import Match
import Session
import TerminalUI

/// Runs `parlor watch TARGET`: reaches the host as `join` does, asks to watch
/// (WATCH, docs/PROTOCOL.md section 17) and shows the match with the same
/// frontends, with no local seat: nothing typed moves, q leaves.
///
/// With `desk`, the match is one of several at the lobby's desk (the lobby's
/// `w`): what would be printed goes to the lobby's line, and a passcode is asked for there.
func runWatch(_ options: WatchOptions, desk: MatchDesk? = nil) async throws -> ExitCode {
    let presentation = desk.map { MatchPresentation(desk: $0) } ?? MatchPresentation(flags: options.display)
    let sink: (@Sendable (String) -> Void)? = if let desk { { text in desk.say(text) } } else { nil }
    let announcer = Announcer(json: presentation.isJSON, sink: sink)
    let reached = try await ReachedHost.reach(options.target, json: presentation.isJSON, watching: true)
    let hello = Hello(appVersion: ParlorVersion.current, playerID: LocalData.playerID, playerName: options.name)
    var guestOptions = SessionRunner.guestOptions(grace: .zero, dial: reached.dial)
    guestOptions.passcode = options.passcode
    var question = PasscodeQuestion(game: reached.gameName, address: reached.peerAddress, channel: reached.channel, use: .watch)
    question.desk = desk
    reached.channel.prove(guestOptions.passcode, for: .watch)
    let watched = try await question.handshake(first: reached.channel.security.connecting(reached.connection.byteStream()), options: &guestOptions,
                                               dial: reached.dial) { stream, options throws(JoinError) in
        try await Spectator.watch(over: stream, hello: hello, options: options)
    }
    let count = Int(watched.welcome.watching)
    let others = count > 1 ? " (\(count) watching)" : ""
    announcer.say("Watching the game at \(reached.peerAddress)\(others); q leaves.",
                  event: JSONEvents.watching(address: reached.peerAddress, count: count, key: watched.hostKey?.fingerprint.description))
    // The host's key: a spectator names no host, so it is shown with whom it was met as, never remembered.
    if let key = watched.hostKey, !presentation.isJSON { announcer.say(KnownPeople.hostLine(key: key)) }
    if watched.welcome.matchBlob.isEmpty {
        announcer.say("The match has not begun yet; waiting for it.", event: JSONEvents.notice("waiting for the match to begin"))
    }
    // At a table that fills, the seat list as a seated guest sees it: "2 of 4 seated: Ana (host), Bo, free, free".
    let seatings = Task {
        for await table in watched.feed.seatings { announcer.say(table.summary, event: tableEvent(table)) }
    }
    // Before the match begins, q or Esc stops watching, as the line above says.
    let keys = desk == nil && !presentation.isJSON ? WaitingKeys.watch(onStop: { watched.feed.leave() }) : nil
    let first = await watched.firstState()
    await seatings.value
    if let keys, keys.finish() { return .success }
    guard let first else {
        throw CommandFailure("stopped watching: \(watched.feed.failure ?? "the host went away")", exitCode: .temporaryFailure)
    }
    // The players' rematches are watched too: the host keeps its spectators
    // and sends the next match's STATE, or GOODBYE when the series is over.
    var match = first
    while true {
        let board = EndQuestion("")
        board.tell("The match is over; waiting to see whether they play again (any key stops watching).", settled: true)
        let shown = match.matchID
        let next = Task { () -> MatchState? in
            let next = await watched.nextMatch(after: shown)
            if next != nil { board.moveOn() } else { board.tell("The match is over.", settled: true) }
            return next
        }
        let exit = try await presentation.play(watched.makeController(for: match), locals: [], recorder: nil, endQuestion: board)
        switch exit {
        case .ended:
            // A key on the final board stops watching; the line frontends end with the match and wait here.
            guard board.movedOn || !presentation.isFullScreen, let following = await next.value else {
                next.cancel()
                watched.feed.leave()
                return .success
            }
            announcer.say("The players start a rematch: match \(following.matchID.short).", event: JSONEvents.rematch(match: following.matchID.hex))
            match = following
        case .left, .terminalLost, .inputEnded:
            watched.feed.leave()
            return .success
        case .interrupted:
            watched.feed.leave()
            return .interrupted
        case .failed(let failure, _):
            watched.feed.leave()
            if !presentation.isJSON, case .connectionLost(let why) = failure { Console.writeError("parlor: stopped watching: \(why)\n") }
            return .temporaryFailure
        }
    }
}
