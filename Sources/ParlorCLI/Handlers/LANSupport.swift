import Discovery
import Foundation
import Games
import Match
import ParlorKit
import Session
import Synchronization
import TerminalUI

/// Lines a command prints before a match, where scripts expect them.
///
/// In JSON mode each is a JSON object on stdout; otherwise text on stdout
/// (before any full-screen drawing starts).
struct Announcer {
    let json: Bool
    /// Where the text goes instead of stdout (the lobby's desk owns the screen); nil: stdout.
    var sink: (@Sendable (String) -> Void)? = nil

    func say(_ text: String, event: JSONValue? = nil) {
        if let sink {
            if !text.isEmpty { sink(text) }
        } else if json {
            if let event { Console.write(event.encoded + "\n") }
        } else if let columns = Terminal(output: STDOUT_FILENO).size()?.columns {
            // A terminal would break a long line mid-word ("r / unning"): break it at spaces instead.
            Console.write(ScreenText.wrap(text, to: columns).joined(separator: "\n") + "\n")
        } else {
            Console.write(text + "\n")
        }
        fflush(nil)  // the frontends write to fd 1 directly: keep the order
    }
}

/// Everything about finding and reaching peers that several commands share.
enum LAN {
    /// The commands that reach a host on `port`: `COMMAND ADDRESS:PORT` for
    /// each address of this machine that is up (`lan`), and localhost's
    /// (`here`), each followed by `arguments`.
    static func commands(_ command: String, port: UInt16, arguments: String = "") -> (lan: [String], here: String) {
        let addresses = (try? InterfaceAddresses.nonLoopback()) ?? []
        let lan = addresses.filter(\.isUp).map { "\(command) \($0.endpoint(port: port))" + arguments }
        return (lan, "\(command) localhost:\(port)" + arguments)
    }

    /// `parlor join` commands for a host on `port`, each with `--code` when there is a
    /// passcode, so the host can read any one aloud or paste it.
    static func joinCommands(port: UInt16, passcode: String?) -> (lan: [String], here: String) {
        commands("parlor join", port: port, arguments: codeArgument(passcode))
    }

    /// ` --code CODE` for a join command line, or nothing without a passcode.
    static func codeArgument(_ passcode: String?) -> String {
        passcode.map { " --code \($0)" } ?? ""
    }

    /// Says `commands` under "Players can join with:".
    static func sayJoinCommands(_ commands: (lan: [String], here: String), with announcer: Announcer) {
        announcer.say("Players can join with:")
        sayCommands(commands, with: announcer)
    }

    /// Says `commands`, one a line, localhost's marked as for this machine.
    static func sayCommands(_ commands: (lan: [String], here: String), with announcer: Announcer) {
        for line in commands.lan { announcer.say("  " + line) }
        announcer.say("  \(commands.here)   (on this machine)")
    }

    /// This machine's host name, for the ssh -L hint.
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "THIS-HOST" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map(UInt8.init(bitPattern:)), as: UTF8.self)
    }

    /// The `ssh -L` line that reaches this host through a jump host.
    static func sshHint(port: UInt16) -> String {
        "ssh -L \(port):localhost:\(port) \(hostName)   # then, on your machine: parlor join localhost:\(port)"
    }

    /// What the LAN's lists show of a game this parlor hosts (Discovery's `HostedGame`).
    /// TXT `pv` is 3 (protocol 3, section 20), so an older parlor lists the game as needing an update
    /// instead of trying it; a host that admits clear guests (`allowsClear`, `--allow-unencrypted`) keeps
    /// what protocol 2 advertised: pv=2 for a table of 3+ seats, 1 for two, so older parlors still join.
    /// TXT `key` carries the start of the host's key fingerprint, so lists can mark a player already known.
    static func hostedGame(_ game: any Game.Type, host: String, seatsTotal: Int = 2, needsCode: Bool = false, hints: Bool = false,
                           allowsClear: Bool = false) -> HostedGame {
        Listing.hostedGame(game, host: host, seatsTotal: seatsTotal, encrypted: !allowsClear, needsCode: needsCode, hints: hints,
                           appVersion: ParlorVersion.current, hostKey: (try? PlayerKey.current())?.fingerprint.short)
    }

    /// `info` with what spectators need to know (TXT `watch` and `wcode`, docs/PROTOCOL.md section 17).
    static func watched(_ info: ParlorServiceInfo, by host: MatchHost) -> ParlorServiceInfo {
        var info = info
        info.spectators = (host.spectators.count, host.spectators.limit)
        info.watchNeedsPasscode = host.spectatorsNeedPasscode
        return info
    }

    /// What to tell someone whose DNS-SD is not working.
    static func discoveryAdvice(_ error: DiscoveryError) -> String {
        "\(error)"
    }

    /// Session timeouts from `--heartbeat-timeout` and `--grace`.
    static func sessionTimeouts(_ flags: ConnectionTimeouts) -> SessionTimeouts {
        var timeouts = SessionTimeouts()
        if let heartbeat = flags.heartbeatTimeout { timeouts.heartbeatTimeout = heartbeat }
        if let grace = flags.grace { timeouts.grace = grace }
        return timeouts
    }
}

/// A connection failure as the user reads it.
struct ConnectFailure: UserFacingError {
    let target: String
    let error: any Error
    var exitCode: ExitCode {
        if let net = error as? NetError, case .connectFailed = net, net.connectFailure.map({ if case .refused = $0 { true } else { false } }) == true {
            return .failure
        }
        return .temporaryFailure
    }
    var message: String {
        guard let net = error as? NetError else { return "could not connect to \(target): \(error)" }
        return net.connectSentence(target: target)
    }
}

/// A refused or failed handshake as the user reads it; a REJECT is final (no retry).
struct JoinFailure: UserFacingError {
    let error: JoinError
    /// Wrong codes refused in this join (typed at the prompt, or given with --code).
    var wrongTries = 1
    /// The refused handshake was `parlor watch`'s: the sentences say watch, not join.
    var watching = false
    /// "join" or "watch", as the sentences use it.
    private var verb: String { watching ? "watch" : "join" }
    var exitCode: ExitCode {
        switch error {
        case .timedOut, .connectionClosed: .temporaryFailure
        // Too many joins at once, or no place for a passcode to wait its turn: later may work.
        case .rejected(.busy, _): .temporaryFailure
        case .passcodeNeeded: .usage
        default: .failure
        }
    }
    var message: String {
        switch error {
        case .rejected(.passcodeWrong, _) where wrongTries > 1:
            "could not \(verb): the host refused the passcode \(wrongTries) times; check the code with the host and \(verb) again"
        case .rejected(.passcodeWrong, _):
            "could not \(verb): the host refused the passcode; check the code with the host and \(verb) again"
        case .rejected(.passcodeRequired, _), .passcodeNeeded:
            "could not \(verb): the host needs a passcode; \(verb) with --code CODE"
        case .rejected(let reason, let sentence):
            // The host's own sentence; a known reason's name is for logs and --json, not for people,
            // but a code this version does not know is shown by number (section 6).
            "could not \(verb): the host refused: \(reason.shown(with: sentence))"
        case .notAParlorHost(.unsupportedVersion(let version)):
            "could not \(verb): the host speaks protocol version \(version), which this parlor does not; use the same parlor release on both machines"
        case .notAParlorHost(.badMagic(let bytes)):
            "could not \(verb): what answered there is not a parlor host (it sent \(Self.shown(bytes))); check the address and the port"
        case .notAParlorHost:
            "could not \(verb): what answered there is not a parlor host; check the address and the port"
        default:
            "could not \(verb): \(error)"
        }
    }
}

extension JoinFailure {
    /// The first bytes a non-parlor peer sent: as text when printable ("HTTP/1.1"), else in hex.
    static func shown(_ bytes: [UInt8]) -> String {
        if !bytes.isEmpty, bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) { return "\"\(String(decoding: bytes, as: UTF8.self))\"" }
        return "the bytes " + bytes.hexString
    }
}

extension LAN {
    /// What stderr says when a game is not on the LAN's lists at the start:
    /// why, and (while it is being tried again) that it will be said when it is.
    static func notListedLine(_ listing: HostedListing) -> String {
        let why = listing.problem.map(discoveryAdvice) ?? "unknown error"
        guard listing.isPending else { return "parlor: not advertised on the LAN: \(why)\n" }
        return "parlor: not advertised on the LAN yet: \(why)\n"
            + "parlor: trying again in the background; the game is listed as soon as avahi-daemon answers.\n"
    }

    /// Says "Listed on the LAN as …" (JSON `listed`) once a pending listing
    /// is listed, and calls `then` with its name; nil when it is not pending.
    static func sayWhenListed(_ listing: HostedListing, with announcer: Announcer,
                              then: (@Sendable (String) -> Void)? = nil) -> Task<Void, Never>? {
        guard listing.isPending else { return nil }
        return Task {
            for await name in listing.listedLater {
                announcer.say("Listed on the LAN as \"\(name)\" now.", event: JSONEvents.listed(service: name))
                then?(name)
            }
            if let problem = listing.laterProblem {
                Console.writeError("parlor: stopped trying to advertise on the LAN: \(discoveryAdvice(problem))\n")
            }
        }
    }
}

/// A hosted game's advertisement, withdrawn explicitly on every way out.
///
/// A `defer { Task { await advertisement.withdraw() } }` never ran: the
/// process exits before the task is scheduled. The host's run awaits
/// `withdraw()` on each way out (end of the match or series, q, the signals
/// a frontend turns into an exit, and errors), and while waiting for a guest,
/// when no frontend watches signals, SIGINT, SIGTERM and SIGHUP withdraw it
/// and then end the process with the status the signal stands for.
/// avahi-daemon then says goodbye on the LAN, and other hosts' browsers drop
/// the game.
struct LANListing {
    let advertisement: (any ServiceAdvertisement)?

    /// Keeps `advertisement`; it counts as this process's own (`OwnListings`) until it is withdrawn.
    init(advertisement: (any ServiceAdvertisement)?) {
        self.advertisement = advertisement
        if let advertisement { OwnListings.add(advertisement) }
    }

    /// Withdraws the listing and waits until the daemon has been told; later calls do nothing.
    func withdraw() async {
        if let advertisement { OwnListings.remove(advertisement) }
        await advertisement?.withdraw()
    }

    /// Waits for `host`'s guest while SIGINT, SIGTERM and SIGHUP withdraw the
    /// listing and end the process; stops watching them before returning, so
    /// the frontend can watch them next. A failure withdraws the listing and
    /// is thrown as the user reads it.
    func waitForGuest(of host: MatchHost, watchingSignals: Bool = true) async throws -> HostedMatch {
        // At the lobby's desk the lobby watches the signals (a second watcher would take them from it).
        let signals = watchingSignals ? withdrawOnSignal() : nil
        defer { signals?.cancel() }
        do { return try await host.waitForGuest() } catch {
            await withdraw()
            if case .cannotSave = error { throw CommandFailure("\(error)", exitCode: .ioError) }
            throw CommandFailure("\(error)")
        }
    }

    /// Watches SIGINT, SIGTERM and SIGHUP until cancelled: each withdraws the
    /// listing, then exits with the signal's status.
    private func withdrawOnSignal() -> SignalWatcher? {
        guard let advertisement else { return nil }
        return SignalWatcher(signals: SignalWatcher.terminating) { number in
            Task {
                await advertisement.withdraw()
                exit(ExitCode(endedBy: number).rawValue)
            }
        }
    }
}

/// What this process advertises on the LAN, so that the lobby never offers
/// to join a game hosted here (it would seat you against yourself).
///
/// It keeps the advertisements, not their names: a listing still being tried
/// again (`RetryingAdvertisement`) is listed later, perhaps as "… #2" after a
/// clash, and `names` says whatever each is listed under when it is read.
enum OwnListings {
    private static let advertisements = Mutex<[ObjectIdentifier: any ServiceAdvertisement]>([:])

    /// Counts `advertisement` as this process's own until `remove(_:)`.
    static func add(_ advertisement: any ServiceAdvertisement) {
        advertisements.withLock { $0[ObjectIdentifier(advertisement)] = advertisement }
    }

    /// Stops counting `advertisement` (it is being withdrawn).
    static func remove(_ advertisement: any ServiceAdvertisement) {
        advertisements.withLock { $0[ObjectIdentifier(advertisement)] = nil }
    }

    /// The names this process's games are listed under now; none for a listing not listed yet.
    static var names: Set<String> {
        let kept: [any ServiceAdvertisement] = advertisements.withLock { Array($0.values) }
        return Set(kept.compactMap { $0.listedName })
    }
}
