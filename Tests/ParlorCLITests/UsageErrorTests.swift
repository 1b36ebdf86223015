import Games
import Testing
@testable import ParlorCLI

/// Bad command lines and the exact sentence each must print after "Error: ".
/// EndToEndTests runs the same table through the real binary and checks exit 64.
/// `expected` as this process says it: a test in it may have registered a game
/// of its own (Nim) after the built-in ones, and "Known games" then names it too
/// (the real binary, which EndToEndTests runs, knows only the built-in games).
func withRegisteredGames(_ expected: String) -> String {
    let extra = GameCatalog.all.dropFirst(GameCatalog.builtIn.count).map { ", " + $0.id }.joined()
    return expected.replacingOccurrences(of: "Known games: connect4, cube4, tictactoe, reversi, dots-and-boxes, chinese-checkers.",
                                         with: "Known games: connect4, cube4, tictactoe, reversi, dots-and-boxes, chinese-checkers\(extra).")
}

let badCommandLines: [([String], String)] = [
    // Commands
    (["plya"], "unknown command 'plya'. Did you mean 'play'?"),
    (["hots", "connect4"], "unknown command 'hots'. Did you mean 'host'?"),
    (["connect4"], "unknown command 'connect4'. Did you mean 'parlor play connect4'?"),
    (["xyzzy"], "unknown command 'xyzzy'."),
    (["--jsno"], "unknown option '--jsno'."),
    (["--verison"], "unknown option '--verison'. Did you mean '--version'?"),
    (["--version", "extra"], "unexpected argument 'extra'."),
    (["help", "plya"], "unknown command 'plya'. Did you mean 'play'?"),
    (["help", "play", "host"], "unexpected argument 'host'."),
    (["bench"], "'parlor bench' needs one of: turns, bots, soak, render, tables, startup."),
    (["bench", "trns"], "unknown command 'bench trns'. Did you mean 'bench turns'?"),
    // Arguments and flags
    (["play"], "missing argument GAME."),
    (["play", "connect4", "extra"], "unexpected argument 'extra'."),
    (["play", "connect4", "--seet", "first"], "unknown option '--seet'. Did you mean '--seat'?"),
    (["play", "connect4", "-x"], "unknown option '-x'."),
    (["play", "connect4", "--bot"], "option '--bot' needs a value (LEVEL)."),
    (["play", "connect4", "--bot", "--json"], "option '--bot' needs a value (LEVEL)."),
    (["play", "connect4", "--ascii=yes"], "option '--ascii' does not take a value."),
    (["play", "connect4", "--plain", "--json"], "'--plain' and '--json' cannot be used together."),
    (["play", "connect4", "--json", "--ascii", "--plain"], "'--json' and '--plain' cannot be used together."),
    // Games
    (["play", "conect4"], "unknown game 'conect4'. Did you mean 'connect4'?"),
    (["play", "tic-tac-to"], "unknown game 'tic-tac-to'. Did you mean 'tictactoe'?"),
    (["play", "dot"], "unknown game 'dot'. Did you mean 'dots-and-boxes'?"),
    (["play", "Chinese"], "unknown game 'chinese'. Did you mean 'chinese-checkers'?"),
    (["host", "othel"], "unknown game 'othel'. Did you mean 'reversi'?"),
    (["othello"], "unknown command 'othello'. Did you mean 'parlor play reversi'?"),
    (["play", "nosuchgame"], "unknown game 'nosuchgame'. Known games: connect4, cube4, tictactoe, reversi, dots-and-boxes, chinese-checkers."),
    (["browse", "--game", "cueb4"], "unknown game 'cueb4'. Did you mean 'cube4'?"),
    (["bench", "bots", "-g", "chess"], "unknown game 'chess'. Known games: connect4, cube4, tictactoe, reversi, dots-and-boxes, chinese-checkers."),
    // Values
    (["play", "dots-and-boxes", "--seats", "3", "--seat", "4"],
     "invalid value '4' for '--seat': expected a whole number from 1 to 3."),
    (["play", "connect4", "--seats", "3"], "invalid value '3' for '--seats': connect4 is played by 2 players."),
    (["play", "chinese-checkers", "--seats", "5"],
     "invalid value '5' for '--seats': chinese-checkers is played by 2, 3, 4 or 6 players."),
    (["play", "dots-and-boxes", "--seats", "9"], "invalid value '9' for '--seats': dots-and-boxes is played by 2, 3 or 4 players."),
    (["host", "dots", "--seats", "9"], "invalid value '9' for '--seats': dots-and-boxes is played by 2, 3 or 4 players."),
    (["play", "nosuchgame", "--seats", "9"], "invalid value '9' for '--seats': expected a whole number from 2 to 8."),
    (["host", "connect4", "--bots", "easy"],
     "invalid value 'easy' for '--bots': a table of 2 has no seat for --bots: one seat is yours and the other a guest's. "
        + "--bot LEVEL has a bot play your own seat. To play against a bot, run 'parlor play connect4 --vs bot:LEVEL'."),
    (["host", "dots-and-boxes", "--bots", "easy"],
     "invalid value 'easy' for '--bots': a table of 2 has no seat for --bots: one seat is yours and the other a guest's. "
        + "--bot LEVEL has a bot play your own seat. --seats 3 or 4 leaves room for bots."),
    (["host", "dots-and-boxes", "--seats", "3", "--bots", "easy,hard"],
     "invalid value 'easy,hard' for '--bots': expected at most 1 comma-separated levels (easy, medium or hard): "
        + "a table of 3 keeps one seat for you and at least one for a guest."),
    (["play", "dots-and-boxes", "--seats", "4", "--vs", "bot,human"],
     "invalid value 'bot,human' for '--vs': expected 3 comma-separated players, one for each other seat, or one for all of them."),
    (["play", "dots-and-boxes", "--seats", "3", "--vs", "bot,robot"],
     "invalid value 'robot' for '--vs': expected bot, bot:easy, bot:medium, bot:hard, human or friend. Did you mean 'bot'?"),
    (["play", "connect4", "--vs", "bot:hrad"],
     "invalid value 'bot:hrad' for '--vs': expected bot, bot:easy, bot:medium, bot:hard, human or friend. Did you mean 'bot:hard'?"),
    (["play", "connect4", "--vs", "computer"],
     "invalid value 'computer' for '--vs': expected bot, bot:easy, bot:medium, bot:hard, human or friend."),
    (["play", "connect4", "--bot", "expert"], "invalid value 'expert' for '--bot': expected easy, medium or hard."),
    (["play", "connect4", "--seat", "secnd"],
     "invalid value 'secnd' for '--seat': expected first, second or random. Did you mean 'second'?"),
    (["play", "connect4", "--turn-timeout", "0"],
     "invalid value '0' for '--turn-timeout': expected a number of seconds from 1 to 86400."),
    (["play", "connect4", "--turn-timeout", "1e3"],
     "invalid value '1e3' for '--turn-timeout': expected a number of seconds from 1 to 86400."),
    (["play", "connect4", "--turn-timeout=inf"],
     "invalid value 'inf' for '--turn-timeout': expected a number of seconds from 1 to 86400."),
    (["play", "connect4", "--seed", "-1"],
     "invalid value '-1' for '--seed': expected a whole number from 0 to 18446744073709551615."),
    (["play", "connect4", "--seed", "18446744073709551616"],
     "invalid value '18446744073709551616' for '--seed': expected a whole number from 0 to 18446744073709551615."),
    (["host", "connect4", "--port", "65536"], "invalid value '65536' for '--port': expected a whole number from 0 to 65535."),
    (["host", "connect4", "-p", "http"], "invalid value 'http' for '--port': expected a whole number from 0 to 65535."),
    (["host", "connect4", "--port=+80"], "invalid value '+80' for '--port': expected a whole number from 0 to 65535."),
    (["host", "connect4", "--name", " "], "invalid value ' ' for '--name': a name needs at least one visible character."),
    (["host", "connect4", "--name", String(repeating: "x", count: 33)],
     "invalid value '\(String(repeating: "x", count: 33))' for '--name': a name is at most 32 characters."),
    (["host", "connect4", "--name", "Ana\u{1B}[31m"],
     "invalid value 'Ana\\u{1B}[31m' for '--name': a name cannot contain control characters, line breaks or direction overrides."),
    (["host", "connect4", "--name", "Ana\u{202E}"],
     "invalid value 'Ana\\u{202E}' for '--name': a name cannot contain control characters, line breaks or direction overrides."),
    (["host", "connect4", "--code=12"], "invalid value '12' for '--code': a code is at least 4 characters."),
    (["host", "connect4", "--code=ab cd"], "invalid value 'ab cd' for '--code': a code is made of letters, digits and '-' only."),
    (["host", "connect4", "--code", "12"], "invalid value '12' for '--code': a code is at least 4 characters."),
    (["host", "connect4", "--code", "1234", "extra"], "unexpected argument 'extra'."),
    (["join", "Ana", "Bob"], "unexpected argument 'Bob'."),
    (["join", "localhost:0"], "invalid value 'localhost:0' for TARGET: the port must be a whole number from 1 to 65535."),
    (["join", "localhost:99999"], "invalid value 'localhost:99999' for TARGET: the port must be a whole number from 1 to 65535."),
    (["join", "localhost:"], "invalid value 'localhost:' for TARGET: the port must be a whole number from 1 to 65535."),
    (["join", "::1"],
     "invalid value '::1' for TARGET: write an IPv6 address in brackets followed by the port, e.g. [::1]:7477."),
    (["join", "300.1.1.1:7477"], "invalid value '300.1.1.1:7477' for TARGET: not a valid IPv4 or IPv6 address."),
    (["join", "x", "--code", "ab"], "invalid value 'ab' for '--code': a code is at least 4 characters."),
    (["browse", "--timeout", "2", "--watch"], "'--timeout' and '--watch' cannot be used together."),
    (["browse", "-w", "-t", "2"], "'--watch' and '--timeout' cannot be used together."),
    (["browse", "--timeout", "0"], "invalid value '0' for '--timeout': expected a number of seconds from 0.1 to 3600."),
    (["forget"], "missing argument ID."),
    (["forget", "a b"],
     "invalid value 'a b' for ID: expected a match id as 'parlor matches' lists it (letters, digits, '-' and '_')."),
    (["replay", "m1", "--plain", "--json"], "'--plain' and '--json' cannot be used together."),
    (["resume", "host:abc"], "invalid value 'host:abc' for ID|HOST:PORT: the port must be a whole number from 1 to 65535."),
    (["bench", "turns", "--count", "0"], "invalid value '0' for '--count': expected a whole number from 1 to 1000000."),
    (["bench", "bots", "--games", "10001"], "invalid value '10001' for '--games': expected a whole number from 1 to 10000."),
    (["bench", "render", "--count", "1"], "unknown option '--count'."),
]

@Suite("Bad command lines say exactly what was wrong")
struct UsageErrorTests {
    @Test("each bad command line gets its message", arguments: badCommandLines)
    func message(words: [String], expected: String) {
        #expect(usageMessage(words) == withRegisteredGames(expected))
    }

    @Test("a usage error is three parts: Error, the usage line, where to get help")
    func renderedForCommand() {
        #expect(rendered(["play", "conect4"]) == """
            Error: unknown game 'conect4'. Did you mean 'connect4'?
            Usage: parlor play GAME [--seats N] [--vs WHO[,WHO...]]
                     [--seat first|second|random|N] [--name TEXT] [--bot LEVEL]
                     [--turn-timeout SECONDS] [--seed N] [--plain|--json] [--ascii]
                     [--no-color] [--no-bell]
            See 'parlor help play'.

            """)
        #expect(rendered(["browse", "-t", "1", "-w"]) == """
            Error: '--timeout' and '--watch' cannot be used together.
            Usage: parlor browse [--game G] [--json] [--timeout SECONDS|--watch]
            See 'parlor help browse'.

            """)
    }

    @Test("errors outside a command point to the top-level help; bench errors to bench's")
    func renderedForTopLevelAndGroup() {
        #expect(rendered(["plya"]) == """
            Error: unknown command 'plya'. Did you mean 'play'?
            Usage: parlor [COMMAND] [OPTIONS]
            See 'parlor help'.

            """)
        #expect(rendered(["bench"]) == """
            Error: 'parlor bench' needs one of: turns, bots, soak, render, tables, startup.
            Usage: parlor bench turns|bots|soak|render|tables|startup [OPTIONS]
            See 'parlor help bench'.

            """)
        #expect(rendered(["bench", "turns", "-c", "x"]) == """
            Error: invalid value 'x' for '--count': expected a whole number from 1 to 1000000.
            Usage: parlor bench turns [--count N] [--dir DIR] [--spectators N]
            See 'parlor help bench turns'.

            """)
    }

    @Test("a usage error thrown by a handler at run time is rendered the same way, exit 64")
    func usageErrorFromRun() async {
        let code = await Parlor.report(command: JoinOptions.spec) {
            throw UsageError.missingArgument("TARGET")
        }
        #expect(code == .usage)
        #expect(UsageFailure(.missingArgument("TARGET"), command: JoinOptions.spec).rendered.hasPrefix(
            "Error: missing argument TARGET.\nUsage: parlor join [TARGET]"))
    }

    @Test("run-time errors map to their exit codes")
    func runTimeErrors() async {
        struct Refused: UserFacingError {
            var exitCode: ExitCode { .failure }
            var message: String { "connection refused" }
        }
        struct Oops: Error {}
        #expect(await Parlor.report(command: nil) { throw Refused() } == .failure)
        #expect(await Parlor.report(command: nil) { throw CancellationError() } == .interrupted)
        #expect(await Parlor.report(command: nil) { throw Oops() } == .internalError)
        #expect(await Parlor.report(command: nil) { .temporaryFailure } == .temporaryFailure)
    }

    private func rendered(_ words: [String]) -> String? {
        do {
            _ = try Parlor.parse(words, environment: ["USER": "ana"])
            return nil
        } catch {
            return error.rendered
        }
    }
}

@Suite("Near-miss suggestions")
struct SuggestionTests {
    @Test("commands, flags and values within a couple of edits are suggested", arguments: [
        ("plya", ["play", "host", "join"], "play"),
        ("brwose", ["play", "browse"], "browse"),
        ("--jsno", ["--json", "--plain"], "--json"),
        ("--no-colour", ["--no-color", "--ascii"], "--no-color"),
        ("HRAD", ["easy", "medium", "hard"], "hard"),
    ] as [(String, [String], String)])
    func near(word: String, candidates: [String], expected: String) {
        #expect(Suggestion.nearest(to: word, among: candidates) == expected)
    }

    @Test("nothing is suggested for words far from every candidate", arguments: ["xyzzy", "--frobnicate", ""])
    func far(word: String) {
        #expect(Suggestion.nearest(to: word, among: ["play", "host", "--json"]) == nil)
    }
}
