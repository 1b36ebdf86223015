import Testing
@testable import ParlorCLI
@preconcurrency import Glibc
import ParlorTestSupport
import TerminalUI

@Suite("JoinTarget: addresses, names and bad ports")
struct JoinTargetTests {
    @Test("addresses", arguments: [
        ("127.0.0.1:7477", "127.0.0.1", 7477),
        ("[::1]:7477", "::1", 7477),
        ("[fe80::1%eth0]:7477", "fe80::1%eth0", 7477),
        ("localhost:7477", "localhost", 7477),
        ("game-box.local:1", "game-box.local", 1),
        ("10.0.0.2:65535", "10.0.0.2", 65535),
        ("192.168.1.5", "192.168.1.5", 7477),
        ("[::1]", "::1", 7477),
        ("[fe80::1%eth0]", "fe80::1%eth0", 7477),
    ] as [(String, String, Int)])
    func address(text: String, host: String, port: Int) throws {
        #expect(try JoinTarget(parsing: text) == .address(host: host, port: UInt16(port)))
    }

    @Test("names, exact or prefix, are passed on as typed", arguments: [
        "Ana's Connect Four", "Ana", "localhost", "Game: round 2", "Zoë's Tic-tac-toe", "a:b:c d",
    ])
    func name(text: String) throws {
        #expect(try JoinTarget(parsing: text) == .name(text))
    }

    @Test("refused targets and why", arguments: [
        ("localhost:0", JoinTargetProblem.badPort),
        ("localhost:65536", .badPort),
        ("localhost:99999", .badPort),
        ("localhost:", .badPort),
        ("localhost:http", .badPort),
        ("127.0.0.1:-1", .badPort),
        ("127.0.0.1:+80", .badPort),
        ("[::1]:0", .badPort),
        ("[::1]:", .badPort),
        ("[::1]:abc", .badPort),
        ("::1", .unbracketedIPv6),
        ("fe80::1:7477", .unbracketedIPv6),
        ("[::1", .badAddress),
        ("[not-an-address]:7477", .badAddress),
        ("[::1]7477", .badAddress),
        ("[fe80::1%]:7477", .badAddress),
        ("300.1.1.1:7477", .badAddress),
        ("", .empty),
        ("   ", .empty),
        ("Ana\n", .unprintable),
        (String(repeating: "é", count: 32), .nameTooLong),
    ] as [(String, JoinTargetProblem)])
    func refused(text: String, problem: JoinTargetProblem) {
        #expect(throws: problem) { try JoinTarget(parsing: text) }
    }

    @Test("a target prints as it would be typed again")
    func description() throws {
        #expect(try JoinTarget(parsing: "[fe80::1%eth0]:7477").description == "[fe80::1%eth0]:7477")
        #expect(try JoinTarget(parsing: "127.0.0.1:7477").description == "127.0.0.1:7477")
        #expect(try JoinTarget(parsing: "Ana's game").description == "Ana's game")
    }
}

@Suite("Player names")
struct PlayerNameTests {
    @Test("the default name is the login name, capitalised", arguments: [
        (["USER": "ana"], "Ana"),
        (["USER": "émile"], "Émile"),
        (["USER": "Bob"], "Bob"),
        (["LOGNAME": "carol"], "Carol"),
        (["USER": "", "LOGNAME": "dave"], "Dave"),
        ([:], "Player"),
        (["USER": String(repeating: "x", count: 40)], "Player"),
        (["USER": "a\u{7}b"], "Player"),
    ] as [([String: String], String)])
    func defaultName(environment: [String: String], expected: String) {
        #expect(PlayerName.defaultName(environment: environment) == expected)
    }

    @Test("valid names are trimmed and kept", arguments: [
        ("Ana", "Ana"), ("  Ana  ", "Ana"), ("Zoë", "Zoë"), ("👩‍👩‍👧", "👩‍👩‍👧"),
        (String(repeating: "x", count: 32), String(repeating: "x", count: 32)),
    ])
    func valid(text: String, expected: String) throws {
        #expect(try PlayerName.validated(text) == expected)
    }

    @Test("invalid names", arguments: [
        ("", PlayerNameProblem.empty), ("   ", .empty),
        (String(repeating: "x", count: 33), .tooLong),
        (String(repeating: "👩‍👩‍👧", count: 12), .tooManyBytes),
        ("Ana\tB", .unprintable), ("A\u{0}", .unprintable), ("A\u{85}B", .unprintable),
        ("A\u{2028}B", .unprintable), ("\u{202E}anA", .unprintable), ("A\u{2066}B", .unprintable),
    ] as [(String, PlayerNameProblem)])
    func invalid(text: String, problem: PlayerNameProblem) {
        #expect(throws: problem) { try PlayerName.validated(text) }
    }
}

@Suite("Passcodes, match ids, opponents, colour")
struct OtherValueTests {
    @Test("the passcode prompt names the game when it is known, and the address only when it is not")
    func passcodePrompt() {
        #expect(PasscodeQuestion(game: "Ana's Connect Four", address: "192.0.2.7:7477").prompt == "Passcode for \"Ana's Connect Four\": ")
        #expect(PasscodeQuestion(game: nil, address: "192.0.2.7:7477").prompt == "Passcode for the game at 192.0.2.7:7477: ")
        // An advertised name is someone else's text: nothing in it reaches the terminal raw.
        #expect(PasscodeQuestion(game: "Eve\u{1B}[2J", address: "192.0.2.7:7477").prompt == "Passcode for \"Eve\\u{1B}[2J\": ")
        #expect(PasscodeQuestion.tries == 3)
    }

    @Test("a refused join says the host's sentence, never the reason's name; busy is worth trying again later (75)")
    func joinRefusals() {
        let busy = JoinFailure(error: .rejected(.busy, "Too many passcodes are waiting to be checked; try again in a moment."))
        #expect(busy.exitCode == .temporaryFailure)
        #expect(busy.message == "could not join: the host refused: Too many passcodes are waiting to be checked; try again in a moment.")
        let wrong = JoinFailure(error: .rejected(.passcodeWrong, "That passcode is wrong."), wrongTries: 3)
        #expect(wrong.exitCode == .failure)
        #expect(wrong.message == "could not join: the host refused the passcode 3 times; check the code with the host and join again")
        let full = JoinFailure(error: .rejected(.matchFull, "The match on this host already has its players."))
        #expect(full.message == "could not join: the host refused: The match on this host already has its players.")
    }

    @Test("passcodes", arguments: [
        ("ab12", nil), ("AB-12-cd", nil), (String(repeating: "a", count: 32), nil),
        ("abc", PasscodeProblem.tooShort), ("", .tooShort), (String(repeating: "a", count: 33), .tooLong),
        ("ab 12", .badCharacter), ("äb12", .badCharacter), ("ab_12", .badCharacter),
    ] as [(String, PasscodeProblem?)])
    func passcode(text: String, problem: PasscodeProblem?) {
        if let problem {
            #expect(throws: problem) { try Passcode.validated(text) }
        } else {
            #expect(throws: Never.self) { try Passcode.validated(text) }
        }
    }

    @Test("match ids", arguments: [
        ("a1", true), ("2026-11-29_x", true), (String(repeating: "a", count: 64), true),
        ("", false), ("a b", false), ("a/b", false), ("../x", false), (String(repeating: "a", count: 65), false),
    ])
    func matchID(text: String, valid: Bool) {
        #expect(MatchIDText.isValid(text) == valid)
    }

    @Test("--vs spellings", arguments: [
        ("bot", Opponent.bot(.medium)), ("bot:easy", .bot(.easy)), ("BOT:Hard", .bot(.hard)), ("human", .human),
        ("friend", .human), ("Friend", .human), ("easy", .bot(.easy)), ("HARD", .bot(.hard)),
        ("bot:", nil), ("bots", nil), ("bot:expert", nil), ("", nil), ("expert", nil), ("friends", nil),
    ] as [(String, Opponent?)])
    func opponent(text: String, expected: Opponent?) {
        #expect(Opponent(parsing: text) == expected)
    }

    @Test("colour is off with --no-color or a non-empty NO_COLOR")
    func color() {
        #expect(DisplayFlags().colorAllowed(environment: [:]))
        #expect(DisplayFlags().colorAllowed(environment: ["NO_COLOR": ""]))
        #expect(!DisplayFlags().colorAllowed(environment: ["NO_COLOR": "1"]))
        #expect(!DisplayFlags(noColor: true).colorAllowed(environment: [:]))
    }

    @Test("exit codes have the documented values")
    func exitCodes() {
        let values: [ExitCode: Int32] = [
            .success: 0, .failure: 1, .usage: 64, .dataError: 65, .serviceUnavailable: 69,
            .internalError: 70, .ioError: 74, .temporaryFailure: 75, .hangUp: 129, .interrupted: 130, .terminated: 143,
        ]
        #expect(ExitCode.allCases.count == values.count)
        for (code, value) in values { #expect(code.rawValue == value) }
    }

    @Test("how a match ended gives the exit status the man page documents", arguments: [
        (FrontendExit.ended(MatchFixtures.newMatch()), Int32(0)),
        (.left(MatchFixtures.newMatch()), 0),
        (.failed(.connectionLost("gone"), MatchFixtures.newMatch()), 75),
        (.failed(.desync("two states"), MatchFixtures.newMatch()), 1),
        (.terminalLost(MatchFixtures.newMatch()), 129),
        (.inputEnded(MatchFixtures.newMatch()), 75),
        (.interrupted(signal: SIGHUP, MatchFixtures.newMatch()), 129),
        (.interrupted(signal: SIGINT, MatchFixtures.newMatch()), 130),
        (.interrupted(signal: SIGTERM, MatchFixtures.newMatch()), 143),
    ])
    func matchExitStatus(_ exit: FrontendExit, _ status: Int32) {
        #expect(exit.exitCode.rawValue == status)
    }
}
