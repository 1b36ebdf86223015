@preconcurrency import Glibc  // stdout is a C global
import Foundation
import Games
import NimRules

// nim: Nim on parlor, offline against parlor's bot, on the LAN (watched, resumed), saved and replayed.
let usage = """
    Usage: nim play [--bot]               you (moves like "2 3" on stdin) or a bot, against a bot
           nim host [--port N] [--bot]    host a match on the LAN (port 0: the system picks one)
           nim host --tables N [--port N] host up to N guests at once, each at a table against the bot
           (play, host and join take --random-heaps: three heaps of 1 to 8, dealt by the host's seed,
            or --misere: whoever takes the last one loses; play --misere seats three, you and two bots)
           nim join HOST:PORT [--bot]     join a hosted match of the same variant
           nim watch HOST:PORT            watch a hosted match of the same variant, as a spectator
           nim resume [ID] [--bot]        take an unfinished LAN match saved here back up (either side)
           nim replay FILE|ID             print a saved match's positions
    Your player key and saved matches are kept in $NIM_HOME (default ~/.nim).
    """

/// A mistake on the command line: exit 64 (EX_USAGE), with the usage.
struct UsageError: Error { var message: String }

/// One line a time, also into a pipe, so a script sees each move as it happens.
setvbuf(stdout, nil, _IOLBF, 0)
var arguments = Array(CommandLine.arguments.dropFirst())
let bot = arguments.contains("--bot")
arguments.removeAll { $0 == "--bot" }
let game: any Game.Type = arguments.contains("--random-heaps") ? RandomNim.self : arguments.contains("--misere") ? MisereNim.self : Nim.self
arguments.removeAll { $0 == "--random-heaps" || $0 == "--misere" }
var tables: Int?
if let flag = arguments.firstIndex(of: "--tables") {
    guard arguments.count > flag + 1, let count = Int(arguments[flag + 1]), (1...1000).contains(count) else {
        FileHandle.standardError.write(Data("Error: --tables takes a number from 1 to 1000\n\(usage)\n".utf8))
        exit(64)
    }
    tables = count
    arguments.removeSubrange(flag...(flag + 1))
    if arguments.first != "host" {
        FileHandle.standardError.write(Data("Error: only host takes --tables\n\(usage)\n".utf8))
        exit(64)
    }
}
do {
    try Nim.register()
    try RandomNim.register()
    try MisereNim.register()
    let home = try NimHome(environment: ProcessInfo.processInfo.environment)
    switch (arguments.first, arguments.count) {
    case ("play", 1):
        try await playOffline(game, bot: bot, home: home)
    case ("host", 1), ("host", 3):
        guard arguments.count == 1 || arguments[1] == "--port" else {
            throw UsageError(message: "nim does not understand '\(arguments.joined(separator: " "))'")
        }
        guard let port = arguments.count == 3 ? UInt16(arguments[2]) : 7477 else {
            throw UsageError(message: "--port takes a number from 0 to 65535")
        }
        if let tables {
            try await hostTables(game, port: port, tables: tables, home: home)
        } else {
            try await hostMatch(game, port: port, bot: bot, home: home)
        }
    case ("join", 2):
        let parts = arguments[1].split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw UsageError(message: "join takes HOST:PORT, e.g. 192.168.1.20:7477") }
        try await joinMatch(game, host: String(parts[0]), port: port, bot: bot, home: home)
    case ("watch", 2):
        let parts = arguments[1].split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw UsageError(message: "watch takes HOST:PORT, e.g. 192.168.1.20:7477") }
        try await watchMatch(game, host: String(parts[0]), port: port, home: home)
    case ("resume", 1), ("resume", 2):
        try await resumeMatch(arguments.count == 2 ? arguments[1] : nil, bot: bot, home: home)
    case ("replay", 2):
        try replay(arguments[1], home: home)
    default:
        throw UsageError(message: arguments.isEmpty ? "nim needs a command" : "nim does not understand '\(arguments.joined(separator: " "))'")
    }
} catch let error as UsageError {
    FileHandle.standardError.write(Data("Error: \(error.message)\n\(usage)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
