import Foundation
import Games
import ParlorTestSupport
import Testing
@testable import ParlorCLI

/// The settings file: `key = value` lines, defaults that flags win over, and
/// a bad line that names the file and the line.
@Suite("Settings that stick")
struct SettingsTests {
    static func parse(_ text: String) throws(SettingsError) -> Settings { try Settings.parse(text, path: "/home/ana/.config/parlor/config") }

    @Test("every key reads, comments and blank lines are skipped, quotes keep a '#'")
    func everyKey() throws {
        let settings = try Self.parse("""
            # defaults
            name = Ana   # shown to others

            color = no
            ascii=yes
            bell = on
            bot = HARD
            port = 7600
            """)
        #expect(settings.name == "Ana" && settings.color == false && settings.ascii == true && settings.bell == true)
        #expect(settings.bot == .hard && settings.port == 7600)
        #expect(try Self.parse("name = \"Ana #1\" # quoted").name == "Ana #1")
        #expect(try Self.parse("") == Settings())
    }

    @Test("a bad line is an error naming the file and the line, in one sentence", arguments: [
        ("name = Ana\ncolour yes", "line 2: 'colour yes' is not 'key = value'"),
        ("nmae = Ana", "line 1: unknown key 'nmae' (did you mean 'name'?); the keys are name, color, ascii, bell, bot, port"),
        ("\n\nbell = maybe", "line 3: 'maybe' for bell is not yes or no"),
        ("bot = extreme", "line 1: 'extreme' for bot is not easy, medium or hard"),
        ("port = 99999", "line 1: '99999' for port is not a whole number from 1 to 65535"),
        ("name = \"Ana", "line 1: the value of name has no closing '\"'"),
    ])
    func badLine(text: String, expected: String) throws {
        #expect(throws: SettingsError.self) { try Self.parse(text) }
        do { _ = try Self.parse(text) } catch {
            #expect(error.message.hasPrefix("the settings file /home/ana/.config/parlor/config, " + expected), "\(error.message)")
            #expect(error.message.hasSuffix("; fix it, or see FILES in 'man parlor'"))
            #expect(error.exitCode == .usage)
        }
    }

    @Test("the file is $XDG_CONFIG_HOME/parlor/config, else ~/.config/parlor/config")
    func path() {
        #expect(Settings.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/parlor/config")
        #expect(Settings.path(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/parlor/config")
        #expect(Settings.path(environment: [:]) == nil)
    }

    @Test("the settings are defaults: flags win over them")
    func flagsWin() throws {
        var settings = Settings()
        settings.name = "Ana"
        settings.bot = .easy
        settings.port = 7600
        settings.ascii = true
        settings.color = false
        settings.bell = true
        func play(_ words: [String]) throws -> PlayOptions {
            guard case .command(let command) = try Parlor.parse(["play", "connect4"] + words, settings: settings),
                  let options = command as? PlayOptions else { throw ParseTestError.notACommand }
            return options
        }
        #expect(try play([]).name == "Ana")
        #expect(try play(["--name", "Bo"]).name == "Bo")
        #expect(try play([]).opponents == [.bot(.easy)])
        #expect(try play(["--vs", "bot"]).opponents == [.bot(.easy)])
        #expect(try play(["--vs", "bot:hard"]).opponents == [.bot(.hard)])
        let display = try play([]).display
        #expect(display.ascii && display.noColor && display.bell)
        guard case .command(let command) = try Parlor.parse(["host", "connect4"], settings: settings),
              let host = command as? HostOptions else { throw ParseTestError.notACommand }
        #expect(host.preferredPort == 7600 && host.port == nil && host.name == "Ana")
        guard case .command(let exact) = try Parlor.parse(["host", "connect4", "--port", "7000"], settings: settings),
              let given = exact as? HostOptions else { throw ParseTestError.notACommand }
        #expect(given.port == 7000)
        guard case .command(let joinCommand) = try Parlor.parse(["join", "h:1", "--bot", "easy"], settings: settings),
              let join = joinCommand as? JoinOptions else { throw ParseTestError.notACommand }
        #expect(join.nameChosen && join.name == "Ana")
        // Without settings, play's default opponent is a medium bot and no name is chosen.
        let plain = try parsed(["play", "connect4"], as: PlayOptions.self)
        #expect(plain.name == nil && plain.opponents == [.bot(.medium)])
    }

    @Test("the man page's FILES section lists every key")
    func manPageListsEveryKey() throws {
        let files = try ManPage.load().section("FILES").joined(separator: "\n")
        #expect(files.contains(".It Pa ~/.config/parlor/config"))
        for key in Settings.keys { #expect(files.contains(".It Cm \(key) No = "), "FILES does not list \(key)") }
        let environment = try ManPage.load().section("ENVIRONMENT").joined(separator: "\n")
        #expect(environment.contains(".It Ev XDG_CONFIG_HOME"))
    }
}

/// The settings file and names, with the real binary.
@Suite("Settings and names with the real binary", .serialized)
struct SettingsEndToEndTests {
    /// A scratch data home and a config home holding `config`.
    static func environment(config: String) throws -> [String: String] {
        var environment = scratchDataHome()
        let home = NSTemporaryDirectory() + "parlor-config-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home + "/parlor", withIntermediateDirectories: true)
        try config.write(toFile: home + "/parlor/config", atomically: true, encoding: .utf8)
        environment["XDG_CONFIG_HOME"] = home
        return environment
    }

    @Test("play takes the name and the bot level from the settings file, and --name wins over it")
    func playUsesSettings() async throws {
        let environment = try Self.environment(config: "name = Zed\nbot = easy\n")
        let fromFile = try await ParlorProcess.run(["play", "connect4", "--plain"], stdin: "", environment: environment, timeout: .seconds(30))
        #expect(fromFile.stdout.hasPrefix("Connect Four: Zed (X) vs Easy bot (O)\n"), "\(fromFile.stdout)\(fromFile.stderr)")
        let flag = try await ParlorProcess.run(["play", "connect4", "--plain", "--name", "Ann", "--vs", "bot:hard"], stdin: "",
                                               environment: environment, timeout: .seconds(30))
        #expect(flag.stdout.hasPrefix("Connect Four: Ann (X) vs Hard bot (O)\n"), "\(flag.stdout)\(flag.stderr)")
    }

    @Test("a bad line stops the command with 64 and names the file and line; help still works")
    func badLine() async throws {
        let environment = try Self.environment(config: "name = Ana\nport = lots\n")
        let path = try #require(environment["XDG_CONFIG_HOME"]) + "/parlor/config"
        let result = try await ParlorProcess.run(["play", "connect4", "--plain"], stdin: "", environment: environment, timeout: .seconds(30))
        #expect(result.status == 64)
        #expect(result.stderr == "Error: the settings file \(path), line 2: 'lots' for port is not a whole number from 1 to 65535; fix it, or see FILES in 'man parlor'\n",
                "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let help = try await ParlorProcess.run(["play", "--help"], environment: environment, timeout: .seconds(30))
        #expect(help.status == 0 && help.stderr.isEmpty)
    }

    @Test("a hot seat is the player's name and Player 2, and the full screen does not mark both as (you)")
    func hotSeatNames() async throws {
        let result = try await ParlorProcess.run(["play", "tictactoe", "--vs", "human", "--plain", "--name", "Ana"], stdin: "1\n4\n2\n5\n3\n",
                                                 environment: scratchDataHome(), timeout: .seconds(30))
        #expect(result.stdout.hasPrefix("Tic-tac-toe: Ana (X) vs Player 2 (O)\n"), "\(result.stdout)")
        #expect(result.stdout.contains("Ana (X) wins."))
    }

    @Test("host takes its port from the settings file; join --bot --name plays as that name; a cube4 host is \"Ana's Cube Four\"")
    func hostPortAndJoinName() async throws {
        let port = freePort()
        let environment = try Self.environment(config: "port = \(port)\nname = Ana\n")
        let host = try SpawnedParlor(["host", "cube4", "--bot", "easy", "--json"], environment: environment)
        let listening = try #require(await host.line(containing: "\"listening\""), "\(host.transcript)")
        let event = try #require(jsonEvents(listening).first)
        #expect(event["port"] as? Int == Int(port), "\(listening)")
        if let service = event["service"] as? String { #expect(service == "Ana's Cube Four", "\(listening)") }
        #expect(LAN.hostedGame(Cube4.self, host: "Ana").serviceName == "Ana's Cube Four")
        let guest = try await ParlorProcess.run(["join", "127.0.0.1:\(port)", "--bot", "easy", "--name", "Xan", "--json"],
                                                environment: scratchDataHome(), timeout: .seconds(120))
        #expect(guest.status == 0, "\(guest.stderr)")
        _ = await host.wait(timeout: .seconds(30))
        let joined = jsonEvents(host.output).first { $0["event"] as? String == "joined" }
        #expect(joined?["name"] as? String == "Xan", "\(host.transcript)")
    }
}
