import Testing
@testable import ParlorCLI

/// Parses a command line that must produce a command of type `T`.
func parsed<T: ParsableCommand>(_ words: [String], as type: T.Type, environment: [String: String] = ["USER": "ana"]) throws -> T {
    let invocation = try Parlor.parse(words, environment: environment)
    guard case .command(let command) = invocation else {
        Issue.record("\(words) gave \(invocation), not a command")
        throw ParseTestError.notACommand
    }
    guard let typed = command as? T else {
        Issue.record("\(words) gave \(Swift.type(of: command)), not \(T.self)")
        throw ParseTestError.notACommand
    }
    return typed
}

enum ParseTestError: Error { case notACommand }

/// The "Error: ..." message a command line fails with, or nil when it parses.
func usageMessage(_ words: [String], environment: [String: String] = ["USER": "ana"]) -> String? {
    do {
        _ = try Parlor.parse(words, environment: environment)
        return nil
    } catch {
        return error.error.message
    }
}

@Suite("Good command lines parse into the options a handler gets")
struct GoodCommandLineTests {
    @Test("play: defaults are a medium bot, first seat, automatic display")
    func playDefaults() throws {
        let options = try parsed(["play", "connect4"], as: PlayOptions.self)
        #expect(options == PlayOptions(game: "connect4"))
        #expect(options.opponents == [.bot(.medium)])
        #expect(options.seats == 2 && options.otherSeats == [.bot(.medium)])
        #expect(options.seat == .first)
        #expect(options.display == DisplayFlags(output: .automatic, ascii: false, noColor: false))
    }

    @Test("play: every flag, in both spellings and any order")
    func playEveryFlag() throws {
        let expected = PlayOptions(
            game: "connect4", opponents: [.bot(.hard)], seat: .second, bot: .easy, turnTimeout: .seconds(30), seed: 1,
            display: DisplayFlags(output: .json, ascii: true, noColor: true))
        let spaced = ["play", "Connect4", "--vs", "bot:hard", "--seat", "second", "--bot", "easy",
                      "--turn-timeout", "30", "--seed", "1", "--json", "--ascii", "--no-color"]
        let equalsFirst = ["play", "--vs=BOT:HARD", "--seat=second", "--bot=easy", "--turn-timeout=30",
                           "--seed=1", "--no-color", "--ascii", "--json", "connect4"]
        #expect(try parsed(spaced, as: PlayOptions.self) == expected)
        #expect(try parsed(equalsFirst, as: PlayOptions.self) == expected)
    }

    @Test("play: --vs bot means medium, --vs human is hot seat, --plain is plain")
    func playOpponents() throws {
        #expect(try parsed(["play", "tictactoe", "--vs", "bot"], as: PlayOptions.self).opponents == [.bot(.medium)])
        let hotSeat = try parsed(["play", "tictactoe", "--vs=human", "--plain"], as: PlayOptions.self)
        #expect(hotSeat.opponents == [.human])
        #expect(hotSeat.display.output == .plain)
    }

    @Test("play: --seats N with --vs naming every other seat in order, or one entry for all of them")
    func playTable() throws {
        let mixed = try parsed(["play", "dots-and-boxes", "--seats", "4", "--vs", "bot:easy,HUMAN,bot"], as: PlayOptions.self)
        #expect(mixed.seats == 4)
        #expect(mixed.otherSeats == [.bot(.easy), .human, .bot(.medium)])
        let filled = try parsed(["play", "chinese-checkers", "--seats=6", "--vs=bot:hard"], as: PlayOptions.self)
        #expect(filled.otherSeats == Array(repeating: .bot(.hard), count: 5))
        #expect(try parsed(["play", "connect4", "--seats", "2", "--vs", "human"], as: PlayOptions.self).otherSeats == [.human])
        let third = try parsed(["play", "dots-and-boxes", "--seats", "4", "--seat", "3"], as: PlayOptions.self)
        #expect(third.seatNumber == 3)
        #expect(try parsed(["play", "dots-and-boxes", "--seat", "random"], as: PlayOptions.self).seatNumber == nil)
    }

    @Test("play: the names at a table: hot-seat players by number, a repeated bot level numbered")
    func tableNames() {
        #expect(ParlorCLI.tableNames(local: "Player 1", others: [.human, .bot(.easy), .human, .bot(.easy)])
            == ["Player 2", "Easy bot", "Player 3", "Easy bot 2"])
        #expect(ParlorCLI.tableNames(local: "Easy bot", others: [.bot(.easy), .bot(.hard), .bot(.easy)])
            == ["Easy bot 2", "Hard bot", "Easy bot 3"])
        #expect(ParlorCLI.tableNames(local: "Ana", others: [.bot(.medium)]) == ["Medium bot"])
    }

    @Test("play: decimals in seconds, the largest seed, the last of a repeated option")
    func playValues() throws {
        #expect(try parsed(["play", "cube4", "--turn-timeout", "2.5"], as: PlayOptions.self).turnTimeout == .milliseconds(2500))
        #expect(try parsed(["play", "cube4", "--seed=18446744073709551615"], as: PlayOptions.self).seed == UInt64.max)
        #expect(try parsed(["play", "cube4", "--seed", "1", "--seed", "2"], as: PlayOptions.self).seed == 2)
        #expect(try parsed(["play", "--", "cube4"], as: PlayOptions.self).game == "cube4")
    }

    @Test("host: defaults are port 7477 with fallback, the login name, a random seat, no code")
    func hostDefaults() throws {
        let options = try parsed(["host", "connect4"], as: HostOptions.self, environment: ["USER": "ana"])
        #expect(options == HostOptions(game: "connect4", port: nil, name: "Ana", seat: .random))
        #expect(HostOptions.defaultPort == 7477)
    }

    @Test("host: --code alone generates; --code CODE and --code=CODE give; the game or an option after a bare --code is not the code")
    func hostCode() throws {
        #expect(try parsed(["host", "connect4", "--code"], as: HostOptions.self).passcode == .generate)
        let codeBeforeGame = try parsed(["host", "--code", "connect4"], as: HostOptions.self)
        #expect(codeBeforeGame.passcode == .generate)
        #expect(codeBeforeGame.game == "connect4")
        #expect(try parsed(["host", "connect4", "--code=ab-12"], as: HostOptions.self).passcode == .given("ab-12"))
        #expect(try parsed(["host", "connect4"], as: HostOptions.self).passcode == nil)
        // The issue's case: `host --code 1234` with the game before it, or after the code.
        #expect(try parsed(["host", "connect4", "--code", "1234"], as: HostOptions.self) == HostOptions(
            game: "connect4", port: nil, name: "Ana", seat: .random, passcode: .given("1234")))
        let codeFirst = try parsed(["host", "--code", "ab-12", "tictactoe"], as: HostOptions.self)
        #expect(codeFirst.passcode == .given("ab-12") && codeFirst.game == "tictactoe")
        // A word that looks like an option is the next option, not the code.
        let bareThenFlag = try parsed(["host", "connect4", "--code", "--port", "0"], as: HostOptions.self)
        #expect(bareThenFlag.passcode == .generate && bareThenFlag.port == 0)
        let bareThenGameThenFlag = try parsed(["host", "--code", "connect4", "--bot", "easy"], as: HostOptions.self)
        #expect(bareThenGameThenFlag.passcode == .generate && bareThenGameThenFlag.game == "connect4")
        // Given twice, the last counts.
        #expect(try parsed(["host", "connect4", "--code", "1234", "--code"], as: HostOptions.self).passcode == .generate)
        #expect(try parsed(["host", "connect4", "--code", "--code", "wxyz"], as: HostOptions.self).passcode == .given("wxyz"))
        // join takes --code CODE and --code=CODE alike.
        #expect(try parsed(["join", "127.0.0.1:7477", "--code=ab12"], as: JoinOptions.self).passcode == "ab12")
        #expect(try parsed(["join", "127.0.0.1:7477", "--code", "ab12"], as: JoinOptions.self).passcode == "ab12")
    }

    @Test("host: short aliases, port 0, a trimmed Unicode name")
    func hostValues() throws {
        let options = try parsed(["host", "tictactoe", "-p", "0", "-n", " Zoë ", "--turn-timeout", "60", "--bot", "hard"],
                                 as: HostOptions.self)
        #expect(options.port == 0)
        #expect(options.name == "Zoë")
        #expect(options.turnTimeout == .seconds(60))
        #expect(options.bot == .hard)
        #expect(try parsed(["host", "tictactoe", "--port=65535"], as: HostOptions.self).port == 65535)
    }

    @Test("join: address, name, no target, a name after --")
    func joinTargets() throws {
        #expect(try parsed(["join", "127.0.0.1:7477"], as: JoinOptions.self).target == .address(host: "127.0.0.1", port: 7477))
        #expect(try parsed(["join", "Ana's Connect Four", "--code", "ab12"], as: JoinOptions.self)
            == JoinOptions(target: .name("Ana's Connect Four"), name: "Ana", passcode: "ab12"))
        #expect(try parsed(["join"], as: JoinOptions.self).target == nil)
        #expect(try parsed(["join", "--", "-odd name"], as: JoinOptions.self).target == .name("-odd name"))
        #expect(try parsed(["join", "[::1]:7477", "--bot", "medium", "--json"], as: JoinOptions.self)
            == JoinOptions(target: .address(host: "::1", port: 7477), name: "Ana", bot: .medium,
                           display: DisplayFlags(output: .json)))
    }

    @Test("browse: 3 seconds by default, --watch, -t with decimals, --game case-insensitive")
    func browse() throws {
        #expect(try parsed(["browse"], as: BrowseOptions.self) == BrowseOptions(game: nil, json: false, duration: .timeout(.seconds(3))))
        #expect(try parsed(["browse", "-w"], as: BrowseOptions.self).duration == .watch)
        #expect(try parsed(["browse", "-t", "0.5"], as: BrowseOptions.self).duration == .timeout(.milliseconds(500)))
        #expect(try parsed(["browse", "--game", "CUBE4", "--json"], as: BrowseOptions.self) == BrowseOptions(game: "cube4", json: true))
    }

    @Test("matches, replay, forget, resume, doctor, games")
    func storeCommands() throws {
        #expect(try parsed(["matches", "--json"], as: MatchesOptions.self).json)
        #expect(try parsed(["replay", "m-01", "--plain"], as: ReplayOptions.self)
            == ReplayOptions(id: "m-01", display: DisplayFlags(output: .plain)))
        #expect(try parsed(["forget", "m_01", "-y"], as: ForgetOptions.self) == ForgetOptions(id: "m_01", yes: true))
        #expect(try parsed(["forget", "m_01"], as: ForgetOptions.self).yes == false)
        #expect(try parsed(["resume"], as: ResumeOptions.self).target == nil)
        #expect(try parsed(["resume", "a1b2c3"], as: ResumeOptions.self).target == .match(id: "a1b2c3"))
        #expect(try parsed(["resume", "[fe80::1%eth0]:7477", "--bot", "easy"], as: ResumeOptions.self)
            == ResumeOptions(target: .address(host: "fe80::1%eth0", port: 7477), bot: .easy))
        // A resumed host watches its guest as closely as `host --heartbeat-timeout` would.
        #expect(try parsed(["resume", "--heartbeat-timeout", "4", "--grace", "30"], as: ResumeOptions.self).timeouts
            == ConnectionTimeouts(heartbeatTimeout: .seconds(4), grace: .seconds(30)))
        #expect(try parsed(["doctor", "--json"], as: DoctorOptions.self).json)
        #expect(try parsed(["games"], as: GamesOptions.self).json == false)
    }

    @Test("bench: defaults and ranges")
    func bench() throws {
        #expect(try parsed(["bench", "turns"], as: BenchTurnsOptions.self).count == 1000)
        #expect(try parsed(["bench", "turns", "-c", "5"], as: BenchTurnsOptions.self).count == 5)
        #expect(try parsed(["bench", "bots"], as: BenchBotsOptions.self) == BenchBotsOptions(games: 100, game: "connect4"))
        #expect(try parsed(["bench", "bots", "--games", "10", "-g", "tictactoe"], as: BenchBotsOptions.self)
            == BenchBotsOptions(games: 10, game: "tictactoe"))
        #expect(try parsed(["bench", "bots", "--seed", "7"], as: BenchBotsOptions.self) == BenchBotsOptions(seed: 7))
        #expect(throws: UsageFailure.self) { try parsed(["bench", "bots", "--seed", "-1"], as: BenchBotsOptions.self) }
        #expect(try parsed(["bench", "render"], as: BenchRenderOptions.self) == BenchRenderOptions())
    }
}

@Suite("Help, version and bare invocations")
struct MetaInvocationTests {
    /// A short name for what an invocation asks for, to compare in tables.
    static func kind(_ words: [String]) throws -> String {
        switch try Parlor.parse(words) {
        case .bare: "bare"
        case .rootHelp: "help"
        case .version: "version"
        case .help(let spec): "help " + spec.name
        case .groupHelp(let group): "help " + group.name
        case .command(let command): "run " + type(of: command).spec.name
        }
    }

    @Test("what each command line asks for", arguments: [
        ([], "bare"),
        (["--version"], "version"),
        (["--help"], "help"), (["-h"], "help"), (["help"], "help"),
        (["help", "play"], "help play"),
        (["play", "--help"], "help play"),
        (["play", "nosuchgame", "--bogus", "-h"], "help play"),
        (["help", "bench"], "help bench"),
        (["bench", "--help"], "help bench"),
        (["help", "bench", "turns"], "help bench turns"),
        (["bench", "turns", "-h"], "help bench turns"),
        (["games"], "run games"),
    ] as [([String], String)])
    func invocationKind(words: [String], expected: String) throws {
        #expect(try Self.kind(words) == expected)
    }

    @Test("-h after -- is an argument, not a request for help")
    func helpAfterDoubleDash() {
        #expect(usageMessage(["play", "--", "-h"])
                == withRegisteredGames("unknown game '-h'. Known games: connect4, cube4, tictactoe, reversi, dots-and-boxes, chinese-checkers."))
    }

    @Test("the version is the single constant, starting at 0.1.0")
    func version() {
        #expect(ParlorVersion.current == "0.1.0")
    }
}
